//! Rules that span several fields or attributes, checked after parsing. Every broken rule is
//! recorded (spanned on the offending token, saying the right form) before giving up.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;

use syn::ext::IdentExt;

use crate::ast::{EntityField, EntityIndex, EntityInput, KeyPartInput, MappedKey, TableInput};
use crate::case;
use crate::ctxt::Ctxt;
use crate::template::Template;

/// Where a generated method goes, and so which methods it must not hide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum On {
    /// The entity type: index methods (`Order::gsi1()`).
    Entity,
    /// Every query builder: sort-key part accessors (`.order_date()`).
    Query,
    /// Every typed update builder: setters (`.set_status(..)`).
    Update,
}

/// Every method a generated method could hide, in one list: on the entity, the derive's own
/// (`key`, `try_key`, `query`, `update`, `partition`, `from_item`, `upsert`) and those of
/// `dyno_core::Entity` and `dyno_core::ops::EntityExt`; on query builders, `QueryDsl`'s and
/// the derive's `project`; on update builders, `UpdateDsl`'s and the derive's
/// `keep_updated_at`. `tests::reserved_names_cover_dyno_cores_builders` reads dyno-core's
/// sources and fails when one of those traits gains a method this list lacks.
pub(crate) const RESERVED: &[(On, &str)] = &[
    // The entity.
    (On::Entity, "key"),
    (On::Entity, "try_key"),
    (On::Entity, "query"),
    (On::Entity, "update"),
    (On::Entity, "partition"),
    (On::Entity, "from_item"),
    (On::Entity, "to_item"),
    (On::Entity, "is_entity"),
    (On::Entity, "version"),
    (On::Entity, "set_version"),
    (On::Entity, "created_at_unset"),
    (On::Entity, "get"),
    (On::Entity, "put"),
    (On::Entity, "create"),
    (On::Entity, "replace"),
    (On::Entity, "delete"),
    (On::Entity, "scan"),
    (On::Entity, "upsert"),
    // Query builders.
    (On::Query, "filter"),
    (On::Query, "only"),
    (On::Query, "filter_member"),
    (On::Query, "collection"),
    (On::Query, "limit"),
    (On::Query, "page_size"),
    (On::Query, "descending"),
    (On::Query, "consistent"),
    (On::Query, "lenient"),
    (On::Query, "into_query"),
    (On::Query, "all"),
    (On::Query, "stream"),
    (On::Query, "page"),
    (On::Query, "pages"),
    (On::Query, "first"),
    (On::Query, "count"),
    (On::Query, "map_query"),
    (On::Query, "as_query"),
    (On::Query, "into_inner"),
    (On::Query, "from_query"),
    (On::Query, "project"),
    // Update builders.
    (On::Update, "map_update"),
    (On::Update, "into_update"),
    (On::Update, "into_inner"),
    (On::Update, "prepare_upsert"),
    (On::Update, "condition"),
    (On::Update, "if_version"),
    (On::Update, "upsert"),
    (On::Update, "into_builder"),
    (On::Update, "at"),
    (On::Update, "send"),
    (On::Update, "keep_updated_at"),
];

/// True when a generated method named `name` on `on` would hide one in [`RESERVED`].
pub(crate) fn reserved(on: On, name: &str) -> bool {
    RESERVED.iter().any(|&(o, n)| o == on && n == name)
}

/// The methods a typed update builder gets (`names`, in generation order, with the field each
/// is for): one that another method or a builder method ([`RESERVED`]) already takes is
/// an error spanned on the field, naming both. Setters are named after fields (`set_x`,
/// `set_if_absent_x`, `add_to_x`, `set_x_given`, `set_x_and_y`), so two fields can ask for one
/// name (`if_absent_x` beside `x`).
pub(crate) fn update_methods(cx: &Ctxt, entity: &syn::Ident, names: &[(String, &syn::Ident)]) {
    let mut seen: BTreeMap<&str, &syn::Ident> = BTreeMap::new();
    for (name, field) in names {
        if reserved(On::Update, name) {
            cx.error_spanned_by(
                field,
                format!("field `{field}` would generate `{entity}Update::{name}`, which hides the update method `{name}()`: rename the Rust field and keep the attribute with `#[dyno(rename = \"...\")]`"),
            );
        } else if let Some(first) = seen.get(name.as_str()) {
            if *first != *field {
                cx.error_spanned_by(
                    field,
                    format!("field `{field}` would generate `{entity}Update::{name}`, which field `{first}` generates too: rename one of them and keep its attribute with `#[dyno(rename = \"...\")]`"),
                );
            }
        } else {
            seen.insert(name, field);
        }
    }
}

