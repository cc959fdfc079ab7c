//! `#[derive(Table)]`: `impl Table` with a static `TableDef`, the key-name constants, and one
//! `TableIndex` constant per index (`Shop::GSI1`), which entities name: an undeclared index is
//! a compile error at its name.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::DeriveInput;

use super::{dummy_const, private};
use crate::ast::TableInput;
use crate::case;
use crate::check;
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let table = TableInput::from_ast(cx, input)?;
    check::table(cx, &table);
    if cx.has_errors() {
        return None;
    }
    let p = private();
    let ident = table.ident;
    let name = &table.name;
    let pk = &table.pk;
    let sk = opt_str(table.sk.as_ref());
    let ttl = opt_str(table.ttl.as_ref());

    let mut def = quote!(#p::TableDef::new(#name, #pk, #sk));
    let mut index_consts = TokenStream::new();
    for index in &table.indexes {
        let iname = &index.name;
        let projection = if index.keys_only.is_some() {
            quote!(#p::Projection::KeysOnly)
        } else if let Some((_, attrs)) = &index.include {
            quote!(#p::Projection::Include(::std::vec![#(::std::string::String::from(#attrs)),*]))
        } else {
            quote!(#p::Projection::All)
        };
        let isk = opt_str(index.sk.as_ref());
        let (ipk, local) = if index.local {
            (quote!(#pk), true)
        } else {
            let ipk = index.pk.as_ref();
            (quote!(#ipk), false)
        };
        let method = if local {
            quote!(local_index)
        } else {
            quote!(global_index)
        };
        let (partition, sort) = index.key_lists(pk);
        let ty = |t: &char| {
            let t = format_ident!("{}", t.to_string());
            quote!(#p::ScalarType::#t)
        };
        let index_def = if index.multi.is_some() {
            // Checked by the derive (one to four partition and up to four sort attributes,
            // distinct names): the fields directly, without `IndexDef::multi`'s `Result`.
            let attr = |(n, t): &(String, char)| {
                let t = ty(t);
                quote!(#p::KeyAttribute::new(#n, #t))
            };
            let first = attr(&partition[0]);
            let extra_pk = partition[1..].iter().map(attr);
            let first_sk = match sort.first() {
                Some(a) => {
                    let a = attr(a);
                    quote!(::core::option::Option::Some(#a))
                }
                None => quote!(::core::option::Option::None),
            };
            let extra_sk = sort.iter().skip(1).map(attr);
            quote!(#p::IndexDef {
                name: ::std::string::String::from(#iname),
                partition_key: #first,
                sort_key: #first_sk,
                extra_partition_keys: ::std::vec![#(#extra_pk),*],
                extra_sort_keys: ::std::vec![#(#extra_sk),*],
                projection: #projection,
            })
        } else {
            quote!(#p::IndexDef::new(#iname, #ipk, #isk).projection(#projection))
        };
        def = quote!(#def.#method(#index_def));
        let consts = |list: &[(String, char)]| {
            let items = list.iter().map(|(n, t)| {
                let t = ty(t);
                quote!((#n, #t))
            });
            quote!(&[#(#items),*])
        };
        let (partition_attributes, sort_attributes) = (consts(&partition), consts(&sort));
        let const_ident = format_ident!("{}", case::index_const(&iname.value()));
        let doc = format!("Index `{}`: its name and key attributes.", iname.value());
        index_consts.extend(quote! {
            #[doc = #doc]
            pub const #const_ident: #p::TableIndex = #p::TableIndex {
                name: #iname,
                partition_key: #ipk,
                sort_key: #isk,
                local: #local,
                partition_attributes: #partition_attributes,
                sort_attributes: #sort_attributes,
            };
        });
    }
    if let Some(ttl) = &table.ttl {
        def = quote!(#def.ttl(#ttl));
    }
    let entity_attribute = table
        .entity_attribute
        .as_ref()
        .map(|a| quote!(const ENTITY_ATTRIBUTE: &'static str = #a;));
    // `Table::model()`, when the table lists its entities.
    if let Some(entities) = &table.entities {
        let collections = &table.collections;
        let doc = format!(
            "The model of table `{}` as data (`dyno_core::model::Model`): its definition, its entities ({}) and collections, with their keys, indexes, fields and access patterns. For its design document, NoSQL Workbench file and CreateTable body.",
            table.name.value(),
            entities
                .iter()
                .map(|e| quote::ToTokens::to_token_stream(e).to_string().replace(' ', ""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        index_consts.extend(quote! {
            #[doc = #doc]
            pub fn model() -> #p::Model {
                #p::Model::builder::<Self>()
                    #(.entity::<#entities>())*
                    #(.collection::<#collections>())*
                    .build()
            }
        });
    }
    let consts = if index_consts.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            #[automatically_derived]
            impl #ident { #index_consts }
        }
    };
    let body = dummy_const(quote! {
        #[automatically_derived]
        impl #p::Table for #ident {
            fn definition() -> &'static #p::TableDef {
                static DEFINITION: #p::BuiltOnce<#p::TableDef> = #p::BuiltOnce::new();
                DEFINITION.get(|| #def)
            }
            #entity_attribute
        }
        #[automatically_derived]
        impl #p::TableKeys for #ident {
            const PK: &'static str = #pk;
            const SK: ::core::option::Option<&'static str> = #sk;
            const TTL: ::core::option::Option<&'static str> = #ttl;
        }
        #consts
    });
    let names: Vec<&syn::LitStr> = table.indexes.iter().map(|i| &i.name).collect();
    let callback = callback(input, &quote!([#(#names),*]));
    Some(quote! {
        #callback
        #body
    })
}

/// The macro named like the table (`Shop!`, in the macro namespace beside the type), which
/// entities' expansions call with themselves and their indexes: it hands them with the table's
/// index names (`indexes`, a bracketed list) to `__private::index_stubs!` (see
/// `expand/index_stubs.rs`).
///
/// It is visible wherever the type is, in other crates too (a table kept in a shared crate):
/// a `#[macro_export]` macro under a hidden name unique in the crate (every exported macro lives
/// at the crate root), imported beside the type under the type's name with the type's
/// visibility. The import names the macro by its bare name, which resolves through the textual
/// scope of the `macro_rules` just above it, not through the crate root: a path to a
/// macro-expanded exported macro (`crate::__dyno_table_..!`) is refused in its own crate
/// (`macro_expanded_macro_exports_accessed_by_absolute_paths`), the import is not, and paths
/// through the import (`crate::tables::Shop!`, `shared::Shop!`) are ordinary re-exports. A
/// table declared in a function body exports its macro too (`non_local_definitions` allowed:
/// the name is hidden and unique).
fn callback(input: &DeriveInput, indexes: &TokenStream) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    let hidden = format_ident!("__dyno_table_{}_{:016x}", ident, unique(input));
    let vis = &input.vis;
    quote! {
        #[doc(hidden)]
        #[allow(non_local_definitions)]
        #[macro_export]
        macro_rules! #hidden {
            ($($entity:tt)*) => { #p::index_stubs! { #indexes $($entity)* } };
        }
        #[doc(hidden)]
        #[allow(unused_imports, unreachable_pub)]
        #vis use #hidden as #ident;
    }
}

/// A hash telling this table's exported macro from every other in the crate: of the derive's
/// input (two tables of one name in different modules differ in their declarations, or else in
/// where they are written) and of the derive's position in the source when the compiler gives
/// it. Deterministic: the same source expands to the same name.
fn unique(input: &DeriveInput) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    quote!(#input).to_string().hash(&mut h);
    if proc_macro::is_available() {
        let at = proc_macro::Span::call_site();
        (at.line(), at.column()).hash(&mut h);
    }
    h.finish()
}

fn opt_str(s: Option<&syn::LitStr>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// On error: a table with no keys, so entities naming it report only their own mistakes.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    let callback = callback(input, &quote!([]));
    let stub = dummy_const(quote! {
        impl #p::Table for #ident {
            fn definition() -> &'static #p::TableDef {
                #p::stub_table_definition()
            }
        }
        impl #p::TableKeys for #ident {
            const PK: &'static str = "";
            const SK: ::core::option::Option<&'static str> = ::core::option::Option::None;
            const TTL: ::core::option::Option<&'static str> = ::core::option::Option::None;
        }
    });
    quote!(#callback #stub)
}
