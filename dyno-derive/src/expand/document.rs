//! `#[derive(Document)]`: the map codec (`ToAttribute`/`FromAttribute`, one map entry per
//! stored field), the `Document` marker that lets typed paths lead into it, and one `Field`
//! constant per stored field (`Address::CITY`), relative to the document.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::DeriveInput;

use super::{dummy_const, private};
use crate::ast::DocumentInput;
use crate::case;
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let m = DocumentInput::from_ast(cx, input)?;
    if cx.has_errors() {
        return None;
    }
    let p = private();
    let ident = m.ident;
    let vis = m.vis;
    let name = ident.to_string();
    let mut puts = TokenStream::new();
    let mut inits = TokenStream::new();
    let mut handles = TokenStream::new();
    let stored = m.fields.iter().filter(|f| !f.skip).count();
    for f in &m.fields {
        let fid = f.ident;
        let ty = f.ty;
        let a = &f.attr_name;
        if f.skip {
            inits.extend(quote!(#fid: ::core::default::Default::default(),));
            continue;
        }
        let (put, read) = if f.serde {
            (quote!(&#p::Serde(&self.#fid)), quote!(#p::Serde<#ty>))
        } else {
            (quote!(&self.#fid), quote!(#ty))
        };
        puts.extend(quote!(#p::put_member(&mut __map, #a, #put)?;));
        let get = if f.default {
            quote!(#p::get_member::<::core::option::Option<#read>>(__map, #a)?.unwrap_or_default())
        } else {
            quote!(#p::get_member::<#read>(__map, #a)?)
        };
        let get = if f.serde { quote!(#get.0) } else { get };
        inits.extend(quote!(#fid: #get,));
        let c = format_ident!("{}", case::field_const(&fid.unraw().to_string()));
        let doc = format!(
            "Field `{fid}` (map key `{a}`), for typed paths: `Entity::FIELD.field({ident}::{c})`."
        );
        // A serde field's paths and values go through serde too (see `expr::path`).
        let handle_ty = if f.serde {
            quote!(#p::Serde<#ty>)
        } else {
            quote!(#ty)
        };
        handles.extend(quote! {
            #[doc = #doc]
            #vis const #c: #p::Field<#ident, #handle_ty> = #p::Field::new(#a);
        });
    }
    Some(quote! {
        #[automatically_derived]
        impl #ident {
            #handles
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #p::ToAttribute for #ident {
                fn to_attribute(&self) -> #p::Result<::core::option::Option<#p::AttributeValue>> {
                    let mut __map = #p::Item::with_capacity(#stored);
                    #puts
                    ::core::result::Result::Ok(::core::option::Option::Some(#p::AttributeValue::M(__map)))
                }
            }
            #[automatically_derived]
            impl #p::FromAttribute for #ident {
                fn from_attribute(value: &#p::AttributeValue) -> #p::Result<Self> {
                    let __map = #p::document_map(value, #name)?;
                    ::core::result::Result::Ok(#ident { #inits })
                }
            }
            #[automatically_derived]
            impl #p::Document for #ident {}
        };
    })
}

/// On error: a `Document` impl whose codec fails at run time, so uses of the type report
/// nothing more.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    dummy_const(quote! {
        impl #p::ToAttribute for #ident {
            fn to_attribute(&self) -> #p::Result<::core::option::Option<#p::AttributeValue>> {
                ::core::result::Result::Err(#p::Error::encode("invalid Document derive"))
            }
        }
        impl #p::FromAttribute for #ident {
            fn from_attribute(_: &#p::AttributeValue) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::decode("a valid Document derive", "an invalid one"))
            }
        }
        impl #p::Document for #ident {}
    })
}