/// Checks an entity declaration.
pub(crate) fn entity(cx: &Ctxt, input: &EntityInput<'_>) {
    for t in input
        .sk
        .iter()
        .chain(input.indexes.iter().filter_map(|i| i.sk.as_ref()))
    {
        for name in t.fields().filter(|f| reserved(On::Query, f)) {
            cx.error_spanned_by(
                &t.lit,
                format!("sort-key field `{name}` would hide the query method `{name}()` (its conditions are `.{name}().eq(..)`, ...): rename the Rust field and keep the attribute with `#[dyno(rename = \"{name}\")]`"),
            );
        }
    }
    let names: Vec<String> = input.fields.iter().map(|f| f.name()).collect();
    let field_list = names.join(", ");

    // Templates: every placeholder names a stored, plain field.
    let check_template = |t: &Template, primary: bool| {
        for name in t.fields() {
            let Some(field) = input.field(name) else {
                cx.error_spanned_by(
                    &t.lit,
                    format!("no field `{name}` in `{}`: template placeholders name struct fields (fields: {field_list})", input.ident),
                );
                continue;
            };
            let bad = |what: &str| {
                cx.error_spanned_by(
                    &t.lit,
                    format!("field `{name}` is {what} and cannot be part of a key"),
                );
            };
            if field.skip.get() {
                bad("`#[dyno(skip)]` (not stored)");
            } else if field.serde.get() {
                bad("`#[dyno(serde)]` (stored through serde, with no key encoding)");
            } else if field.version.get() {
                bad("the version field (it changes on every write)");
            } else if field.ttl.get() {
                bad("the TTL field");
            } else if primary && field.updated_at.get() {
                bad("the updated_at timestamp (it changes on every write; primary keys never change)");
            } else if primary
                && !field.generated.get()
                && crate::ty::option_inner(field.ty).is_some()
            {
                cx.error_spanned_by(
                    &t.lit,
                    format!("field `{name}` is an `Option`: primary key fields are required; optional fields belong in index templates (sparse indexes)"),
                );
            }
        }
    };
    check_template(&input.pk, true);
    if let Some(sk) = &input.sk {
        check_template(sk, true);
    }
    for index in &input.indexes {
        for t in index.pk.iter().chain(&index.sk) {
            check_template(t, false);
        }
    }

    // Indexes: unique names, keys given, method names free.
    let mut seen: BTreeMap<String, ()> = BTreeMap::new();
    // The method each name generates, with where it comes from. A named index's own name stays
    // taken (`Order::gsi1()` is the compile error pointing at its query name).
    let mut methods: BTreeMap<String, String> = BTreeMap::new();
    for index in input.indexes.iter().filter(|i| i.query.is_some()) {
        let physical = case::snake(&index.name);
        if index.method() != physical {
            methods.insert(
                physical,
                format!(
                    "index `{}` (its query is named `{}`)",
                    index.name,
                    index.method()
                ),
            );
        }
    }
    for index in &input.indexes {
        if seen.insert(index.name.clone(), ()).is_some() {
            cx.error_spanned_by(
                &index.name_tokens,
                format!(
                    "index `{}` is given twice; declare each index once",
                    index.name
                ),
            );
        }
        let method = index.method();
        // Where the name comes from, for messages naming both sides of a clash.
        let origin = match &index.query {
            Some(q) => format!("the query name `{}` of index `{}`", q.value(), index.name),
            None => format!("index `{}`", index.name),
        };
        let at: &dyn ToTokens = match &index.query {
            Some(q) => q,
            None => &index.name_tokens,
        };
        if method.is_empty()
            || !method.starts_with(|c: char| c.is_ascii_alphabetic())
            || syn::parse_str::<syn::Ident>(&method).is_err()
        {
            match &index.query {
                Some(q) => cx.error_spanned_by(
                    q,
                    format!(
                        "query name `{}` is not a method name: write a Rust identifier starting with a letter, such as `query = \"by_status\"`",
                        q.value()
                    ),
                ),
                None => cx.error_spanned_by(
                    &index.name_tokens,
                    format!(
                        "index `{}` has no usable method name: it must start with a letter (or name its query: `query = \"by_status\"`)",
                        index.name
                    ),
                ),
            }
        } else if reserved(On::Entity, &method) {
            cx.error_spanned_by(
                at,
                format!(
                    "{origin} would generate `{}::{method}()`, which every entity has already: name the query, `query = \"...\"`, with another name",
                    input.ident
                ),
            );
        } else if let Some(first) = methods.get(&method) {
            cx.error_spanned_by(
                at,
                format!(
                    "{origin} would generate `{}::{method}()`, which {first} generates already: give one of them another `query = \"...\"` name",
                    input.ident
                ),
            );
        } else {
            methods.insert(method.clone(), origin);
        }
        if let Some(mapped) = &index.fields {
            mapped_key(cx, input, index, mapped);
        } else if index.pk.is_none() && index.sk.is_none() {
            cx.error_spanned_by(
                &index.name_tokens,
                format!("index `{}` needs key templates: `index({}, pk = \"...\", sk = \"...\")` (a local index takes only `sk`)", index.name, index.name),
            );
        }
        if let (Some((_, span)), None) = (&index.shards, &index.pk) {
            cx.error_at(
                *span,
                "`shards` needs the index's own partition key template (`pk = \"...\"`)",
            );
        }
    }

    // Field attributes.
    let mut singles: BTreeMap<&str, &EntityField<'_>> = BTreeMap::new();
    let mut attr_names: BTreeMap<&str, &EntityField<'_>> = BTreeMap::new();
    for f in &input.fields {
        let flags = [
            ("version", &f.version),
            ("created_at", &f.created_at),
            ("updated_at", &f.updated_at),
            ("generated", &f.generated),
            ("ttl", &f.ttl),
        ];
        let mut roles = flags.iter().filter(|(_, fl)| fl.get());
        if let Some((role, flag)) = roles.next() {
            if let Some((other, _)) = roles.next() {
                cx.error_spanned_by(
                    flag.tokens(),
                    format!("field `{}` cannot be both `{role}` and `{other}`", f.ident),
                );
            }
            if let Some(prev) = singles.insert(role, f) {
                cx.error_spanned_by(
                    flag.tokens(),
                    format!(
                        "`#[dyno({role})]` is on `{}` already; an entity has one {role} field",
                        prev.ident
                    ),
                );
            }
            if f.skip.get() || f.serde.get() {
                cx.error_spanned_by(
                    flag.tokens(),
                    format!(
                        "a `{role}` field is stored by dyno: it cannot also be `skip` or `serde`"
                    ),
                );
            }
            if *role == "ttl"
                && let Some(r) = &f.rename
            {
                cx.error_spanned_by(
                    r,
                    "the TTL field is stored under the table's `ttl` attribute: remove `rename`",
                );
            }
        }
        if f.generated.get() {
            let name = f.name();
            let in_primary = input
                .pk
                .fields()
                .chain(input.sk.iter().flat_map(|t| t.fields()))
                .any(|n| n == name);
            if !in_primary {
                cx.error_spanned_by(
                    f.generated.tokens(),
                    format!("a `#[dyno(generated)]` id identifies the item: put `{{{name}}}` in the `pk` or `sk` template (it may appear in index templates too)"),
                );
            }
        }
        if f.generated.get() && crate::ty::option_inner(f.ty).is_none() {
            cx.error_spanned_by(
                f.ty,
                format!(
                    "a `#[dyno(generated)]` field is an `Option` (`None`: unset, the write \
                     generates the id): declare `{}: Option<Ulid>` or `Option<Uuid>`",
                    f.ident
                ),
            );
        }
        if f.skip.get() {
            for (name, set) in [
                ("serde", f.serde.get()),
                ("default", f.default.is_some()),
                ("rename", f.rename.is_some()),
            ] {
                if set {
                    cx.error_spanned_by(
                        f.skip.tokens(),
                        format!(
                            "`skip` fields are not stored: `{name}` has no effect on `{}`",
                            f.ident
                        ),
                    );
                }
            }
        }
        if f.is_stored()
            && !f.ttl.get()
            && let Some(prev) = attr_names.insert(f.attr_name.as_str(), f)
        {
            cx.error_spanned_by(
                    f.rename.as_ref().map_or_else(|| f.ident.to_token_stream(), |r| r.to_token_stream()),
                    format!("attribute `{}` is already where field `{}` is stored: give one of them another `rename`", f.attr_name, prev.ident),
                );
        }
    }
}

