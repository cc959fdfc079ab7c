//! Opaque pagination cursors bound to their query.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use super::canon::{fnv1a, Reader, Writer};
use crate::error::{Error, Result};
use crate::value::Item;

const FORMAT_VERSION: u8 = 1;

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
}

/// An opaque position in a query or scan, handed to clients between pages.
///
/// `Display` gives a URL-safe string (base64url, no padding) and [`Cursor::parse`] reads it back.
/// The cursor carries the `LastEvaluatedKey` of each lane (typed: strings, numbers and binaries
/// survive exactly), the number of results already returned, a fingerprint of the query it belongs
/// to (table, index, key conditions, filter, direction, projection) and a checksum. Using it with
/// another query, or passing a malformed, truncated or altered string, is
/// [`Error::InvalidCursor`].
///
/// The checksum detects corruption, not forgery: there is no secret key, so cursors stay valid
/// across processes and restarts. A forged cursor can only move the start position inside the same
/// query, whose key condition and filter always come from the server-side query, never from the
/// cursor.
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
}

impl Cursor {
    pub(crate) fn new(fingerprint: u64, state: PageState) -> Self {
        Cursor { fingerprint, state }
    }

    /// Parses a cursor produced by `Display`.
    pub fn parse(s: &str) -> Result<Cursor> {
        let invalid = |why: &str| Error::InvalidCursor {
            message: format!("{why} (cursor {:?})", abbreviate(s)),
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(s.trim())
            .map_err(|_| invalid("not base64url"))?;
        if bytes.len() < 1 + 8 {
            return Err(invalid("too short"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut s8 = [0u8; 8];
        s8.copy_from_slice(sum);
        if fnv1a(body) != u64::from_be_bytes(s8) {
            return Err(invalid(
                "checksum mismatch: the cursor was altered or truncated",
            ));
        }
        let mut r = Reader::new(body);
        let read = |r: &mut Reader<'_>| -> std::result::Result<Cursor, &'static str> {
            if r.u8()? != FORMAT_VERSION {
                return Err("unknown cursor format version");
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
            Ok(Cursor {
                fingerprint,
                state: PageState { lanes, returned },
            })
        };
        read(&mut r).map_err(invalid)
    }

    /// The state to resume from, when the cursor belongs to the query with `fingerprint` and
    /// `lanes` lanes.
    pub(crate) fn state_for(&self, fingerprint: u64, lanes: usize) -> Result<&PageState> {
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
        let mut w = Writer::default();
        w.u8(FORMAT_VERSION);
        w.u64(self.fingerprint);
        w.u64(self.state.returned);
        w.len(self.state.lanes.len());
        for lane in &self.state.lanes {
            match lane {
                LanePos::Start => w.u8(0),
                LanePos::At(item) => {
                    w.u8(1);
                    w.item(item);
                }
                LanePos::Done => w.u8(2),
            }
        }
        let sum = fnv1a(&w.buf);
        w.u64(sum);
        URL_SAFE_NO_PAD.encode(&w.buf)
    }
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
        )
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
        assert!(c.state_for(7, 3).is_ok());
        assert!(matches!(
            c.state_for(8, 3),
            Err(Error::InvalidCursor { .. })
        ));
        assert!(matches!(
            c.state_for(7, 2),
            Err(Error::InvalidCursor { .. })
        ));
    }
}
