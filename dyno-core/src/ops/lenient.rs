//! Lenient reads: a query or scan that returns the items that decode and reports each one
//! that does not, with its key and the error, instead of failing as a whole. The strict form
//! stays the default; `.lenient()` on a query ([`super::QueryDsl::lenient`], [`super::Query::lenient`])
//! or a scan ([`super::Scan::lenient`]) decodes into [`Decoded<T>`], a `Result<T, Undecodable>`
//! per item, through the same pages, cursors, limits and streams.

use std::fmt;

use super::FromItem;
use crate::error::Error;
use crate::value::Item;

/// An item a lenient read could not decode (a lowercase `STATUS#shipped` written by another
/// client, an attribute of the wrong type): its key, the whole item, and why.
#[derive(Debug, Clone)]
pub struct Undecodable {
    /// The item's key attributes (the table's partition and sort key, or the whole item when
    /// the decoded type does not name its table).
    pub key: Item,
    /// The item as read.
    pub item: Item,
    /// The decode error, naming the entity and attribute.
    pub error: Error,
}

impl fmt::Display for Undecodable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "item at key {}: {}",
            super::batch::describe_key(&self.key),
            self.error
        )
    }
}

impl std::error::Error for Undecodable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// One result of a lenient read: the decoded item, or the item that did not decode (boxed: the
/// rare case should not make every result as large as an item and an error).
pub type Decoded<T> = Result<T, Box<Undecodable>>;

impl<T: FromItem> FromItem for Result<T, Box<Undecodable>> {
    fn accepts(item: &Item) -> bool {
        T::accepts(item)
    }

    /// Never fails: a decode error becomes an [`Undecodable`].
    fn from_item(item: &Item) -> crate::error::Result<Self> {
        Ok(T::from_item(item).map_err(|error| {
            let names = T::key_attributes();
            let key: Item = if names.is_empty() {
                item.clone()
            } else {
                names
                    .iter()
                    .filter_map(|n| item.get(*n).map(|v| ((*n).to_owned(), v.clone())))
                    .collect()
            };
            Box::new(Undecodable {
                key,
                item: item.clone(),
                error,
            })
        }))
    }

    fn projection() -> Option<&'static [&'static str]> {
        T::projection()
    }

    fn ttl_attribute() -> Option<&'static str> {
        T::ttl_attribute()
    }

    fn key_attributes() -> Vec<&'static str> {
        T::key_attributes()
    }
}