/// Checks a table declaration.
/// Methods a collection type has besides its query (`FromItem`'s): a query named like one would
/// clash.
const COLLECTION_METHODS: &[&str] = &["accepts", "from_item", "ttl_attribute"];

/// A collection's query name: a method name, free on the collection type.
pub(crate) fn collection(cx: &Ctxt, input: &crate::ast::CollectionInput<'_>) {
    let Some(q) = &input.query else { return };
    let name = q.value();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic())
        || syn::parse_str::<syn::Ident>(&name).is_err()
    {
        cx.error_spanned_by(
            q,
            format!("query name `{name}` is not a method name: write a Rust identifier starting with a letter, such as `query = \"profile\"`"),
        );
    } else if COLLECTION_METHODS.contains(&name.as_str()) {
        cx.error_spanned_by(
            q,
            format!("the query name `{name}` of collection `{}` clashes with `{}::{name}()`, which every collection has (`FromItem`): give the query another name", input.ident, input.ident),
        );
    }
}

pub(crate) fn table(cx: &Ctxt, input: &TableInput<'_>) {
    attribute_types(cx, input);
    let mut names = BTreeSet::new();
    let mut consts: BTreeMap<String, String> = BTreeMap::new();
    for index in &input.indexes {
        let name = index.name.value();
        if !names.insert(name.clone()) {
            cx.error_spanned_by(&index.name, format!("index `{name}` is declared twice"));
        } else if let Some(other) = consts.insert(case::index_const(&name), name.clone()) {
            cx.error_spanned_by(
                &index.name,
                format!(
                    "indexes `{other}` and `{name}` would both be the constant `{}`: rename one",
                    case::index_const(&name)
                ),
            );
        }
        if index.local {
            if index.pk.is_some() {
                cx.error_spanned_by(
                    &index.tokens,
                    "a local index shares the table's partition key: leave out `pk`",
                );
            }
            if index.sk.is_none() {
                cx.error_spanned_by(
                    &index.tokens,
                    format!("local index `{name}` needs its sort key attribute: `sk = \"LSI1SK\"`"),
                );
            }
            if input.sk.is_none() {
                cx.error_spanned_by(
                    &index.tokens,
                    "local indexes need a table with a sort key (`sk = \"SK\"`)",
                );
            }
        } else if index.pk.is_none() {
            cx.error_spanned_by(
                &index.tokens,
                format!(
                    "global index `{name}` needs its partition key attribute: `pk = \"GSI1PK\"`"
                ),
            );
        }
        if let Some(multi) = &index.multi {
            if index.local {
                cx.error_spanned_by(
                    &index.tokens,
                    "multi-attribute keys (`pk = [...]`, `sk = [...]`) are for global indexes only: DynamoDB keys a local index by the table's partition key and one sort attribute",
                );
            }
            let (partition, sort) = index.key_lists(&input.pk);
            for (which, list, min) in [("pk", &partition, 1), ("sk", &sort, 0)] {
                if list.len() > 4 || list.len() < min {
                    cx.error_spanned_by(
                        &index.tokens,
                        format!("index `{name}`'s `{which}` lists {} attributes: a multi-attribute key has one to four partition attributes and up to four sort attributes", list.len()),
                    );
                }
            }
            let mut seen = BTreeSet::new();
            for attr in multi.partition.iter().chain(&multi.sort) {
                if !seen.insert(attr.name.clone()) {
                    cx.error_spanned_by(
                        &attr.lit,
                        format!(
                            "attribute `{}` appears twice in index `{name}`'s key",
                            attr.name
                        ),
                    );
                }
            }
        }
        if let (Some(k), Some((_, _))) = (&index.keys_only, &index.include) {
            cx.error_spanned_by(
                k,
                "an index projects `keys_only` or `include(...)`, not both",
            );
        }
    }
}

