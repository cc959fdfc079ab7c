//! Canonical byte encodings of item keys and read requests: the cache keys.
//!
//! Two requests that DynamoDB answers identically get the same bytes where that is cheap to
//! ensure (map attributes sorted by name, numbers normalized), so `{"PK": "A", "SK": "B"}` and
//! `{"SK": "B", "PK": "A"}` share one entry, and so do the numbers `1.50` and `1.5`. The item
//! key of a get is encoded into a stack buffer, so a cache hit allocates nothing for its key.
//!
//! The encoding is dyno-core's canonical one ([`dyno_core::canon`], also used by cursors),
//! written into a [`KeyBuf`] whose [`Sink::number`] normalizes numbers.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash, Hasher};

use dyno_core::canon::{Sink, Writer};
use dyno_core::store::{QueryRequest, ScanRequest};
use dyno_core::value::{AttributeValue, Decimal, Item};
use moka::Equivalent;

/// Bytes kept on the stack before spilling to the heap: enough for typical single-table keys.
const INLINE: usize = 192;

/// A byte buffer that lives on the stack until it outgrows [`INLINE`] bytes.
pub(crate) struct KeyBuf {
    inline: [u8; INLINE],
    len: usize,
    heap: Option<Vec<u8>>,
}

impl KeyBuf {
    pub(crate) fn new() -> Self {
        KeyBuf {
            inline: [0; INLINE],
            len: 0,
            heap: None,
        }
    }

    /// Appends `bytes`: one bulk copy (inlined, so the fixed-size pushes of tags and lengths
    /// become plain stores).
    #[inline(always)]
    fn push(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if self.heap.is_none() && end <= INLINE {
            self.inline[self.len..end].copy_from_slice(bytes);
            self.len = end;
        } else {
            self.spill(bytes);
        }
    }

    #[cold]
    #[inline(never)]
    fn spill(&mut self, bytes: &[u8]) {
        let heap = self.heap.get_or_insert_with(|| {
            let mut heap = Vec::with_capacity((self.len + bytes.len()) * 2);
            heap.extend_from_slice(&self.inline[..self.len]);
            heap
        });
        heap.extend_from_slice(bytes);
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        match &self.heap {
            Some(h) => h,
            None => &self.inline[..self.len],
        }
    }

    pub(crate) fn to_boxed(&self) -> Box<[u8]> {
        self.as_slice().into()
    }
}

impl Sink for KeyBuf {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.push(bytes);
    }

    /// A number in its canonical parts ([`Decimal`]: sign, significant digits, exponent), so
    /// equal numbers written differently share a key, without allocating; a malformed number is
    /// kept as written (the backend will reject it).
    fn number(&mut self, n: &str) {
        match Decimal::parse(n) {
            Ok(d) => {
                self.push(b"n");
                self.push(&[u8::from(d.is_negative())]);
                self.push(&(d.digit_count() as u32).to_le_bytes());
                for digit in d.digits() {
                    self.push(&[digit]);
                }
                self.push(&d.exponent().to_le_bytes());
            }
            Err(_) => {
                self.push(b"r");
                self.push(&(n.len() as u32).to_le_bytes());
                self.push(n.as_bytes());
            }
        }
    }
}

/// A canonical writer into a fresh [`KeyBuf`].
fn writer() -> Writer<KeyBuf> {
    Writer::new(KeyBuf::new())
}

/// A fixed, process-independent hasher for the striped query generations.
pub(crate) fn stable_hash(bytes: &[u8]) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(bytes)
}

/// The hasher of cache keys, applied once per key: moka, the single-flight table and the version
/// stripes all reuse that hash. foldhash (hashbrown's default) with a random seed per store: keys
/// come from callers' requests, so the hash must not be predictable, and SipHash cost six times
/// as much on a hit (about 420 instructions for a 67-byte key).
#[derive(Clone, Default)]
pub(crate) struct KeyHasher(foldhash::quality::RandomState);

impl KeyHasher {
    /// Hashes an encoded key once, for every table that needs it.
    pub(crate) fn lookup(&self, buf: KeyBuf) -> Lookup {
        Lookup {
            hash: self.0.hash_one(buf.as_slice()),
            buf,
        }
    }
}

/// An encoded key and its hash, as a read holds it (on the stack).
pub(crate) struct Lookup {
    pub(crate) hash: u64,
    buf: KeyBuf,
}

impl Lookup {
    pub(crate) fn as_slice(&self) -> &[u8] {
        self.buf.as_slice()
    }

    /// The borrowed form moka looks entries up by.
    pub(crate) fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            hash: self.hash,
            bytes: self.buf.as_slice(),
        }
    }

    /// The owned form moka stores.
    pub(crate) fn to_key(&self) -> CacheKey {
        CacheKey {
            hash: self.hash,
            bytes: self.buf.to_boxed(),
        }
    }
}

