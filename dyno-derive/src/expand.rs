//! Code generation. Each derive parses (`ast`), checks (`check`) and generates (the modules
//! below); these functions work on `proc_macro2::TokenStream` so tests can call them.
//!
//! Generated code sits in `const _: () = { ... };` where it can (types that users name, such as
//! query builders, sit beside the entity), writes `::core::...` paths in full, and reaches dyno
//! through `::dyno_core::__private` (inside an entity's `const _` block, through its short name
//! `__d`: see [`private_alias`]).

mod collection;
mod document;
mod entity;
mod index_stubs;
mod key_part;
mod projection;
mod query;
mod table;
mod update;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ctxt::Ctxt;

pub(crate) use self::index_stubs::index_stubs;

/// `::dyno_core::__private`
pub(crate) fn private() -> TokenStream {
    quote!(::dyno_core::__private)
}

/// `__d`, the short name of `::dyno_core::__private` inside an entity's `const _: () = { ... };`
/// (see [`private_alias_use`]): the entity derive writes it on every path, so its expansion is
/// shorter to print, parse and resolve, once per entity on every build.
///
/// An `Ident`, not a `TokenStream`: in a real expansion `quote!` defers the tokens it pushes
/// and sends them to the compiler in one batch, but interpolating a stream clones it, flushes
/// the batch and concatenates, three calls across the proc-macro bridge for each of the
/// several hundred `__d::` paths of an entity.
pub(crate) fn private_alias() -> proc_macro2::Ident {
    proc_macro2::Ident::new("__d", proc_macro2::Span::call_site())
}

/// The `use` that defines [`private_alias`] in a `const _` block.
pub(crate) fn private_alias_use() -> TokenStream {
    quote!(
        use ::dyno_core::__private as __d;
    )
}

/// Parses `input`, runs `generate` (which reports into the context and returns `None` when it
/// cannot go on), and on any error emits the errors plus `stub(input)`.
fn run(
    input: TokenStream,
    generate: impl FnOnce(&Ctxt, &DeriveInput) -> Option<TokenStream>,
    stub: impl FnOnce(&DeriveInput) -> TokenStream,
) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let out = generate(&cx, &input);
    match cx.check() {
        Ok(()) => out.unwrap_or_else(|| stub(&input)),
        Err(e) => {
            let errors = e.to_compile_error();
            let stub = stub(&input);
            quote!(#errors #stub)
        }
    }
}

/// `#[derive(Table)]`
pub(crate) fn table(input: TokenStream) -> TokenStream {
    run(input, table::generate, table::stub)
}

/// `#[derive(Entity)]`
pub(crate) fn entity(input: TokenStream) -> TokenStream {
    run(input, entity::generate, entity::stub)
}

/// `#[derive(KeyPart)]`
pub(crate) fn key_part(input: TokenStream) -> TokenStream {
    run(input, key_part::generate, key_part::stub)
}

/// `#[derive(Projection)]`
pub(crate) fn projection(input: TokenStream) -> TokenStream {
    run(input, projection::generate, projection::stub)
}

/// `#[derive(Collection)]`
pub(crate) fn collection(input: TokenStream) -> TokenStream {
    run(input, collection::generate, collection::stub)
}

/// `#[derive(Document)]`
pub(crate) fn document(input: TokenStream) -> TokenStream {
    run(input, document::generate, document::stub)
}

/// `tokens` with every span set to `span`, so that a type error in them is reported on the
/// user's token (and identical errors from several uses collapse into one).
pub(crate) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// Wraps items in `const _: () = { ... };`.
fn dummy_const(items: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
        const _: () = {
            #items
        };
    }
}
