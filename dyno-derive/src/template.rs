//! Key templates at compile time: `USER#{user_id}`, `{order_date}#{order_id}`, `PROFILE`.
//!
//! The rules are the runtime's (`dyno_core::key::Template::validate`), checked here so a bad
//! template is a compile error spanned on the string: braces balanced, placeholders named with a
//! Rust identifier, every placeholder followed by the end or by a literal starting with `#`.

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// Literal text.
    Lit(String),
    /// A `{field}` placeholder.
    Field(String),
}

/// A parsed template with the literal it came from.
#[derive(Clone)]
pub(crate) struct Template {
    /// The string as written, for spans.
    pub lit: syn::LitStr,
    /// Its pieces.
    pub segments: Vec<Seg>,
}

impl Template {
    /// The placeholders, in order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Seg::Field(f) => Some(f.as_str()),
            Seg::Lit(_) => None,
        })
    }

    /// The text as written.
    pub(crate) fn text(&self) -> String {
        self.lit.value()
    }
}

/// Parses and validates `lit`; the error message says what is wrong and the right form.
pub(crate) fn parse(lit: &syn::LitStr) -> Result<Template, syn::Error> {
    let text = lit.value();
    let err = |msg: String| syn::Error::new(lit.span(), msg);
    if text.is_empty() {
        return Err(err("key template is empty: write a constant such as \"PROFILE\" or a template such as \"USER#{user_id}\"".into()));
    }
    let mut segments = Vec::new();
    let mut literal = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    match c {
                        '}' => {
                            closed = true;
                            break;
                        }
                        '{' => {
                            return Err(err(format!(
                                "key template {text:?}: `{{` inside a placeholder; placeholders are `{{field}}`"
                            )))
                        }
                        c => name.push(c),
                    }
                }
                if !closed {
                    return Err(err(format!(
                        "key template {text:?}: unclosed `{{` at byte {i}; close the placeholder, as in \"USER#{{user_id}}\""
                    )));
                }
                let name = name.trim().to_owned();
                if name.is_empty() {
                    return Err(err(format!(
                        "key template {text:?}: empty placeholder `{{}}`; name a field, as in \"USER#{{user_id}}\""
                    )));
                }
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                let is_ident = name.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !is_ident {
                    return Err(err(format!(
                        "key template {text:?}: `{{{name}}}` is not a field name; placeholders name struct fields, as in `{{user_id}}`"
                    )));
                }
                if !literal.is_empty() {
                    segments.push(Seg::Lit(std::mem::take(&mut literal)));
                }
                segments.push(Seg::Field(name));
            }
            '}' => {
                return Err(err(format!(
                "key template {text:?}: unmatched `}}` at byte {i}; placeholders are `{{field}}`"
            )))
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        segments.push(Seg::Lit(literal));
    }
    for (i, seg) in segments.iter().enumerate() {
        if let Seg::Field(name) = seg {
            match segments.get(i + 1) {
                None => {}
                Some(Seg::Lit(l)) if l.starts_with('#') => {}
                Some(next) => {
                    let next = match next {
                        Seg::Lit(l) => format!("{l:?}"),
                        Seg::Field(f) => format!("`{{{f}}}`"),
                    };
                    return Err(err(format!(
                        "key template {text:?}: `{{{name}}}` is followed by {next}; a placeholder must be followed by `#` or the end, as in \"{{{name}}}#...\", so the key splits back into its fields"
                    )));
                }
            }
        }
    }
    let mut seen = Vec::new();
    for f in segments.iter().filter_map(|s| match s {
        Seg::Field(f) => Some(f),
        Seg::Lit(_) => None,
    }) {
        if seen.contains(&f) {
            return Err(err(format!(
                "key template {text:?}: `{{{f}}}` appears twice; use each field once"
            )));
        }
        seen.push(f);
    }
    Ok(Template {
        lit: lit.clone(),
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Vec<Seg>, String> {
        parse(&syn::LitStr::new(s, proc_macro2::Span::call_site()))
            .map(|t| t.segments)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn parses_literals_and_fields() {
        assert_eq!(
            p("USER#{user_id}").unwrap(),
            vec![Seg::Lit("USER#".into()), Seg::Field("user_id".into())]
        );
        assert_eq!(p("PROFILE").unwrap(), vec![Seg::Lit("PROFILE".into())]);
        assert_eq!(
            p("{order_date}#{order_id}").unwrap(),
            vec![
                Seg::Field("order_date".into()),
                Seg::Lit("#".into()),
                Seg::Field("order_id".into())
            ]
        );
    }

    #[test]
    fn rejects_malformed_templates_with_the_right_form() {
        assert!(p("USER#{user_id").unwrap_err().contains("unclosed"));
        assert!(p("USER#{}").unwrap_err().contains("empty placeholder"));
        assert!(p("{a}{b}").unwrap_err().contains("must be followed by `#`"));
        assert!(p("{a}-{b}")
            .unwrap_err()
            .contains("must be followed by `#`"));
        assert!(p("A}").unwrap_err().contains("unmatched"));
        assert!(p("").unwrap_err().contains("empty"));
        assert!(p("{a b}").unwrap_err().contains("not a field name"));
        assert!(p("{a}#{a}").unwrap_err().contains("twice"));
    }
}
