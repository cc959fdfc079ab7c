//! `#[derive(Table)]`: `impl Table` with a static `TableDef`, the key-name constants, and one
//! `TableIndex<ID>` impl per index (so entities naming an undeclared index do not compile).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::DeriveInput;

use super::{dummy_const, private};
use crate::ast::TableInput;
use crate::case;
use crate::check;
use crate::ctxt::Ctxt;

pub fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
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
    let mut index_impls = TokenStream::new();
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
        let (ipk, kind, local) = if index.local {
            (quote!(#pk), quote!(#p::Local), true)
        } else {
            let ipk = index.pk.as_ref();
            (quote!(#ipk), quote!(#p::Global), false)
        };
        let method = if local {
            quote!(local_index)
        } else {
            quote!(global_index)
        };
        def = quote!(#def.#method(#p::IndexDef::new(#iname, #ipk, #isk).projection(#projection)));
        index_impls.extend(quote! {
            #[automatically_derived]
            impl #p::TableIndex<{ #p::index_id(#iname) }> for #ident {
                type Kind = #kind;
                const NAME: &'static str = #iname;
                const PK: &'static str = #ipk;
                const SK: ::core::option::Option<&'static str> = #isk;
                const LOCAL: bool = #local;
            }
        });
        let const_name = case::screaming(&iname.value());
        if syn::parse_str::<syn::Ident>(&const_name).is_ok() && !const_name.is_empty() {
            let const_ident = format_ident!("{}", const_name);
            let doc = format!("The name of index `{}`.", iname.value());
            index_consts.extend(quote! {
                #[doc = #doc]
                pub const #const_ident: &'static str = #iname;
            });
        }
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
    Some(dummy_const(quote! {
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
        #index_impls
        #consts
    }))
}

fn opt_str(s: Option<&syn::LitStr>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// On error: a table with no keys, so entities naming it report only their own mistakes.
pub fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    dummy_const(quote! {
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
    })
}
