//! Keys: how one value becomes one key segment (`KeyPart`), and how key templates such as
//! `USER#{user_id}` are encoded and parsed.
//!
//! Rules (see DESIGN.md):
//! - a string segment never contains the delimiter `#`: `#` is written `%23` and `%` is written
//!   `%25`. The escape works character by character, so `escape(a + b) = escape(a) + escape(b)`
//!   and `begins_with` on an escaped prefix matches exactly the values with that prefix;
//! - integers have two forms ([`KeyFormat`]). Where the order of a segment is queried (sort keys)
//!   they are fixed width, so string order is numeric order: unsigned ones zero-padded to the
//!   width of their maximum (`u32` 7 is `0000000007`), signed ones offset by their minimum and
//!   padded one digit wider (`i32` 0 is `02147483648`), so that no plain decimal of the type has
//!   their width and conventional keys (`-12`, `1000000000`) are never misread as offset forms.
//!   Where it is not (partition keys, only ever compared for equality) they are plain decimals,
//!   `USER#123`, the form other clients and the tutorial write. Decoding reads both forms;
//! - decimals likewise: an order-preserving form in sort keys, plain text in partition keys;
//! - uuids, timestamps, dates and decimals (behind features) have fixed, order-preserving forms;
//!   see the `third_party` impls on [`KeyPart`];
//! - decoding is exact for everything dyno writes, and conventional keys written by other clients
//!   (`USER#123`) parse too;
//! - no case folding.

mod impls;
mod template;
pub(crate) mod text;
mod third_party;

pub use self::template::{Segment, Template};
use crate::error::{Error, Result};

/// The delimiter between key segments.
pub const DELIMITER: char = '#';

/// A value that can be one segment of a key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used in a key template",
    label = "this field's type has no `KeyPart` impl",
    note = "key fields need `KeyPart`: strings, integers, bools, dates and timestamps have it; derive it with `#[derive(KeyPart)]` on unit enums and newtypes"
)]
pub trait KeyPart: Sized {
    /// Appends this value's segment to `out`. The segment never contains [`DELIMITER`].
    /// Empty values are refused: an empty segment would make `USER#` match every user.
    fn encode_key(&self, out: &mut String) -> Result<()>;

    /// Appends a prefix of a segment for `begins_with` queries (a partial value). For strings this
    /// is the escape without the emptiness check; other types default to their full encoding.
    fn encode_prefix(&self, out: &mut String) -> Result<()> {
        self.encode_key(out)
    }

    /// Appends this value's segment in its plain form ([`KeyFormat::Plain`]), written where the
    /// segment's order is never queried (partition keys): integers and decimals as plain decimal
    /// text (`123`, `-12`, `19.95`), as other clients write them. Every other type writes its
    /// [`KeyPart::encode_key`] segment. [`KeyPart::decode_key`] reads both forms.
    fn encode_plain(&self, out: &mut String) -> Result<()> {
        self.encode_key(out)
    }

    /// [`KeyPart::encode_prefix`] in the plain form: a type that overrides
    /// [`KeyPart::encode_plain`] overrides this too.
    fn encode_plain_prefix(&self, out: &mut String) -> Result<()> {
        self.encode_prefix(out)
    }

    /// Appends this value's segment in `format`.
    fn encode_as(&self, format: KeyFormat, out: &mut String) -> Result<()> {
        match format {
            KeyFormat::Ordered => self.encode_key(out),
            KeyFormat::Plain => self.encode_plain(out),
        }
    }

    /// Appends this value's prefix segment (`begins_with`) in `format`.
    fn encode_prefix_as(&self, format: KeyFormat, out: &mut String) -> Result<()> {
        match format {
            KeyFormat::Ordered => self.encode_prefix(out),
            KeyFormat::Plain => self.encode_plain_prefix(out),
        }
    }

    /// Parses one whole segment.
    fn decode_key(segment: &str) -> Result<Self>;

    /// The name of the map entry this value keys, in a `HashMap`/`BTreeMap` stored as `M`: its
    /// plain segment ([`KeyPart::encode_plain`]: `7`, `HEART`), and a `String` as it is (a map
    /// key is no key segment, so nothing is escaped). Typed paths
    /// ([`Field::entry`](crate::expr::Field::entry)) name entries the same way.
    fn encode_map_key(&self) -> Result<String> {
        let mut out = String::new();
        self.encode_plain(&mut out)?;
        Ok(out)
    }

