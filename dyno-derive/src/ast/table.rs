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
    /// `entities(Order, Product)`: the entities of the model (`Table::model()`).
    pub entities: Option<Vec<syn::Path>>,
    /// `collections(UserItem)`: the collections of the model.
    pub collections: Vec<syn::Path>,
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
    /// `pk = [...]` / `sk = [...]`: the index's key attributes as lists of typed attributes
    /// (a multi-attribute key); `pk` and `sk` then hold the first of each.
    pub multi: Option<MultiKey>,
}

/// The key attributes of an index declared with lists: `pk = ["tenant", "status"]`,
/// `sk = ["priority:N", "created"]`.
#[derive(Default)]
pub(crate) struct MultiKey {
    pub partition: Vec<KeyAttr>,
    pub sort: Vec<KeyAttr>,
}

/// One attribute of a key list: `"priority:N"` (type `S` when not given).
pub(crate) struct KeyAttr {
    pub lit: LitStr,
    pub name: String,
    /// `S`, `N` or `B`.
    pub ty: char,
}

/// A key given as `= "GSI1PK"` or as a list `= ["tenant", "priority:N"]`.
enum KeyValue {
    One(LitStr),
    List(proc_macro2::Span, Vec<KeyAttr>),
}

/// Parses `= "name"` or `= ["name", "name:N", ...]`.
fn key_value(cx: &Ctxt, m: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<KeyValue> {
    if !m.input.peek(syn::Token![=]) || !m.input.peek2(syn::token::Bracket) {
        return nonempty_string(m).map(KeyValue::One);
    }
    let _ = m.value()?;
    let content;
    let bracket = syn::bracketed!(content in m.input);
    let lits = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
    let mut out = Vec::new();
    for lit in lits {
        let text = lit.value();
        let (name, ty) = match text.rsplit_once(':') {
            Some((name, ty)) => (name.to_owned(), ty.to_owned()),
            None => (text.clone(), "S".to_owned()),
        };
        // A mistake is reported and the attribute kept (as S), so nothing else is reported
        // about the index.
        let ty = match ty.as_str() {
            "S" => 'S',
            "N" => 'N',
            "B" => 'B',
            other => {
                cx.error_spanned_by(&lit, format!("unknown key attribute type `{other}`: write `\"{name}\"` (a string), `\"{name}:N\"` (a number) or `\"{name}:B\"` (binary)"));
                'S'
            }
        };
        if name.is_empty() {
            cx.error_spanned_by(
                &lit,
                "a key attribute needs a name: `\"tenant\"` or `\"priority:N\"`",
            );
        }
        out.push(KeyAttr { lit, name, ty });
    }
    Ok(KeyValue::List(bracket.span.join(), out))
}

const TABLE_KEYS: &[&str] = &[
    "name",
    "pk",
    "sk",
    "ttl",
    "entity_attribute",
    "index(...)",
    "entities(...)",
    "collections(...)",
];
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
        let mut entities = Attr::none("entities");
        let mut collections = Attr::none("collections");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                key @ ("entities" | "collections") => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let list: Vec<syn::Path> = content
                        .parse_terminated(syn::Path::parse_mod_style, syn::Token![,])?
                        .into_iter()
                        .collect();
                    if key == "entities" {
                        entities.set(cx, &meta.path, list);
                    } else {
                        collections.set(cx, &meta.path, list);
                    }
                }
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
                    let mut multi: Option<MultiKey> = None;
                    let path = meta.path.clone();
                    meta.parse_nested_meta(|m| {
                        match key_name(&m).as_str() {
                            "name" => iname.set(cx, &m.path, nonempty_string(&m)?),
                            key @ ("pk" | "sk") => {
                                let first = match key_value(cx, &m)? {
                                    KeyValue::One(lit) => lit,
                                    KeyValue::List(span, list) => {
                                        let Some(first) = list.first() else {
                                            cx.error_at(span, format!("`{key} = []` lists no attribute: give one to four, `{key} = [\"tenant\", \"priority:N\"]`"));
                                            return Ok(());
                                        };
                                        let first = LitStr::new(&first.name, first.lit.span());
                                        let multi = multi.get_or_insert_with(MultiKey::default);
                                        if key == "pk" {
                                            multi.partition = list;
                                        } else {
                                            multi.sort = list;
                                        }
                                        first
                                    }
                                };
                                if key == "pk" {
                                    ipk.set(cx, &m.path, first);
                                } else {
                                    isk.set(cx, &m.path, first);
                                }
                            }
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
                        multi,
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
            entities: entities.get(),
            collections: collections.get().unwrap_or_default(),
        })
    }
}

/// One key attribute's name and type (`S`, `N`, `B`).
pub(crate) type KeyList = (String, char);

impl TableIndexDecl {
    /// The partition and sort key attributes with their types (`S`, `N`, `B`), in key order: the
    /// lists of a multi-attribute key, else the one string attribute of each (`table_pk` for a
    /// local index).
    pub(crate) fn key_lists(&self, table_pk: &LitStr) -> (Vec<KeyList>, Vec<KeyList>) {
        let one = |l: &LitStr| vec![(l.value(), 'S')];
        let list = |l: &[KeyAttr]| l.iter().map(|a| (a.name.clone(), a.ty)).collect::<Vec<_>>();
        let multi = self.multi.as_ref();
        let partition = match multi.filter(|m| !m.partition.is_empty()) {
            Some(m) => list(&m.partition),
            None if self.local => one(table_pk),
            None => self.pk.as_ref().map(one).unwrap_or_default(),
        };
        let sort = match multi.filter(|m| !m.sort.is_empty()) {
            Some(m) => list(&m.sort),
            None => self.sk.as_ref().map(one).unwrap_or_default(),
        };
        (partition, sort)
    }
}
