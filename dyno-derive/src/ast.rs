//! The derive inputs as models: `#[dyno(...)]` attributes parsed into plain data that borrows
//! the input. Parsing reports every error it meets in the [`Ctxt`] and keeps going.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::attr::{
    for_each_dyno_attr, int_value, key_name, no_value, nonempty_string, path_value, string_value,
    unknown_key_continue, Attr, Flag,
};
use crate::ctxt::Ctxt;
use crate::template::{self, Template};

// ---------------------------------------------------------------------------------------------
// #[derive(Table)]

/// A table's declaration.
pub struct TableInput<'a> {
    pub ident: &'a Ident,
    pub name: LitStr,
    pub pk: LitStr,
    pub sk: Option<LitStr>,
    pub ttl: Option<LitStr>,
    pub entity_attribute: Option<LitStr>,
    pub indexes: Vec<TableIndexDecl>,
}

/// One index of a table.
pub struct TableIndexDecl {
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
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
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

// ---------------------------------------------------------------------------------------------
// #[derive(Entity)]

/// An entity's declaration.
pub struct EntityInput<'a> {
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
pub struct EntityIndex {
    /// The index name as written (`GSI1`), with its span.
    pub name: String,
    pub name_tokens: TokenStream,
    pub pk: Option<Template>,
    pub sk: Option<Template>,
    pub shards: Option<(u32, Span)>,
}

/// One struct field.
pub struct EntityField<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub attr_name: String,
    pub rename: Option<LitStr>,
    pub skip: Flag,
    pub serde: Flag,
    pub default: Flag,
    pub version: Flag,
    pub created_at: Flag,
    pub updated_at: Flag,
    pub ttl: Flag,
    /// `#[dyno(key_format = "ordered" | "plain")]`: one form for every key segment of the field.
    pub key_format: Option<KeyFormat>,
}

/// How a key field is written (see `dyno_core::key::KeyFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFormat {
    Ordered,
    Plain,
}

impl EntityField<'_> {
    /// The field's name as templates and attributes spell it (`type` for `r#type`).
    pub fn name(&self) -> String {
        self.ident.unraw().to_string()
    }

    /// True when the field is written to the item.
    pub fn is_stored(&self) -> bool {
        !self.skip.get()
    }
}

const ENTITY_KEYS: &[&str] = &["table", "pk", "sk", "entity_type", "index(...)"];
const ENTITY_INDEX_KEYS: &[&str] = &["<index name>", "name", "pk", "sk", "shards"];
const FIELD_KEYS: &[&str] = &[
    "rename",
    "skip",
    "serde",
    "default",
    "version",
    "created_at",
    "updated_at",
    "ttl",
    "key_format",
];

