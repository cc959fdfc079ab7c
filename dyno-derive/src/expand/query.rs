//! Typed query builders: one type per entity and index (`OrderQuery`, `OrderGsi1Query`).
//!
//! The partition fields are the constructor's arguments (`Order::gsi1(status)`); sort-key
//! conditions are methods named after the sort-key fields and typed by them. The builder's
//! `State` parameter tracks how many leading parts of a composite sort key are fixed
//! (`Sk<N>`), so `order_id_eq` exists only after `order_date_eq`, and nothing follows a range
//! (`SkDone`). `Kind` is the index kind: `consistent()` exists only on the table and local
//! indexes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::entity::Gen;
use super::respan;
use crate::template::{Seg, Template};

/// What one query builder reads.
struct Spec<'g> {
    ty: Ident,
    /// The index name's span (indexes only).
    span: Option<proc_macro2::Span>,
    kind: TokenStream,
    index: TokenStream,
    pk: &'g Template,
    /// The partition template's constant, naming its key function.
    pk_t: Ident,
    sk: Option<&'g Template>,
    method: Ident,
    doc: String,
}

/// The builder types (placed beside the entity) and their impls (inside the `const _`).
pub fn entity_queries(g: &Gen<'_>) -> (TokenStream, TokenStream) {
    let p = &g.p;
    let ident = g.ident;
    let mut specs = vec![Spec {
        ty: format_ident!("{}Query", ident),
        span: None,
        kind: quote!(#p::Local),
        index: quote!(::core::option::Option::None),
        pk: &g.m.pk,
        pk_t: format_ident!("__PK_T"),
        sk: g.m.sk.as_ref(),
        method: format_ident!("query"),
        doc: format!(
            "the table (`{}`{})",
            g.m.pk.text(),
            g.m.sk
                .as_ref()
                .map(|s| format!(", `{}`", s.text()))
                .unwrap_or_default()
        ),
    }];
    for ix in &g.indexes {
        let (pk_t, name_const) = (&ix.pk_t, &ix.name_const);
        specs.push(Spec {
            ty: ix.query_ty.clone(),
            span: Some(ix.span),
            kind: ix.kind(p),
            index: quote!(::core::option::Option::Some(#name_const)),
            pk: ix.pk,
            // A local index's partition key is the table's.
            pk_t: if ix.own_pk {
                pk_t.clone()
            } else {
                format_ident!("__PK_T")
            },
            sk: ix.sk,
            method: ix.method.clone(),
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
    let mut seen: Vec<&str> = Vec::new();
    for field in specs
        .iter()
        .flat_map(|s| s.sk.into_iter().flat_map(|t| t.fields()))
    {
        if seen.contains(&field) {
            continue;
        }
        seen.push(field);
        impls.extend(segment_fn(g, field));
    }
    for spec in &specs {
        let (d, i) = one(g, spec);
        defs.extend(d);
        impls.extend(i);
    }
    (defs, impls)
}

fn one(g: &Gen<'_>, s: &Spec<'_>) -> (TokenStream, TokenStream) {
    let p = &g.p;
    let ident = g.ident;
    let vis = g.m.vis;
    let ty = &s.ty;
    let kind = &s.kind;
    let doc = format!(
        "A typed query on {} returning `{ident}`s; built by [`{ident}::{}`]. Run it with `.all(&store)`, `.stream(&store)` or `.page(&store, cursor)`.",
        s.doc, s.method
    );
    let def = quote! {
        #[doc = #doc]
        #[must_use = "a query does nothing until it is run with `.all(&store)`, `.stream(&store)` or `.page(...)`"]
        #[allow(clippy::type_complexity)]
        #vis struct #ty<State = #p::Sk<0>, Kind = #kind, Out: #p::FromItem = #ident> {
            query: #p::Query<Out>,
            _marker: ::core::marker::PhantomData<fn() -> (State, Kind)>,
        }
    };

    // The defaults name the index kind: spanned on the index name like the constructor below.
    let def = match s.span {
        Some(span) => respan(def, span),
        None => def,
    };

    // Constructor on the entity.
    let pk_fields = Gen::template_args(s.pk);
    let (args, binds) = g.key_params(&pk_fields);
    let call = Gen::key_call(s.pk, &s.pk_t, |f| g.bound_arg(f));
    let encode = g.with_values(
        &binds,
        &quote!(::std::string::String),
        quote!(::core::result::Result::Ok(#call)),
    );
    let index = &s.index;
    let method = &s.method;
    let ctor_doc = format!("Queries {} of `{ident}`: the partition fields are the arguments; sort-key conditions are methods of the result.", s.doc);
    let pk_fn = format_ident!("__dyno_{}_partition", method);
    let arg_names: Vec<Ident> = pk_fields.iter().map(|f| g.field(f).ident.clone()).collect();
    let pk_helper = quote! {
        fn #pk_fn(#(#args),*) -> #p::Result<::std::string::String> {
            #encode
        }
    };
    let ctor = quote! {
        #[doc = #ctor_doc]
        pub fn #method(#(#args),*) -> #ty {
            #ty {
                query: #p::Query::of::<#ident>(#index, #pk_fn(#(#arg_names),*)),
                _marker: ::core::marker::PhantomData,
            }
        }
    };
    // An index's constructor is spanned on the index name.
    let ctor = match s.span {
        Some(span) => respan(ctor, span),
        None => ctor,
    };

    let passthrough = passthrough(p, ty, &quote!(#ident));
    let sort = s.sk.map(|t| sort_methods(g, ty, t)).unwrap_or_default();
    let order =
        s.sk.map(|t| out_of_order_methods(g, s, t))
            .unwrap_or_default();
    let debug_name = ty.to_string();
    let impls = quote! {
        #pk_helper
        #[automatically_derived]
        #[allow(clippy::type_complexity)]
        impl #ident {
            #ctor
        }
        #[automatically_derived]
        impl<State, Kind, Out: #p::FromItem> ::core::fmt::Debug for #ty<State, Kind, Out> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#debug_name).field("query", &self.query).finish()
            }
        }
        #passthrough
        #sort
        #order
    };
    (def, impls)
}

/// The `QueryDsl` impl (filter, limit, page size, order, consistency and running it, from
/// dyno-core) and the projection method.
pub fn passthrough(p: &TokenStream, ty: &Ident, entity: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl<State, Kind, Out: #p::FromItem + #p::FilterBy<#entity>> #p::QueryDsl for #ty<State, Kind, Out> {
            type Entity = #entity;
            type Out = Out;
            type Kind = Kind;
            fn map_query(self, f: impl ::core::ops::FnOnce(#p::Query<Out>) -> #p::Query<Out>) -> Self {
                self.__next(f)
            }
            fn as_query(&self) -> &#p::Query<Out> {
                &self.query
            }
            fn into_inner(self) -> #p::Query<Out> {
                self.query
            }
        }

        #[automatically_derived]
        impl<State, Kind, Out: #p::FromItem> #ty<State, Kind, Out> {
            /// Reads only the attributes of projection `P2` (a `#[derive(Projection)]` of this
            /// entity) and returns `P2`s.
            pub fn project<P2: #p::FromItem + #p::ProjectionOf<#entity>>(self) -> #ty<State, Kind, P2> {
                #ty { query: self.query.project(), _marker: ::core::marker::PhantomData }
            }

            /// The query in state `S2` after `f`.
            fn __next<S2>(self, f: impl ::core::ops::FnOnce(#p::Query<Out>) -> #p::Query<Out>) -> #ty<S2, Kind, Out> {
                #ty { query: f(self.query), _marker: ::core::marker::PhantomData }
            }
        }
    }
}

