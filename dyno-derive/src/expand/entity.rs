//! `#[derive(Entity)]`: the model the generators share (`Gen`, `IndexGen`), the assembly of the
//! expansion (the `Entity` impl, checks, field handles), and its parts by concern: key attributes
//! (`entity/keys.rs`), the item codec (`entity/codec.rs`), the typed query and update builders
//! (`query.rs`, `update.rs`).

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, Ident, Type};

mod codec;
mod keys;
mod mapped;
mod model;

use super::{dummy_const, private, private_alias, private_alias_use, query, respan, update};
use crate::ast::{EntityField, EntityIndex, EntityInput};
use crate::case;
use crate::check;
use crate::ctxt::Ctxt;
use crate::template::{Seg, Template};

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = EntityInput::from_ast(cx, input)?;
    check::entity(cx, &model);
    if cx.has_errors() {
        return None;
    }
    let r#gen = Gen::new(&model);
    let groups = update::groups(cx, &r#gen);
    if cx.has_errors() {
        return None;
    }
    let out = r#gen.expand(cx, &groups);
    if cx.has_errors() {
        return None;
    }
    Some(out)
}

/// One index of the entity, resolved.
pub(super) struct IndexGen<'a> {
    pub decl: &'a EntityIndex,
    /// `Table::GSI1` (the table's `TableIndex` constant), spanned on the index name.
    pub table_index: TokenStream,
    /// The index name's span: the one use of the table's constant carries it, so an undeclared
    /// index is one error there.
    pub span: Span,
    /// `__I<n>`: the table's `TableIndex` constant, in the entity's expansion.
    pub info: Ident,
    /// `__I<n>.name`: the index name, from the table (a field of `info`, not a constant of its
    /// own: each constant is an item the user's crate compiles again on every edit).
    pub name_const: TokenStream,
    /// The partition template: the index's own, or the table's (local index without `pk`).
    pub pk: &'a Template,
    pub own_pk: bool,
    pub sk: Option<&'a Template>,
    pub shards: u32,
    pub pk_t: Ident,
    pub sk_t: Ident,
    /// `__I<n>.partition_key`: the index's partition key attribute.
    pub pk_name: TokenStream,
    /// `__I<n>_SK_NAME`: the index's sort key attribute, or "" (a constant: a `const fn` of
    /// `info`).
    pub sk_name: TokenStream,
    pub method: Ident,
    pub query_ty: Ident,
}

impl IndexGen<'_> {
    /// The index kind (`Global`, or `Local` for an index sharing the table's partition key); a
    /// constant assertion checks it against the table's declaration.
    pub(super) fn kind(&self, p: &impl ToTokens) -> TokenStream {
        if self.own_pk {
            quote!(#p::Global)
        } else {
            quote!(#p::Local)
        }
    }

    /// Fields of both templates.
    pub(super) fn fields(&self) -> impl Iterator<Item = &str> {
        self.pk
            .fields()
            .chain(self.sk.into_iter().flat_map(|t| t.fields()))
    }
}

/// Everything the entity's generators share.
pub(super) struct Gen<'a> {
    pub m: &'a EntityInput<'a>,
    pub p: Ident,
    pub ident: &'a Ident,
    /// The table's path, interpolated as its own tokens (a `TokenStream` would cost bridge calls
    /// at each of its uses).
    pub table: &'a syn::Path,
    /// The table's path as text, for messages.
    pub table_name: String,
    pub indexes: Vec<IndexGen<'a>>,
    /// Fields of the primary key templates.
    pub primary: BTreeSet<String>,
    /// Fields of any key template.
    pub keyed: BTreeSet<String>,
}

