//! Opaque pagination cursors bound to their query, sealed with a key the client does not know.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::Mac;

use super::canon::{fnv1a, Reader, Writer};
use crate::error::{Error, Result};
pub use crate::store::{CursorKey, CURSOR_KEY_ENV};
use crate::value::Item;

/// Version 2: sealed with HMAC-SHA-256 under a [`CursorKey`] (version 1 carried a public FNV
/// checksum, which anyone could recompute after editing the cursor).
const FORMAT_VERSION: u8 = 2;

/// Bytes of the HMAC-SHA-256 tag a cursor carries (truncated from 32: 128 bits).
const TAG_BYTES: usize = 16;

/// Where one lane (a shard of a sharded query, a segment of a parallel scan, or the one request of
/// a plain query) stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LanePos {
    /// Not read yet.
    Start,
    /// Resume after this key (`ExclusiveStartKey`).
    At(Item),
    /// Read to the end.
    Done,
}

/// Where a paginated read stands: one position per lane and how many results were returned so
/// far (so that `limit` holds across pages).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageState {
    pub(crate) lanes: Vec<LanePos>,
    pub(crate) returned: u64,
}

impl PageState {
    pub(crate) fn start(lanes: usize) -> Self {
        PageState {
            lanes: vec![LanePos::Start; lanes],
            returned: 0,
        }
    }

    /// Where a read of `lanes` lanes (its fingerprint `fingerprint`) resumes: at `cursor`,
    /// checked against the read and `key`, or at the start.
    pub(crate) fn resume(
        cursor: Option<&Cursor>,
        fingerprint: u64,
        lanes: usize,
        key: &CursorKey,
    ) -> Result<Self> {
        match cursor {
            Some(c) => Ok(c.state_for(fingerprint, lanes, key)?.clone()),
            None => Ok(PageState::start(lanes)),
        }
    }
}

/// An opaque position in a query or scan, handed to clients between pages.
///
/// `Display` gives a URL-safe string (base64url, no padding) and [`Cursor::parse`] reads it back.
/// The cursor carries the `LastEvaluatedKey` of each lane (typed: strings, numbers and binaries
/// survive exactly), the number of results already returned, a fingerprint of the query it belongs
/// to (table, index, key conditions, filter, direction, projection), sealed with an HMAC under the
/// store's [`CursorKey`]. The query's key condition, filter and `limit` always come from the
/// query itself, never from the cursor; the seal keeps a client from editing what the cursor
/// does carry (a forged count of results returned would otherwise lift a `limit`). Using it with
/// another query, with a store under another key, or passing a malformed, truncated or altered
/// string, is [`Error::InvalidCursor`]. (A public checksum after the seal names a garbled or
/// truncated string when it is parsed; it protects nothing, the seal does.)
///
/// ```
/// use dyno_core::ops::Cursor;
/// use dyno_core::Error;
///
/// assert!(matches!(Cursor::parse("not-a-cursor"), Err(Error::InvalidCursor { .. })));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    fingerprint: u64,
    state: PageState,
    /// What the seal covers, as minted or as read.
    body: Vec<u8>,
    tag: [u8; TAG_BYTES],
}

impl Cursor {
    /// A cursor for `state` of the query with `fingerprint`, sealed with `key`.
    pub(crate) fn new(fingerprint: u64, state: PageState, key: &CursorKey) -> Self {
        let body = encode_body(fingerprint, &state);
        let tag = seal(key, &body);
        Cursor {
            fingerprint,
            state,
            body,
            tag,
        }
    }

    /// Parses a cursor produced by `Display`. Its seal is checked when it is used (the key is
    /// the store's): see [`Cursor`].
    pub fn parse(s: &str) -> Result<Cursor> {
        let invalid = |why: &str| Error::InvalidCursor {
            message: format!("{why} (cursor {:?})", abbreviate(s)),
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(s.trim())
            .map_err(|_| invalid("not base64url"))?;
        if bytes.len() < 1 + TAG_BYTES + 8 {
            return Err(invalid("too short"));
        }
        // A public checksum first, so that a garbled or truncated string is named as such here;
        // the seal (which only the key can make) is checked when the cursor is used.
        let (sealed, sum) = bytes.split_at(bytes.len() - 8);
        let mut s8 = [0u8; 8];
        s8.copy_from_slice(sum);
        if fnv1a(sealed) != u64::from_be_bytes(s8) {
            return Err(invalid(
                "checksum mismatch: the cursor was altered or truncated",
            ));
        }
        let (body, sum) = sealed.split_at(sealed.len() - TAG_BYTES);
        let mut tag = [0u8; TAG_BYTES];
        tag.copy_from_slice(sum);
        let mut r = Reader::new(body);
        let read = |r: &mut Reader<'_>| -> std::result::Result<(u64, PageState), &'static str> {
            if r.u8()? != FORMAT_VERSION {
                return Err(
                    "unknown cursor format version (cursors of an earlier dyno are not \
                            accepted: start the read again)",
                );
            }
            let fingerprint = r.u64()?;
            let returned = r.u64()?;
            let n = r.u32()? as usize;
            if n == 0 || n > 1_000_000 {
                return Err("lane count out of range");
            }
            let mut lanes = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                lanes.push(match r.u8()? {
                    0 => LanePos::Start,
                    1 => LanePos::At(r.item()?),
                    2 => LanePos::Done,
                    _ => return Err("unknown lane state"),
                });
            }
            if !r.is_empty() {
                return Err("trailing bytes");
            }
            Ok((fingerprint, PageState { lanes, returned }))
        };
        let (fingerprint, state) = read(&mut r).map_err(invalid)?;
        Ok(Cursor {
            fingerprint,
            state,
            body: body.to_vec(),
            tag,
        })
    }