/// `__seg_<field>(value, prefix)`: the encoded key segment of a sort-key argument (or, with
/// `prefix`, of a partial value for `begins_with`), errors naming the entity and field.
fn segment_fn(g: &Gen<'_>, field: &str) -> TokenStream {
    let p = &g.p;
    let name = format_ident!("__seg_{}", field);
    let ty = g.key_arg_ty(field);
    // Written as the sort-key template writes the field.
    let format = g.key_format(field, false);
    quote! {
        fn #name(value: impl #p::FieldValue<#ty>, prefix: bool) -> #p::Result<::std::string::String> {
            #p::FieldValue::<#ty>::with_value(value, |v| {
                if prefix { (&#p::Part(v)).encode_part_prefix(#format) } else { (&#p::Part(v)).encode_part(#format) }
            })
            .map_err(|e| #p::key_error(e, __ENTITY, #field))
        }
    }
}

/// Sort-key condition methods, one impl per prefix state.
fn sort_methods(g: &Gen<'_>, ty: &Ident, t: &Template) -> TokenStream {
    let p = &g.p;
    let fields: Vec<&str> = t.fields().collect();
    let n = fields.len();
    let mut out = TokenStream::new();
    for (i, field) in fields.iter().enumerate() {
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
        let is_final_field = i + 1 == n;
        let last = is_final_field && following.is_empty();
        let arg_ty = g.key_arg_ty(field);
        let seg_fn = format_ident!("__seg_{}", field);
        let encode = |arg: &Ident, prefix: bool| quote!(#seg_fn(#arg, #prefix));
        let value = format_ident!("value");
        let (low, high) = (format_ident!("low"), format_ident!("high"));
        let enc = encode(&value, false);
        let enc_prefix = encode(&value, true);
        let (enc_low, enc_high) = (encode(&low, false), encode(&high, false));
        let eq_name = format_ident!("{}_eq", field);
        let eq = if is_final_field {
            quote! {
                #[doc = concat!("`", #field, " = value`: the whole sort key.")]
                pub fn #eq_name(self, value: impl #p::FieldValue<#arg_ty>) -> #ty<#p::SkDone, Kind, Out> {
                    self.__next(|q| q.sk_eq(#enc, #following))
                }
            }
        } else {
            let next = i + 1;
            let next_field = fields[next];
            let doc = format!("`{field} = value`: fixes this part of the sort key (`begins_with` on the key up to here); conditions on `{next_field}` may follow.");
            quote! {
                #[doc = #doc]
                pub fn #eq_name(self, value: impl #p::FieldValue<#arg_ty>) -> #ty<#p::Sk<#next>, Kind, Out> {
                    self.__next(|q| q.sk_fix(#enc, #following))
                }
            }
        };
        let mut ranges = TokenStream::new();
        for (suffix, op, what) in [
            ("lt", "Lt", "<"),
            ("le", "Le", "<="),
            ("gt", "Gt", ">"),
            ("ge", "Ge", ">="),
        ] {
            let name = format_ident!("{}_{}", field, suffix);
            let op = format_ident!("{}", op);
            let doc = format!("`{field} {what} value`.");
            ranges.extend(quote! {
                #[doc = #doc]
                pub fn #name(self, value: impl #p::FieldValue<#arg_ty>) -> #ty<#p::SkDone, Kind, Out> {
                    self.__next(|q| q.sk_compare(#enc, #last, #p::SkOp::#op))
                }
            });
        }
        let between = format_ident!("{}_between", field);
        let begins = format_ident!("{}_begins_with", field);
        let between_doc = format!("`{field} BETWEEN low AND high` (both inclusive).");
        let begins_doc = format!("`{field}` starts with `value` (a partial value, for strings).");
        out.extend(quote! {
            #[automatically_derived]
            impl<Kind, Out: #p::FromItem> #ty<#p::Sk<#i>, Kind, Out> {
                #eq
                #ranges
                #[doc = #between_doc]
                pub fn #between(self, low: impl #p::FieldValue<#arg_ty>, high: impl #p::FieldValue<#arg_ty>) -> #ty<#p::SkDone, Kind, Out> {
                    self.__next(|q| q.sk_between(#enc_low, #enc_high, #last))
                }
                #[doc = #begins_doc]
                pub fn #begins(self, value: impl #p::FieldValue<#arg_ty>) -> #ty<#p::SkDone, Kind, Out> {
                    self.__next(|q| q.sk_begins_with(#enc_prefix))
                }
            }
        });
    }
    out
}

/// For each part of a composite sort key, its condition methods on the states before it, under a
/// bound no type meets: calling `order_id_eq` before `order_date_eq` says to call that first.
fn out_of_order_methods(g: &Gen<'_>, s: &Spec<'_>, t: &Template) -> TokenStream {
    let p = &g.p;
    let ty = &s.ty;
    let fields: Vec<&str> = t.fields().collect();
    let whose = match &s.span {
        Some(_) => format!(
            "the sort key of {}",
            s.doc.split('`').nth(1).unwrap_or("the index")
        ),
        None => "the sort key".to_owned(),
    };
    let mut out = TokenStream::new();
    for j in 0..fields.len().saturating_sub(1) {
        let first = fields[j];
        let tr = format_ident!("__{}Sk{}", ty, j);
        let message = format!("call `{first}_eq` first: {whose} is `{}`", t.text());
        let note = "the parts of a composite sort key are given in order, each fixed with `_eq` before a condition on the next";
        let mut methods = TokenStream::new();
        for field in &fields[j + 1..] {
            for suffix in ["eq", "lt", "le", "gt", "ge", "begins_with"] {
                let m = format_ident!("{}_{}", field, suffix);
                methods.extend(quote! {
                    #[doc(hidden)]
                    pub fn #m<V: #tr>(self, _value: V) -> Self { self }
                });
            }
            let between = format_ident!("{}_between", field);
            methods.extend(quote! {
                #[doc(hidden)]
                pub fn #between<V: #tr, W>(self, _low: V, _high: W) -> Self { self }
            });
        }
        out.extend(quote! {
            /// Not implemented by any type: see the methods using it.
            #[diagnostic::on_unimplemented(message = #message, label = "an earlier part of the sort key is not fixed yet", note = #note)]
            pub trait #tr {}

            #[automatically_derived]
            impl<Kind, Out: #p::FromItem> #ty<#p::Sk<#j>, Kind, Out> {
                #methods
            }
        });
    }
    out
}
