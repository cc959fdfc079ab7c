//! Expansion snapshots: each derive expanded on a representative input and compared with a
//! checked-in file under `tests/snapshots/`. The comparison is on tokens, so formatting does not
//! matter; `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` rewrites the files (laid out by
//! `pretty`), to be reviewed in the diff.

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

fn snapshot(name: &str, expanded: TokenStream) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"));
    if std::env::var_os("DYNO_UPDATE_SNAPSHOTS").is_some() {
        let text = pretty(expanded.clone());
        std::fs::write(
            &path,
            format!(
                "// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive\n{text}"
            ),
        )
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("missing snapshot {} ({e}): run `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` and review it", path.display())
    });
    let stored: TokenStream = text
        .parse()
        .unwrap_or_else(|e| panic!("snapshot {} does not parse: {e}", path.display()));
    let (a, b) = (flat(stored), flat(expanded));
    if a != b {
        let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        eprintln!(
            "stored:   {}",
            a.chars()
                .skip(at.saturating_sub(60))
                .take(160)
                .collect::<String>()
        );
        eprintln!(
            "expanded: {}",
            b.chars()
                .skip(at.saturating_sub(60))
                .take(160)
                .collect::<String>()
        );
    }
    assert!(
        a == b,
        "expansion of {name} changed: run `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` and review the diff of {}",
        path.display()
    );
}

/// The tokens as text, one per token, ignoring spacing (which differs between `quote!` and a
/// parse of the formatted file).
fn flat(tokens: TokenStream) -> String {
    use proc_macro2::{Delimiter, TokenTree};
    let mut out = String::new();
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push(' ');
                out.push_str(&flat(g.stream()));
                out.push_str(close);
            }
            TokenTree::Punct(p) => out.push(p.as_char()),
            other => out.push_str(&other.to_string()),
        }
        out.push(' ');
    }
    out
}

/// A readable, deterministic layout: a line per statement, item, field and match arm, blocks
/// indented. Only whitespace is added, so the file parses back to the same tokens.
fn pretty(tokens: TokenStream) -> String {
    fn walk(tokens: TokenStream, depth: usize, in_brace: bool, out: &mut String) {
        use proc_macro2::{Delimiter, Spacing, TokenTree};
        let newline = |out: &mut String, depth: usize| {
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('\n');
            out.push_str(&"    ".repeat(depth));
        };
        let mut iter = tokens.into_iter().peekable();
        while let Some(tt) = iter.next() {
            match tt {
                TokenTree::Group(g) => match g.delimiter() {
                    Delimiter::Brace => {
                        out.push('{');
                        if !g.stream().is_empty() {
                            newline(out, depth + 1);
                            walk(g.stream(), depth + 1, true, out);
                            newline(out, depth);
                        }
                        out.push('}');
                        if !matches!(iter.peek(), Some(TokenTree::Punct(p)) if matches!(p.as_char(), ',' | ';' | ')' | '.'))
                        {
                            newline(out, depth);
                        }
                    }
                    Delimiter::Bracket => {
                        out.push('[');
                        walk(g.stream(), depth, false, out);
                        while out.ends_with(' ') {
                            out.pop();
                        }
                        out.push_str("] ");
                    }
                    Delimiter::Parenthesis => {
                        out.push('(');
                        walk(g.stream(), depth, false, out);
                        while out.ends_with(' ') {
                            out.pop();
                        }
                        out.push_str(") ");
                    }
                    Delimiter::None => walk(g.stream(), depth, in_brace, out),
                },
                TokenTree::Punct(p)
                    if p.as_char() == '#'
                        && matches!(iter.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket) =>
                {
                    // An attribute: on its own line.
                    if let Some(TokenTree::Group(g)) = iter.next() {
                        out.push_str("#[");
                        walk(g.stream(), depth, false, out);
                        while out.ends_with(' ') {
                            out.pop();
                        }
                        out.push(']');
                        newline(out, depth);
                    }
                }
                TokenTree::Punct(p) => {
                    out.push(p.as_char());
                    match p.as_char() {
                        ';' => newline(out, depth),
                        ',' if in_brace => newline(out, depth),
                        _ if p.spacing() == Spacing::Joint => {}
                        _ => out.push(' '),
                    }
                }
                other => {
                    out.push_str(&other.to_string());
                    out.push(' ');
                }
            }
        }
    }
    let mut out = String::new();
    walk(tokens, 0, true, &mut out);
    let lines: Vec<&str> = out
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines.join("\n") + "\n"
}

#[test]
fn table() {
    snapshot(
        "table",
        expand::table(quote! {
            #[dyno(name = "ECommerce", pk = "PK", sk = "SK", ttl = "ttl")]
            #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
            #[dyno(index(name = "LSI1", local, sk = "LSI1SK", keys_only))]
            pub struct ECommerce;
        }),
    );
}

#[test]
fn entity() {
    snapshot(
        "entity",
        expand::entity(quote! {
            #[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
            #[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_date}"))]
            pub struct Order {
                pub user_id: String,
                pub order_id: String,
                pub status: OrderStatus,
                pub order_date: Date,
                pub total: Decimal,
                pub note: Option<String>,
                #[dyno(version)]
                pub version: u64,
                #[dyno(ttl)]
                pub expires_at: Option<OffsetDateTime>,
            }
        }),
    );
}

#[test]
fn key_part() {
    snapshot(
        "key_part",
        expand::key_part(quote! {
            #[dyno(rename_all = "SCREAMING_SNAKE_CASE")]
            pub enum OrderStatus {
                Pending,
                #[dyno(rename = "SENT")]
                Shipped,
            }
        }),
    );
}

#[test]
fn projection_and_collection() {
    snapshot(
        "projection",
        expand::projection(quote! {
            #[dyno(entity = Order)]
            pub struct OrderSummary {
                pub order_id: String,
                pub total: Decimal,
            }
        }),
    );
    snapshot(
        "collection",
        expand::collection(quote! {
            pub struct UserWithOrders {
                pub user: Option<User>,
                pub orders: Vec<Order>,
            }
        }),
    );
}

#[test]
fn an_error_expands_to_the_error_and_a_stub() {
    let out = expand::entity(quote! {
        #[dyno(table = ECommerce, pk = "USER#{usr_id}")]
        pub struct User {
            pub user_id: String,
        }
    });
    let text = out.to_string();
    assert_eq!(text.matches("compile_error").count(), 1, "{text}");
    assert!(text.contains("no field `usr_id` in `User`"), "{text}");
    assert!(
        text.contains("StubTable"),
        "a stub impl keeps later uses quiet: {text}"
    );
    snapshot("entity_error", out);
}

#[test]
fn every_mistake_is_reported_at_once() {
    let text = expand::entity(quote! {
        #[dyno(table = ECommerce, pk = "USER#{usr_id}", sk = "{a}{b}", colour = "red")]
        pub struct User {
            pub user_id: String,
            #[dyno(version)]
            pub v1: u64,
            #[dyno(version)]
            pub v2: u64,
        }
    })
    .to_string();
    for expected in [
        "unknown key `colour`",
        "no field `usr_id`",
        "must be followed by `#`",
        "has one version field",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
}
