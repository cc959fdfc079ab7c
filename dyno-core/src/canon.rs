//! The canonical binary encoding of values, items, paths and conditions: the same input always
//! gives the same bytes (map keys and set elements sorted), in every process and version.
//! Cursors and query fingerprints (in [`ops`](crate::ops)) and dyno-cache's keys are written
//! with it; [`Reader`] reads back what a [`Writer`] into a `Vec<u8>` wrote.
//!
//! Not public API: the encoding is shared with dyno-cache and may change in any release.
//!
//! ```
//! use dyno_core::canon::{Reader, Writer};
//! use dyno_core::{AttributeValue, Item};
//!
//! let a = Item::from([("PK".to_owned(), AttributeValue::S("A".into())),
//!                     ("n".to_owned(), AttributeValue::N("1.5".into()))]);
//! let mut w = Writer::new(Vec::new());
//! w.item(&a);
//! assert_eq!(Reader::new(&w.buf).item().unwrap(), a);
//! ```

use aws_sdk_dynamodb::primitives::Blob;

use crate::expr::{Comparator, Condition, KeyCondition, Operand, Path, PathElement, SortCondition};
use crate::value::{AttributeValue, Item};

/// Where canonical bytes go: a `Vec<u8>`, or a caller's own buffer (dyno-cache keys are built
/// in a stack buffer).
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends a number attribute's text (after its tag). The default writes it as written, as
    /// a length-prefixed string, which [`Reader`] reads back; a sink may write a normalized form
    /// instead (so that `1.5` and `1.50` encode alike), self-delimiting and injective on the
    /// numbers' values.
    fn number(&mut self, text: &str) {
        self.put(&u32::try_from(text.len()).unwrap_or(u32::MAX).to_be_bytes());
        self.put(text.as_bytes());
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Writes canonical bytes into `buf`.
#[derive(Debug, Default)]
pub struct Writer<S = Vec<u8>> {
    /// What was written.
    pub buf: S,
}

impl<S: Sink> Writer<S> {
    /// A writer appending to `buf`.
    pub fn new(buf: S) -> Self {
        Writer { buf }
    }

    /// A byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.put(&[v]);
    }

    /// A `u32`, big-endian.
    pub fn u32(&mut self, v: u32) {
        self.buf.put(&v.to_be_bytes());
    }

    /// A `u64`, big-endian.
    pub fn u64(&mut self, v: u64) {
        self.buf.put(&v.to_be_bytes());
    }

    /// A length or count, as a `u32` (saturating).
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.buf.put(b);
    }

    /// A length-prefixed string.
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// An optional string.
    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }

    /// An attribute value; sets are sorted, so their order does not matter.
    pub fn value(&mut self, v: &AttributeValue) {
        match v {
            AttributeValue::S(s) => {
                self.u8(b'S');
                self.str(s);
            }
            AttributeValue::N(n) => {
                self.u8(b'N');
                self.buf.number(n);
            }
            AttributeValue::B(b) => {
                self.u8(b'B');
                self.bytes(b.as_ref());
            }
            AttributeValue::Bool(b) => {
                self.u8(b'T');
                self.u8(u8::from(*b));
            }
            AttributeValue::Null(_) => self.u8(b'0'),
            AttributeValue::Ss(v) => self.set(b's', v.iter().map(|s| s.as_bytes())),
            AttributeValue::Ns(v) => {
                let mut v: Vec<&String> = v.iter().collect();
                v.sort_unstable();
                self.u8(b'n');
                self.len(v.len());
                for n in v {
                    self.buf.number(n);
                }
            }
            AttributeValue::Bs(v) => self.set(b'b', v.iter().map(|b| b.as_ref())),
            AttributeValue::L(l) => {
                self.u8(b'L');
                self.len(l.len());
                for e in l {
                    self.value(e);
                }
            }
            AttributeValue::M(m) => {
                self.u8(b'M');
                self.item(m);
            }
            // Unknown future variants: tagged so they never collide with a known one.
            _ => self.u8(b'?'),
        }
    }

    fn set<'a>(&mut self, tag: u8, elements: impl Iterator<Item = &'a [u8]>) {
        let mut v: Vec<&[u8]> = elements.collect();
        v.sort_unstable();
        self.u8(tag);
        self.len(v.len());
        for e in v {
            self.bytes(e);
        }
    }

    /// An item: its attributes sorted by name.
    pub fn item(&mut self, item: &Item) {
        let mut names: Vec<&String> = item.keys().collect();
        names.sort_unstable();
        self.len(names.len());
        for n in names {
            self.str(n);
            self.value(&item[n]);
        }
    }

    /// A document path.
    pub fn path(&mut self, p: &Path) {
        self.len(p.0.len());
        for el in &p.0 {
            match el {
                PathElement::Attr(a) => {
                    self.u8(b'a');
                    self.str(a);
                }
                PathElement::Index(i) => {
                    self.u8(b'i');
                    self.u64(*i as u64);
                }
            }
        }
    }

    /// An optional list of paths (a projection).
    pub fn paths(&mut self, ps: Option<&[Path]>) {
        match ps {
            Some(ps) => {
                self.u8(1);
                self.len(ps.len());
                for p in ps {
                    self.path(p);
                }
            }
            None => self.u8(0),
        }
    }

    /// An operand of a condition.
    pub fn operand(&mut self, o: &Operand) {
        match o {
            Operand::Path(p) => {
                self.u8(b'p');
                self.path(p);
            }
            Operand::Value(v) => {
                self.u8(b'v');
                self.value(v);
            }
            Operand::Size(p) => {
                self.u8(b'z');
                self.path(p);
            }
        }
    }

    /// A condition.
    pub fn condition(&mut self, c: &Condition) {
        match c {
            Condition::Compare(a, op, b) => {
                self.u8(1);
                self.operand(a);
                self.u8(match op {
                    Comparator::Eq => 0,
                    Comparator::Ne => 1,
                    Comparator::Lt => 2,
                    Comparator::Le => 3,
                    Comparator::Gt => 4,
                    Comparator::Ge => 5,
                });
                self.operand(b);
            }
            Condition::Between(a, lo, hi) => {
                self.u8(2);
                self.operand(a);
                self.operand(lo);
                self.operand(hi);
            }
            Condition::In(a, list) => {
                self.u8(3);
                self.operand(a);
                self.len(list.len());
                for o in list {
                    self.operand(o);
                }
            }
            Condition::AttributeExists(p) => {
                self.u8(4);
                self.path(p);
            }
            Condition::AttributeNotExists(p) => {
                self.u8(5);
                self.path(p);
            }
            Condition::AttributeType(p, t) => {
                self.u8(6);
                self.path(p);
                self.str(t.name());
            }
            Condition::BeginsWith(p, o) => {
                self.u8(7);
                self.path(p);
                self.operand(o);
            }
            Condition::Contains(p, o) => {
                self.u8(8);
                self.path(p);
                self.operand(o);
            }
            Condition::And(cs) | Condition::Or(cs) => {
                self.u8(if matches!(c, Condition::And(_)) {
                    9
                } else {
                    10
                });
                self.len(cs.len());
                for c in cs {
                    self.condition(c);
                }
            }
            Condition::Not(c) => {
                self.u8(11);
                self.condition(c);
            }
        }
    }

    /// An optional condition.
    pub fn opt_condition(&mut self, c: Option<&Condition>) {
        match c {
            Some(c) => {
                self.u8(1);
                self.condition(c);
            }
            None => self.u8(0),
        }
    }

    /// A key condition: every partition part and every sort part, each list length-prefixed so
    /// that two conditions with different parts never write the same bytes.
    pub fn key_condition(&mut self, k: &KeyCondition) {
        self.str(&k.partition_name);
        self.value(&k.partition_value);
        self.len(k.extra_partition.len());
        for (name, value) in &k.extra_partition {
            self.str(name);
            self.value(value);
        }
        self.len(k.sort_parts().count());
        for (name, cond) in k.sort_parts() {
            self.str(name);
            let (tag, values): (u8, Vec<&AttributeValue>) = match cond {
                SortCondition::Eq(v) => (0, vec![v]),
                SortCondition::Lt(v) => (1, vec![v]),
                SortCondition::Le(v) => (2, vec![v]),
                SortCondition::Gt(v) => (3, vec![v]),
                SortCondition::Ge(v) => (4, vec![v]),
                SortCondition::Between(a, b) => (5, vec![a, b]),
                SortCondition::BeginsWith(v) => (6, vec![v]),
            };
            self.u8(tag);
            for v in values {
                self.value(v);
            }
        }
    }
}

