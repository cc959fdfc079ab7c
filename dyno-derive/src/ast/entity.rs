//! `#[derive(Entity)]`: the entity's table, key templates, indexes and fields.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::attr::{
    for_each_dyno_attr, int_value, key_name, no_value, nonempty_string, path_value, string_value,
    unknown_key_continue, Attr, Flag,
};
use crate::ctxt::Ctxt;
use crate::template::Template;

use super::{no_generics, parse_template};

/// An entity's declaration.
pub(crate) struct EntityInput<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub table: syn::Path,
    pub entity_type: String,
    pub pk: Template,
    pub sk: Option<Template>,
    pub indexes: Vec<EntityIndex>,
    pub fields: Vec<EntityField<'a>>,
}

/// One index the entity appears in.
pub(crate) struct EntityIndex {
    /// The index name as written (`GSI1`), with its span.
    pub name: String,
    pub name_tokens: TokenStream,
    pub pk: Option<Template>,
    pub sk: Option<Template>,
    pub shards: Option<(u32, Span)>,
    /// `pk = [tenant, status]`, `sk = [priority]`: fields mapped, in order, onto the attributes
    /// of an index key declared as lists (a multi-attribute key); `pk` and `sk` are then `None`.
    pub fields: Option<MappedKey>,
    /// `query = "by_status"`: the access pattern's name, the query constructor's name in place
    /// of the index's (`Order::by_status(..)` instead of `Order::gsi1(..)`).
    pub query: Option<LitStr>,
}

impl EntityIndex {
    /// The query constructor's name: `query = "..."`, else the index name in snake case.
    pub(crate) fn method(&self) -> String {
        self.query
            .as_ref()
            .map_or_else(|| crate::case::snake(&self.name), LitStr::value)
    }

    /// The span of the index name as written.
    pub(crate) fn span(&self) -> Span {
        self.name_tokens
            .clone()
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |t| t.span())
    }
}

/// The fields an entity maps onto an index's key attributes, in key order.
#[derive(Default)]
pub(crate) struct MappedKey {
    pub partition: Vec<Ident>,
    pub sort: Vec<Ident>,
}

/// One struct field.
pub(crate) struct EntityField<'a> {
    pub ident: &'a Ident,
    /// `ident` unraw, as a string: looked up by name many times per expansion.
    name: String,
    pub ty: &'a Type,
    pub attr_name: String,
    pub rename: Option<LitStr>,
    pub skip: Flag,
    pub serde: Flag,
    /// `#[dyno(default)]` (`Some(None)`: `Default::default()`) or `#[dyno(default = path)]`
    /// (`Some(Some(path))`: `path()`) for an attribute missing on read.
    pub default: Option<Option<syn::Path>>,
    pub version: Flag,
    pub created_at: Flag,
    pub updated_at: Flag,
    /// `#[dyno(generated)]`: an `Option<Ulid>` / `Option<Uuid>` id a write fills in when unset.
    pub generated: Flag,
    pub ttl: Flag,
    /// `#[dyno(key_format = "ordered" | "plain")]`: one form for every key segment of the field.
    pub key_format: Option<KeyFormat>,
}

/// How a key field is written (see `dyno_core::key::KeyFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyFormat {
    Ordered,
    Plain,
}

impl EntityField<'_> {
    /// The field's name as templates and attributes spell it (`type` for `r#type`).
    pub(crate) fn name(&self) -> String {
        self.name.clone()
    }

    /// [`Self::name`], borrowed.
    pub(crate) fn name_str(&self) -> &str {
        &self.name
    }

    /// True when the field is written to the item.
    pub(crate) fn is_stored(&self) -> bool {
        !self.skip.get()
    }
}

const ENTITY_KEYS: &[&str] = &["table", "pk", "sk", "entity_type", "index(...)"];
const ENTITY_INDEX_KEYS: &[&str] = &["<index name>", "name", "pk", "sk", "shards", "query"];
const FIELD_KEYS: &[&str] = &[
    "rename",
    "skip",
    "serde",
    "default",
    "version",
    "created_at",
    "updated_at",
    "generated",
    "ttl",
    "key_format",
];

