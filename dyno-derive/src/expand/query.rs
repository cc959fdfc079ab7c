//! Typed query builders: one type per entity and index (`OrderQuery`, `OrderGsi1Query`).
//!
//! The partition fields are the constructor's arguments (`Order::gsi1(status)`); each sort-key
//! part has an accessor named after its field (`.order_date()`) returning dyno-core's
//! `SortKeyPart`, which supplies the conditions typed by the field. The builder's `State`
//! parameter tracks how many leading parts of a composite sort key are fixed (`Sk<N>`), so
//! `.order_id()` is accepted only after `.order_date().eq(..)`, and nothing follows a range
//! (`SkDone`). `Kind` is the index kind: `consistent()` exists only on the table and local
//! indexes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::entity::Gen;
use super::private;
use crate::template::{Seg, Template};

/// What one query builder reads.
struct Spec<'g> {
    /// The builder's name: the entity's query type for the table, an alias of it for an index.
    ty: Ident,
    /// The builder's index parameter: 0 for the table, `n + 1` for the entity's index `n`.
    ix: usize,
    /// The index name's span (indexes only).
    span: Option<proc_macro2::Span>,
    kind: TokenStream,
    index: TokenStream,
    pk: &'g Template,
    /// The partition template's constant, naming its key function.
    pk_t: Ident,
    sk: Option<&'g Template>,
    method: Ident,
    /// The index name (indexes only), for messages.
    index_name: String,
    doc: String,
}