/// An index keyed by fields (`pk = [tenant, status]`): lists, not templates; every field
/// stored, plain and named apart from the query methods.
fn mapped_key(cx: &Ctxt, input: &EntityInput<'_>, index: &EntityIndex, mapped: &MappedKey) {
    let name = &index.name;
    if index.pk.is_some() || index.sk.is_some() {
        cx.error_spanned_by(
            &index.name_tokens,
            format!("index `{name}` mixes a key template with a field list: map both keys with lists, `index({name}, pk = [tenant, status], sk = [priority])`"),
        );
    }
    if mapped.partition.is_empty() {
        cx.error_spanned_by(
            &index.name_tokens,
            format!("index `{name}` needs its partition fields: `index({name}, pk = [tenant, status], ...)`"),
        );
    }
    if let Some((_, span)) = &index.shards {
        cx.error_at(*span, "`shards` needs a partition key template (`pk = \"...\"`); an index keyed by fields is not sharded");
    }
    let mut seen = BTreeSet::new();
    for (ident, sort) in mapped
        .partition
        .iter()
        .map(|i| (i, false))
        .chain(mapped.sort.iter().map(|i| (i, true)))
    {
        let field_name = ident.unraw().to_string();
        let Some(field) = input.field(&field_name) else {
            let fields: Vec<String> = input.fields.iter().map(|f| f.name()).collect();
            cx.error_spanned_by(
                ident,
                format!(
                    "no field `{field_name}` in `{}` (fields: {})",
                    input.ident,
                    fields.join(", ")
                ),
            );
            continue;
        };
        if !seen.insert(field_name.clone()) {
            cx.error_spanned_by(
                ident,
                format!("field `{field_name}` is mapped twice in index `{name}`"),
            );
        }
        let what = if field.skip.get() {
            Some("`#[dyno(skip)]` (not stored)")
        } else if field.serde.get() {
            Some("`#[dyno(serde)]` (stored through serde, with no key type)")
        } else if field.version.get() {
            Some("the version field")
        } else if field.ttl.get() {
            Some("the TTL field")
        } else {
            None
        };
        if let Some(what) = what {
            cx.error_spanned_by(ident, format!("field `{field_name}` is {what} and cannot be a key attribute of index `{name}`"));
        }
        if sort && reserved(On::Query, &field_name) {
            cx.error_spanned_by(ident, format!("sort field `{field_name}` would hide the query method `{field_name}()`: rename the Rust field and keep the attribute with `#[dyno(rename = \"{field_name}\")]`"));
        }
    }
}

