//! Derive macros for dyno: `#[derive(Table)]`, `#[derive(Entity)]`, `#[derive(KeyPart)]`,
//! `#[derive(Projection)]` and `#[derive(Collection)]`. Use them through `dyno_core`, which
//! re-exports them; the generated code refers to `::dyno_core::__private` only.
//!
//! Each entry point parses the input, checks it, and expands it (see `expand`); on error it emits
//! the errors plus a stub impl, so one mistake gives one message.

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod template;
mod ty;

#[cfg(test)]
mod snapshot;

use proc_macro::TokenStream;

/// Declares a physical table: `#[dyno(name = "...", pk = "PK", sk = "SK", ttl = "ttl")]` and
/// `#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]` per index.
#[proc_macro_derive(Table, attributes(dyno))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    expand::table(input.into()).into()
}

/// Maps a struct to items of a table: `#[dyno(table = T, pk = "USER#{user_id}", sk = "...")]`.
#[proc_macro_derive(Entity, attributes(dyno))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    expand::entity(input.into()).into()
}

/// Makes a unit enum (by variant name) or a newtype (delegating) usable in key templates.
#[proc_macro_derive(KeyPart, attributes(dyno))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    expand::key_part(input.into()).into()
}

/// A subset of an entity's fields, read with a projection: `#[dyno(entity = Order)]`.
#[proc_macro_derive(Projection, attributes(dyno))]
pub fn derive_projection(input: TokenStream) -> TokenStream {
    expand::projection(input.into()).into()
}

/// Several entities of one partition, read in one query: an enum with one variant per entity,
/// or a struct of `Option<E>` / `Vec<E>` fields.
#[proc_macro_derive(Collection, attributes(dyno))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    expand::collection(input.into()).into()
}