/// Canonical bytes of an item (for duplicate detection).
pub fn item_bytes(item: &Item) -> Vec<u8> {
    let mut w = Writer::default();
    w.item(item);
    w.buf
}

/// Reads what [`Writer`] wrote; every read checks bounds, so malformed input is an error, never a
/// panic.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
}

/// Why canonical bytes could not be read.
pub type ReadError = &'static str;

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    /// True when everything was read.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        if self.buf.len() < n {
            return Err("truncated");
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }

    /// A byte.
    pub fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.take(1)?[0])
    }

    /// A `u32`, big-endian.
    pub fn u32(&mut self) -> Result<u32, ReadError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A `u64`, big-endian.
    pub fn u64(&mut self) -> Result<u64, ReadError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    fn len(&mut self) -> Result<usize, ReadError> {
        let n = self.u32()? as usize;
        // Every element takes at least one byte: a larger count is malformed, and refusing it
        // early keeps a forged count from allocating much.
        if n > self.buf.len() {
            return Err("length out of range");
        }
        Ok(n)
    }

    fn bytes(&mut self) -> Result<&'a [u8], ReadError> {
        let n = self.len()?;
        self.take(n)
    }

    /// A length-prefixed UTF-8 string.
    pub fn string(&mut self) -> Result<String, ReadError> {
        std::str::from_utf8(self.bytes()?)
            .map(str::to_owned)
            .map_err(|_| "invalid UTF-8")
    }

    /// An attribute value; sets are sorted, so their order does not matter.
    pub fn value(&mut self, depth: usize) -> Result<AttributeValue, ReadError> {
        if depth > 32 {
            return Err("nested too deeply");
        }
        Ok(match self.u8()? {
            b'S' => AttributeValue::S(self.string()?),
            b'N' => AttributeValue::N(self.string()?),
            b'B' => AttributeValue::B(Blob::new(self.bytes()?.to_vec())),
            b'T' => AttributeValue::Bool(self.u8()? != 0),
            b'0' => AttributeValue::Null(true),
            b's' => AttributeValue::Ss(self.list(|r| r.string())?),
            b'n' => AttributeValue::Ns(self.list(|r| r.string())?),
            b'b' => AttributeValue::Bs(self.list(|r| Ok(Blob::new(r.bytes()?.to_vec())))?),
            b'L' => AttributeValue::L(self.list(|r| r.value(depth + 1))?),
            b'M' => AttributeValue::M(self.item_at(depth + 1)?),
            _ => return Err("unknown value tag"),
        })
    }

    fn list<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<T, ReadError>,
    ) -> Result<Vec<T>, ReadError> {
        let n = self.len()?;
        (0..n).map(|_| f(self)).collect()
    }

    /// An item: its attributes sorted by name.
    pub fn item(&mut self) -> Result<Item, ReadError> {
        self.item_at(0)
    }

    fn item_at(&mut self, depth: usize) -> Result<Item, ReadError> {
        let n = self.len()?;
        let mut item = Item::with_capacity(n);
        for _ in 0..n {
            let name = self.string()?;
            let value = self.value(depth)?;
            if item.insert(name, value).is_some() {
                return Err("duplicate attribute");
            }
        }
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_and_encode_canonically() {
        let mut a = Item::new();
        a.insert("PK".into(), AttributeValue::S("USER#1".into()));
        a.insert("n".into(), AttributeValue::N("12.5".into()));
        a.insert("b".into(), AttributeValue::B(Blob::new(vec![0, 255])));
        a.insert(
            "m".into(),
            AttributeValue::M(Item::from([(
                "x".into(),
                AttributeValue::L(vec![AttributeValue::Bool(true)]),
            )])),
        );
        a.insert(
            "ss".into(),
            AttributeValue::Ss(vec!["b".into(), "a".into()]),
        );
        let bytes = item_bytes(&a);
        let back = Reader::new(&bytes).item().unwrap();
        assert_eq!(back["PK"], a["PK"]);
        assert_eq!(back["m"], a["m"]);
        // Insertion order does not matter.
        let mut v: Vec<_> = a.clone().into_iter().collect();
        v.reverse();
        let b: Item = v.into_iter().collect();
        assert_eq!(item_bytes(&b), bytes);
    }

    #[test]
    fn malformed_bytes_are_errors() {
        assert!(Reader::new(&[0, 0, 0, 9]).item().is_err());
        assert!(Reader::new(&[0, 0, 0, 1, 0, 0, 0, 1, b'a', b'X'])
            .item()
            .is_err());
        assert!(Reader::new(&[]).item().is_err());
    }
}
