//! Typed paths inside a field: map entries, list elements and the fields of nested documents.
//!
//! A [`Field`] handle names a stored field; from a field whose type is a map, a list or a
//! [`Document`] (a struct stored as a map, `#[derive(Document)]`), these methods lead further in,
//! keeping the value's Rust type:
//!
//! | field type                                   | step                 | path type                   |
//! |----------------------------------------------|----------------------|-----------------------------|
//! | `HashMap<K, V>`, `BTreeMap<K, V>` (`K`: [`KeyPart`]) | `.entry(key)` | `Field<E, V, Element>`      |
//! | `Vec<T>`                                     | `.at(index)`         | `Field<E, T, Element>`      |
//! | a [`Document`] `D`                           | `.field(D::NAME)`    | `Field<E, T, Member>`       |
//!
//! (each also through an `Option`). Steps chain (`Repo::META.field(Meta::LABELS).entry("bug")`),
//! and every path takes the conditions a top-level field takes (`eq`, `lt`, `between`, `exists`,
//! `size`, `contains`, `begins_with` where the type allows), usable in update, put and delete
//! conditions and in query and scan filters. Updates act on them through
//! [`UpdateDsl::at`](crate::ops::UpdateDsl::at): `.at(path).set(v)`, `.remove()`, `.add(n)`,
//! `.append(items)`, ... (see [`crate::ops::PathUpdate`]).
//!
//! Names and map keys become `#n` placeholders and values `:v` placeholders when rendered; a map
//! key is written as the codec writes it (a `String` as it is, other [`KeyPart`] types in their
//! plain key form, a unit enum as its name), so a path reaches the entry the item holds.
//!
//! ```
//! use std::collections::HashMap;
//! use dyno_core::expr::typed::{Cond, Element, Field};
//! use dyno_core::expr::{Condition, Path};
//!
//! struct Repo;
//! const REACTION_COUNTS: Field<Repo, HashMap<String, u64>> = Field::new("reaction_counts");
//! const TOPICS: Field<Repo, Vec<String>> = Field::new("topics");
//!
//! let heart: Field<Repo, u64, Element> = REACTION_COUNTS.entry("heart");
//! assert_eq!(heart.try_path()?, Path::attr("reaction_counts").key("heart"));
//! let c: Cond<Repo> = heart.ge(10u64) & TOPICS.at(0).eq("rust");
//! assert!(matches!(c.into_condition()?, Condition::And(_)));
//! # Ok::<(), dyno_core::Error>(())
//! ```
//!
//! # Missing parents
//!
//! DynamoDB writes a nested path only inside a map or list that exists: `SET a.b = :v` on an
//! item without `a` fails with a validation error ("The document path provided in the update
//! expression is invalid for update") and writes nothing, and so does `ADD counts.heart :1` when
//! `counts` is absent. An entity writes its maps and documents when it is put (an empty
//! `HashMap` is stored as an empty map), so typed updates of items dyno created find them; an
//! `Option` parent that is `None`, or an item another client wrote, needs its parent first: set
//! it where absent (`set_if_absent_<field>(HashMap::new())`, or
//! [`PathUpdate::set_if_absent`](crate::ops::PathUpdate::set_if_absent) for a nested parent) in an earlier update: DynamoDB refuses one update that writes both a path
//! and its parent ("Two document paths overlap"), so the two cannot share a request.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

use super::typed::Field;
use super::{Path, PathElement};
use crate::error::Result;
use crate::expr::typed::FieldValue;
use crate::key::KeyPart;
use crate::value::{FromAttribute, Serde, SetElement, ToAttribute};

mod sealed {
    pub trait Sealed {}
}

/// How deep a [`Field`] reaches: [`Top`], [`Member`] or [`Element`].
pub trait Depth: sealed::Sealed {
    /// What the path holds besides its top-level name.
    type Steps: Clone + fmt::Debug;
    /// The depth of a path into a document at this depth: a top-level field of a document is a
    /// [`Member`] of the entity, a deeper path keeps its own depth.
    type InDocument: Depth;