impl<'a> EntityInput<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Entity");
        let mut table = Attr::none("table");
        let mut pk = Attr::none("pk");
        let mut sk = Attr::none("sk");
        let mut entity_type = Attr::none("entity_type");
        let mut indexes: Vec<EntityIndex> = Vec::new();
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "table" => table.set(cx, &meta.path, path_value(&meta)?),
                "pk" => pk.set(cx, &meta.path, string_value(&meta)?),
                "sk" => sk.set(cx, &meta.path, string_value(&meta)?),
                "entity_type" => entity_type.set(cx, &meta.path, nonempty_string(&meta)?),
                "index" => {
                    let path = meta.path.clone();
                    let mut name: Attr<(String, TokenStream)> = Attr::none("name");
                    let mut ipk = Attr::none("pk");
                    let mut isk = Attr::none("sk");
                    let mut shards = Attr::none("shards");
                    let mut query = Attr::none("query");
                    let mut mapped: Option<MappedKey> = None;
                    meta.parse_nested_meta(|m| {
                        let key = key_name(&m);
                        match key.as_str() {
                            "name" => {
                                let lit = nonempty_string(&m)?;
                                name.set(cx, &m.path, (lit.value(), quote::quote!(#lit)));
                            }
                            key @ ("pk" | "sk") if m.input.peek(syn::Token![=]) && m.input.peek2(syn::token::Bracket) => {
                                let _ = m.value()?;
                                let content;
                                syn::bracketed!(content in m.input);
                                let list = content.parse_terminated(Ident::parse_any, syn::Token![,])?;
                                let mapped = mapped.get_or_insert_with(MappedKey::default);
                                let (slot, other) = if key == "pk" { (&mut mapped.partition, &ipk) } else { (&mut mapped.sort, &isk) };
                                if !slot.is_empty() || other.is_set() {
                                    cx.error_spanned_by(&m.path, format!("duplicate `{key}`"));
                                }
                                *slot = list.into_iter().collect();
                            }
                            "query" => query.set(cx, &m.path, nonempty_string(&m)?),
                            "pk" => ipk.set(cx, &m.path, string_value(&m)?),
                            "sk" => isk.set(cx, &m.path, string_value(&m)?),
                            "shards" => {
                                let lit = int_value(&m)?;
                                match lit.base10_parse::<u32>() {
                                    Ok(n) if n >= 1 => shards.set(cx, &m.path, (n, lit.span())),
                                    _ => cx.error_spanned_by(&lit, "`shards` must be an integer from 1 to 4294967295, such as `shards = 8`"),
                                }
                            }
                            _ if m.path.get_ident().is_some() && !m.input.peek(syn::Token![=]) && !m.input.peek(syn::token::Paren) && !name.is_set() => {
                                let ident = m.path.get_ident().cloned();
                                if let Some(ident) = ident {
                                    name.set(cx, &m.path, (ident.to_string(), quote::quote!(#ident)));
                                }
                            }
                            _ => return unknown_key_continue(cx, &m, "index(...)", ENTITY_INDEX_KEYS),
                        }
                        Ok(())
                    })?;
                    let Some((name, name_tokens)) = name.get() else {
                        cx.error_spanned_by(&path, "index without a name: write `index(GSI1, pk = \"...\", sk = \"...\")` naming an index of the table");
                        return Ok(());
                    };
                    let pk = ipk.get().and_then(|l| parse_template(cx, l));
                    let sk = isk.get().and_then(|l| parse_template(cx, l));
                    indexes.push(EntityIndex {
                        name,
                        name_tokens,
                        pk,
                        sk,
                        shards: shards.get(),
                        fields: mapped,
                        query: query.get(),
                    });
                }
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on an entity",
                        ENTITY_KEYS,
                    )
                }
            }
            Ok(())
        });

        let fields = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => named
                    .named
                    .iter()
                    .filter_map(|f| EntityField::from_ast(cx, f))
                    .collect(),
                _ => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Entity)]` needs a struct with named fields",
                    );
                    return None;
                }
            },
            _ => {
                cx.error_spanned_by(&input.ident, "`#[derive(Entity)]` needs a struct with named fields; for several entities in one query, derive `Collection` on an enum");
                return None;
            }
        };

        let Some(table) = table.get() else {
            cx.error_spanned_by(&input.ident, "missing table: add `#[dyno(table = MyTable, pk = \"...\")]` naming a `#[derive(Table)]` type");
            return None;
        };
        let Some(pk) = pk.get() else {
            cx.error_spanned_by(
                &input.ident,
                "missing partition key template: add `pk = \"USER#{user_id}\"` to `#[dyno(...)]`",
            );
            return None;
        };
        // A template that does not parse is reported and replaced by an empty one, so the other
        // rules are still checked (nothing is generated once an error was reported).
        let or_empty = |lit: LitStr| {
            parse_template(cx, lit.clone()).unwrap_or(Template {
                lit,
                segments: Vec::new(),
            })
        };
        let pk = or_empty(pk);
        let sk = sk.get().map(or_empty);
        Some(EntityInput {
            ident: &input.ident,
            vis: &input.vis,
            table,
            entity_type: entity_type
                .get()
                .map_or_else(|| input.ident.unraw().to_string(), |l| l.value()),
            pk,
            sk,
            indexes,
            fields,
        })
    }

    /// The field called `name`.
    pub(crate) fn field(&self, name: &str) -> Option<&EntityField<'a>> {
        self.fields.iter().find(|f| f.name_str() == name)
    }
}

