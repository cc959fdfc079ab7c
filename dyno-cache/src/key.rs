//! Canonical byte encodings of item keys and read requests: the cache keys.
//!
//! Two requests that DynamoDB answers identically get the same bytes where that is cheap to
//! ensure (map attributes sorted by name, numbers normalized), so `{"PK": "A", "SK": "B"}` and
//! `{"SK": "B", "PK": "A"}` share one entry, and so do the numbers `1.50` and `1.5`. The item
//! key of a get is encoded into a stack buffer, so a cache hit allocates nothing for its key.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash, Hasher};

use dyno_core::expr::{Condition, KeyCondition, Operand, Path, PathElement, SortCondition};
use dyno_core::store::{QueryRequest, ScanRequest};
use dyno_core::value::{AttributeValue, Item};
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

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.push(&[b]);
    }

    /// A length-prefixed byte string (so that concatenations cannot collide).
    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) {
        self.push(&(b.len() as u32).to_le_bytes());
        self.push(b);
    }

    #[inline(always)]
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn u64(&mut self, n: u64) {
        self.push(&n.to_le_bytes());
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
    let mut buf = KeyBuf::new();
    buf.byte(b'I');
    buf.str(table);
    // Keys have one or two attributes: sort them without allocating.
    let mut attrs: [Option<(&String, &AttributeValue)>; 2] = [None, None];
    if key.len() > 2 {
        let mut all: Vec<_> = key.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        for (name, value) in all {
            scalar(&mut buf, name, value)?;
        }
        return Some(buf);
    }
    for (i, kv) in key.iter().enumerate() {
        attrs[i] = Some(kv);
    }
    if let [Some(a), Some(b)] = &attrs {
        if a.0 > b.0 {
            attrs.swap(0, 1);
        }
    }
    for (name, value) in attrs.into_iter().flatten() {
        scalar(&mut buf, name, value)?;
    }
    Some(buf)
}

fn scalar(buf: &mut KeyBuf, name: &str, value: &AttributeValue) -> Option<()> {
    buf.str(name);
    match value {
        AttributeValue::S(s) => {
            buf.byte(b'S');
            buf.str(s);
        }
        AttributeValue::N(n) => {
            buf.byte(b'N');
            number(buf, n);
        }
        AttributeValue::B(b) => {
            buf.byte(b'B');
            buf.bytes(b.as_ref());
        }
        _ => return None,
    }
    Some(())
}

/// The stripe hash of a partition: `(table, index, partition value)`. `index` is `""` for the
/// table itself. Writers and queries compute it the same way.
pub(crate) fn partition_hash(table: &str, index: &str, value: &AttributeValue) -> u64 {
    let mut buf = KeyBuf::new();
    buf.byte(b'P');
    buf.str(table);
    buf.str(index);
    value_bytes(&mut buf, value);
    stable_hash(buf.as_slice())
}

/// The stripe hash of "every partition of this index" (`index` is `""` for the table).
pub(crate) fn index_hash(table: &str, index: &str) -> u64 {
    let mut buf = KeyBuf::new();
    buf.byte(b'X');
    buf.str(table);
    buf.str(index);
    stable_hash(buf.as_slice())
}

/// The stripe hash of "any item of this table" (what scans depend on).
pub(crate) fn scan_hash(table: &str) -> u64 {
    let mut buf = KeyBuf::new();
    buf.byte(b'T');
    buf.str(table);
    stable_hash(buf.as_slice())
}

/// The stripe hash of a table's item entries (the generation [`crate::CachedStore::invalidate_table`]
/// moves).
pub(crate) fn table_items_hash(table: &str) -> u64 {
    let mut buf = KeyBuf::new();
    buf.byte(b'E');
    buf.str(table);
    stable_hash(buf.as_slice())
}

/// The cache key of a query page: every field that can change the answer, except
/// `consistent_read` (a strongly consistent page is a valid answer to the eventual request).
pub(crate) fn query_key(r: &QueryRequest) -> KeyBuf {
    let mut buf = KeyBuf::new();
    buf.byte(b'Q');
    buf.str(&r.table);
    opt_str(&mut buf, r.index.as_deref());
    key_condition(&mut buf, &r.key_condition);
    opt_condition(&mut buf, r.filter.as_ref());
    projection(&mut buf, r.projection.as_deref());
    buf.u64(r.limit.map_or(u64::MAX, u64::from));
    buf.byte(u8::from(r.scan_forward));
    opt_item(&mut buf, r.exclusive_start_key.as_ref());
    buf.byte(u8::from(r.count_only));
    buf
}