    /// The whole path.
    fn path(name: &'static str, steps: &Self::Steps) -> Result<Path>;

    /// The steps of a path below another one, from its whole path.
    #[doc(hidden)]
    fn from_path(path: Result<Path>) -> Self::Steps;

    /// True for [`Element`]: a map entry or a list element, whose value is written as the codec
    /// writes an element ([`ToAttribute::to_element`]: `None` as `NULL`, an empty set refused).
    #[doc(hidden)]
    const ELEMENT: bool = false;

    /// Other paths naming the same map entry as this one (see [`Field::entry`]).
    #[doc(hidden)]
    fn other_spellings(_steps: &Self::Steps) -> &[Path] {
        &[]
    }
}

/// A stored field of the entity (a top-level attribute). Its typed update builder's own setters
/// (`set_<field>`, `add_<field>`, ...) update it, keeping index keys in step.
#[derive(Debug, Clone, Copy)]
pub enum Top {}

/// A field of a [`Document`] inside the entity.
#[derive(Debug, Clone, Copy)]
pub enum Member {}

/// An entry of a map or an element of a list.
#[derive(Debug, Clone, Copy)]
pub enum Element {}

impl sealed::Sealed for Top {}
impl sealed::Sealed for Member {}
impl sealed::Sealed for Element {}

impl Depth for Top {
    type Steps = ();
    type InDocument = Member;
    fn path(name: &'static str, (): &()) -> Result<Path> {
        Ok(Path::attr(name))
    }
    // Never below anything: a top-level field's steps are its name.
    fn from_path(_: Result<Path>) {}
}

impl Depth for Member {
    type Steps = Result<Path>;
    type InDocument = Member;
    fn path(_: &'static str, steps: &Result<Path>) -> Result<Path> {
        steps.clone()
    }
    fn from_path(path: Result<Path>) -> Result<Path> {
        path
    }
}

/// The steps of an [`Element`]: its path, and for a map entry the paths of the other names of
/// its key a reader accepts (see [`crate::key::KeyPart::other_map_key_spellings`]).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct ElementSteps {
    path: Result<Path>,
    others: Vec<Path>,
}

impl Depth for Element {
    type Steps = ElementSteps;
    type InDocument = Element;
    const ELEMENT: bool = true;
    fn path(_: &'static str, steps: &ElementSteps) -> Result<Path> {
        steps.path.clone()
    }
    fn from_path(path: Result<Path>) -> ElementSteps {
        ElementSteps {
            path,
            others: Vec::new(),
        }
    }
    fn other_spellings(steps: &ElementSteps) -> &[Path] {
        &steps.others
    }
}

/// A depth below the top level: where [`PathUpdate::set`](crate::ops::PathUpdate::set),
/// `add` and `subtract` write.
#[diagnostic::on_unimplemented(
    message = "this is a top-level field: the nested update actions take a path inside a field",
    label = "a top-level field (`Field<_, _, Top>`)",
    note = "update a top-level field with the typed builder's own setters (`set_<field>`, `add_<field>`, `remove_<field>`), which keep index keys in step; `.at(path).set(..)`, `.add(..)` and `.remove()` take `FIELD.entry(key)`, `FIELD.at(index)` or `FIELD.field(Doc::FIELD)`"
)]
pub trait Nested: Depth {}
impl Nested for Member {}
impl Nested for Element {}

/// A struct stored as a map attribute, with typed paths to its fields: implemented by
/// `#[derive(Document)]`, which also generates its codec (`ToAttribute`/`FromAttribute`, a map
/// with one attribute per field) and one [`Field`] constant per stored field
/// (`Address::CITY: Field<Address, String>`), to use after `.field(..)`:
/// `Customer::ADDRESS.field(Address::CITY)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a document: `.field(..)` leads into `#[derive(Document)]` structs",
    label = "no `Document` impl",
    note = "derive `Document` on the struct stored in this field, or use `.entry(..)` for a map and `.at(..)` for a list"
)]
pub trait Document: ToAttribute + FromAttribute {}

/// A map type with typed entries: `HashMap`/`BTreeMap` keyed by a [`KeyPart`] (strings, integers,
/// `#[derive(KeyPart)]` enums and newtypes), and an `Option` of one.
pub trait MapField {
    /// The key type.
    type Key: KeyPart;
    /// The value type of an entry.
    type Value;
}

impl<K: KeyPart, V, H> MapField for HashMap<K, V, H> {
    type Key = K;
    type Value = V;
}

impl<K: KeyPart, V> MapField for BTreeMap<K, V> {
    type Key = K;
    type Value = V;
}

impl<M: MapField> MapField for Option<M> {
    type Key = M::Key;
    type Value = M::Value;
}

/// A list type with typed elements: `Vec<T>`, and an `Option` of one.
pub trait ListField {
    /// The element type.
    type Element;
}

impl<T> ListField for Vec<T> {
    type Element = T;
}

impl<T> ListField for Option<Vec<T>> {
    type Element = T;
}

