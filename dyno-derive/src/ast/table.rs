//! `#[derive(Table)]`: the table's name, key, TTL and entity-type attributes, and its indexes.

use proc_macro2::TokenStream;
use syn::{DeriveInput, Ident, LitStr};

use crate::attr::{
    for_each_dyno_attr, key_name, no_value, nonempty_string, unknown_key_continue, Attr, Flag,
};
use crate::ctxt::Ctxt;

use super::no_generics;

/// A table's declaration.
pub(crate) struct TableInput<'a> {
    pub ident: &'a Ident,
    pub name: LitStr,
    pub pk: LitStr,
    pub sk: Option<LitStr>,
    pub ttl: Option<LitStr>,
    pub entity_attribute: Option<LitStr>,
    pub indexes: Vec<TableIndexDecl>,
}

/// One index of a table.
pub(crate) struct TableIndexDecl {
    pub tokens: TokenStream,
    pub name: LitStr,
    pub pk: Option<LitStr>,
    pub sk: Option<LitStr>,
    pub local: bool,
    pub keys_only: Option<TokenStream>,
    pub include: Option<(TokenStream, Vec<LitStr>)>,
}

const TABLE_KEYS: &[&str] = &["name", "pk", "sk", "ttl", "entity_attribute", "index(...)"];
const TABLE_INDEX_KEYS: &[&str] = &["name", "pk", "sk", "local", "keys_only", "include(...)"];

impl<'a> TableInput<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Table");
        let mut name = Attr::none("name");
        let mut pk = Attr::none("pk");
        let mut sk = Attr::none("sk");
        let mut ttl = Attr::none("ttl");
        let mut entity_attribute = Attr::none("entity_attribute");
        let mut indexes = Vec::new();
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "name" => name.set(cx, &meta.path, nonempty_string(&meta)?),
                "pk" => pk.set(cx, &meta.path, nonempty_string(&meta)?),
                "sk" => sk.set(cx, &meta.path, nonempty_string(&meta)?),
                "ttl" => ttl.set(cx, &meta.path, nonempty_string(&meta)?),
                "entity_attribute" => entity_attribute.set(cx, &meta.path, nonempty_string(&meta)?),
                "index" => {
                    let mut iname = Attr::none("name");
                    let mut ipk = Attr::none("pk");
                    let mut isk = Attr::none("sk");
                    let mut local = Flag::none("local");
                    let mut keys_only = Flag::none("keys_only");
                    let mut include = Attr::none("include");
                    let path = meta.path.clone();
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "name" => iname.set(cx, &m.path, nonempty_string(&m)?),
                            "pk" => ipk.set(cx, &m.path, nonempty_string(&m)?),
                            "sk" => isk.set(cx, &m.path, nonempty_string(&m)?),
                            "local" => {
                                no_value(&m)?;
                                local.set(cx, &m.path)
                            }
                            "keys_only" => {
                                no_value(&m)?;
                                keys_only.set(cx, &m.path)
                            }
                            "include" => {
                                let content;
                                syn::parenthesized!(content in m.input);
                                let list = content
                                    .parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
                                include.set(cx, &m.path, list.into_iter().collect::<Vec<_>>());
                            }
                            _ => {
                                return unknown_key_continue(cx, &m, "index(...)", TABLE_INDEX_KEYS)
                            }
                        }
                        Ok(())
                    })?;
                    let Some(iname) = iname.get() else {
                        cx.error_spanned_by(&path, "index without a name: write `index(name = \"GSI1\", pk = \"GSI1PK\", sk = \"GSI1SK\")`");
                        return Ok(());
                    };
                    let keys_only = keys_only.tokens().cloned();
                    indexes.push(TableIndexDecl {
                        tokens: quote::quote!(#path),
                        name: iname,
                        pk: ipk.get(),
                        sk: isk.get(),
                        local: local.get(),
                        keys_only,
                        include: include.get_with_tokens(),
                    });
                }
                _ => return unknown_key_continue(cx, &meta, "#[dyno(...)] on a table", TABLE_KEYS),
            }
            Ok(())
        });
        let Some(name) = name.get() else {
            cx.error_spanned_by(
                &input.ident,
                "missing table name: add `#[dyno(name = \"MyTable\", pk = \"PK\", sk = \"SK\")]`",
            );
            return None;
        };
        let Some(pk) = pk.get() else {
            cx.error_spanned_by(
                &input.ident,
                "missing partition key attribute: add `pk = \"PK\"` to `#[dyno(...)]`",
            );
            return None;
        };
        Some(TableInput {
            ident: &input.ident,
            name,
            pk,
            sk: sk.get(),
            ttl: ttl.get(),
            entity_attribute: entity_attribute.get(),
            indexes,
        })
    }
}