/// One type per attribute name across a table's keys (DynamoDB's attribute definitions).
fn attribute_types(cx: &Ctxt, input: &TableInput<'_>) {
    let mut types: BTreeMap<String, char> = BTreeMap::new();
    let singles = input.indexes.iter().filter(|i| i.multi.is_none());
    let single_keys = singles.flat_map(|i| i.pk.iter().chain(&i.sk));
    for k in std::iter::once(&input.pk)
        .chain(&input.sk)
        .chain(single_keys)
    {
        types.insert(k.value(), 'S');
    }
    for index in &input.indexes {
        let Some(multi) = &index.multi else { continue };
        let mut own = BTreeSet::new();
        // A name twice in one key is reported once, as such (below).
        let attrs = multi.partition.iter().chain(&multi.sort);
        for attr in attrs.filter(|a| own.insert(a.name.clone())) {
            match types.get(&attr.name) {
                Some(ty) if *ty != attr.ty => cx.error_spanned_by(
                    &attr.lit,
                    format!(
                        "attribute `{}` is declared `{ty}` elsewhere in this table's keys: an attribute has one type (S, N or B) in every key",
                        attr.name
                    ),
                ),
                _ => {
                    types.insert(attr.name.clone(), attr.ty);
                }
            }
        }
    }
}

