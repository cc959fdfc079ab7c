//! The derive inputs as models: `#[dyno(...)]` attributes parsed into plain data that borrows
//! the input. Parsing reports every error it meets in the [`Ctxt`] and keeps going. One module
//! per derive; the helpers they share are here.

mod collection;
mod document;
mod entity;
mod key_part;
mod projection;
mod table;

use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

use crate::ctxt::Ctxt;
use crate::template::{self, Template};

pub(crate) use self::collection::*;
pub(crate) use self::document::*;
pub(crate) use self::entity::*;
pub(crate) use self::key_part::*;
pub(crate) use self::projection::*;
pub(crate) use self::table::*;

/// A key template, or `None` after reporting why it does not parse.
fn parse_template(cx: &Ctxt, lit: LitStr) -> Option<Template> {
    match template::parse(&lit) {
        Ok(t) => Some(t),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

fn no_generics(cx: &Ctxt, input: &DeriveInput, derive: &str) {
    if !input.generics.params.is_empty() {
        cx.error_at(
            input.generics.span(),
            format!("`#[derive({derive})]` does not support generic types"),
        );
    }
}
