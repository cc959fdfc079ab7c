//! Parsing `#[dyno(...)]` attributes by hand with syn 2's `parse_nested_meta`: each key is set
//! at most once, unknown keys are errors that list the keys allowed there.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;

use crate::ctxt::Ctxt;

/// One attribute key: unset, or set once with the tokens that set it (for spans).
pub(crate) struct Attr<T> {
    name: &'static str,
    value: Option<(proc_macro2::TokenStream, T)>,
}

impl<T> Attr<T> {
    /// An unset key called `name`.
    pub(crate) fn none(name: &'static str) -> Self {
        Attr { name, value: None }
    }

    /// Sets the key; a second setting is a "duplicate" error spanned on `tokens`.
    pub(crate) fn set<A: ToTokens>(&mut self, cx: &Ctxt, tokens: A, value: T) {
        let tokens = tokens.into_token_stream();
        if self.value.is_some() {
            cx.error_spanned_by(
                tokens,
                format!("duplicate `{}` in #[dyno(...)]: give it once", self.name),
            );
        } else {
            self.value = Some((tokens, value));
        }
    }

    /// The value, if set.
    pub(crate) fn get(self) -> Option<T> {
        self.value.map(|(_, v)| v)
    }

    /// The value with the tokens that set it.
    pub(crate) fn get_with_tokens(self) -> Option<(proc_macro2::TokenStream, T)> {
        self.value
    }

    /// True when set.
    pub(crate) fn is_set(&self) -> bool {
        self.value.is_some()
    }
}

/// A key without a value (`#[dyno(skip)]`).
pub(crate) struct Flag(Attr<()>);

impl Flag {
    /// An unset flag called `name`.
    pub(crate) fn none(name: &'static str) -> Self {
        Flag(Attr::none(name))
    }

    /// Sets the flag (once).
    pub(crate) fn set<A: ToTokens>(&mut self, cx: &Ctxt, tokens: A) {
        self.0.set(cx, tokens, ());
    }

    /// True when set.
    pub(crate) fn get(&self) -> bool {
        self.0.is_set()
    }

    /// The tokens that set it, for spans.
    pub(crate) fn tokens(&self) -> Option<&proc_macro2::TokenStream> {
        self.0.value.as_ref().map(|(t, _)| t)
    }
}

/// The name of the key being parsed (`pk` in `pk = "..."`), or the path as written.
pub(crate) fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path.to_token_stream().to_string().replace(' ', "")
}

/// The error for a key that is not allowed here, listing what is.
pub(crate) fn unknown_key(meta: &ParseNestedMeta<'_>, place: &str, allowed: &[&str]) -> syn::Error {
    meta.error(format!(
        "unknown key `{}` in {place}; expected one of: {}",
        key_name(meta),
        allowed.join(", ")
    ))
}

/// Records an unknown-key error in `cx` and skips the key's value, so parsing goes on and
/// later mistakes in the same attribute are reported too.
pub(crate) fn unknown_key_continue(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    place: &str,
    allowed: &[&str],
) -> syn::Result<()> {
    cx.syn_error(unknown_key(meta, place, allowed));
    skip_value(meta)
}

/// Skips `= expr` or `(...)` after a key.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value()?;
        meta.input.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

/// Parses `= "string"`.
pub(crate) fn string_value(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitStr> {
    let name = key_name(meta);
    let value = meta
        .value()
        .map_err(|_| meta.error(format!("expected `{name} = \"...\"`")))?;
    value.parse::<syn::LitStr>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected a string literal: `{name} = \"...\"`"),
        )
    })
}

/// Parses `= "string"` and refuses an empty string.
pub(crate) fn nonempty_string(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitStr> {
    let lit = string_value(meta)?;
    if lit.value().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!("`{}` cannot be empty", key_name(meta)),
        ));
    }
    Ok(lit)
}

/// Parses `= path::To::Type`.
pub(crate) fn path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    let name = key_name(meta);
    let value = meta
        .value()
        .map_err(|_| meta.error(format!("expected `{name} = TypeName`")))?;
    value.parse::<syn::Path>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected a type path: `{name} = TypeName`"),
        )
    })
}

/// Parses `= 8`.
pub(crate) fn int_value(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitInt> {
    let name = key_name(meta);
    let value = meta
        .value()
        .map_err(|_| meta.error(format!("expected `{name} = <integer>`")))?;
    value
        .parse::<syn::LitInt>()
        .map_err(|e| syn::Error::new(e.span(), format!("expected an integer: `{name} = 8`")))
}

/// Refuses `= value` after a flag key.
pub(crate) fn no_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`{}` takes no value: write `#[dyno({})]`",
            key_name(meta),
            key_name(meta)
        )));
    }
    Ok(())
}

/// Runs `f` on every `#[dyno(...)]` attribute in `attrs`, collecting parse errors in `cx`.
pub(crate) fn for_each_dyno_attr(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    mut f: impl FnMut(ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for attr in attrs {
        if !attr.path().is_ident("dyno") {
            continue;
        }
        if let syn::Meta::Path(p) = &attr.meta {
            cx.error_spanned_by(
                p,
                "expected `#[dyno(...)]` with keys inside the parentheses",
            );
            continue;
        }
        if let Err(e) = attr.parse_nested_meta(&mut f) {
            cx.syn_error(e);
        }
    }
}