impl<'a> EntityField<'a> {
    fn from_ast(cx: &Ctxt, field: &'a syn::Field) -> Option<Self> {
        let ident = field.ident.as_ref()?;
        let mut rename = Attr::none("rename");
        let mut skip = Flag::none("skip");
        let mut serde = Flag::none("serde");
        let mut default: Attr<Option<syn::Path>> = Attr::none("default");
        let mut version = Flag::none("version");
        let mut created_at = Flag::none("created_at");
        let mut updated_at = Flag::none("updated_at");
        let mut generated = Flag::none("generated");
        let mut ttl = Flag::none("ttl");
        let mut key_format = Attr::none("key_format");
        for_each_dyno_attr(cx, &field.attrs, |meta| {
            let flag = match key_name(&meta).as_str() {
                "rename" => {
                    rename.set(cx, &meta.path, nonempty_string(&meta)?);
                    return Ok(());
                }
                "key_format" => {
                    let lit = string_value(&meta)?;
                    let format = match lit.value().as_str() {
                        "ordered" => KeyFormat::Ordered,
                        "plain" => KeyFormat::Plain,
                        other => {
                            cx.error_spanned_by(
                                &lit,
                                format!(
                                    "unknown key format {other:?}; expected \"ordered\" (fixed \
                                     width, sorts numerically) or \"plain\" (decimal text, as \
                                     other clients write keys)"
                                ),
                            );
                            return Ok(());
                        }
                    };
                    key_format.set(cx, &meta.path, format);
                    return Ok(());
                }
                "default" => {
                    let path = if meta.input.peek(syn::Token![=]) {
                        let value = meta.value()?;
                        Some(value.parse::<syn::Path>().map_err(|e| {
                            syn::Error::new(
                                e.span(),
                                "expected the path of a function returning the field's value: \
                                 `default = my_default` (or `#[dyno(default)]` for `Default`)",
                            )
                        })?)
                    } else {
                        no_value(&meta)?;
                        None
                    };
                    default.set(cx, &meta.path, path);
                    return Ok(());
                }
                "skip" => &mut skip,
                "serde" => &mut serde,
                "version" => &mut version,
                "created_at" => &mut created_at,
                "updated_at" => &mut updated_at,
                "generated" => &mut generated,
                "ttl" => &mut ttl,
                _ => return unknown_key_continue(cx, &meta, "#[dyno(...)] on a field", FIELD_KEYS),
            };
            no_value(&meta)?;
            flag.set(cx, &meta.path);
            Ok(())
        });
        let rename = rename.get();
        Some(EntityField {
            ident,
            name: ident.unraw().to_string(),
            ty: &field.ty,
            attr_name: rename
                .as_ref()
                .map_or_else(|| ident.unraw().to_string(), LitStr::value),
            rename,
            skip,
            serde,
            default: default.get(),
            version,
            created_at,
            updated_at,
            generated,
            ttl,
            key_format: key_format.get(),
        })
    }
}
