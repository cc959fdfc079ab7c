//! `#[derive(KeyPart)]`: a unit enum's variants (names, aliases, case) or a newtype.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::attr::{
    for_each_dyno_attr, key_name, no_value, nonempty_string, string_value, unknown_key_continue,
    Attr, Flag,
};
use crate::ctxt::Ctxt;

use super::no_generics;

/// A key part: a unit enum (by name) or a newtype (delegating).
pub(crate) enum KeyPartInput<'a> {
    Enum {
        ident: &'a Ident,
        variants: Vec<(&'a Ident, String, Span)>,
        /// Other spellings a variant is read from: (index in `variants`, text, span).
        aliases: Vec<(usize, String, Span)>,
        /// Names and aliases are read in any ASCII case (`#[dyno(case_insensitive)]`).
        case_insensitive: bool,
        attribute: bool,
    },
    Newtype {
        ident: &'a Ident,
        inner: &'a Type,
        attribute: bool,
    },
}

const KEYPART_KEYS: &[&str] = &["rename_all", "no_attribute", "case_insensitive"];
const RENAME_ALL: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "camelCase",
    "PascalCase",
];

impl<'a> KeyPartInput<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "KeyPart");
        let mut rename_all: Attr<LitStr> = Attr::none("rename_all");
        let mut no_attribute = Flag::none("no_attribute");
        let mut case_insensitive = Flag::none("case_insensitive");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "rename_all" => {
                    let lit = string_value(&meta)?;
                    if !RENAME_ALL.contains(&lit.value().as_str()) {
                        cx.error_spanned_by(
                            &lit,
                            format!(
                                "unknown case {:?}; expected one of: {}",
                                lit.value(),
                                RENAME_ALL.join(", ")
                            ),
                        );
                    }
                    rename_all.set(cx, &meta.path, lit);
                }
                "no_attribute" => {
                    no_value(&meta)?;
                    no_attribute.set(cx, &meta.path);
                }
                "case_insensitive" => {
                    no_value(&meta)?;
                    case_insensitive.set(cx, &meta.path);
                }
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a key part",
                        KEYPART_KEYS,
                    )
                }
            }
            Ok(())
        });
        let attribute = !no_attribute.get();
        let rename_all = rename_all.get().map(|l| l.value());
        match &input.data {
            Data::Enum(e) => {
                let mut variants = Vec::new();
                let mut aliases = Vec::new();
                for v in &e.variants {
                    if !matches!(v.fields, Fields::Unit) {
                        cx.error_spanned_by(v, format!("`#[derive(KeyPart)]` on an enum needs unit variants (encoded by name); `{}` has fields", v.ident));
                        continue;
                    }
                    let mut rename = Attr::none("rename");
                    for_each_dyno_attr(cx, &v.attrs, |meta| {
                        match key_name(&meta).as_str() {
                            "rename" => rename.set(cx, &meta.path, nonempty_string(&meta)?),
                            "alias" => {
                                let lit = nonempty_string(&meta)?;
                                aliases.push((variants.len(), lit.value(), lit.span()));
                            }
                            _ => {
                                return unknown_key_continue(
                                    cx,
                                    &meta,
                                    "#[dyno(...)] on a variant",
                                    &["rename", "alias"],
                                )
                            }
                        }
                        Ok(())
                    });
                    let (name, span) = match rename.get() {
                        Some(l) => (l.value(), l.span()),
                        None => {
                            let base = v.ident.unraw().to_string();
                            (
                                rename_all.as_deref().map_or_else(
                                    || base.clone(),
                                    |c| crate::case::convert(&base, c),
                                ),
                                v.ident.span(),
                            )
                        }
                    };
                    variants.push((&v.ident, name, span));
                }
                if e.variants.is_empty() {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(KeyPart)]` needs at least one variant",
                    );
                }
                Some(KeyPartInput::Enum {
                    ident: &input.ident,
                    variants,
                    aliases,
                    case_insensitive: case_insensitive.get(),
                    attribute,
                })
            }
            Data::Struct(s) if s.fields.len() == 1 && !matches!(s.fields, Fields::Named(_)) => {
                if rename_all.is_some() {
                    cx.error_spanned_by(&input.ident, "`rename_all` applies to enums only");
                }
                if case_insensitive.get() {
                    cx.error_spanned_by(&input.ident, "`case_insensitive` applies to enums only");
                }
                let inner = &s.fields.iter().next()?.ty;
                Some(KeyPartInput::Newtype {
                    ident: &input.ident,
                    inner,
                    attribute,
                })
            }
            _ => {
                cx.error_spanned_by(&input.ident, "`#[derive(KeyPart)]` works on unit enums (encoded by variant name) and newtypes such as `struct UserId(String);`");
                None
            }
        }
    }
}