/// A cache key as moka stores it: the encoded bytes and their hash (see [`KeyHasher`]).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct CacheKey {
    pub(crate) hash: u64,
    pub(crate) bytes: Box<[u8]>,
}

impl CacheKey {
    /// The borrowed form moka looks entries up by.
    pub(crate) fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            hash: self.hash,
            bytes: &self.bytes,
        }
    }
}

impl Hash for CacheKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A borrowed [`CacheKey`], so that a hit needs no allocation for its key.
#[derive(Clone, Copy)]
pub(crate) struct KeyRef<'a> {
    hash: u64,
    bytes: &'a [u8],
}

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Equivalent<CacheKey> for KeyRef<'_> {
    fn equivalent(&self, key: &CacheKey) -> bool {
        self.hash == key.hash && self.bytes == &*key.bytes
    }
}

/// moka's hasher for [`CacheKey`]s: passes their precomputed hash through, so a key is hashed
/// once, not again by moka.
#[derive(Clone, Copy, Default)]
pub(crate) struct PreHashed;

impl BuildHasher for PreHashed {
    type Hasher = PassThrough;

    fn build_hasher(&self) -> PassThrough {
        PassThrough(0)
    }
}

/// The hasher [`PreHashed`] builds.
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is called for cache keys; anything else still gets a usable hash.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

/// The cache key of an item: its table and key attributes. `None` when a key attribute is not a
/// scalar (S, N, B): such a request is invalid and goes to the backend to fail there.
pub(crate) fn item_key(table: &str, key: &Item) -> Option<KeyBuf> {
    let mut w = writer();
    w.u8(b'I');
    w.str(table);
    // Keys have one or two attributes: sort them without allocating.
    let mut attrs: [Option<(&String, &AttributeValue)>; 2] = [None, None];
    if key.len() > 2 {
        let mut all: Vec<_> = key.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        for (name, value) in all {
            scalar(&mut w, name, value)?;
        }
        return Some(w.buf);
    }
    for (i, kv) in key.iter().enumerate() {
        attrs[i] = Some(kv);
    }
    if let [Some(a), Some(b)] = &attrs
        && a.0 > b.0
    {
        attrs.swap(0, 1);
    }
    for (name, value) in attrs.into_iter().flatten() {
        scalar(&mut w, name, value)?;
    }
    Some(w.buf)
}

fn scalar(w: &mut Writer<KeyBuf>, name: &str, value: &AttributeValue) -> Option<()> {
    if !matches!(
        value,
        AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
    ) {
        return None;
    }
    w.str(name);
    w.value(value);
    Some(())
}

/// The stripe hash of a partition: `(table, index, partition value)`. `index` is `""` for the
/// table itself. Writers and queries compute it the same way.
pub(crate) fn partition_hash(table: &str, index: &str, value: &AttributeValue) -> u64 {
    let mut w = writer();
    w.u8(b'P');
    w.str(table);
    w.str(index);
    w.value(value);
    stable_hash(w.buf.as_slice())
}

/// The stripe hash of a partition given as its key's parts, `(attribute, value)`: one part is
/// [`partition_hash`] of its value; the parts of a multi-attribute key are hashed in attribute
/// name order, so that writers (which read them in key order) and queries (which give them in
/// any order) agree.
pub(crate) fn partition_parts_hash(
    table: &str,
    index: &str,
    parts: &mut [(&str, &AttributeValue)],
) -> u64 {
    if let [(_, value)] = parts {
        return partition_hash(table, index, value);
    }
    parts.sort_unstable_by_key(|(name, _)| *name);
    let mut w = writer();
    w.u8(b'M');
    w.str(table);
    w.str(index);
    w.len(parts.len());
    for (name, value) in parts.iter() {
        w.str(name);
        w.value(value);
    }
    stable_hash(w.buf.as_slice())
}

/// The stripe hash of "every partition of this index" (`index` is `""` for the table).
pub(crate) fn index_hash(table: &str, index: &str) -> u64 {
    let mut w = writer();
    w.u8(b'X');
    w.str(table);
    w.str(index);
    stable_hash(w.buf.as_slice())
}

/// The stripe hash of "any item of this table" (what scans depend on).
pub(crate) fn scan_hash(table: &str) -> u64 {
    let mut w = writer();
    w.u8(b'T');
    w.str(table);
    stable_hash(w.buf.as_slice())
}

/// The stripe hash of a table's item entries (the generation [`crate::CachedStore::invalidate_table`]
/// moves).
pub(crate) fn table_items_hash(table: &str) -> u64 {
    let mut w = writer();
    w.u8(b'E');
    w.str(table);
    stable_hash(w.buf.as_slice())
}

/// The cache key of a query page: every field that can change the answer, except
/// `consistent_read` (a strongly consistent page is a valid answer to the eventual request).
pub(crate) fn query_key(r: &QueryRequest) -> KeyBuf {
    let mut w = writer();
    w.u8(b'Q');
    w.str(&r.table);
    w.opt_str(r.index.as_deref());
    w.key_condition(&r.key_condition);
    w.opt_condition(r.filter.as_ref());
    w.paths(r.projection.as_deref());
    w.u64(r.limit.map_or(u64::MAX, u64::from));
    w.u8(u8::from(r.scan_forward));
    opt_item(&mut w, r.exclusive_start_key.as_ref());
    w.u8(u8::from(r.count_only));
    w.buf
}

