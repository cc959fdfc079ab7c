//! `#[derive(Projection)]`: a struct holding some fields of an entity, read with a
//! ProjectionExpression. Each field is checked against the entity's field of the same name (it
//! must exist and have the same type); items of other entities are skipped like the entity's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::DeriveInput;

use super::{dummy_const, private};
use crate::ast::ProjectionInput;
use crate::case;
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = ProjectionInput::from_ast(cx, input)?;
    if cx.has_errors() {
        return None;
    }
    let p = private();
    let ident = model.ident;
    let entity = &model.entity;
    let mut checks = TokenStream::new();
    let mut names = Vec::new();
    let mut inits = TokenStream::new();
    for f in &model.fields {
        let fid = f.ident;
        let ty = f.ty;
        let handle = format_ident!(
            "{}",
            case::field_const(&fid.unraw().to_string()),
            span = fid.span()
        );
        let span = ty.span();
        checks.extend(quote_spanned! {span=>
            const _: #p::Field<#entity, #ty> = <#entity>::#handle;
        });
        let name = quote!(<#entity>::#handle.name());
        names.push(name.clone());
        let field_name = fid.unraw().to_string();
        let value = if f.serde {
            if f.default {
                quote!(#p::get_attr_or_default::<#p::Serde<#ty>>(item, __ENTITY, #name)?.0)
            } else {
                quote!(#p::get_attr::<#p::Serde<#ty>>(item, __ENTITY, #name)?.0)
            }
        } else if f.default {
            quote!(#p::get_attr_or_default::<#ty>(item, __ENTITY, #name)?)
        } else {
            quote! {
                #p::key_field::<#ty>(item, __ENTITY, #name, || {
                    (&#p::Recover::<#ty>::new()).recover(item, __ENTITY, #field_name, <#entity as #p::EntityMeta>::KEY_SOURCES)
                })?
            }
        };
        inits.extend(quote!(#fid: #value,));
    }
    Some(dummy_const(quote! {
        const __ENTITY: &str = <#entity as #p::Entity>::ENTITY_TYPE;
        #checks

        #[automatically_derived]
        impl #p::FromItem for #ident {
            fn accepts(item: &#p::Item) -> bool {
                <#entity as #p::Entity>::is_entity(item)
            }
            fn from_item(item: &#p::Item) -> #p::Result<Self> {
                #[allow(unused_imports)]
                use #p::{RecoverKey as _, RecoverNone as _};
                ::core::result::Result::Ok(#ident { #inits })
            }
            fn ttl_attribute() -> ::core::option::Option<&'static str> {
                <#entity as #p::FromItem>::ttl_attribute()
            }
            fn projection() -> ::core::option::Option<&'static [&'static str]> {
                static ATTRIBUTES: #p::BuiltOnce<::std::vec::Vec<&'static str>> = #p::BuiltOnce::new();
                ::core::option::Option::Some(ATTRIBUTES.get(|| {
                    #p::projection_attributes::<#entity>(&[#(#names),*])
                }).as_slice())
            }
        }

        #[automatically_derived]
        impl #p::ProjectionOf<#entity> for #ident {}
        #[automatically_derived]
        impl #p::FilterBy<#entity> for #ident {}
    }))
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
                ::core::result::Result::Err(#p::Error::validation("invalid Projection derive"))
            }
        }
    })
}