/// The builder types (placed beside the entity) and their impls (inside the `const _`).
pub(super) fn entity_queries(g: &Gen<'_>) -> (TokenStream, TokenStream) {
    let p = &g.p;
    let ident = g.ident;
    let mut specs = vec![Spec {
        ty: format_ident!("{}Query", ident),
        ix: 0,
        span: None,
        kind: {
            let p = private();
            quote!(#p::Local)
        },
        index: quote!(#p::None),
        pk: &g.m.pk,
        pk_t: format_ident!("__PK_T"),
        sk: g.m.sk.as_ref(),
        method: format_ident!("query"),
        index_name: String::new(),
        doc: format!(
            "the table (`{}`{})",
            g.m.pk.text(),
            g.m.sk
                .as_ref()
                .map(|s| format!(", `{}`", s.text()))
                .unwrap_or_default()
        ),
    }];
    for (n, ix) in g.indexes.iter().enumerate() {
        let (pk_t, name_const) = (&ix.pk_t, &ix.name_const);
        specs.push(Spec {
            ty: ix.query_ty.clone(),
            ix: n + 1,
            span: Some(ix.span),
            kind: ix.kind(&private()),
            index: quote!(#p::Some(#name_const)),
            pk: ix.pk,
            // A local index's partition key is the table's.
            pk_t: if ix.own_pk {
                pk_t.clone()
            } else {
                format_ident!("__PK_T")
            },
            sk: ix.sk,
            method: ix.method.clone(),
            index_name: ix.decl.name.clone(),
            doc: format!(
                "index `{}` (`{}`{}{})",
                ix.decl.name,
                ix.pk.text(),
                ix.sk
                    .map(|s| format!(", `{}`", s.text()))
                    .unwrap_or_default(),
                if ix.shards > 0 {
                    format!(", {} shards", ix.shards)
                } else {
                    String::new()
                }
            ),
        });
    }
    let mut defs = TokenStream::new();
    let mut impls = TokenStream::new();
    let mut ctors = TokenStream::new();
    for spec in &specs {
        let (d, c, i) = one(g, spec);
        defs.extend(d);
        ctors.extend(c);
        impls.extend(i);
    }
    impls.extend(quote! {
        #[automatically_derived]
        impl #ident { #ctors }
    });
    let base = &specs[0].ty;
    impls.extend(passthrough(p, base, &quote!(#ident)));
    let debug_name = base.to_string();
    impls.extend(quote! {
        #[automatically_derived]
        impl<const IX: usize, State, Kind, Out: #p::FromItem> ::core::fmt::Debug for #base<IX, State, Kind, Out> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#debug_name).field("index", &IX).field("query", &self.query).finish()
            }
        }
    });
    (defs, impls)
}

/// The builder's definition (the type, or its alias), its constructor on the entity, and its
/// sort-key accessors.
fn one(g: &Gen<'_>, s: &Spec<'_>) -> (TokenStream, TokenStream, TokenStream) {
    let p = &g.p;
    let ident = g.ident;
    let vis = g.m.vis;
    let ty = &s.ty;
    let kind = &s.kind;
    let doc = format!(
        "A typed query on {} returning `{ident}`s; built by [`{ident}::{}`]. Run it with `.all(&store)`, `.stream(&store)` or `.page(&store, cursor)`.",
        s.doc, s.method
    );
    let base = format_ident!("{}Query", ident);
    // The builder sits beside the entity, outside the `const _` where `__d` is defined.
    let full = private();
    let def = if s.ix == 0 {
        // One type for the table and every index (`IX`): the shared impls are written once.
        quote! {
            #[doc = #doc]
            #[must_use = "a query does nothing until it is run with `.all(&store)`, `.stream(&store)` or `.page(...)`"]
            #vis struct #ty<const IX: usize = 0, State = #full::Sk<0>, Kind = #kind, Out: #full::FromItem = #ident> {
                query: #full::Query<Out>,
                _marker: ::core::marker::PhantomData<fn() -> (State, Kind)>,
            }
        }
    } else {
        let ix = s.ix;
        quote! {
            #[doc = #doc]
            #vis type #ty<State = #full::Sk<0>, Out = #ident> = #base<#ix, State, #kind, Out>;
        }
    };

    // Constructor on the entity.
    let pk_fields = Gen::template_args(s.pk);
    let (args, binds) = g.key_params(&pk_fields);
    let encode = g.encode_key(s.pk, &s.pk_t, &binds);
    let index = &s.index;
    let method = &s.method;
    let ctor_doc = format!("Queries {} of `{ident}`: the partition fields are the arguments; sort-key conditions are methods of the result.", s.doc);
    let ctor = quote! {
        #[doc = #ctor_doc]
        pub fn #method(#(#args),*) -> #ty {
            <#ty as #p::QueryDsl>::from_query(#p::Query::of::<#ident>(#index, #encode))
        }
    };

    let sort = s.sk.map(|t| sort_methods(g, s, t)).unwrap_or_default();
    (def, ctor, sort)
}

/// The `QueryDsl` impl (filter, limit, page size, order, consistency and running it, from
/// dyno-core) and the projection method.
fn passthrough(p: &impl quote::ToTokens, ty: &Ident, entity: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl<const IX: usize, State, Kind, Out: #p::FromItem + #p::FilterBy<#entity>> #p::QueryDsl for #ty<IX, State, Kind, Out> {
            type Entity = #entity;
            type Out = Out;
            type Kind = Kind;
            type In<S2> = #ty<IX, S2, Kind, Out>;
            fn from_query(query: #p::Query<Out>) -> Self {
                #ty { query, _marker: ::core::marker::PhantomData }
            }
            fn as_query(&self) -> &#p::Query<Out> {
                &self.query
            }
            fn into_inner(self) -> #p::Query<Out> {
                self.query
            }
        }

        #[automatically_derived]
        impl<const IX: usize, State, Kind, Out: #p::FromItem> #ty<IX, State, Kind, Out> {
            /// Reads only the attributes of projection `P2` (a `#[derive(Projection)]`) into `P2`s.
            pub fn project<P2: #p::FromItem + #p::ProjectionOf<#entity>>(self) -> #ty<IX, State, Kind, P2> {
                #ty { query: self.query.project(), _marker: ::core::marker::PhantomData }
            }
        }
    }
}

