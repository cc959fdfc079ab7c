//! `#[derive(KeyPart)]`: unit enums encode as their (renamed) variant name; newtypes delegate to
//! their inner type. Both also get `ToAttribute`/`FromAttribute` (the same text, or the inner
//! type's), unless `#[dyno(no_attribute)]`.
//!
//! An enum reads other spellings written by other clients: `#[dyno(alias = "shipped")]` on a
//! variant (repeatable), and `#[dyno(case_insensitive)]` on the enum for names and aliases in any
//! ASCII case. It always writes the variant's name. Keys and attributes read the same spellings.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use super::{dummy_const, private};
use crate::ast::KeyPartInput;
use crate::check;
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = KeyPartInput::from_ast(cx, input)?;
    check::key_part(cx, &model);
    if cx.has_errors() {
        return None;
    }
    let p = private();
    Some(match model {
        KeyPartInput::Enum {
            ident,
            variants,
            aliases,
            case_insensitive,
            attribute,
        } => {
            let idents: Vec<_> = variants.iter().map(|(v, _, _)| *v).collect();
            let names: Vec<_> = variants.iter().map(|(_, n, _)| n.as_str()).collect();
            // Every spelling read, with its variant: names first, then aliases.
            let spellings: Vec<(&syn::Ident, &str)> = variants
                .iter()
                .map(|(v, n, _)| (*v, n.as_str()))
                .chain(aliases.iter().map(|(i, a, _)| (variants[*i].0, a.as_str())))
                .collect();
            // Each variant's aliases: the other names a map entry of it may be stored under.
            let variant_aliases: Vec<Vec<&str>> = (0..variants.len())
                .map(|i| {
                    aliases
                        .iter()
                        .filter(|(v, _, _)| *v == i)
                        .map(|(_, a, _)| a.as_str())
                        .collect()
                })
                .collect();
            // The declared aliases: a map entry stored under one is the same entry (without
            // aliases, the trait's default: a name has one spelling).
            let alias_spellings = (!aliases.is_empty()).then(|| {
                quote! {
                    fn other_map_key_spellings(&self) -> ::std::vec::Vec<::std::string::String> {
                        let aliases: &[&str] = match self {
                            #(#ident::#idents => &[#(#variant_aliases),*],)*
                        };
                        aliases.iter().map(|a| ::std::string::String::from(*a)).collect()
                    }
                }
            });
            let read_idents: Vec<_> = spellings.iter().map(|(v, _)| *v).collect();
            let read_names: Vec<_> = spellings.iter().map(|(_, n)| *n).collect();
            let fold = case_insensitive.then(|| {
                quote! {
                    #(if s.eq_ignore_ascii_case(#read_names) {
                        return ::core::option::Option::Some(#ident::#read_idents);
                    })*
                }
            });
            // One reader for keys and attributes.
            let parse = quote! {
                fn parse(s: &str) -> ::core::option::Option<#ident> {
                    match s {
                        #(#read_names => return ::core::option::Option::Some(#ident::#read_idents),)*
                        _ => {}
                    }
                    #fold
                    ::core::option::Option::None
                }
            };
            let expected = format!(
                "one of {} for {ident}",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let set_expected = format!("SS (string set) of {ident} names");
            let attribute_impls = attribute.then(|| {
                quote! {
                    #[automatically_derived]
                    impl #p::ToAttribute for #ident {
                        const SCALAR: ::core::option::Option<#p::ScalarType> = ::core::option::Option::Some(#p::ScalarType::S);
                        fn to_attribute(&self) -> #p::Result<::core::option::Option<#p::AttributeValue>> {
                            ::core::result::Result::Ok(::core::option::Option::Some(#p::AttributeValue::S(
                                ::std::string::String::from(self.key_name()),
                            )))
                        }
                    }
                    #[automatically_derived]
                    impl #p::FromAttribute for #ident {
                        fn from_attribute(value: &#p::AttributeValue) -> #p::Result<Self> {
                            match value {
                                #p::AttributeValue::S(s) => parse(s).ok_or_else(|| #p::Error::decode(#expected, #p::describe(value))),
                                other => ::core::result::Result::Err(#p::Error::decode(#expected, #p::describe(other))),
                            }
                        }
                    }
                    // A set of the enum is a string set of its names.
                    #[automatically_derived]
                    impl #p::SetElement for #ident {
                        fn to_set<'a>(items: impl ::core::iter::Iterator<Item = &'a Self>) -> #p::Result<#p::AttributeValue>
                        where
                            Self: 'a,
                        {
                            ::core::result::Result::Ok(#p::AttributeValue::Ss(
                                items.map(|v| ::std::string::String::from(v.key_name())).collect(),
                            ))
                        }
                        fn from_set(value: &#p::AttributeValue) -> #p::Result<::std::vec::Vec<Self>> {
                            match value {
                                #p::AttributeValue::Ss(names) => names
                                    .iter()
                                    .map(|s| parse(s).ok_or_else(|| #p::Error::decode(#expected, ::std::format!("{:?} in a string set", s))))
                                    .collect(),
                                other => ::core::result::Result::Err(#p::Error::decode(#set_expected, #p::describe(other))),
                            }
                        }
                    }
                }
            });
            dummy_const(quote! {
                #[automatically_derived]
                impl #ident {
                    /// The variant's name as stored in keys and attributes.
                    pub const fn key_name(&self) -> &'static str {
                        match self {
                            #(#ident::#idents => #names,)*
                        }
                    }
                }
                #[automatically_derived]
                impl #p::KeyPart for #ident {
                    fn encode_key(&self, out: &mut ::std::string::String) -> #p::Result<()> {
                        out.push_str(self.key_name());
                        ::core::result::Result::Ok(())
                    }
                    fn decode_key(segment: &str) -> #p::Result<Self> {
                        parse(segment).ok_or_else(|| #p::Error::key(
                            ::core::option::Option::None,
                            ::std::format!("expected {}, found {:?}", #expected, segment),
                        ))
                    }
                    #alias_spellings
                }
                #parse
                #attribute_impls
            })
        }
        KeyPartInput::Newtype {
            ident,
            inner,
            attribute,
        } => {
            let attribute_impls = attribute.then(|| {
                quote! {
                    #[automatically_derived]
                    impl #p::ToAttribute for #ident {
                        const SCALAR: ::core::option::Option<#p::ScalarType> = <#inner as #p::ToAttribute>::SCALAR;
                        fn to_attribute(&self) -> #p::Result<::core::option::Option<#p::AttributeValue>> {
                            <#inner as #p::ToAttribute>::to_attribute(&self.0)
                        }
                    }
                    #[automatically_derived]
                    impl #p::FromAttribute for #ident {
                        fn from_attribute(value: &#p::AttributeValue) -> #p::Result<Self> {
                            <#inner as #p::FromAttribute>::from_attribute(value).map(#ident)
                        }
                        fn from_missing() -> #p::Result<Self> {
                            <#inner as #p::FromAttribute>::from_missing().map(#ident)
                        }
                    }
                }
            });
            dummy_const(quote! {
                #[automatically_derived]
                impl #p::KeyPart for #ident {
                    fn encode_key(&self, out: &mut ::std::string::String) -> #p::Result<()> {
                        <#inner as #p::KeyPart>::encode_key(&self.0, out)
                    }
                    fn encode_prefix(&self, out: &mut ::std::string::String) -> #p::Result<()> {
                        <#inner as #p::KeyPart>::encode_prefix(&self.0, out)
                    }
                    fn encode_plain(&self, out: &mut ::std::string::String) -> #p::Result<()> {
                        <#inner as #p::KeyPart>::encode_plain(&self.0, out)
                    }
                    fn encode_plain_prefix(&self, out: &mut ::std::string::String) -> #p::Result<()> {
                        <#inner as #p::KeyPart>::encode_plain_prefix(&self.0, out)
                    }
                    fn decode_key(segment: &str) -> #p::Result<Self> {
                        <#inner as #p::KeyPart>::decode_key(segment).map(#ident)
                    }
                    fn encode_map_key(&self) -> #p::Result<::std::string::String> {
                        <#inner as #p::KeyPart>::encode_map_key(&self.0)
                    }
                    fn decode_map_key(name: &str) -> #p::Result<Self> {
                        <#inner as #p::KeyPart>::decode_map_key(name).map(#ident)
                    }
                }
                #attribute_impls
            })
        }
    })
}

/// On error: impls that fail at run time, so uses of the type report nothing more.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    dummy_const(quote! {
        impl #p::KeyPart for #ident {
            fn encode_key(&self, _: &mut ::std::string::String) -> #p::Result<()> {
                ::core::result::Result::Err(#p::Error::key(::core::option::Option::None, "invalid KeyPart derive"))
            }
            fn decode_key(_: &str) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::key(::core::option::Option::None, "invalid KeyPart derive"))
            }
        }
        impl #p::ToAttribute for #ident {
            fn to_attribute(&self) -> #p::Result<::core::option::Option<#p::AttributeValue>> {
                ::core::result::Result::Err(#p::Error::encode("invalid KeyPart derive"))
            }
        }
        impl #p::FromAttribute for #ident {
            fn from_attribute(_: &#p::AttributeValue) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::decode("a valid KeyPart derive", "an invalid one"))
            }
        }
    })
}