/// The cache key of a scan page.
pub(crate) fn scan_key(r: &ScanRequest) -> KeyBuf {
    let mut buf = KeyBuf::new();
    buf.byte(b'C');
    buf.str(&r.table);
    opt_str(&mut buf, r.index.as_deref());
    opt_condition(&mut buf, r.filter.as_ref());
    projection(&mut buf, r.projection.as_deref());
    buf.u64(r.limit.map_or(u64::MAX, u64::from));
    opt_item(&mut buf, r.exclusive_start_key.as_ref());
    match r.segment {
        Some((s, t)) => {
            buf.byte(1);
            buf.u64(u64::from(s));
            buf.u64(u64::from(t));
        }
        None => buf.byte(0),
    }
    buf.byte(u8::from(r.count_only));
    buf
}

fn opt_str(buf: &mut KeyBuf, s: Option<&str>) {
    match s {
        Some(s) => {
            buf.byte(1);
            buf.str(s);
        }
        None => buf.byte(0),
    }
}

fn opt_item(buf: &mut KeyBuf, item: Option<&Item>) {
    match item {
        Some(item) => {
            buf.byte(1);
            map(buf, item);
        }
        None => buf.byte(0),
    }
}

fn map<'a>(buf: &mut KeyBuf, m: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>) {
    let mut entries: Vec<_> = m.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    buf.u64(entries.len() as u64);
    for (k, v) in entries {
        buf.str(k);
        value_bytes(buf, v);
    }
}

fn value_bytes(buf: &mut KeyBuf, v: &AttributeValue) {
    match v {
        AttributeValue::S(s) => {
            buf.byte(b'S');
            buf.str(s);
        }
        AttributeValue::N(n) => {
            buf.byte(b'N');
            number(buf, n);
        }
        AttributeValue::B(b) => {
            buf.byte(b'B');
            buf.bytes(b.as_ref());
        }
        AttributeValue::Bool(b) => {
            buf.byte(b'b');
            buf.byte(u8::from(*b));
        }
        AttributeValue::Null(_) => buf.byte(b'0'),
        AttributeValue::Ss(v) => {
            buf.byte(b's');
            buf.u64(v.len() as u64);
            v.iter().for_each(|s| buf.str(s));
        }
        AttributeValue::Ns(v) => {
            buf.byte(b'n');
            buf.u64(v.len() as u64);
            v.iter().for_each(|n| number(buf, n));
        }
        AttributeValue::Bs(v) => {
            buf.byte(b'c');
            buf.u64(v.len() as u64);
            v.iter().for_each(|b| buf.bytes(b.as_ref()));
        }
        AttributeValue::L(l) => {
            buf.byte(b'L');
            buf.u64(l.len() as u64);
            l.iter().for_each(|e| value_bytes(buf, e));
        }
        AttributeValue::M(m) => {
            buf.byte(b'M');
            map(buf, m);
        }
        other => {
            // A variant newer than this crate: its debug form is still a faithful key.
            buf.byte(b'?');
            buf.str(&format!("{other:?}"));
        }
    }
}

/// A number in normalized scientific form (sign, significant digits, exponent; no leading or
/// trailing zeros), so equal numbers written differently share a key; a malformed number is kept
/// as written (the backend will reject it).
fn number(buf: &mut KeyBuf, n: &str) {
    match normalize(n) {
        Some(Normal {
            negative,
            first,
            last,
            exponent,
            mantissa,
        }) => {
            buf.byte(b'n');
            buf.byte(u8::from(negative));
            buf.push(&((last - first + 1) as u32).to_le_bytes());
            for (i, c) in mantissa.bytes().filter(u8::is_ascii_digit).enumerate() {
                if i >= first && i <= last {
                    buf.byte(c);
                }
            }
            buf.u64(exponent as u64);
        }
        None => {
            buf.byte(b'r');
            buf.str(n);
        }
    }
}

/// A parsed number: its significant digits are `first..=last` of the mantissa's digits (the
/// point removed), the first of them at 10^`exponent`.
struct Normal<'a> {
    negative: bool,
    first: usize,
    last: usize,
    exponent: i64,
    mantissa: &'a str,
}

