//! `#[derive(Collection)]`: several entities of one partition, read with one query.
//!
//! - on an enum (`enum UserItem { User(User), Order(Order) }`): `FromItem` picks the variant by
//!   each entity's `is_entity`, and `UserItem::query(user_id)` queries the partition;
//! - on a struct of `Option<E>` / `Vec<E>` fields: `UserWithOrders::query(user_id).all(&store)`
//!   reads the partition and groups the items by entity.
//!
//! The partition arguments are those of the first entity's partition key (or the one named by
//! `#[dyno(partition = Entity)]`); all entities must live in the same table.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, Type};

use super::{dummy_const, private};
use crate::ast::{CollectionInput, CollectionShape};
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = CollectionInput::from_ast(cx, input)?;
    crate::check::collection(cx, &model);
    if cx.has_errors() {
        return None;
    }
    let p = private();
    let ident = model.ident;
    let vis = model.vis;
    let variants: Vec<(Ident, &Type)> = match &model.shape {
        CollectionShape::Enum(v) => v.iter().map(|(i, t)| ((*i).clone(), *t)).collect(),
        CollectionShape::Struct(fields) => fields
            .iter()
            .enumerate()
            .map(|(i, f)| (format_ident!("F{}", i), f.entity))
            .collect(),
    };
    let Some((_, first)) = variants.first() else {
        cx.error_spanned_by(ident, "a collection needs at least one entity");
        return None;
    };
    let partition: TokenStream = match &model.partition {
        Some(path) => quote!(#path),
        None => quote!(#first),
    };
    let index = match &model.index {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let index_id = model
        .index
        .as_ref()
        .map_or(0, |n| crate::case::index_id(&n.value()));
    let index_id = proc_macro2::Literal::u64_unsuffixed(index_id);
    let place = model.index.as_ref().map_or_else(
        || "the table".to_owned(),
        |n| format!("index `{}`", n.value()),
    );
    let partition_name = partition.to_string().replace(' ', "");
    let mut checks = TokenStream::new();
    for (i, (_, ty)) in variants.iter().enumerate() {
        let span = ty.span();
        // Without `partition = ..`, the first member is the reference the others are compared
        // with: for it only the check that it has a key in the index says anything.
        let reference = model.partition.is_none() && i == 0;
        let member = quote!(#ty).to_string().replace(' ', "");
        let not_in = format!("`{member}` has no key in {place}, which this collection reads: give it one, or leave it out of the collection");
        // Spanned on the member, the constant assertions' error is reported there. On a
        // multi-attribute index every member keys the index by the same attributes (the
        // table's declaration), so sharing the partition needs no template check.
        checks.extend(super::respan(
            quote! {
                const _: () = #p::const_assert(#p::in_index::<#ty>(#index) || #p::in_mapped_index::<#ty>(#index), #not_in);
            },
            span,
        ));
        if reference {
            continue;
        }
        let other_partition = format!("`{member}` does not share `{partition_name}`'s partition in {place}: their partition key templates differ, so one query cannot read both");
        let mixed = format!("`{member}` and `{partition_name}` key {place} differently (one maps fields onto its attributes, the other writes templates), so one query cannot read both");
        checks.extend(quote_spanned! {span=>
            const _: fn() = #p::assert_same_table::<#partition, #ty>;
        });
        checks.extend(super::respan(
            quote! {
                const _: () = #p::const_assert(!#p::in_index::<#ty>(#index) || #p::same_partition::<#partition, #ty>(#index), #other_partition);
                const _: () = #p::const_assert(!(#p::in_index::<#ty>(#index) || #p::in_mapped_index::<#ty>(#index)) || #p::in_mapped_index::<#ty>(#index) == #p::in_mapped_index::<#partition>(#index), #mixed);
            },
            span,
        ));
    }

    // The item type the query decodes: the enum itself, or a hidden enum for the struct shape.
    let (item_ty, item_def) = match &model.shape {
        CollectionShape::Enum(_) => (ident.clone(), TokenStream::new()),
        CollectionShape::Struct(_) => {
            let hidden = format_ident!("__Dyno{}Item", ident);
            let vs = variants.iter().map(|(v, t)| quote!(#v(#t)));
            let def = quote! {
                #[doc(hidden)]
                #[allow(non_camel_case_types, missing_debug_implementations)]
                #vis enum #hidden { #(#vs),* }
            };
            (hidden, def)
        }
    };
    let names = variants
        .iter()
        .map(|(_, t)| quote!(#t).to_string().replace(' ', ""))
        .collect::<Vec<_>>()
        .join(", ");
    let expected = format!("an item of one of {names}");
    let accepts = variants
        .iter()
        .map(|(_, t)| quote!(<#t as #p::FromItem>::accepts(item)));
    let decode = variants.iter().map(|(v, t)| {
        quote! {
            if <#t as #p::FromItem>::accepts(item) {
                return <#t as #p::FromItem>::from_item(item).map(#item_ty::#v);
            }
        }
    });
    let members = variants.iter().map(
        |(_, t)| quote!(impl #p::FilterBy<#t> for #item_ty {} impl #p::CollectionMember<#t> for #item_ty {}),
    );
    // An enum collection is what a multi-attribute index's `.collection::<C>()` reads into.
    let on_index = match &model.shape {
        CollectionShape::Enum(_) => {
            quote!(#[automatically_derived] impl #p::CollectionOn<#index_id> for #item_ty {})
        }
        CollectionShape::Struct(_) => TokenStream::new(),
    };
    let from_item = quote! {
        #[automatically_derived]
        impl #p::FromItem for #item_ty {
            fn accepts(item: &#p::Item) -> bool {
                #(#accepts)||*
            }
            fn ttl_attribute() -> ::core::option::Option<&'static str> {
                <#partition as #p::FromItem>::ttl_attribute()
            }
            fn from_item(item: &#p::Item) -> #p::Result<Self> {
                #(#decode)*
                ::core::result::Result::Err(#p::Error::decode(#expected, #p::describe_item_type::<#partition>(item)))
            }
        }
        #(#[automatically_derived] #members)*
        #on_index
    };

    let query_ty = format_ident!("{}Query", ident);
    let wrap = match &model.shape {
        CollectionShape::Enum(_) => quote!(query),
        CollectionShape::Struct(_) => quote!(#query_ty { query }),
    };
    let members = variants
        .iter()
        .map(|(_, t)| quote!(#p::sort_template::<#t>(#index).flatten()));
    let ctor_doc = format!("Queries one partition of {place} (the arguments are the partition key fields of `{partition_name}` there, a tuple when there are several) and returns every member in it, reading only the range of sort keys the members' templates can have. On a multi-attribute index, whose members map fields onto its attributes, start from a member's typed query instead: `{partition_name}::<index>(..).collection::<{ident}>()`.");
    let method = format_ident!("{}", model.method());
    let ctor = quote! {
        #[doc = #ctor_doc]
        pub fn #method<A>(partition: A) -> #query_ty
        where
            #partition: #p::PartitionKeyOf<A, #index_id>,
        {
            let query = #p::Query::collection::<#partition>(
                #index,
                <#partition as #p::PartitionKeyOf<A, #index_id>>::partition_key(partition),
                &[#(#members),*],
            );
            #wrap
        }
    };
    let debug_name = query_ty.to_string();
    let (query_def, run) = match &model.shape {
        CollectionShape::Enum(_) => {
            let doc = format!(
                "A query returning every `{ident}` in one partition; built by [`{ident}::{method}`]."
            );
            let def = quote! {
                #[doc = #doc]
                #vis type #query_ty = ::dyno_core::ops::Query<#ident>;
            };
            (def, TokenStream::new())
        }
        CollectionShape::Struct(fields) => {
            let doc = format!("A query reading one partition into a `{ident}`; built by [`{ident}::{method}`], run by `.all(&store)` (or `.page`, `.pages`).");
            let def = quote! {
                #[doc = #doc]
                #[must_use = "a query does nothing until it is run with `.all(&store)`, `.page` or `.pages`"]
                #vis struct #query_ty {
                    query: #p::Query<#item_ty>,
                }
            };
            let inits = fields.iter().map(|f| {
                let fid = f.ident;
                if f.many {
                    quote!(#fid: ::std::vec::Vec::new())
                } else {
                    quote!(#fid: ::core::option::Option::None)
                }
            });
            let arms = fields.iter().zip(&variants).map(|(f, (v, t))| {
                let fid = f.ident;
                if f.many {
                    quote!(#item_ty::#v(x) => out.#fid.push(x),)
                } else {
                    let msg = format!("the partition holds several `{}` items but `{ident}.{fid}` is an `Option`: make it a `Vec`", quote!(#t).to_string().replace(' ', ""));
                    quote! {
                        #item_ty::#v(x) => {
                            if out.#fid.is_some() {
                                return ::core::result::Result::Err(#p::Error::validation(#msg));
                            }
                            out.#fid = ::core::option::Option::Some(x);
                        }
                    }
                }
            });
            let run = quote! {
                #[automatically_derived]
                impl ::core::fmt::Debug for #query_ty {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.debug_struct(#debug_name).field("query", &self.query).finish()
                    }
                }
                #[automatically_derived]
                impl #query_ty {
                    /// Keeps only items matching `condition`, built from one entity's fields. It
                    /// applies to every item read, whatever its entity: a condition on one
                    /// member's field removes the items of members without that attribute
                    /// (`filter_member` filters one member and leaves the others alone).
                    pub fn filter<E>(self, condition: #p::Cond<E>) -> Self
                    where
                        #item_ty: #p::FilterBy<E>,
                    {
                        #query_ty { query: self.query.filter(condition) }
                    }

                    /// Keeps only the items of member `E` matching `condition`, and every item of
                    /// the other members (sent as "not `E`, or the condition").
                    pub fn filter_member<E>(self, condition: #p::Cond<E>) -> Self
                    where
                        E: #p::Entity,
                        #item_ty: #p::CollectionMember<E>,
                    {
                        #query_ty { query: self.query.filter_member(condition) }
                    }

                    /// Strongly consistent read.
                    pub fn consistent(self) -> Self {
                        #query_ty { query: self.query.consistent() }
                    }

                    /// Asks the store for at most `n` items per page.
                    pub fn page_size(self, n: u32) -> Self {
                        #query_ty { query: self.query.page_size(n) }
                    }

                    /// Returns items in descending sort-key order.
                    pub fn descending(self) -> Self {
                        #query_ty { query: self.query.descending() }
                    }

                    /// Reads at most `n` items in total.
                    pub fn limit(self, n: usize) -> Self {
                        #query_ty { query: self.query.limit(n) }
                    }

                    /// Reads only the items of member `E` (a sub-collection): by `E`'s sort-key
                    /// prefix where it has one, and always by entity type in the store, so that
                    /// `limit` and pages count `E`'s items only.
                    pub fn only<E>(self) -> Self
                    where
                        E: #p::Entity,
                        #item_ty: #p::CollectionMember<E>,
                    {
                        #query_ty { query: self.query.only::<E>() }
                    }

                    /// The untyped query this reads, or the first error met building it.
                    pub fn into_query(self) -> #p::Result<#p::Query<#item_ty>> {
                        self.query.check()
                    }

                    fn group(items: ::std::vec::Vec<#item_ty>) -> #p::Result<#ident> {
                        let mut out = #ident { #(#inits),* };
                        for item in items {
                            match item { #(#arms)* }
                        }
                        ::core::result::Result::Ok(out)
                    }

                    /// Reads the partition's members (all pages) and groups them.
                    pub async fn all<St: #p::Store + ?::core::marker::Sized>(self, store: &St) -> #p::Result<#ident> {
                        Self::group(self.query.all(store).await?)
                    }

                    /// Reads the partition's members (all pages) and groups them: the old name
                    /// of [`all`](Self::all).
                    #[deprecated(note = "renamed `all`, as on every read builder")]
                    pub async fn get<St: #p::Store + ?::core::marker::Sized>(self, store: &St) -> #p::Result<#ident> {
                        self.all(store).await
                    }

                    /// One page, starting at `cursor` (`None`: the first page), grouped, and the cursor
                    /// of the next page (`None` after the last); the cursor resumes this query only.
                    pub async fn page<St: #p::Store + ?::core::marker::Sized>(&self, store: &St, cursor: ::core::option::Option<&#p::Cursor>) -> #p::Result<(#ident, ::core::option::Option<#p::Cursor>)> {
                        let page = self.query.page(store, cursor).await?;
                        ::core::result::Result::Ok((Self::group(page.items)?, page.cursor))
                    }

                    /// The pages as a stream, each grouped, read as it is polled.
                    pub fn pages<'s, St: #p::Store + ?::core::marker::Sized>(self, store: &'s St) -> impl #p::Stream<Item = #p::Result<#ident>> + ::core::marker::Send + 's {
                        #p::stream_map(self.query.pages(store), Self::group)
                    }

                    /// The pages as a stream, each grouped: the old name of
                    /// [`pages`](Self::pages) (`stream` yields items on every other read builder).
                    #[deprecated(note = "renamed `pages`: `stream` yields items on every other read builder")]
                    pub fn stream<'s, St: #p::Store + ?::core::marker::Sized>(self, store: &'s St) -> impl #p::Stream<Item = #p::Result<#ident>> + ::core::marker::Send + 's {
                        self.pages(store)
                    }
                }
            };
            (def, run)
        }
    };

    let type_name = ident.to_string();
    let query_name = model.method();
    let index_name = match &model.index {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let member_types = variants
        .iter()
        .map(|(_, t)| quote!(<#t as #p::Entity>::ENTITY_TYPE));
    let describe = quote! {
        #[automatically_derived]
        impl #p::DescribeCollection for #ident {
            fn describe() -> #p::CollectionModel {
                #p::collection_model(#type_name, #query_name, #index_name, <#partition as #p::Entity>::ENTITY_TYPE, &[#(#member_types),*])
            }
        }
    };
    let body = dummy_const(quote! {
        #checks
        #describe
        #from_item
        #[automatically_derived]
        impl #ident {
            #ctor
        }
        #run
    });
    Some(quote! {
        #item_def
        #query_def
        #body
    })
}

/// On error: a `FromItem` impl that accepts nothing.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    dummy_const(quote! {
        impl #p::FromItem for #ident {
            fn accepts(_: &#p::Item) -> bool {
                false
            }
            fn from_item(_: &#p::Item) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::validation("invalid Collection derive"))
            }
        }
    })
}
