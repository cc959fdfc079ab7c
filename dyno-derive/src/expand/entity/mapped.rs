//! Indexes keyed by fields (`index(GSI3, pk = [tenant, status], sk = [priority, created])`):
//! each field, stored under its own attribute, is one attribute of the index's (multi-attribute)
//! key. Nothing is written for the index besides the fields themselves, so an update of a field
//! moves the item in the index, and an item whose optional field is `None` is not in it (sparse).
//!
//! Generated: compile-time checks against the table's declaration (as many fields as key
//! attributes, each stored under the attribute's name, its type stored as the attribute's
//! scalar type), the query constructor (`Issue::gsi3(tenant, status)`, every partition field
//! required) and one accessor per sort field (`.priority()`, conditions left to right).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::super::{query, respan};
use super::Gen;
use crate::ast::{EntityIndex, MappedKey};
use crate::case;

impl Gen<'_> {
    /// The entity's indexes keyed by fields, with their field lists.
    fn mapped(&self) -> impl Iterator<Item = (&EntityIndex, &MappedKey)> {
        self.m
            .indexes
            .iter()
            .filter_map(|i| i.fields.as_ref().map(|f| (i, f)))
    }

    /// The call of the table's macro (see `expand/index_stubs.rs`) with the entity and its
    /// indexes: methods for the table's other indexes, which say that the entity has no key
    /// there.
    pub(super) fn index_callback(&self) -> TokenStream {
        let table = &self.table;
        let ident = self.ident;
        // `"GSI1"`, or `"GSI1" = "by_status"` for an index whose query is named.
        let names = self.m.indexes.iter().map(|i| {
            let name = &i.name;
            match &i.query {
                Some(q) => quote!(#name = #q),
                None => quote!(#name),
            }
        });
        quote!(#table!(#ident [#(#names),*]);)
    }

    /// The builder aliases (beside the entity) and the checks, constructors and accessors
    /// (inside the `const _`) of every index keyed by fields; nothing for an entity without one.
    pub(super) fn mapped_indexes(&self) -> (TokenStream, TokenStream) {
        let (mut defs, mut impls) = (TokenStream::new(), TokenStream::new());
        for (n, (decl, mapped)) in self.mapped().enumerate() {
            let (d, i) = self.mapped_index(self.indexes.len() + 1 + n, n, decl, mapped);
            defs.extend(d);
            impls.extend(i);
        }
        (defs, impls)
    }

    fn mapped_index(
        &self,
        ix: usize,
        n: usize,
        decl: &EntityIndex,
        mapped: &MappedKey,
    ) -> (TokenStream, TokenStream) {
        let p = &self.p;
        let ident = self.ident;
        let vis = self.m.vis;
        let table = &self.table;
        let name = &decl.name;
        let span = decl.span();
        let info = format_ident!("__M{}", n);
        let const_ident = syn::Ident::new(&case::index_const(name), span);
        let mut out = respan(
            quote!(const #info: #p::TableIndex = #table::#const_ident;),
            span,
        );

        // Checks: the key's shape, each field's attribute name and type.
        let table_name = &self.table_name;
        for (sort, list) in [(false, &mapped.partition), (true, &mapped.sort)] {
            let which = if sort { "sort" } else { "partition" };
            let count = list.len();
            let attrs = if sort {
                quote!(sort_attributes)
            } else {
                quote!(partition_attributes)
            };
            let msg = format!("`{ident}` maps {count} field(s) onto the {which} key of index `{name}`, which table `{table_name}` declares with another number of attributes: map one field per attribute, in key order");
            out.extend(respan(
                quote!(const _: () = #p::const_assert(#info.#attrs.len() == #count, #msg);),
                span,
            ));
            for (i, field_ident) in list.iter().enumerate() {
                let field = self.field(&field_ident.unraw().to_string());
                let attr = &field.attr_name;
                let ty = field.ty;
                let position = i + 1;
                let name_msg = format!("field `{field_ident}` is stored as attribute `{attr}`, but {which} attribute {position} of index `{name}` has another name: store the field under the index's attribute name with `#[dyno(rename = \"...\")]`, or list the fields in key order");
                let type_msg = format!("field `{field_ident}` is mapped onto {which} attribute {position} of index `{name}`, whose declared type (S, N or B) is not the one `{}` is stored as: strings and `KeyPart` enums are S, numbers N, `Bytes` B", quote!(#ty).to_string().replace(' ', ""));
                out.extend(respan(
                    quote! {
                        const _: () = #p::const_assert(#count != #info.#attrs.len() || #info.names(#sort, #i, #attr), #name_msg);
                        const _: () = #p::const_assert(#count != #info.#attrs.len() || #info.types(#sort, #i, <#ty as #p::ToAttribute>::SCALAR), #type_msg);
                    },
                    field_ident.span(),
                ));
            }
        }

        // The builder: an alias of the entity's query type for index `ix`.
        let base = format_ident!("{}Query", ident);
        let ty = format_ident!("{}{}Query", ident, case::pascal(name), span = span);
        let list_text = |l: &[syn::Ident]| {
            l.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let key_text = format!(
            "[{}]{}",
            list_text(&mapped.partition),
            if mapped.sort.is_empty() {
                String::new()
            } else {
                format!(", [{}]", list_text(&mapped.sort))
            }
        );
        let doc = format!("A typed query on index `{name}` (`{key_text}`) returning `{ident}`s; built by [`{ident}::{}`].", decl.method());
        // Beside the entity, outside the `const _` where `__d` is defined.
        let full = crate::expand::private();
        let def = quote! {
            #[doc = #doc]
            #vis type #ty<State = #full::Sk<0>, Out = #ident> = #base<#ix, State, #full::Global, Out>;
        };

        // The constructor: every partition field.
        let fields: Vec<String> = mapped
            .partition
            .iter()
            .map(|i| i.unraw().to_string())
            .collect();
        let field_refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        let (args, _) = self.key_params(&field_refs);
        let parts = field_refs.iter().map(|f| {
            let field = self.field(f);
            let (id, attr) = (field.ident, &field.attr_name);
            let arg_ty = self.key_arg_ty(f);
            quote!((#attr, #p::key_attribute::<#arg_ty>(#id, #attr)))
        });
        let method = format_ident!("{}", decl.method(), span = span);
        let ctor_doc = format!("Queries index `{name}` of `{ident}` (`{key_text}`): the partition fields are the arguments; conditions on the sort fields, left to right, are methods of the result.");
        out.extend(quote! {
            #[automatically_derived]
            impl #ident {
                #[doc = #ctor_doc]
                pub fn #method(#(#args),*) -> #ty {
                    <#ty as #p::QueryDsl>::from_query(#p::Query::of_attributes::<#ident>(#info.name, ::std::vec![#(#parts),*]))
                }
            }
        });

        // Reading the index's partition into a collection of the entities mapped onto it.
        let index_id = proc_macro2::Literal::u64_unsuffixed(crate::case::index_id(name));
        let collection_doc = format!("Reads this query's range of index `{name}` into collection `C` (an enum `#[derive(Collection)]` declared with `#[dyno(index = {name})]`): every entity of `C` in it, in index order, each decoded as its own member, with the sort conditions given so far (and those that follow).");
        out.extend(quote! {
            #[automatically_derived]
            impl<State, Kind, Out: #p::FromItem> #base<#ix, State, Kind, Out> {
                #[doc = #collection_doc]
                pub fn collection<C>(self) -> #base<#ix, State, Kind, C>
                where
                    C: #p::FromItem + #p::FilterBy<#ident> + #p::CollectionMember<#ident> + #p::CollectionOn<#index_id>,
                {
                    #base { query: self.query.into_members(), _marker: ::core::marker::PhantomData }
                }
            }
        });

        // One accessor per sort field.
        let sort: Vec<String> = mapped.sort.iter().map(|i| i.unraw().to_string()).collect();
        let sort_refs: Vec<&str> = sort.iter().map(String::as_str).collect();
        let whose = format!("the sort key of index `{name}`");
        out.extend(query::part_accessors(
            self,
            &ty,
            ix,
            &whose,
            &format!("[{}]", sort.join(", ")),
            &sort_refs,
            |_, field, next| {
                let arg_ty = self.key_arg_ty(field);
                let attr = &self.field(field).attr_name;
                (
                    quote!(#p::AttributePart<Self, #arg_ty, #next>),
                    quote!(#p::AttributePart::new(self.query, #attr)),
                )
            },
        ));
        (def, out)
    }
}