fn parse_template(cx: &Ctxt, lit: LitStr) -> Option<Template> {
    match template::parse(&lit) {
        Ok(t) => Some(t),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

impl<'a> EntityInput<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
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
                    meta.parse_nested_meta(|m| {
                        let key = key_name(&m);
                        match key.as_str() {
                            "name" => {
                                let lit = nonempty_string(&m)?;
                                name.set(cx, &m.path, (lit.value(), quote::quote!(#lit)));
                            }
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
    pub fn field(&self, name: &str) -> Option<&EntityField<'a>> {
        self.fields.iter().find(|f| f.name() == name)
    }
}

impl<'a> EntityField<'a> {
    fn from_ast(cx: &Ctxt, field: &'a syn::Field) -> Option<Self> {
        let ident = field.ident.as_ref()?;
        let mut rename = Attr::none("rename");
        let mut skip = Flag::none("skip");
        let mut serde = Flag::none("serde");
        let mut default = Flag::none("default");
        let mut version = Flag::none("version");
        let mut created_at = Flag::none("created_at");
        let mut updated_at = Flag::none("updated_at");
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
                "skip" => &mut skip,
                "serde" => &mut serde,
                "default" => &mut default,
                "version" => &mut version,
                "created_at" => &mut created_at,
                "updated_at" => &mut updated_at,
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
            ty: &field.ty,
            attr_name: rename
                .as_ref()
                .map_or_else(|| ident.unraw().to_string(), LitStr::value),
            rename,
            skip,
            serde,
            default,
            version,
            created_at,
            updated_at,
            ttl,
            key_format: key_format.get(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// #[derive(KeyPart)]

/// A key part: a unit enum (by name) or a newtype (delegating).
pub enum KeyPartInput<'a> {
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
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
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

// ---------------------------------------------------------------------------------------------
// #[derive(Projection)]

/// A projection: a subset of an entity's fields.
pub struct ProjectionInput<'a> {
    pub ident: &'a Ident,
    pub entity: syn::Path,
    pub fields: Vec<ProjectionField<'a>>,
}

/// One projected field.
pub struct ProjectionField<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub serde: bool,
    pub default: bool,
}

impl<'a> ProjectionInput<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Projection");
        let mut entity = Attr::none("entity");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "entity" | "projection_of" => entity.set(cx, &meta.path, path_value(&meta)?),
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a projection",
                        &["entity"],
                    )
                }
            }
            Ok(())
        });
        let fields = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(n) => n
                    .named
                    .iter()
                    .filter_map(|f| {
                        let mut serde = Flag::none("serde");
                        let mut default = Flag::none("default");
                        for_each_dyno_attr(cx, &f.attrs, |meta| {
                            let flag = match key_name(&meta).as_str() {
                                "serde" => &mut serde,
                                "default" => &mut default,
                                _ => {
                                    return unknown_key_continue(
                                        cx,
                                        &meta,
                                        "#[dyno(...)] on a projection field",
                                        &["serde", "default"],
                                    )
                                }
                            };
                            no_value(&meta)?;
                            flag.set(cx, &meta.path);
                            Ok(())
                        });
                        Some(ProjectionField {
                            ident: f.ident.as_ref()?,
                            ty: &f.ty,
                            serde: serde.get(),
                            default: default.get(),
                        })
                    })
                    .collect(),
                _ => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Projection)]` needs a struct with named fields",
                    );
                    return None;
                }
            },
            _ => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(Projection)]` needs a struct with named fields",
                );
                return None;
            }
        };
        let Some(entity) = entity.get() else {
            cx.error_spanned_by(
                &input.ident,
                "missing entity: add `#[dyno(entity = Order)]` naming the entity this projects",
            );
            return None;
        };
        Some(ProjectionInput {
            ident: &input.ident,
            entity,
            fields,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// #[derive(Collection)]

/// A collection: an enum of entities, or a struct of `Option<E>` / `Vec<E>` fields.
pub struct CollectionInput<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub partition: Option<syn::Path>,
    pub shape: CollectionShape<'a>,
}

/// The two shapes.
pub enum CollectionShape<'a> {
    /// `enum UserItem { User(User), Order(Order) }`
    Enum(Vec<(&'a Ident, &'a Type)>),
    /// `struct UserWithOrders { user: Option<User>, orders: Vec<Order> }`
    Struct(Vec<GroupField<'a>>),
}

/// A field of a struct-of-vectors collection.
pub struct GroupField<'a> {
    pub ident: &'a Ident,
    pub entity: &'a Type,
    pub many: bool,
}

impl<'a> CollectionInput<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Collection");
        let mut partition = Attr::none("partition");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "partition" => partition.set(cx, &meta.path, path_value(&meta)?),
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a collection",
                        &["partition"],
                    )
                }
            }
            Ok(())
        });
        let shape = match &input.data {
            Data::Enum(e) => {
                let mut out = Vec::new();
                for v in &e.variants {
                    match &v.fields {
                        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                            out.push((&v.ident, &u.unnamed[0].ty))
                        }
                        _ => cx.error_spanned_by(
                            v,
                            format!(
                                "collection variants wrap one entity each, as in `{}(Order)`",
                                v.ident
                            ),
                        ),
                    }
                }
                if e.variants.is_empty() {
                    cx.error_spanned_by(&input.ident, "a collection needs at least one entity");
                }
                CollectionShape::Enum(out)
            }
            Data::Struct(s) => {
                let Fields::Named(n) = &s.fields else {
                    cx.error_spanned_by(&input.ident, "a collection struct needs named fields of type `Option<Entity>` or `Vec<Entity>`");
                    return None;
                };
                let mut out = Vec::new();
                for f in &n.named {
                    let (entity, many) = if let Some(t) = crate::ty::option_inner(&f.ty) {
                        (t, false)
                    } else if let Some(t) = crate::ty::vec_elem(&f.ty) {
                        (t, true)
                    } else {
                        cx.error_spanned_by(&f.ty, "a collection field is `Option<Entity>` (at most one item) or `Vec<Entity>`");
                        continue;
                    };
                    if let Some(ident) = &f.ident {
                        out.push(GroupField {
                            ident,
                            entity,
                            many,
                        });
                    }
                }
                if n.named.is_empty() {
                    cx.error_spanned_by(&input.ident, "a collection needs at least one entity");
                }
                CollectionShape::Struct(out)
            }
            Data::Union(_) => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(Collection)]` works on enums and structs",
                );
                return None;
            }
        };
        Some(CollectionInput {
            ident: &input.ident,
            vis: &input.vis,
            partition: partition.get(),
            shape,
        })
    }
}

fn no_generics(cx: &Ctxt, input: &DeriveInput, derive: &str) {
    if !input.generics.params.is_empty() {
        cx.error_at(
            input.generics.span(),
            format!("`#[derive({derive})]` does not support generic types"),
        );
    }
}