/// A `#[dyno(serde)]` list: its elements are written through serde_dynamo too, as the field is,
/// so an appended element has the representation the rest of the list has.
impl<T> ListField for Serde<Vec<T>> {
    type Element = Serde<T>;
}

impl<T> ListField for Serde<Option<Vec<T>>> {
    type Element = Serde<T>;
}

/// A `#[dyno(serde)]` map with string keys (serde_dynamo writes them as they are): its entries
/// are written through serde_dynamo too. Other key types are not offered: serde and
/// [`KeyPart`] may name an entry differently.
impl<V, H> MapField for Serde<HashMap<String, V, H>> {
    type Key = String;
    type Value = Serde<V>;
}

impl<V> MapField for Serde<BTreeMap<String, V>> {
    type Key = String;
    type Value = Serde<V>;
}

/// A value for a `#[dyno(serde)]` field (its handle is a `Field<E, Serde<T>>`): the plain `T`,
/// encoded through serde_dynamo as the field is.
impl<T> FieldValue<Serde<T>> for T {
    fn with_value<R>(self, f: impl FnOnce(&Serde<T>) -> R) -> R {
        f(&Serde(self))
    }
}

impl<T: Clone> FieldValue<Serde<T>> for &T {
    fn with_value<R>(self, f: impl FnOnce(&Serde<T>) -> R) -> R {
        f(&Serde(self.clone()))
    }
}

/// A set type (`SS`, `NS`, `BS`): `HashSet`/`BTreeSet` of a [`SetElement`], and an `Option` of one.
/// A `#[dyno(serde)]` set is not one: serde_dynamo stores sets as lists, where `ADD` and
/// `DELETE` of set elements do not apply.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not stored as a DynamoDB set (SS, NS or BS)",
    label = "not a set attribute",
    note = "`add_elements`/`delete_elements` act on `HashSet`/`BTreeSet` fields stored by dyno's codec; a `#[dyno(serde)]` field is stored through serde_dynamo, which writes a set as a list: drop `#[dyno(serde)]` from the field, or write the whole field with `set_<field>`"
)]
pub trait SetField {
    /// The element type.
    type Element: SetElement;
}

impl<T: SetElement, H> SetField for HashSet<T, H> {
    type Element = T;
}

impl<T: SetElement> SetField for BTreeSet<T> {
    type Element = T;
}

impl<S: SetField> SetField for Option<S> {
    type Element = S::Element;
}

/// A field holding a [`Document`], directly or through an `Option`.
pub trait DocumentField {
    /// The document type.
    type Document: Document;
}

impl<D: Document> DocumentField for D {
    type Document = D;
}

impl<D: Document> DocumentField for Option<D> {
    type Document = D;
}

/// A path that [`PathUpdate::remove`](crate::ops::PathUpdate::remove) may remove: a map entry or list element
/// (the map or list stays valid without it), or an `Option` field of a document (absent is
/// `None`). Removing a required document field would leave an item that no longer decodes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be removed: it is a required field of a document",
    label = "removing it would leave an item that does not decode",
    note = "only map entries, list elements and `Option` fields of documents can be removed; set a new value with `.set(..)` instead"
)]
pub trait Removable<E> {
    /// The path.
    fn removable_path(&self) -> Result<Path>;
}

impl<E, T> Removable<E> for Field<E, T, Element> {
    fn removable_path(&self) -> Result<Path> {
        self.try_path()
    }
}

impl<E, T> Removable<E> for Field<E, Option<T>, Member> {
    fn removable_path(&self) -> Result<Path> {
        self.try_path()
    }
}

impl<E, T: MapField, D: Depth> Field<E, T, D> {
    /// The entry of this map at `key`. An empty key (`""`) is an error naming the map: DynamoDB
    /// refuses an empty attribute name anywhere in a request.
    ///
    /// A map holds each key under one name: a write that creates the entry
    /// ([`PathUpdate`](crate::ops::PathUpdate)'s `set`, `add`, ...) also requires that no other
    /// name of the key is stored (an integer key `7` written `0000000007` by an earlier writer),
    /// and fails naming both, with nothing written, when one is.
    pub fn entry(&self, key: impl FieldValue<T::Key>) -> Field<E, T::Value, Element> {
        let (key, others) = key.with_value(|k: &T::Key| {
            (
                KeyPart::encode_map_key(k),
                KeyPart::other_map_key_spellings(k),
            )
        });
        let path = D::path(self.name(), self.steps()).and_then(|path| {
            let key = key?;
            if key.is_empty() {
                return Err(crate::Error::Encode {
                    entity: None,
                    attribute: Some(path.to_string()),
                    message: "a map entry at an empty key: DynamoDB refuses an empty attribute \
                              name (\"Empty attribute name\"), so no such entry can exist; \
                              nothing was sent. Use a non-empty key"
                        .to_owned(),
                    source: None,
                });
            }
            Ok(path).map(|p| (p.clone().key(key), p))
        });
        let (path, others) = match path {
            Ok((path, parent)) => {
                let others = others.into_iter().map(|o| parent.clone().key(o)).collect();
                (Ok(path), others)
            }
            Err(e) => (Err(e), Vec::new()),
        };
        self.with_steps(ElementSteps { path, others })
    }
}