/// The cache key of a scan page.
pub(crate) fn scan_key(r: &ScanRequest) -> KeyBuf {
    let mut w = writer();
    w.u8(b'C');
    w.str(&r.table);
    w.opt_str(r.index.as_deref());
    w.opt_condition(r.filter.as_ref());
    w.paths(r.projection.as_deref());
    w.u64(r.limit.map_or(u64::MAX, u64::from));
    opt_item(&mut w, r.exclusive_start_key.as_ref());
    match r.segment {
        Some((s, t)) => {
            w.u8(1);
            w.u64(u64::from(s));
            w.u64(u64::from(t));
        }
        None => w.u8(0),
    }
    w.u8(u8::from(r.count_only));
    w.buf
}

fn opt_item(w: &mut Writer<KeyBuf>, item: Option<&Item>) {
    match item {
        Some(item) => {
            w.u8(1);
            w.item(item);
        }
        None => w.u8(0),
    }
}

#[cfg(test)]
mod tests {
    use dyno_core::expr::{Condition, KeyCondition, Path};

    use super::*;

    fn k(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), v.clone()))
            .collect()
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.into())
    }

    #[test]
    fn item_keys_ignore_attribute_order_and_separate_tables() {
        let a = item_key("T", &k(&[("PK", s("A")), ("SK", s("B"))])).unwrap();
        let b = item_key("T", &k(&[("SK", s("B")), ("PK", s("A"))])).unwrap();
        assert_eq!(a.as_slice(), b.as_slice());
        let other = item_key("U", &k(&[("PK", s("A")), ("SK", s("B"))])).unwrap();
        assert_ne!(a.as_slice(), other.as_slice());
        // Length prefixes: moving a character between attributes changes the key.
        let c = item_key("T", &k(&[("PK", s("AB")), ("SK", s(""))])).unwrap();
        assert_ne!(a.as_slice(), c.as_slice());
    }

    #[test]
    fn equal_numbers_share_a_key() {
        let key = |v: &str| item_key("T", &k(&[("PK", n(v))])).unwrap().to_boxed();
        assert_eq!(key("1.50"), key("1.5"));
        assert_eq!(key("150"), key("1.5e2"));
        assert_eq!(key("0.015"), key("1.5E-2"));
        assert_eq!(key("-0"), key("0.000"));
        assert_ne!(key("15"), key("1.5"));
        assert_ne!(key("-1"), key("1"));
    }

    #[test]
    fn equal_numbers_share_a_query_key_wherever_they_appear() {
        let q = |v: &str| {
            let mut r = QueryRequest::new("T", None, KeyCondition::partition("PK", n(v)));
            r.filter = Some(Condition::AttributeExists(Path::attr("x")));
            r.exclusive_start_key = Some(k(&[
                ("PK", n(v)),
                ("SK", AttributeValue::Ns(vec![v.into()])),
            ]));
            query_key(&r).to_boxed()
        };
        assert_eq!(q("1.50"), q("1.5"));
        assert_ne!(q("1.50"), q("15"));
    }

    #[test]
    fn non_scalar_keys_are_not_cacheable() {
        assert!(item_key("T", &k(&[("PK", AttributeValue::Bool(true))])).is_none());
    }

    #[test]
    fn long_keys_spill_to_the_heap_unchanged() {
        let long = "x".repeat(1000);
        let a = item_key("T", &k(&[("PK", s(&long))])).unwrap();
        assert!(a.as_slice().len() > INLINE);
        assert!(a.as_slice().ends_with(long.as_bytes()));
    }

    #[test]
    fn query_keys_cover_every_field() {
        let base = QueryRequest::new("T", None, KeyCondition::partition("PK", s("A")));
        let key = |r: &QueryRequest| query_key(r).to_boxed();
        let mut other = base.clone();
        other.exclusive_start_key = Some(k(&[("PK", s("A")), ("SK", s("1"))]));
        assert_ne!(key(&base), key(&other));
        let mut other = base.clone();
        other.projection = Some(vec![Path::attr("x")]);
        assert_ne!(key(&base), key(&other));
        let mut other = base.clone();
        other.filter = Some(Condition::AttributeExists(Path::attr("x")));
        assert_ne!(key(&base), key(&other));
        let mut other = base.clone();
        other.scan_forward = false;
        assert_ne!(key(&base), key(&other));
        let mut other = base.clone();
        other.limit = Some(1);
        assert_ne!(key(&base), key(&other));
        let mut other = base.clone();
        other.consistent_read = true;
        assert_eq!(
            key(&base),
            key(&other),
            "consistency does not change the answer's shape"
        );
    }
}