    /// The state to resume from, when the cursor was sealed with `key` and belongs to the query
    /// with `fingerprint` and `lanes` lanes.
    pub(crate) fn state_for(
        &self,
        fingerprint: u64,
        lanes: usize,
        key: &CursorKey,
    ) -> Result<&PageState> {
        if key
            .mac(&self.body)
            .verify_truncated_left(&self.tag)
            .is_err()
        {
            return Err(Error::InvalidCursor {
                message: "the cursor's seal does not match: it was altered, or minted under \
                          another cursor key (another process without a shared key, or before \
                          the key was rotated); start the read again, and give every instance \
                          the same key (`DYNO_CURSOR_KEY`, see `CursorKey`)"
                    .to_owned(),
            });
        }
        if self.fingerprint != fingerprint || self.state.lanes.len() != lanes {
            return Err(Error::InvalidCursor {
                message: "the cursor belongs to another query (table, index, key condition, filter, direction or \
                          projection differ)"
                    .to_owned(),
            });
        }
        Ok(&self.state)
    }

    fn encode(&self) -> String {
        let mut out = Vec::with_capacity(self.body.len() + TAG_BYTES + 8);
        out.extend_from_slice(&self.body);
        out.extend_from_slice(&self.tag);
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_be_bytes());
        URL_SAFE_NO_PAD.encode(&out)
    }
}

/// What a cursor's seal covers: the format version, the query's fingerprint and the state.
fn encode_body(fingerprint: u64, state: &PageState) -> Vec<u8> {
    let mut w = Writer::default();
    w.u8(FORMAT_VERSION);
    w.u64(fingerprint);
    w.u64(state.returned);
    w.len(state.lanes.len());
    for lane in &state.lanes {
        match lane {
            LanePos::Start => w.u8(0),
            LanePos::At(item) => {
                w.u8(1);
                w.item(item);
            }
            LanePos::Done => w.u8(2),
        }
    }
    w.buf
}

fn seal(key: &CursorKey, body: &[u8]) -> [u8; TAG_BYTES] {
    let full = key.mac(body).finalize().into_bytes();
    let mut tag = [0u8; TAG_BYTES];
    tag.copy_from_slice(&full[..TAG_BYTES]);
    tag
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl FromStr for Cursor {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Cursor::parse(s)
    }
}

fn abbreviate(s: &str) -> String {
    let mut out: String = s.chars().take(24).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AttributeValue;
    use aws_sdk_dynamodb::primitives::Blob;

    fn sample() -> Cursor {
        let key = Item::from([
            ("PK".to_owned(), AttributeValue::S("USER#1".to_owned())),
            ("N".to_owned(), AttributeValue::N("42".to_owned())),
            ("B".to_owned(), AttributeValue::B(Blob::new(vec![1, 2, 3]))),
        ]);
        Cursor::new(
            7,
            PageState {
                lanes: vec![LanePos::At(key), LanePos::Done, LanePos::Start],
                returned: 3,
            },
            &test_key(),
        )
    }

    fn test_key() -> CursorKey {
        CursorKey::new(b"sixteen-byte-key-for-tests").unwrap()
    }

    #[test]
    fn round_trips_through_a_url_safe_string() {
        let c = sample();
        let s = c.to_string();
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{s}"
        );
        assert_eq!(Cursor::parse(&s).unwrap(), c);
    }

    #[test]
    fn rejects_tampering_and_other_queries() {
        let s = sample().to_string();
        let mut bytes = s.clone().into_bytes();
        let i = bytes.len() / 2;
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert!(matches!(
            Cursor::parse(&tampered),
            Err(Error::InvalidCursor { .. })
        ));
        assert!(matches!(
            Cursor::parse(&s[..s.len() - 3]),
            Err(Error::InvalidCursor { .. })
        ));
        assert!(matches!(
            Cursor::parse("not a cursor!"),
            Err(Error::InvalidCursor { .. })
        ));
        assert!(matches!(
            Cursor::parse(""),
            Err(Error::InvalidCursor { .. })
        ));
        let c = Cursor::parse(&s).unwrap();
        let key = test_key();
        assert!(c.state_for(7, 3, &key).is_ok());
        assert!(matches!(
            c.state_for(8, 3, &key),
            Err(Error::InvalidCursor { .. })
        ));
        assert!(matches!(
            c.state_for(7, 2, &key),
            Err(Error::InvalidCursor { .. })
        ));
        // Another key (another process without a shared key) does not accept it.
        assert!(matches!(
            c.state_for(7, 3, &CursorKey::random()),
            Err(Error::InvalidCursor { .. })
        ));
    }

    /// A client that edits the count of results returned (to lift a `limit`) and recomputes
    /// every checksum it can (it knows the format, not the key) is refused.
    #[test]
    fn a_cursor_edited_and_resealed_without_the_key_is_refused() {
        let c = sample();
        let mut forged_state = c.state.clone();
        forged_state.returned = 0;
        let forged = Cursor::new(7, forged_state, &CursorKey::random()).to_string();
        let parsed = Cursor::parse(&forged).unwrap();
        assert!(matches!(
            parsed.state_for(7, 3, &test_key()),
            Err(Error::InvalidCursor { .. })
        ));
    }
}