fn normalize(n: &str) -> Option<Normal<'_>> {
    let (negative, rest) = match n.as_bytes().first()? {
        b'-' => (true, &n[1..]),
        b'+' => (false, &n[1..]),
        _ => (false, n),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits = || int.bytes().chain(frac.bytes());
    let Some(first) = digits().position(|c| c != b'0') else {
        // Zero, however written or signed: the single digit "0".
        return Some(Normal {
            negative: false,
            first: 0,
            last: 0,
            exponent: 0,
            mantissa,
        });
    };
    let count = digits().count();
    let last = count - 1 - digits().rev().position(|c| c != b'0')?;
    let exponent = int.len() as i64 - first as i64 - 1 + exp;
    Some(Normal {
        negative,
        first,
        last,
        exponent,
        mantissa,
    })
}

fn path(buf: &mut KeyBuf, p: &Path) {
    buf.u64(p.0.len() as u64);
    for e in &p.0 {
        match e {
            PathElement::Attr(a) => {
                buf.byte(b'a');
                buf.str(a);
            }
            PathElement::Index(i) => {
                buf.byte(b'i');
                buf.u64(*i as u64);
            }
        }
    }
}

fn projection(buf: &mut KeyBuf, p: Option<&[Path]>) {
    match p {
        Some(paths) => {
            buf.byte(1);
            buf.u64(paths.len() as u64);
            paths.iter().for_each(|p| path(buf, p));
        }
        None => buf.byte(0),
    }
}

fn operand(buf: &mut KeyBuf, o: &Operand) {
    match o {
        Operand::Path(p) => {
            buf.byte(b'p');
            path(buf, p);
        }
        Operand::Value(v) => {
            buf.byte(b'v');
            value_bytes(buf, v);
        }
        Operand::Size(p) => {
            buf.byte(b'z');
            path(buf, p);
        }
    }
}

fn opt_condition(buf: &mut KeyBuf, c: Option<&Condition>) {
    match c {
        Some(c) => {
            buf.byte(1);
            condition(buf, c);
        }
        None => buf.byte(0),
    }
}

fn condition(buf: &mut KeyBuf, c: &Condition) {
    match c {
        Condition::Compare(a, cmp, b) => {
            buf.byte(b'=');
            buf.byte(*cmp as u8);
            operand(buf, a);
            operand(buf, b);
        }
        Condition::Between(a, lo, hi) => {
            buf.byte(b'b');
            operand(buf, a);
            operand(buf, lo);
            operand(buf, hi);
        }
        Condition::In(a, list) => {
            buf.byte(b'i');
            operand(buf, a);
            buf.u64(list.len() as u64);
            list.iter().for_each(|o| operand(buf, o));
        }
        Condition::AttributeExists(p) => {
            buf.byte(b'e');
            path(buf, p);
        }
        Condition::AttributeNotExists(p) => {
            buf.byte(b'E');
            path(buf, p);
        }
        Condition::AttributeType(p, t) => {
            buf.byte(b't');
            path(buf, p);
            buf.byte(*t as u8);
        }
        Condition::BeginsWith(p, o) => {
            buf.byte(b'w');
            path(buf, p);
            operand(buf, o);
        }
        Condition::Contains(p, o) => {
            buf.byte(b'c');
            path(buf, p);
            operand(buf, o);
        }
        Condition::And(cs) => {
            buf.byte(b'&');
            buf.u64(cs.len() as u64);
            cs.iter().for_each(|c| condition(buf, c));
        }
        Condition::Or(cs) => {
            buf.byte(b'|');
            buf.u64(cs.len() as u64);
            cs.iter().for_each(|c| condition(buf, c));
        }
        Condition::Not(c) => {
            buf.byte(b'!');
            condition(buf, c);
        }
    }
}

fn key_condition(buf: &mut KeyBuf, k: &KeyCondition) {
    buf.str(&k.partition_name);
    value_bytes(buf, &k.partition_value);
    match &k.sort {
        Some((name, cond)) => {
            buf.byte(1);
            buf.str(name);
            let (tag, values): (u8, [Option<&AttributeValue>; 2]) = match cond {
                SortCondition::Eq(v) => (b'=', [Some(v), None]),
                SortCondition::Lt(v) => (b'<', [Some(v), None]),
                SortCondition::Le(v) => (b'l', [Some(v), None]),
                SortCondition::Gt(v) => (b'>', [Some(v), None]),
                SortCondition::Ge(v) => (b'g', [Some(v), None]),
                SortCondition::Between(a, b) => (b'b', [Some(a), Some(b)]),
                SortCondition::BeginsWith(v) => (b'w', [Some(v), None]),
            };
            buf.byte(tag);
            values
                .into_iter()
                .flatten()
                .for_each(|v| value_bytes(buf, v));
        }
        None => buf.byte(0),
    }
}

#[cfg(test)]
mod tests {
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
