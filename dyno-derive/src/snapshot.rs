//! Expansion snapshots: each derive expanded on a representative input, laid out as rustfmt
//! would lay it out (`prettyplease`, pinned by Cargo.lock), and compared with a checked-in file
//! under `tests/snapshots/`, so a snapshot reads like code and its diff like a code review.
//! `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` rewrites the files, to be reviewed in the
//! diff.

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

fn snapshot(name: &str, expanded: TokenStream) {
    every_static_is_built_once(name, &expanded);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"));
    let text = format!(
        "// Expansion snapshot: DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive\n{}",
        pretty(expanded)
    );
    if std::env::var_os("DYNO_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("missing snapshot {} ({e}): run `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` and review it", path.display())
    });
    if let Some((line, (was, now))) =
        (stored.lines().zip(text.lines()).enumerate()).find(|(_, (a, b))| a != b)
    {
        eprintln!(
            "{}:{}:\n  stored:   {was}\n  expanded: {now}",
            path.display(),
            line + 1
        );
    }
    assert!(
        stored == text,
        "expansion of {name} changed: run `DYNO_UPDATE_SNAPSHOTS=1 cargo test -p dyno-derive` and review the diff of {}",
        path.display()
    );
}

/// Every `static` an expansion defines is a `__private::BuiltOnce`: a static with drop glue in
/// the user's crate costs every incremental rebuild of it a lookup that rebuilds rustc's map of
/// the dependencies' generic instances (see `BuiltOnce`).
fn every_static_is_built_once(name: &str, expanded: &TokenStream) {
    fn walk(tokens: TokenStream, name: &str) {
        let trees: Vec<_> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
                // `static`, not the lifetime `'static`.
                proc_macro2::TokenTree::Ident(id)
                    if id == "static"
                        && !matches!(i.checked_sub(1).map(|j| &trees[j]),
                            Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '\'') =>
                {
                    let ty: String = (trees[i + 1..].iter())
                        .skip(2)
                        .take(10)
                        .map(|t| t.to_string())
                        .collect();
                    assert!(
                        ty.starts_with("::dyno_core::__private::BuiltOnce<"),
                        "{name}: a static that is not a BuiltOnce: {ty}"
                    );
                }
                _ => {}
            }
        }
    }
    walk(expanded.clone(), name);
}

/// The expansion laid out as rustfmt would lay out code (`prettyplease`), so a snapshot reads
/// like the code it is; printing only adds whitespace, so the file parses back to the same
/// tokens.
fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens)
        .unwrap_or_else(|e| panic!("the expansion does not parse as a file: {e}"));
    prettyplease::unparse(&file)
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