/// Checks a key-part declaration.
pub(crate) fn key_part(cx: &Ctxt, input: &KeyPartInput<'_>) {
    if let KeyPartInput::Enum {
        ident,
        variants,
        aliases,
        case_insensitive,
        ..
    } = input
    {
        // Every spelling a value is read from (names, then aliases) belongs to one variant:
        // compared in lowercase when reads ignore case.
        let mut seen: BTreeMap<String, (&syn::Ident, &str, &str)> = BTreeMap::new();
        let spellings = variants
            .iter()
            .map(|(v, name, span)| (*v, name, *span, "encoded as"))
            .chain(
                aliases
                    .iter()
                    .map(|(i, alias, span)| (variants[*i].0, alias, *span, "read from")),
            );
        for (v, name, span, how) in spellings {
            if name.contains('#') {
                cx.error_at(
                    span,
                    format!(
                        "variant `{v}` is {how} {name:?}, which contains the key delimiter `#`"
                    ),
                );
            }
            if name.is_empty() {
                cx.error_at(
                    span,
                    format!("variant `{v}` is encoded as an empty string; give it a name"),
                );
            }
            let folded = if *case_insensitive {
                name.to_ascii_lowercase()
            } else {
                name.clone()
            };
            match seen.get(&folded) {
                Some((prev, _, _)) if *prev == v && how == "read from" => cx.error_at(
                    span,
                    format!("alias {name:?} of `{v}` repeats one of its spellings"),
                ),
                Some((prev, prev_name, prev_how)) => cx.error_at(
                    span,
                    format!(
                        "variants `{prev}` and `{v}` of `{ident}` are both {} {name:?}{}",
                        if *prev_how == how { how } else { "read from" },
                        if *case_insensitive && *prev_name != name.as_str() {
                            format!(" (as {prev_name:?}, ignoring case)")
                        } else {
                            String::new()
                        }
                    ),
                ),
                None => {
                    seen.insert(folded, (v, name.as_str(), how));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{reserved, On};

    /// The methods declared in the block of `source` that starts with the line `header`
    /// (rustfmt's layout: items at four spaces, the block closed by `}` alone).
    fn methods_of(source: &str, header: &str) -> Vec<String> {
        let start = source
            .lines()
            .position(|l| l.starts_with(header))
            .unwrap_or_else(|| panic!("no `{header}` in dyno-core: update this test"));
        let mut out = Vec::new();
        for line in source.lines().skip(start + 1).take_while(|l| *l != "}") {
            let Some(rest) = line.strip_prefix("    ") else {
                continue;
            };
            let rest = rest.strip_prefix("pub ").unwrap_or(rest);
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            if let Some(name) = rest.strip_prefix("fn ") {
                out.push(
                    name.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect(),
                );
            }
        }
        assert!(!out.is_empty(), "`{header}`: no method read");
        out
    }

    /// A trait of dyno-core that gains a method fails this test until the method is in
    /// [`super::RESERVED`], so that no field or index can ever generate a method hiding it.
    #[test]
    fn reserved_names_cover_dyno_cores_builders() {
        let core = concat!(env!("CARGO_MANIFEST_DIR"), "/../dyno-core/src/");
        let read = |file: &str| {
            std::fs::read_to_string(format!("{core}{file}"))
                .unwrap_or_else(|e| panic!("{core}{file}: {e}"))
        };
        let dsl = read("ops/dsl.rs");
        let traits = [
            (On::Query, methods_of(&dsl, "pub trait QueryDsl")),
            (On::Update, methods_of(&dsl, "pub trait UpdateDsl")),
            (
                On::Entity,
                methods_of(&read("ops/ext.rs"), "pub trait EntityExt"),
            ),
            (
                On::Entity,
                methods_of(&read("entity/mod.rs"), "pub trait Entity:"),
            ),
        ];
        let mut missing = Vec::new();
        for (on, names) in &traits {
            for name in names {
                if !reserved(*on, name) {
                    missing.push(format!("({on:?}, {name:?})"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "methods of dyno-core's builders missing from check::RESERVED (a field or index \
             could generate a method hiding them): {}",
            missing.join(", ")
        );
        // The list is read as the generated code uses it.
        assert!(reserved(On::Query, "lenient") && !reserved(On::Update, "lenient"));
    }
}