/// One accessor per sort-key part (`.order_date()`), returning the runtime's `SortKeyPart`
/// (`eq`, `lt`, ..., `between`, `begins_with`); see [`part_accessors`].
fn sort_methods(g: &Gen<'_>, s: &Spec<'_>, t: &Template) -> TokenStream {
    let p = &g.p;
    let fields: Vec<&str> = t.fields().collect();
    let whose = match &s.span {
        Some(_) => format!("the sort key of index `{}`", s.index_name),
        None => "the sort key".to_owned(),
    };
    part_accessors(
        g,
        &s.ty,
        s.ix,
        &whose,
        &t.text(),
        &fields,
        |i, field, next| {
            // The literal after this field: `#...` before the next field, or the template's tail.
            let position = t
                .segments
                .iter()
                .position(|s| matches!(s, Seg::Field(f) if f == field))
                .unwrap_or(0);
            let following = match t.segments.get(position + 1) {
                Some(Seg::Lit(l)) => l.clone(),
                _ => String::new(),
            };
            let is_final = i + 1 == fields.len();
            let arg_ty = g.key_arg_ty(field);
            // Written as the sort-key template writes the field; the encoder is a `fn` pointer
            // per field type, errors naming the entity and field.
            let format = g.key_format(field, false);
            (
                quote!(#p::SortKeyPart<Self, #arg_ty, #next>),
                quote!(#p::SortKeyPart::new(
                    self.query,
                    (&#p::Recover::<#arg_ty>::new()).segment_fn(),
                    #format,
                    __ENTITY,
                    #field,
                    #following,
                    #is_final,
                )),
            )
        },
    )
}

/// One accessor per part of a sort key (`fields`, in key order; `text` shows the key in
/// messages) on the builder of index `ix` (`ty`). It exists in every state but requires the
/// state where the part comes next (a marker trait implemented for that `Sk<i>` only), so a part
/// out of order is one error whose message says which part to fix first. `part(i, field, next)`
/// gives the accessor's return type and body (`self.query` is the query), `next` being the state
/// after `eq` on the part.
pub(super) fn part_accessors(
    g: &Gen<'_>,
    ty: &Ident,
    ix: usize,
    whose: &str,
    text: &str,
    fields: &[&str],
    part: impl Fn(usize, &str, &TokenStream) -> (TokenStream, TokenStream),
) -> TokenStream {
    let p = &g.p;
    let ident = g.ident;
    let base = format_ident!("{}Query", ident);
    let text_escaped = text.replace('{', "{{").replace('}', "}}");
    let mut out = TokenStream::new();
    for (i, field) in fields.iter().enumerate() {
        let is_final = i + 1 == fields.len();
        let next = if is_final {
            quote!(#p::SkDone)
        } else {
            let n = i + 1;
            quote!(#p::Sk<#n>)
        };
        let accessor = &g.field(field).ident;
        // The first part needs a state without condition (dyno-core's marker); a later part
        // the state where the part before it is fixed (a marker naming that part).
        let (tr, marker) = match i.checked_sub(1).map(|j| fields[j]) {
            Some(before) => {
                let tr = format_ident!("__{}Part{}", ty, i);
                let message =
                    format!("call `{before}().eq(..)` first: {whose} is `{text_escaped}`");
                let note = "the parts of a composite sort key are given in order, each fixed with `eq` before a condition on the next; a range ends the condition";
                let marker = quote! {
                    /// Implemented by the query state in which this sort-key part comes next.
                    #[diagnostic::on_unimplemented(message = #message, label = "an earlier part of the sort key is not fixed yet", note = #note)]
                    pub trait #tr {}
                    impl #tr for #p::Sk<#i> {}
                };
                (quote!(#tr), marker)
            }
            None => (quote!(#p::NoSortCondition), TokenStream::new()),
        };
        let doc = format!(
            "Conditions on `{field}`, {} of {whose} `{text}`: `.{field}().eq(v)`{}, `lt`, `le`, `gt`, `ge`, `between`, `begins_with`.",
            if is_final { "the last part".to_owned() } else { format!("part {} (then conditions on `{}`)", i + 1, fields[i + 1]) },
            if i > 0 { format!(" (after `{}().eq(..)`)", fields[i - 1]) } else { String::new() },
        );
        let (ret, body) = part(i, field, &next);
        out.extend(quote! {
            #marker
            #[automatically_derived]
            impl<State, Kind, Out: #p::FromItem + #p::FilterBy<#ident>> #base<#ix, State, Kind, Out> {
                #[doc = #doc]
                pub fn #accessor(self) -> #ret where State: #tr {
                    #body
                }
            }
        });
    }
    out
}
