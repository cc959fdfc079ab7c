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
                static DEFINITION: #p::OnceLock<#p::TableDef> = #p::OnceLock::new();
                DEFINITION.get_or_init(|| #def)
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
/// `expand/index_stubs.rs`). Visible where the type is, within the crate (a `macro_rules`
/// cannot be exported from a derive's expansion under a module path): entities are declared in
/// their table's crate.
fn callback(input: &DeriveInput, indexes: &TokenStream) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    let hidden = format_ident!("__dyno_table_{}", ident);
    let vis = match &input.vis {
        syn::Visibility::Public(_) => quote!(pub(crate)),
        other => quote!(#other),
    };
    quote! {
        #[doc(hidden)]
        macro_rules! #hidden {
            ($($entity:tt)*) => { #p::index_stubs! { #indexes $($entity)* } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #hidden as #ident;
    }
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
