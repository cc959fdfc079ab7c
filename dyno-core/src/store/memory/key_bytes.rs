//! Encoded key bytes: the byte strings the engine's B-trees are keyed by, inline when short.

/// Encoded key bytes. Short keys (up to [`KeyBytes::INLINE`] bytes: nearly all keys) sit inline,
/// so that the engine's B-trees compare keys without following a pointer and a write does not
/// allocate for its keys; longer ones live on the heap.
#[derive(Clone)]
pub(super) struct KeyBytes(Repr);

#[derive(Clone)]
enum Repr {
    /// `bytes[..len]`, the rest zero (comparisons rely on the zero padding).
    Inline {
        len: u8,
        bytes: [u8; KeyBytes::INLINE],
    },
    /// More than `INLINE` bytes (never fewer: one representation per value).
    Heap(Box<[u8]>),
}

const _: () = assert!(std::mem::size_of::<KeyBytes>() == 24);

impl KeyBytes {
    /// The longest key kept inline.
    pub(super) const INLINE: usize = 22;

    /// The empty key (a table or index without a sort key).
    pub(super) const fn empty() -> Self {
        KeyBytes(Repr::Inline {
            len: 0,
            bytes: [0; KeyBytes::INLINE],
        })
    }

    /// The key's bytes.
    #[inline]
    pub(super) fn as_slice(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(b) => b,
        }
    }
}

impl Default for KeyBytes {
    fn default() -> Self {
        KeyBytes::empty()
    }
}

impl From<&[u8]> for KeyBytes {
    fn from(b: &[u8]) -> Self {
        if b.len() <= KeyBytes::INLINE {
            let mut bytes = [0; KeyBytes::INLINE];
            bytes[..b.len()].copy_from_slice(b);
            KeyBytes(Repr::Inline {
                len: b.len() as u8,
                bytes,
            })
        } else {
            KeyBytes(Repr::Heap(b.into()))
        }
    }
}

impl From<Vec<u8>> for KeyBytes {
    fn from(v: Vec<u8>) -> Self {
        if v.len() <= KeyBytes::INLINE {
            KeyBytes::from(v.as_slice())
        } else {
            KeyBytes(Repr::Heap(v.into_boxed_slice()))
        }
    }
}

impl std::ops::Deref for KeyBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::fmt::Debug for KeyBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_slice().escape_ascii().to_string())
    }
}

impl PartialEq for KeyBytes {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => {
                a == b && head(x) == head(y) && tail(x) == tail(y)
            }
            _ => self.as_slice() == other.as_slice(),
        }
    }
}

impl Eq for KeyBytes {}

/// The first 16 bytes of an inline key, loaded in native byte order (`u128::from_be` of it is
/// the big-endian integer that orders like the bytes).
#[inline]
fn head(bytes: &[u8; KeyBytes::INLINE]) -> u128 {
    u128::from_ne_bytes(*bytes.first_chunk::<16>().unwrap_or(&[0; 16]))
}

/// The last 8 bytes of an inline key, in native byte order (they overlap the head, which only
/// matters where the heads are equal).
#[inline]
fn tail(bytes: &[u8; KeyBytes::INLINE]) -> u64 {
    u64::from_ne_bytes(*bytes.last_chunk::<8>().unwrap_or(&[0; 8]))
}

/// An inline key hashes as its padded bytes and length, in three fixed-size writes (no branch on
/// the length: the engine hashes a partition key on every point read and write). Equal keys hash
/// alike: two inline keys are equal exactly when these parts are, and an inline key never equals
/// a heap one (one representation per value).
impl std::hash::Hash for KeyBytes {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                state.write_u128(head(bytes));
                state.write_u64(tail(bytes));
                state.write_u8(*len);
            }
            Repr::Heap(b) => b.hash(state),
        }
    }
}

impl PartialOrd for KeyBytes {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Bytewise order. Two inline keys compare as two big-endian integers of their zero-padded
/// bytes, then by length: padding with zeros keeps bytewise order (a proper prefix pads to at
/// most the longer key, and ties go to the shorter).
impl Ord for KeyBytes {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (&self.0, &other.0) {
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => {
                // Equal parts (common in index positions: one index sort key, one table
                // partition) are told apart without swapping bytes.
                let (hx, hy) = (head(x), head(y));
                if hx != hy {
                    return u128::from_be(hx).cmp(&u128::from_be(hy));
                }
                let (tx, ty) = (tail(x), tail(y));
                if tx != ty {
                    return u64::from_be(tx).cmp(&u64::from_be(ty));
                }
                a.cmp(b)
            }
            _ => self.as_slice().cmp(other.as_slice()),
        }
    }
}