    /// Reads a map entry's name written by [`KeyPart::encode_map_key`].
    fn decode_map_key(name: &str) -> Result<Self> {
        Self::decode_key(name)
    }

    /// The other names of this key's map entry that [`KeyPart::decode_map_key`] reads as the same
    /// key, as another writer may have stored them: an integer's fixed-width form
    /// (`0000000007` beside `7`), an enum's declared aliases. A typed write of the entry makes sure none of them is stored
    /// beside it (see [`Field::entry`](crate::expr::Field::entry)), so a map never holds one key
    /// twice. Empty for types with one spelling.
    fn other_map_key_spellings(&self) -> Vec<String> {
        let (Ok(canonical), mut ordered) = (self.encode_map_key(), String::new()) else {
            return Vec::new();
        };
        if self.encode_key(&mut ordered).is_ok()
            && ordered != canonical
            && Self::decode_map_key(&ordered).is_ok()
        {
            vec![ordered]
        } else {
            Vec::new()
        }
    }
}

/// How a key field is written into one segment of a key.
///
/// `#[derive(Entity)]` writes a field in a partition-key template (the table's `pk`, an index's
/// `pk`) in [`KeyFormat::Plain`], and in a sort-key template in [`KeyFormat::Ordered`]: only
/// sort keys are compared by order (`between`, `<`, `begins_with` on a prefix), and plain
/// partition keys (`USER#123`) are the ones other clients read and write. A field can choose
/// one form for all its segments with `#[dyno(key_format = "ordered")]` or `"plain"`; the form
/// only changes what is written, as decoding reads both.
///
/// The form matters only for integers and decimals; other types have one form.
///
/// # Data written padded by earlier versions
///
/// Before this choice existed, dyno wrote every integer zero-padded and every decimal in its
/// order-preserving form, partition keys included (`USER#00000000000000000123`). A typed key now
/// builds `USER#123`, so a get misses those items, and reading them otherwise (a scan, a query
/// of their partition) is [`crate::Error::KeyMismatch`]: decoding one would let a put of it
/// write a second item at `USER#123`. To keep such a table as it is, mark the field
/// `#[dyno(key_format = "ordered")]`: it is then written padded everywhere, as before. To move
/// to the plain form, rewrite the items: a lenient scan reports each one, and
/// [`crate::entity::recover::decode_rekeyed`] decodes it as if at its plain key; put that value,
/// then delete the padded key.
///
/// Sort keys are unchanged (ordered by default). A table whose sort keys were written by other
/// clients in plain text (`ORDER#456`) marks those fields `key_format = "plain"`, and gives up
/// numeric order in range conditions on them (`"10" < "9"`).
///
/// ```
/// use dyno_core::key::{KeyFormat, KeyPart};
/// let mut plain = String::new();
/// 123u64.encode_as(KeyFormat::Plain, &mut plain).unwrap();
/// let mut ordered = String::new();
/// 123u64.encode_as(KeyFormat::Ordered, &mut ordered).unwrap();
/// assert_eq!((plain.as_str(), ordered.as_str()), ("123", "00000000000000000123"));
/// assert_eq!(u64::decode_key(&plain).unwrap(), u64::decode_key(&ordered).unwrap());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyFormat {
    /// Fixed width or otherwise order-preserving: string order is the values' order.
    Ordered,
    /// Plain text (`123`), as other clients write keys; no order between segments.
    Plain,
}

/// Escapes `value` into `out` so that it contains no [`DELIMITER`].
pub fn escape_into(value: &str, out: &mut String) {
    // Most values need no escape: one copy instead of a push per character.
    if !value.bytes().any(|b| b == b'#' || b == b'%') {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
}

/// Reverses [`escape_into`]. A `%` not followed by `23` or `25` is kept as it is, so keys written
/// by other clients parse.
pub fn unescape(segment: &str) -> Result<String> {
    if segment.contains(DELIMITER) {
        return Err(Error::key(
            None,
            format!("key segment {segment:?} contains the delimiter '#'"),
        ));
    }
    if !segment.contains('%') {
        return Ok(segment.to_owned());
    }
    let mut out = String::with_capacity(segment.len());
    let mut rest = segment;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("%23") {
            out.push('#');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("%25") {
            out.push('%');
            rest = after;
        } else {
            out.push('%');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Encodes one value as a standalone segment.
pub fn encode_part<T: KeyPart>(value: &T) -> Result<String> {
    let mut out = String::new();
    value.encode_key(&mut out)?;
    Ok(out)
}
