//! "`Issue` has no key in GSI1; its indexes: GSI4": a method for each index of the
//! table in which an entity has no key, under a bound that cannot hold and whose
//! `on_unimplemented` message says so.
//!
//! The entity derive does not see the table's indexes, so it hands its own to the table: each
//! `#[derive(Table)]` declares a macro named like the table (`Shop!`, in the macro namespace,
//! beside the type), which the entity's expansion calls with the entity and the names of its
//! indexes; the macro adds the table's index names and calls `__index_stubs!` (this module),
//! which generates the methods. The bound names a lifetime only, so the call is one error at
//! the call, and the method's return type (a projection that cannot be normalized) keeps
//! method calls chained on it from reporting more.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

use crate::case;

/// `[table index names] Entity [entity index names]`, each of the entity's `"GSI1"` or, for an
/// index whose query is named, `"GSI1" = "by_status"`.
struct Input {
    table: Vec<LitStr>,
    entity: Ident,
    own: Vec<(LitStr, Option<LitStr>)>,
}

fn list(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::bracketed!(content in input);
    Ok(content
        .parse_terminated(|p| p.parse::<LitStr>(), Token![,])?
        .into_iter()
        .collect())
}

fn named_list(input: ParseStream<'_>) -> syn::Result<Vec<(LitStr, Option<LitStr>)>> {
    let content;
    syn::bracketed!(content in input);
    Ok(content
        .parse_terminated(
            |p| {
                let name = p.parse::<LitStr>()?;
                let query = if p.peek(Token![=]) {
                    p.parse::<Token![=]>()?;
                    Some(p.parse::<LitStr>()?)
                } else {
                    None
                };
                Ok((name, query))
            },
            Token![,],
        )?
        .into_iter()
        .collect())
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        Ok(Input {
            table: list(input)?,
            entity: input.parse()?,
            own: named_list(input)?,
        })
    }
}

/// The methods of `Entity` for the table's indexes it has no key in.
pub(crate) fn index_stubs(input: TokenStream) -> TokenStream {
    let Input { table, entity, own } = match syn::parse2::<Input>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let queries: Vec<(String, &LitStr)> = own
        .iter()
        .filter_map(|(n, q)| q.as_ref().map(|q| (n.value(), q)))
        .collect();
    let own: Vec<String> = own.iter().map(|(n, _)| n.value()).collect();
    let own_methods: Vec<String> = own.iter().map(|n| case::snake(n)).collect();
    let listed = if own.is_empty() {
        "none".to_owned()
    } else {
        own.join(", ")
    };
    let mut out = TokenStream::new();
    for index in &table {
        let name = index.value();
        let method = case::snake(&name);
        // A query named like the method of an index the entity is not in.
        if let Some((of, q)) = queries
            .iter()
            .find(|(of, q)| q.value() == method && !own.contains(&name) && *of != name)
        {
            let message = format!(
                "the query name `{method}` of `{entity}`'s index `{of}` clashes with `{entity}::{method}()`, the method of the table's index `{name}`: give the query another name"
            );
            out.extend(quote::quote_spanned!(q.span()=> ::core::compile_error!(#message);));
            continue;
        }
        // An index the entity is in, or whose method would clash with a generated one.
        if own_methods.contains(&method)
            || ["key", "try_key", "query", "update", "partition"].contains(&method.as_str())
            || syn::parse_str::<Ident>(&method).is_err()
        {
            continue;
        }
        let method = format_ident!("{}", method, span = entity.span());
        let message = format!("`{entity}` has no key in {name}; its indexes: {listed}");
        let label = format!("`{entity}` is not in index `{name}`");
        let note = format!("to query `{entity}` through {name}, give it a key there: `#[dyno(index({name}, pk = \"...\", sk = \"...\"))]`");
        out.extend(quote! {
            const _: () = {
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait __NoKeyIn<'a> {
                    type Never;
                }
                #[automatically_derived]
                impl #entity {
                    #[doc(hidden)]
                    #[allow(clippy::extra_unused_type_parameters, clippy::extra_unused_lifetimes)]
                    pub fn #method<'a, A>(_: A) -> <#entity as __NoKeyIn<'a>>::Never
                    where
                        #entity: __NoKeyIn<'a>,
                    {
                        ::core::unreachable!()
                    }
                }
            };
        });
    }
    for (index, query) in &queries {
        let method = case::snake(index);
        let query = query.value();
        if method == query || syn::parse_str::<Ident>(&method).is_err() {
            continue;
        }
        let method = format_ident!("{}", method, span = entity.span());
        let message = format!(
            "`{entity}`'s query on {index} is named `{query}`: call `{entity}::{query}(..)`"
        );
        let label = format!("the query on `{index}` is `{entity}::{query}`");
        let note = "an index mapping with `query = \"...\"` names its access pattern; the index's own name is not a method then";
        out.extend(quote! {
            const _: () = {
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait __NamedQuery<'a> {
                    type Never;
                }
                #[automatically_derived]
                impl #entity {
                    #[doc(hidden)]
                    #[allow(clippy::extra_unused_type_parameters, clippy::extra_unused_lifetimes)]
                    pub fn #method<'a, A>(_: A) -> <#entity as __NamedQuery<'a>>::Never
                    where
                        #entity: __NamedQuery<'a>,
                    {
                        ::core::unreachable!()
                    }
                }
            };
        });
    }
    out
}