impl<E, T: ListField, D: Depth> Field<E, T, D> {
    /// The element of this list at `index` (from 0).
    pub fn at(&self, index: usize) -> Field<E, T::Element, Element> {
        self.below(|path| Ok(path.index(index)))
    }
}

impl<E, T: DocumentField, D: Depth> Field<E, T, D> {
    /// The path to `field` (a path of the document this field holds, usually one of its
    /// generated constants) inside this field.
    pub fn field<U, D2: Depth>(
        &self,
        field: Field<T::Document, U, D2>,
    ) -> Field<E, U, D2::InDocument> {
        let inner = field.try_path();
        self.below(|mut path| {
            path.0.extend(inner?.0);
            Ok(path)
        })
    }
}

impl Path {
    /// True when the last step is a list index (a list element).
    pub(crate) fn ends_in_index(&self) -> bool {
        matches!(self.0.last(), Some(PathElement::Index(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Comparator, Condition, Operand};
    use crate::value::AttributeValue;

    struct Repo;
    struct Meta;
    impl ToAttribute for Meta {
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            Ok(None)
        }
    }
    impl FromAttribute for Meta {
        fn from_attribute(_: &AttributeValue) -> Result<Self> {
            Ok(Meta)
        }
    }
    impl Document for Meta {}

    const COUNTS: Field<Repo, HashMap<String, u64>> = Field::new("reaction_counts");
    const BY_DAY: Field<Repo, Option<BTreeMap<u32, Vec<String>>>> = Field::new("by_day");
    const META: Field<Repo, Option<Meta>> = Field::new("meta");
    const LABELS: Field<Meta, HashMap<String, Meta>> = Field::new("labels");
    const NAME: Field<Meta, Option<String>> = Field::new("name");

    #[test]
    fn steps_build_paths_and_keep_the_value_type() {
        let p = COUNTS.entry("heart").try_path().unwrap();
        assert_eq!(p, Path::attr("reaction_counts").key("heart"));
        assert_eq!(p.to_string(), "reaction_counts.heart");
        let p = BY_DAY.entry(7u32).at(2).try_path().unwrap();
        assert_eq!(p, Path::attr("by_day").key("7").index(2));
        assert_eq!(p.to_string(), "by_day.7[2]");
        let deep: Field<Repo, Option<String>, Member> = META.field(LABELS.entry("bug").field(NAME));
        assert_eq!(
            deep.try_path().unwrap(),
            Path::attr("meta").key("labels").key("bug").key("name")
        );
        let member: Field<Repo, Option<String>, Member> = META.field(NAME);
        assert_eq!(member.name(), "meta");
    }

    #[test]
    fn conditions_on_nested_paths_name_the_whole_path() {
        let c = COUNTS.entry("heart").gt(3u64).into_condition().unwrap();
        assert_eq!(
            c,
            Condition::Compare(
                Operand::Path(Path::attr("reaction_counts").key("heart")),
                Comparator::Gt,
                Operand::Value(AttributeValue::N("3".into()))
            )
        );
        let c = META.field(NAME).begins_with("b").into_condition().unwrap();
        assert!(matches!(c, Condition::BeginsWith(p, _) if p.to_string() == "meta.name"));
        let c = BY_DAY.entry(1u32).contains("x").into_condition().unwrap();
        assert!(matches!(c, Condition::Contains(..)));
        let c = BY_DAY.entry(1u32).size().ge(2).into_condition().unwrap();
        assert!(matches!(c, Condition::Compare(Operand::Size(_), ..)));
        const RATIOS: Field<Repo, HashMap<String, f64>> = Field::new("ratios");
        let err = RATIOS.entry("x").lt(f64::NAN).into_condition().unwrap_err();
        assert!(err.to_string().contains("ratios.x"), "{err}");
    }
}