/// The generated constant for a template.
pub(super) fn template_const(p: &impl ToTokens, t: &Template) -> TokenStream {
    let segs = t.segments.iter().map(|s| match s {
        Seg::Lit(l) => quote!(#p::Segment::Literal(#l)),
        Seg::Field(f) => quote!(#p::Segment::Field(#f)),
    });
    quote!(#p::Template::new(&[#(#segs),*]))
}

impl<'a> Gen<'a> {
    fn new(m: &'a EntityInput<'a>) -> Self {
        let p = private_alias();
        let table = &m.table;
        let table_name = table.to_token_stream().to_string().replace(' ', "");
        let mut primary = BTreeSet::new();
        for f in m.pk.fields().chain(m.sk.iter().flat_map(|t| t.fields())) {
            primary.insert(f.to_owned());
        }
        let mut keyed = primary.clone();
        let indexes: Vec<IndexGen<'a>> = m
            .indexes
            .iter()
            // Indexes keyed by fields have no templates: see `entity/mapped.rs`.
            .filter(|decl| decl.fields.is_none())
            .enumerate()
            .map(|(i, decl)| {
                let name = &decl.name;
                let span = decl.span();
                let const_ident = Ident::new(&case::index_const(name), span);
                let table_index = respan(quote!(#table::#const_ident), span);
                let method = format_ident!("{}", decl.method());
                // Spanned on the index name, like every use of the index trait: an index the table
                // does not declare is one error, there.
                let query_ty = format_ident!("{}{}Query", m.ident, case::pascal(name), span = span);
                let info = format_ident!("__I{}", i);
                IndexGen {
                    decl,
                    table_index,
                    span,
                    name_const: quote!(#info.name),
                    pk: decl.pk.as_ref().unwrap_or(&m.pk),
                    own_pk: decl.pk.is_some(),
                    sk: decl.sk.as_ref(),
                    shards: decl.shards.map_or(0, |(n, _)| n),
                    pk_t: format_ident!("__I{}_PK_T", i),
                    sk_t: format_ident!("__I{}_SK_T", i),
                    pk_name: quote!(#info.partition_key),
                    sk_name: format_ident!("__I{}_SK_NAME", i).into_token_stream(),
                    info,
                    method,
                    query_ty,
                }
            })
            .collect();
        for ix in &indexes {
            for f in ix.fields() {
                keyed.insert(f.to_owned());
            }
        }
        Gen {
            m,
            p,
            ident: m.ident,
            table,
            table_name,
            indexes,
            primary,
            keyed,
        }
    }

    pub(super) fn field(&self, name: &str) -> &'a EntityField<'a> {
        // Checked: every template field exists.
        self.m.field(name).unwrap_or(&self.m.fields[0])
    }

    /// How `field` is written in a partition-key template (`partition`) or a sort-key one: its
    /// `key_format`, else plain in partition keys (compared for equality only, and the form other
    /// clients write) and ordered in sort keys (compared by order).
    pub(super) fn key_format(&self, name: &str, partition: bool) -> TokenStream {
        let p = &self.p;
        let plain = match self.field(name).key_format {
            Some(crate::ast::KeyFormat::Plain) => true,
            Some(crate::ast::KeyFormat::Ordered) => false,
            None => partition,
        };
        if plain {
            quote!(#p::KeyFormat::Plain)
        } else {
            quote!(#p::KeyFormat::Ordered)
        }
    }

    /// The type a key argument for `field` has: the field's type, or `T` for an `Option<T>`.
    pub(super) fn key_arg_ty(&self, name: &str) -> &'a Type {
        let f = self.field(name);
        crate::ty::option_inner(f.ty).unwrap_or(f.ty)
    }

    pub(super) fn is_optional(&self, name: &str) -> bool {
        crate::ty::option_inner(self.field(name).ty).is_some()
    }

    fn expand(&self, cx: &Ctxt, groups: &[update::Group]) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let table = &self.table;
        let entity_type = &self.m.entity_type;
        let pk_t = template_const(p, &self.m.pk);
        let has_sk = self.m.sk.is_some();
        let sk_t = self.m.sk.as_ref().map(|t| {
            let c = template_const(p, t);
            quote!(const __SK_T: #p::Template = #c;)
        });
        let sk_opt = if has_sk {
            quote!(#p::Some(__SK_T))
        } else {
            quote!(#p::None)
        };

        // Compile-time checks against the table.
        let mut checks = TokenStream::new();
        let sk_msg = if has_sk {
            format!(
                "`{ident}` gives `sk = ...` but table `{}` has no sort key: remove `sk`",
                self.table_name
            )
        } else {
            format!(
                "table `{}` has a sort key: give `{ident}` an `sk = \"...\"` template",
                self.table_name
            )
        };
        let sk_span = self
            .m
            .sk
            .as_ref()
            .map_or_else(|| ident.span(), |t| t.lit.span());
        checks.extend(respan(
            quote!(const _: () = #p::const_assert(<#table as #p::TableKeys>::SK.is_some() == #has_sk, #sk_msg);),
            sk_span,
        ));

        let mut index_consts = TokenStream::new();
        let mut index_templates = Vec::new();
        let mut sources = vec![quote!(#p::KeySource::new(__PK_NAME, __PK_T, 0))];
        if has_sk {
            sources.push(quote!(#p::KeySource::new(__SK_NAME, __SK_T, 0)));
        }
        for ix in &self.indexes {
            let (pk_t_name, sk_t_name, pk_name, sk_name) =
                (&ix.pk_t, &ix.sk_t, &ix.pk_name, &ix.sk_name);
            let name = &ix.decl.name;
            let span = ix.decl.span();
            let pk_c = if ix.own_pk {
                template_const(p, ix.pk)
            } else {
                quote!(__PK_T)
            };
            let name_const = &ix.name_const;
            let info = &ix.info;
            let table_index = &ix.table_index;
            let info_def = respan(quote!(const #info: #p::TableIndex = #table_index;), ix.span);
            let has_sk_const = quote!(#info.sort_key.is_some());
            let local_const = quote!(#info.local);
            index_consts.extend(quote! {
                #info_def
                const #pk_t_name: #p::Template = #pk_c;
                const #sk_name: &str = #info.sort_key_or_empty();
            });
            let has_isk = ix.sk.is_some();
            if let Some(t) = ix.sk {
                let c = template_const(p, t);
                index_consts.extend(quote!(const #sk_t_name: #p::Template = #c;));
            }
            let isk_msg = if has_isk {
                format!("`{ident}` gives index `{name}` an `sk` template but the table's index `{name}` has no sort key: remove `sk`")
            } else {
                format!("index `{name}` of the table has a sort key: give `{ident}`'s `index({name}, ...)` an `sk = \"...\"` template")
            };
            let own_pk = ix.own_pk;
            // The entity's template says which kind it expects (a `pk` means global): the message
            // for the other kind.
            let kind_msg = if own_pk {
                format!("index `{name}` is a local index: it shares the table's partition key, so leave out `pk` in `index({name}, ...)`")
            } else {
                format!("index `{name}` is a global index: give it a partition key template, `index({name}, pk = \"...\", ...)`")
            };
            checks.extend(respan(
                quote! {
                    const _: () = #p::const_assert(#has_sk_const == #has_isk, #isk_msg);
                    const _: () = #p::const_assert(#local_const == !#own_pk, #kind_msg);
                },
                span,
            ));
            let isk_opt = if has_isk {
                quote!(#p::Some(#sk_t_name))
            } else {
                quote!(#p::None)
            };
            let shards = ix.shards;
            index_templates
                .push(quote!(#p::IndexTemplate::new(#name_const, #pk_t_name, #isk_opt, #shards)));
            if ix.own_pk {
                sources.push(quote!(#p::KeySource::new(#pk_name, #pk_t_name, #shards)));
            }
            if has_isk {
                sources.push(quote!(#p::KeySource::new(#sk_name, #sk_t_name, 0)));
            }
        }

        // Field-level checks: key parts, version, ttl, timestamps; trait bounds, each spanned on
        // its type, in one constant (one item to resolve and check, whatever the field count).
        let mut bounds = TokenStream::new();
        for name in &self.keyed {
            let ty = self.key_arg_ty(name);
            let span = syn::spanned::Spanned::span(ty);
            bounds.extend(quote_spanned!(span=> #p::assert_key_part::<#ty>();));
        }
        let mut ttl_const = TokenStream::new();
        let mut version_attr = quote!(#p::None);
        let mut ttl_attr = quote!(#p::None);
        let mut version_fns = TokenStream::new();
        for f in &self.m.fields {
            let ty = f.ty;
            let span = syn::spanned::Spanned::span(ty);
            let fid = f.ident;
            if f.version.get() {
                let a = &f.attr_name;
                bounds.extend(quote_spanned!(span=> #p::assert_version::<#ty>();));
                version_attr = quote!(#p::Some(#a));
                version_fns = quote! {
                    fn version(&self) -> #p::Option<u64> {
                        #p::Some((&#p::Ver::<#ty>::new()).get(&self.#fid))
                    }
                    fn set_version(&mut self, version: u64) {
                        (&#p::Ver::<#ty>::new()).set(&mut self.#fid, version)
                    }
                };
            }
            if f.ttl.get() {
                let msg = format!("`{fid}` is `#[dyno(ttl)]` but table `{}` has no TTL attribute: add `ttl = \"ttl\"` to the table's `#[dyno(...)]`", self.table_name);
                let fspan = f
                    .ttl
                    .tokens()
                    .and_then(|t| t.clone().into_iter().next())
                    .map_or(span, |t| t.span());
                bounds.extend(quote_spanned!(span=> #p::assert_ttl::<#ty>();));
                checks.extend(respan(quote!(const _: () = #p::const_assert(<#table as #p::TableKeys>::TTL.is_some(), #msg);), fspan));
                ttl_const = quote! {
                    const __TTL_NAME: &str = #p::or_empty(<#table as #p::TableKeys>::TTL);
                };
                ttl_attr = quote!(#p::Some(__TTL_NAME));
            }
            if f.created_at.get() || f.updated_at.get() {
                bounds.extend(quote_spanned!(span=> #p::assert_timestamp::<#ty>();));
            }
            if f.generated.get()
                && let Some(inner) = crate::ty::option_inner(ty)
            {
                let ispan = syn::spanned::Spanned::span(inner);
                bounds.extend(quote_spanned!(ispan=> #p::assert_generated::<#inner>();));
            }
        }

        if !bounds.is_empty() {
            checks.extend(quote!(const _: () = { #bounds };));
        }
        let created_defs = self.created_defs();
        let key_fns = self.key_fn_defs();
        let key_fn = self.key_fn();
        let to_item = self.encode_fn();
        let from_item = self.decode_fn();
        let handles = self.handles();
        let key_ctor = self.key_ctor();
        let partition = self.partition_impl();
        let (query_defs, query_impls) = query::entity_queries(self);
        let (update_def, update_impl) = update::expand(cx, self, groups);
        let (mapped_defs, mapped_impls) = self.mapped_indexes();
        let index_callback = self.index_callback();
        let model_parts = self.model_parts();
        let mapped_names = (self.m.indexes.iter())
            .filter(|i| i.fields.is_some())
            .map(|i| &i.name);

        let alias = private_alias_use();
        let body = quote! {
            #alias
            // The autoref-specialization traits every helper below calls through (a field type
            // without the trait reaches the fallback, so the only error is the one spanned on it).
            #[allow(unused_imports)]
            use #p::autoref::*;
            const __ENTITY: &str = #entity_type;
            const __PK_T: #p::Template = #pk_t;
            #sk_t
            const __PK_NAME: &str = <#table as #p::TableKeys>::PK;
            const __SK_NAME: &str = #p::or_empty(<#table as #p::TableKeys>::SK);
            #ttl_const
            #index_consts
            const __KEY_SOURCES: &[#p::KeySource] = &[#(#sources),*];
            #checks
            #key_fns

            #[automatically_derived]
            impl #p::Entity for #ident {
                type Table = #table;
                const ENTITY_TYPE: &'static str = __ENTITY;
                const PK: #p::Template = __PK_T;
                const SK: #p::Option<#p::Template> = #sk_opt;
                const INDEXES: &'static [#p::IndexTemplate] = &[#(#index_templates),*];
                const MAPPED_INDEXES: &'static [&'static str] = &[#(#mapped_names),*];
                const VERSION_ATTRIBUTE: #p::Option<&'static str> = #version_attr;
                const TTL_ATTRIBUTE: #p::Option<&'static str> = #ttl_attr;
                #created_defs
                #model_parts
                #key_fn
                #to_item
                #from_item
                #version_fns
            }

            #[automatically_derived]
            impl #p::EntityMeta for #ident {
                const KEY_SOURCES: &'static [#p::KeySource] = __KEY_SOURCES;
            }

            #[automatically_derived]
            impl #p::ProjectionOf<#ident> for #ident {}

            #partition

            #[automatically_derived]
            impl #ident {
                #handles
                #key_ctor

                /// Decodes an item (`Entity::from_item`, sparing the choice with `FromItem::from_item`).
                pub fn from_item(item: &#p::Item) -> #p::Result<Self> {
                    <Self as #p::Entity>::from_item(item)
                }
            }

            #query_impls
            #mapped_impls
            #update_impl
            #index_callback
        };
        let body = dummy_const(body);
        quote! {
            #query_defs
            #mapped_defs
            #update_def
            #body
        }
    }

    /// `CREATED_AT`, `ATTRIBUTES` and `created_at_unset`: what a put that keeps the stored
    /// creation time needs (see `dyno_core::ops::Put`).
    fn created_defs(&self) -> TokenStream {
        let p = &self.p;
        let mut attrs = Vec::new();
        let mut created = TokenStream::new();
        for f in &self.m.fields {
            if !f.is_stored() {
                continue;
            }
            if f.ttl.get() {
                attrs.push(quote!(__TTL_NAME));
            } else {
                let a = &f.attr_name;
                attrs.push(quote!(#a));
            }
            if f.created_at.get() {
                let (name, a, fid, ty) = (f.name(), &f.attr_name, f.ident, f.ty);
                created = quote! {
                    const CREATED_AT: #p::Option<(&'static str, &'static str)> =
                        #p::Some((#name, #a));
                    fn created_at_unset(&self) -> bool {
                        (&#p::Stamp::<#ty>::new()).is_unset(&self.#fid)
                    }
                };
            }
        }
        for ix in &self.indexes {
            if ix.own_pk {
                let n = &ix.pk_name;
                attrs.push(quote!(#n));
            }
            if ix.sk.is_some() {
                let n = &ix.sk_name;
                attrs.push(quote!(#n));
            }
        }
        quote! {
            const ATTRIBUTES: &'static [&'static str] = &[#(#attrs),*];
            #created
        }
    }

    fn handles(&self) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let mut out = TokenStream::new();
        for f in &self.m.fields {
            if !f.is_stored() || f.ttl.get() {
                continue;
            }
            let c = format_ident!("{}", case::field_const(&f.name()));
            let ty = f.ty;
            // A serde field's paths and values go through serde too (see `expr::path`).
            let ty = if f.serde.get() {
                quote!(#p::Serde<#ty>)
            } else {
                quote!(#ty)
            };
            let a = &f.attr_name;
            let doc = format!(
                "Field `{}` (attribute `{a}`), for typed conditions and filters.",
                f.ident
            );
            out.extend(quote! {
                #[doc = #doc]
                pub const #c: #p::Field<#ident, #ty> = #p::Field::new(#a);
            });
        }
        out
    }
}

/// On error: an `Entity` impl on a keyless stub table, so uses of the type report nothing more.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    let name = ident.to_string();
    dummy_const(quote! {
        impl #p::Entity for #ident {
            type Table = #p::StubTable;
            const ENTITY_TYPE: &'static str = #name;
            const PK: #p::Template = #p::Template::new(&[]);
            const SK: ::core::option::Option<#p::Template> = ::core::option::Option::None;
            fn key(&self) -> #p::Result<#p::Item> {
                ::core::result::Result::Err(#p::Error::validation("invalid Entity derive"))
            }
            fn to_item(&self) -> #p::Result<#p::Item> {
                ::core::result::Result::Err(#p::Error::validation("invalid Entity derive"))
            }
            fn from_item(_: &#p::Item) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::validation("invalid Entity derive"))
            }
        }
    })
}
