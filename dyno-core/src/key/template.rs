//! Key templates: literal text and `{field}` placeholders, such as `USER#{user_id}` or
//! `{order_date}#{order_id}`.

use std::fmt;

use super::DELIMITER;
use crate::error::{Error, Result};

/// One piece of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Text written as it is.
    Literal(&'static str),
    /// The encoded value of the named field.
    Field(&'static str),
}

/// A parsed key template. The derive emits these as constants; hand-written entities can build
/// them with [`Template::new`].
///
/// A field is always followed by the end of the key or by a literal that starts with `#`, so a
/// key splits back into its fields without ambiguity (encoded values never contain `#`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Template {
    segments: &'static [Segment],
}

impl Template {
    /// A template from its segments.
    pub const fn new(segments: &'static [Segment]) -> Self {
        Template { segments }
    }

    /// The segments, in order.
    pub const fn segments(&self) -> &'static [Segment] {
        self.segments
    }

    /// The literal text before the first field (the whole key for a constant template).
    pub fn prefix(&self) -> &'static str {
        match self.segments.first() {
            Some(Segment::Literal(l)) => l,
            _ => "",
        }
    }

    /// True when the template has no fields.
    pub fn is_constant(&self) -> bool {
        self.segments
            .iter()
            .all(|s| matches!(s, Segment::Literal(_)))
    }

    /// The field names, in order.
    pub fn fields(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Field(f) => Some(*f),
            Segment::Literal(_) => None,
        })
    }

    /// Builds a key: literals as they are, and for each field the segment that `field` appends
    /// when called with the field's name (usually the field's [`KeyPart::encode_key`]).
    ///
    /// A field segment that is empty or contains the delimiter is refused: the key would not
    /// split back into its fields, and could collide with another entity's key.
    ///
    /// ```
    /// use dyno_core::key::{KeyPart, Segment, Template};
    /// const PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);
    /// let key = PK.encode(|_, out| "a#b".to_owned().encode_key(out)).unwrap();
    /// assert_eq!(key, "USER#a%23b");
    /// ```
    ///
    /// [`KeyPart::encode_key`]: super::KeyPart::encode_key
    pub fn encode(
        &self,
        mut field: impl FnMut(&'static str, &mut String) -> Result<()>,
    ) -> Result<String> {
        let mut out = String::new();
        for seg in self.segments {
            match seg {
                Segment::Literal(l) => out.push_str(l),
                Segment::Field(name) => {
                    let start = out.len();
                    field(name, &mut out)?;
                    let part = &out[start..];
                    if part.is_empty() || part.contains(DELIMITER) {
                        return Err(Error::key(
                            None,
                            format!(
                                "template {self}: field {{{name}}} encoded as {part:?}, which is \
                                 empty or contains the delimiter '{DELIMITER}'"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Splits `key` into the raw (still encoded) segments of its fields, in order; `None` when the
    /// key does not have this template's shape.
    pub fn split<'k>(&self, key: &'k str) -> Option<Vec<&'k str>> {
        let mut rest = key;
        let mut out = Vec::with_capacity(self.segments.len());
        for seg in self.segments {
            match seg {
                Segment::Literal(l) => rest = rest.strip_prefix(l)?,
                Segment::Field(_) => {
                    let end = rest.find(DELIMITER).unwrap_or(rest.len());
                    if end == 0 {
                        return None;
                    }
                    out.push(&rest[..end]);
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(out)
    }

    /// True when `key` has this template's shape. Allocates nothing (the metering wrapper,
    /// [`crate::cost::Metered`], matches every request's key with it).
    pub fn matches(&self, key: &str) -> bool {
        let mut rest = key;
        for seg in self.segments {
            match seg {
                Segment::Literal(l) => match rest.strip_prefix(l) {
                    Some(r) => rest = r,
                    None => return false,
                },
                Segment::Field(_) => {
                    let end = rest.find(DELIMITER).unwrap_or(rest.len());
                    if end == 0 {
                        return false;
                    }
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty()
    }

    /// Checks the template's shape: every field followed by the end or by a literal that starts
    /// with the delimiter, no empty field name. Used by hand-written entities' tests and by the
    /// derive's compile-time check.
    pub fn validate(&self) -> Result<()> {
        for (i, seg) in self.segments.iter().enumerate() {
            if let Segment::Field(name) = seg {
                if name.is_empty() {
                    return Err(Error::key(
                        None,
                        format!("template {self}: empty field name"),
                    ));
                }
                let separated = match self.segments.get(i + 1) {
                    None => true,
                    Some(Segment::Literal(l)) => l.starts_with(DELIMITER),
                    Some(Segment::Field(_)) => false,
                };
                if !separated {
                    let message = format!(
                        "template {self}: field {{{name}}} must be followed by '#' or the end"
                    );
                    return Err(Error::key(None, message));
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for seg in self.segments {
            match seg {
                Segment::Literal(l) => f.write_str(l)?,
                Segment::Field(n) => write!(f, "{{{n}}}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Template({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER_SK: Template = Template::new(&[
        Segment::Field("order_date"),
        Segment::Literal("#"),
        Segment::Field("order_id"),
    ]);
    const USER_PK: Template =
        Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);

    #[test]
    fn splits_keys_of_its_shape() {
        assert_eq!(USER_PK.split("USER#123"), Some(vec!["123"]));
        assert_eq!(
            ORDER_SK.split("2024-01-02#9"),
            Some(vec!["2024-01-02", "9"])
        );
        assert_eq!(USER_PK.split("USER#1#ORDER#2"), None);
        assert_eq!(USER_PK.split("PRODUCT#1"), None);
        assert_eq!(USER_PK.split("USER#"), None);
        assert!(ORDER_SK.validate().is_ok());
        assert_eq!(USER_PK.to_string(), "USER#{user_id}");
    }

    #[test]
    fn adjacent_fields_are_invalid() {
        const BAD: Template = Template::new(&[Segment::Field("a"), Segment::Field("b")]);
        assert!(BAD.validate().is_err());
    }
}
