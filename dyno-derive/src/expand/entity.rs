//! `#[derive(Entity)]`: the `Entity` impl (templates, `key`, `to_item`, `from_item`, version),
//! typed key constructors, field handles, and (in `query.rs` and `update.rs`) the typed query and
//! update builders.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, Ident, Type};

use super::{dummy_const, private, query, respan, update};
use crate::ast::{EntityField, EntityIndex, EntityInput};
use crate::case;
use crate::check;
use crate::ctxt::Ctxt;
use crate::template::{Seg, Template};

pub fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = EntityInput::from_ast(cx, input)?;
    check::entity(cx, &model);
    if cx.has_errors() {
        return None;
    }
    let gen = Gen::new(&model);
    let groups = update::groups(cx, &gen);
    if cx.has_errors() {
        return None;
    }
    Some(gen.expand(&groups))
}

/// One index of the entity, resolved.
pub struct IndexGen<'a> {
    pub decl: &'a EntityIndex,
    /// `Table::GSI1` (the table's `TableIndex` constant), spanned on the index name.
    pub table_index: TokenStream,
    /// The index name's span: the one use of the table's constant carries it, so an undeclared
    /// index is one error there.
    pub span: Span,
    /// `__I<n>_NAME`: the index name, from the table.
    pub name_const: Ident,
    /// The partition template: the index's own, or the table's (local index without `pk`).
    pub pk: &'a Template,
    pub own_pk: bool,
    pub sk: Option<&'a Template>,
    pub shards: u32,
    pub pk_t: Ident,
    pub sk_t: Ident,
    pub pk_name: Ident,
    pub sk_name: Ident,
    pub method: Ident,
    pub query_ty: Ident,
}

impl IndexGen<'_> {
    /// The index kind (`Global`, or `Local` for an index sharing the table's partition key); a
    /// constant assertion checks it against the table's declaration.
    pub fn kind(&self, p: &TokenStream) -> TokenStream {
        if self.own_pk {
            quote!(#p::Global)
        } else {
            quote!(#p::Local)
        }
    }

    /// Fields of both templates.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.pk
            .fields()
            .chain(self.sk.into_iter().flat_map(|t| t.fields()))
    }
}

/// Everything the entity's generators share.
pub struct Gen<'a> {
    pub m: &'a EntityInput<'a>,
    pub p: TokenStream,
    pub ident: &'a Ident,
    pub table: TokenStream,
    pub indexes: Vec<IndexGen<'a>>,
    /// Fields of the primary key templates.
    pub primary: BTreeSet<String>,
    /// Fields of any key template.
    pub keyed: BTreeSet<String>,
}

/// The generated constant for a template.
pub fn template_const(p: &TokenStream, t: &Template) -> TokenStream {
    let segs = t.segments.iter().map(|s| match s {
        Seg::Lit(l) => quote!(#p::Segment::Literal(#l)),
        Seg::Field(f) => quote!(#p::Segment::Field(#f)),
    });
    quote!(#p::Template::new(&[#(#segs),*]))
}

impl<'a> Gen<'a> {
    fn new(m: &'a EntityInput<'a>) -> Self {
        let p = private();
        let table = m.table.to_token_stream();
        let mut primary = BTreeSet::new();
        for f in m.pk.fields().chain(m.sk.iter().flat_map(|t| t.fields())) {
            primary.insert(f.to_owned());
        }
        let mut keyed = primary.clone();
        let indexes: Vec<IndexGen<'a>> = m
            .indexes
            .iter()
            .enumerate()
            .map(|(i, decl)| {
                let name = &decl.name;
                let span = decl
                    .name_tokens
                    .clone()
                    .into_iter()
                    .next()
                    .map_or_else(Span::call_site, |t| t.span());
                let const_ident = Ident::new(&case::index_const(name), span);
                let table_index = respan(quote!(#table::#const_ident), span);
                let method = format_ident!("{}", case::snake(name));
                // Spanned on the index name, like every use of the index trait: an index the table
                // does not declare is one error, there.
                let query_ty = format_ident!("{}{}Query", m.ident, case::pascal(name), span = span);
                IndexGen {
                    decl,
                    table_index,
                    span,
                    name_const: format_ident!("__I{}_NAME", i),
                    pk: decl.pk.as_ref().unwrap_or(&m.pk),
                    own_pk: decl.pk.is_some(),
                    sk: decl.sk.as_ref(),
                    shards: decl.shards.map_or(0, |(n, _)| n),
                    pk_t: format_ident!("__I{}_PK_T", i),
                    sk_t: format_ident!("__I{}_SK_T", i),
                    pk_name: format_ident!("__I{}_PK_NAME", i),
                    sk_name: format_ident!("__I{}_SK_NAME", i),
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
            indexes,
            primary,
            keyed,
        }
    }

    pub fn field(&self, name: &str) -> &'a EntityField<'a> {
        // Checked: every template field exists.
        self.m.field(name).unwrap_or(&self.m.fields[0])
    }

    /// How `field` is written in a partition-key template (`partition`) or a sort-key one: its
    /// `key_format`, else plain in partition keys (compared for equality only, and the form other
    /// clients write) and ordered in sort keys (compared by order).
    pub fn key_format(&self, name: &str, partition: bool) -> TokenStream {
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
    pub fn key_arg_ty(&self, name: &str) -> &'a Type {
        let f = self.field(name);
        crate::ty::option_inner(f.ty).unwrap_or(f.ty)
    }

    pub fn is_optional(&self, name: &str) -> bool {
        crate::ty::option_inner(self.field(name).ty).is_some()
    }

    fn expand(&self, groups: &[update::Group]) -> TokenStream {
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
            quote!(::core::option::Option::Some(__SK_T))
        } else {
            quote!(::core::option::Option::None)
        };

        // Compile-time checks against the table.
        let mut checks = TokenStream::new();
        let sk_msg = if has_sk {
            format!(
                "`{ident}` gives `sk = ...` but table `{}` has no sort key: remove `sk`",
                table.to_string().replace(' ', "")
            )
        } else {
            format!(
                "table `{}` has a sort key: give `{ident}` an `sk = \"...\"` template",
                table.to_string().replace(' ', "")
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
            let span = ix
                .decl
                .name_tokens
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            let pk_c = if ix.own_pk {
                template_const(p, ix.pk)
            } else {
                quote!(__PK_T)
            };
            let name_const = &ix.name_const;
            let info = format_ident!(
                "__I{}",
                name_const
                    .to_string()
                    .trim_start_matches("__I")
                    .trim_end_matches("_NAME")
            );
            let table_index = &ix.table_index;
            let info_def = respan(quote!(const #info: #p::TableIndex = #table_index;), ix.span);
            let has_sk_const = quote!(#info.sort_key.is_some());
            let local_const = quote!(#info.local);
            index_consts.extend(quote! {
                #info_def
                const #pk_t_name: #p::Template = #pk_c;
                const #name_const: &str = #info.name;
                const #pk_name: &str = #info.partition_key;
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
                quote!(::core::option::Option::Some(#sk_t_name))
            } else {
                quote!(::core::option::Option::None)
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

        // Field-level checks: key parts, version, ttl, timestamps.
        for name in &self.keyed {
            let ty = self.key_arg_ty(name);
            let span = syn::spanned::Spanned::span(ty);
            checks.extend(quote_spanned!(span=> const _: () = #p::assert_key_part::<#ty>();));
        }
        let mut ttl_const = TokenStream::new();
        let mut version_attr = quote!(::core::option::Option::None);
        let mut ttl_attr = quote!(::core::option::Option::None);
        let mut version_fns = TokenStream::new();
        for f in &self.m.fields {
            let ty = f.ty;
            let span = syn::spanned::Spanned::span(ty);
            let fid = f.ident;
            if f.version.get() {
                let a = &f.attr_name;
                checks.extend(quote_spanned!(span=> const _: () = #p::assert_version::<#ty>();));
                version_attr = quote!(::core::option::Option::Some(#a));
                version_fns = quote! {
                    fn version(&self) -> ::core::option::Option<u64> {
                        ::core::option::Option::Some((&#p::Ver::<#ty>::new()).get(&self.#fid))
                    }
                    fn set_version(&mut self, version: u64) {
                        (&#p::Ver::<#ty>::new()).set(&mut self.#fid, version)
                    }
                };
            }
            if f.ttl.get() {
                let msg = format!("`{fid}` is `#[dyno(ttl)]` but table `{}` has no TTL attribute: add `ttl = \"ttl\"` to the table's `#[dyno(...)]`", table.to_string().replace(' ', ""));
                let fspan = f
                    .ttl
                    .tokens()
                    .and_then(|t| t.clone().into_iter().next())
                    .map_or(span, |t| t.span());
                checks.extend(quote_spanned!(span=> const _: () = #p::assert_ttl::<#ty>();));
                checks.extend(respan(quote!(const _: () = #p::const_assert(<#table as #p::TableKeys>::TTL.is_some(), #msg);), fspan));
                ttl_const = quote! {
                    const __TTL_NAME: &str = #p::or_empty(<#table as #p::TableKeys>::TTL);
                };
                ttl_attr = quote!(::core::option::Option::Some(__TTL_NAME));
            }
            if f.created_at.get() || f.updated_at.get() {
                checks.extend(quote_spanned!(span=> const _: () = #p::assert_timestamp::<#ty>();));
            }
        }

        let key_fns = self.key_fn_defs();
        let key_fn = self.key_fn();
        let to_item = self.encode_fn();
        let from_item = self.decode_fn();
        let handles = self.handles();
        let key_ctor = self.key_ctor();
        let partition = self.partition_impl();
        let (query_defs, query_impls) = query::entity_queries(self);
        let (update_def, update_impl) = update::expand(self, groups);

        let body = quote! {
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
                const SK: ::core::option::Option<#p::Template> = #sk_opt;
                const INDEXES: &'static [#p::IndexTemplate] = &[#(#index_templates),*];
                const VERSION_ATTRIBUTE: ::core::option::Option<&'static str> = #version_attr;
                const TTL_ATTRIBUTE: ::core::option::Option<&'static str> = #ttl_attr;
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
            #update_impl
        };
        let body = dummy_const(body);
        quote! {
            #query_defs
            #update_def
            #body
        }
    }

    /// The name of the one generated function encoding the key attribute of template constant
    /// `tc` (`__PK_T` -> `__key_pk`, `__I0_SK_T` -> `__key_i0_sk`).
    pub fn key_fn_name(tc: &Ident) -> Ident {
        let s = tc.to_string();
        let s = s
            .trim_start_matches("__")
            .trim_end_matches("_T")
            .to_lowercase();
        format_ident!("__key_{}", s)
    }

    /// The distinct fields of `t`, in order of first appearance: the parameters of its key
    /// function.
    pub fn template_args(t: &Template) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for f in t.fields() {
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// The key function of template `t` (constant `tc`): one string sized once, each segment
    /// written into it and checked there. Every consumer of the key attribute calls it: `key`,
    /// `try_key`, `to_item`, query partitions, update setters and upsert keys. `extra`: bytes to
    /// reserve for a shard suffix.
    /// `partition`: `t` is a partition-key template (see [`Self::key_format`]).
    fn key_fn_def(&self, t: &Template, tc: &Ident, extra: usize, partition: bool) -> TokenStream {
        let p = &self.p;
        let name = Self::key_fn_name(tc);
        let args = Self::template_args(t);
        let params = args.iter().map(|f| {
            let id = self.field(f).ident;
            let ty = self.key_arg_ty(f);
            quote!(#id: &#ty)
        });
        let literals: usize = extra
            + t.segments
                .iter()
                .map(|s| match s {
                    Seg::Lit(l) => l.len(),
                    Seg::Field(_) => 0,
                })
                .sum::<usize>();
        let hints = t.fields().map(|f| {
            let id = self.field(f).ident;
            quote!(+ (&#p::Part(#id)).len_hint())
        });
        let writes = t.segments.iter().map(|seg| match seg {
            Seg::Lit(l) => quote!(__k.push_str(#l);),
            Seg::Field(f) => {
                let id = self.field(f).ident;
                let format = self.key_format(f, partition);
                quote!((&#p::Part(#id)).write_part(&mut __k, #format, &#tc, __ENTITY, #f)?;)
            }
        });
        quote! {
            #[inline]
            fn #name(#(#params),*) -> #p::Result<::std::string::String> {
                let mut __k = ::std::string::String::with_capacity(#literals #(#hints)*);
                #(#writes)*
                ::core::result::Result::Ok(__k)
            }
        }
    }

    /// Every key function: primary key, then each index's own keys.
    fn key_fn_defs(&self) -> TokenStream {
        let mut out = self.key_fn_def(&self.m.pk, &format_ident!("__PK_T"), 0, true);
        if let Some(sk) = &self.m.sk {
            out.extend(self.key_fn_def(sk, &format_ident!("__SK_T"), 0, false));
        }
        for ix in &self.indexes {
            if ix.own_pk {
                // `#<shard>`: at most 11 bytes.
                let extra = if ix.shards > 0 { 11 } else { 0 };
                out.extend(self.key_fn_def(ix.pk, &ix.pk_t, extra, true));
            }
            if let Some(sk) = ix.sk {
                out.extend(self.key_fn_def(sk, &ix.sk_t, 0, false));
            }
        }
        out
    }

    /// A call of template `t`'s key function (constant `tc`), each argument from `value(field)`
    /// (a `&T` of the key argument type); `?` on its error.
    pub fn key_call(t: &Template, tc: &Ident, value: impl Fn(&str) -> TokenStream) -> TokenStream {
        let name = Self::key_fn_name(tc);
        let args = Self::template_args(t).into_iter().map(value);
        quote!(#name(#(#args),*)?)
    }

    /// The key attribute of template `t` (constant `tc`) from the arguments `binds` (see
    /// [`Self::key_params`]): a `Result<String>` expression. One argument is handed to the key
    /// function as it is.
    pub fn encode_key(
        &self,
        t: &Template,
        tc: &Ident,
        binds: &[(Ident, TokenStream)],
    ) -> TokenStream {
        let p = &self.p;
        match binds {
            [(id, ty)] => {
                let name = Self::key_fn_name(tc);
                quote!(#p::FieldValue::<#ty>::with_value(#id, #name))
            }
            _ => {
                let call = Self::key_call(t, tc, |f| self.bound_arg(f));
                self.with_values(
                    binds,
                    &quote!(::std::string::String),
                    quote!(::core::result::Result::Ok(#call)),
                )
            }
        }
    }

    /// Nested `FieldValue::with_value` calls binding each `(name, T)` argument to a `&T` of the
    /// same name around `body`, a block returning `Result<ret>`.
    pub fn with_values(
        &self,
        args: &[(Ident, TokenStream)],
        ret: &TokenStream,
        body: TokenStream,
    ) -> TokenStream {
        let p = &self.p;
        let mut out = body;
        for (i, (id, ty)) in args.iter().enumerate().rev() {
            let annot = (i + 1 == args.len()).then(|| quote!(-> #p::Result<#ret>));
            out = quote!(#p::FieldValue::<#ty>::with_value(#id, |#id: &#ty| #annot { #out }));
        }
        if args.is_empty() {
            out = quote!((|| -> #p::Result<#ret> { #out })());
        }
        out
    }

    /// The value of field `name` an item written now holds: `__r_<name>` for a timestamp (decided
    /// once per write, see [`Self::encode_fn`]), else `&self.<name>`.
    fn self_ref(&self, name: &str) -> TokenStream {
        let f = self.field(name);
        if f.created_at.get() || f.updated_at.get() {
            let r = format_ident!("__r_{}", name);
            quote!(#r)
        } else {
            let fid = f.ident;
            quote!(&self.#fid)
        }
    }

    /// Inserts the key attributes of template `t` (constant `tc`, attribute `attr`) into
    /// `__item`, the arguments from `value`; with `shard`, the shard suffix is pushed first.
    fn insert_key(
        t: &Template,
        tc: &Ident,
        attr: &TokenStream,
        shard: Option<TokenStream>,
        value: impl Fn(&str) -> TokenStream,
    ) -> TokenStream {
        let call = Self::key_call(t, tc, value);
        match shard {
            Some(shard) => quote! {{
                let mut __k = #call;
                #shard
                __item.insert(::std::string::String::from(#attr), ::dyno_core::__private::AttributeValue::S(__k));
            }},
            None => quote! {
                __item.insert(::std::string::String::from(#attr), ::dyno_core::__private::AttributeValue::S(#call));
            },
        }
    }

    /// Inserts the primary key attributes into `__item`, each field from `value`.
    fn insert_primary_with(&self, value: impl Fn(&str) -> TokenStream) -> TokenStream {
        let mut out = Self::insert_key(
            &self.m.pk,
            &format_ident!("__PK_T"),
            &quote!(__PK_NAME),
            None,
            &value,
        );
        if let Some(sk) = &self.m.sk {
            out.extend(Self::insert_key(
                sk,
                &format_ident!("__SK_T"),
                &quote!(__SK_NAME),
                None,
                &value,
            ));
        }
        out
    }

    /// Writes index `ix`'s key attributes (its pk with `write_pk`, its sk with `write_sk`) into
    /// `__item`, which already holds the primary key (for the shard: `shard_src`). `value(field)`
    /// is a `&F` of the field's type; optional fields must all be `Some`, or the index attributes
    /// are left out (sparse index) and, with `removes`, pushed there instead (updates).
    pub fn insert_index(
        &self,
        ix: &IndexGen<'_>,
        write_pk: bool,
        write_sk: bool,
        removes: Option<&Ident>,
        shard_src: &TokenStream,
        value: impl Fn(&str) -> TokenStream,
    ) -> TokenStream {
        let p = &self.p;
        let table = &self.table;
        let mut optional: Vec<&str> = Vec::new();
        let written = ix.pk.fields().filter(|_| ix.own_pk && write_pk).chain(
            ix.sk
                .into_iter()
                .flat_map(|t| t.fields())
                .filter(|_| write_sk),
        );
        for f in written {
            if self.is_optional(f) && !optional.contains(&f) {
                optional.push(f);
            }
        }
        let bound = |f: &str| -> TokenStream {
            if optional.contains(&f) {
                let o = format_ident!("__o_{}", f);
                quote!(#o)
            } else {
                value(f)
            }
        };
        let mut body = TokenStream::new();
        if ix.own_pk && write_pk {
            let shard = (ix.shards > 0).then(|| {
                let n = ix.shards;
                quote!(#p::push_shard(&mut __k, #p::shard_of(#shard_src, __PK_NAME, <#table as #p::TableKeys>::SK, #n));)
            });
            let pk_name = &ix.pk_name;
            body.extend(Self::insert_key(
                ix.pk,
                &ix.pk_t,
                &quote!(#pk_name),
                shard,
                bound,
            ));
        }
        if let (Some(sk), true) = (ix.sk, write_sk) {
            let sk_name = &ix.sk_name;
            body.extend(Self::insert_key(
                sk,
                &ix.sk_t,
                &quote!(#sk_name),
                None,
                bound,
            ));
        }
        if optional.is_empty() {
            return quote!({ #body });
        }
        let values = optional.iter().map(|f| {
            let v = value(f);
            quote!((#v).as_ref())
        });
        let pats = optional.iter().map(|f| {
            let o = format_ident!("__o_{}", f);
            quote!(::core::option::Option::Some(#o))
        });
        let otherwise = removes.map(|r| {
            let (pk_name, sk_name) = (&ix.pk_name, &ix.sk_name);
            let own = (ix.own_pk && write_pk).then(|| quote!(#r.push(#pk_name);));
            let sk = (ix.sk.is_some() && write_sk).then(|| quote!(#r.push(#sk_name);));
            quote!(else { #own #sk })
        });
        quote! {
            if let (#(#pats,)*) = (#(#values,)*) { #body } #otherwise
        }
    }

    fn key_fn(&self) -> TokenStream {
        let p = &self.p;
        let insert = self.insert_primary_with(|f| {
            let fid = self.field(f).ident;
            quote!(&self.#fid)
        });
        quote! {
            fn key(&self) -> #p::Result<#p::Item> {
                let mut __item = #p::Item::with_capacity(2);
                #insert
                ::core::result::Result::Ok(__item)
            }
        }
    }

    /// `to_item`. Timestamps are decided first, once per write: `__r_<field>` is the value the
    /// item holds (now, for `updated_at` and an unset `created_at`), and both the attribute and
    /// every key segment made from the field use it.
    fn encode_fn(&self) -> TokenStream {
        let p = &self.p;
        let table = &self.table;
        let mut stamps = TokenStream::new();
        let mut fields = TokenStream::new();
        for f in &self.m.fields {
            if !f.is_stored() {
                continue;
            }
            let fid = f.ident;
            let ty = f.ty;
            let a = &f.attr_name;
            if f.created_at.get() || f.updated_at.get() {
                let r = format_ident!("__r_{}", f.name());
                let now = format_ident!("__now_{}", f.name());
                let decide = if f.created_at.get() {
                    quote!(if (&__stamp).is_unset(&self.#fid) { (&__stamp).now() } else { ::core::option::Option::None })
                } else {
                    quote!((&__stamp).now())
                };
                stamps.extend(quote! {
                    let #now: ::core::option::Option<#ty> = {
                        let __stamp = #p::Stamp::<#ty>::new();
                        #decide
                    };
                    let #r: &#ty = match &#now {
                        ::core::option::Option::Some(now) => now,
                        ::core::option::Option::None => &self.#fid,
                    };
                });
            }
            let value = self.self_ref(&f.name());
            fields.extend(if f.ttl.get() {
                quote!((&#p::Ttl::<#ty>::new()).put(&mut __item, __ENTITY, __TTL_NAME, &self.#fid)?;)
            } else if f.serde.get() {
                quote!(#p::put_attr(&mut __item, __ENTITY, #a, &#p::Serde(&self.#fid))?;)
            } else {
                quote!(#p::put_attr(&mut __item, __ENTITY, #a, #value)?;)
            });
        }
        let primary = self.insert_primary_with(|f| self.self_ref(f));
        let mut indexes = TokenStream::new();
        for ix in &self.indexes {
            indexes.extend(
                self.insert_index(ix, true, true, None, &quote!(&__item), |f| self.self_ref(f)),
            );
        }
        let capacity = self.m.fields.len() + 3 + 2 * self.indexes.len();
        quote! {
            fn to_item(&self) -> #p::Result<#p::Item> {
                #stamps
                let mut __item = #p::Item::with_capacity(#capacity);
                #fields
                #primary
                #indexes
                __item.insert(
                    ::std::string::String::from(<#table as #p::Table>::ENTITY_ATTRIBUTE),
                    #p::AttributeValue::S(::std::string::String::from(__ENTITY)),
                );
                ::core::result::Result::Ok(__item)
            }
        }
    }

    /// `from_item`: one pass over the item's attributes puts each one the entity reads into its
    /// field's slot (a `match` on the name instead of a hash lookup per field), then each field
    /// is decoded from its slot, falling back to the key attributes for key fields.
    fn decode_fn(&self) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let mut slots = TokenStream::new();
        let mut by_attribute: Vec<(String, Vec<Ident>)> = Vec::new();
        let mut ttl_check = TokenStream::new();
        let mut inits = TokenStream::new();
        for f in &self.m.fields {
            let fid = f.ident;
            let ty = f.ty;
            let a = &f.attr_name;
            let name = f.name();
            let slot = format_ident!("__v_{}", name);
            if !f.skip.get() {
                slots.extend(quote! {
                    let mut #slot: ::core::option::Option<&#p::AttributeValue> = ::core::option::Option::None;
                });
                if f.ttl.get() {
                    // The table's TTL name is a constant the macro cannot see: another field may
                    // share it, so it is not a `match` arm.
                    ttl_check = quote! {
                        if __name.as_str() == __TTL_NAME {
                            #slot = ::core::option::Option::Some(__value);
                        }
                    };
                } else {
                    // Fields sharing an attribute all read it, as separate lookups would.
                    match by_attribute.iter_mut().find(|(name, _)| name == a) {
                        Some((_, slots)) => slots.push(slot.clone()),
                        None => by_attribute.push((a.clone(), vec![slot.clone()])),
                    }
                }
            }
            let value = if f.skip.get() {
                quote!(::core::default::Default::default())
            } else if f.ttl.get() {
                quote!((&#p::Ttl::<#ty>::new()).get_in(#slot, __ENTITY, __TTL_NAME)?)
            } else if f.serde.get() {
                if f.default.get() {
                    quote!(#p::attr_or_default_in::<#p::Serde<#ty>>(#slot, __ENTITY, #a)?.0)
                } else {
                    quote!(#p::attr_in::<#p::Serde<#ty>>(#slot, __ENTITY, #a)?.0)
                }
            } else if self.keyed.contains(&name) {
                let inner = self.key_arg_ty(&name);
                let recover = quote!(|| (&#p::Recover::<#inner>::new()).recover(item, __ENTITY, #name, __KEY_SOURCES));
                if self.is_optional(&name) {
                    quote!(#p::key_field_opt_in::<#inner>(#slot, __ENTITY, #a, #recover)?)
                } else {
                    quote!(#p::key_field_in::<#ty>(#slot, __ENTITY, #a, #recover)?)
                }
            } else if f.default.get() || f.version.get() {
                quote!(#p::attr_or_default_in::<#ty>(#slot, __ENTITY, #a)?)
            } else {
                quote!(#p::attr_in::<#ty>(#slot, __ENTITY, #a)?)
            };
            inits.extend(quote!(#fid: #value,));
        }
        let arms = by_attribute.iter().map(
            |(a, slots)| quote!(#a => { #(#slots = ::core::option::Option::Some(__value);)* }),
        );
        let scan = if by_attribute.is_empty() && ttl_check.is_empty() {
            TokenStream::new()
        } else {
            quote! {
                for (__name, __value) in item {
                    #ttl_check
                    match __name.as_str() {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        quote! {
            fn from_item(item: &#p::Item) -> #p::Result<Self> {
                #slots
                #scan
                ::core::result::Result::Ok(#ident { #inits })
            }
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

    /// The ordered, deduplicated fields of the primary key: the key constructor's arguments.
    pub fn primary_args(&self) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = Vec::new();
        for f in self
            .m
            .pk
            .fields()
            .chain(self.m.sk.iter().flat_map(|t| t.fields()))
        {
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// `name: impl FieldValue<T>` parameters of key fields (`T`: the key argument type), and
    /// the `(name, T)` pairs [`Self::with_values`] binds.
    pub fn key_params(&self, fields: &[&str]) -> (Vec<TokenStream>, Vec<(Ident, TokenStream)>) {
        let p = &self.p;
        let mut params = Vec::new();
        let mut binds = Vec::new();
        for name in fields {
            let arg = self.field(name).ident.clone();
            let ty = self.key_arg_ty(name);
            params.push(quote!(#arg: impl #p::FieldValue<#ty>));
            binds.push((arg, quote!(#ty)));
        }
        (params, binds)
    }

    /// `&name`: a key field bound by [`Self::with_values`].
    pub fn bound_arg(&self, name: &str) -> TokenStream {
        let id = self.field(name).ident;
        quote!(#id)
    }

    /// `PartitionKeyOf<A>`: the partition key from its fields (one value, or a tuple), for
    /// collections.
    fn partition_impl(&self) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let fields = Self::template_args(&self.m.pk);
        let (_, binds) = self.key_params(&fields);
        let names: Vec<Ident> = fields.iter().map(|f| self.field(f).ident.clone()).collect();
        let params: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("A{}", i)).collect();
        let bounds = fields.iter().zip(&params).map(|(f, a)| {
            let ty = self.key_arg_ty(f);
            quote!(#a: #p::FieldValue<#ty>)
        });
        let (args_ty, arg, bind) = match params.len() {
            1 => {
                let a = &params[0];
                let n = &names[0];
                (quote!(#a), quote!(#n), TokenStream::new())
            }
            _ => (
                quote!((#(#params,)*)),
                quote!(args),
                quote!(#[allow(clippy::unused_unit)] let (#(#names,)*) = args;),
            ),
        };
        let body = self.encode_key(&self.m.pk, &format_ident!("__PK_T"), &binds);
        quote! {
            #[automatically_derived]
            impl<#(#bounds),*> #p::PartitionKeyOf<#args_ty> for #ident {
                fn partition_key(#arg: #args_ty) -> #p::Result<::std::string::String> {
                    #bind
                    #body
                }
            }
        }
    }

    fn key_ctor(&self) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let fields = self.primary_args();
        let (args, binds) = self.key_params(&fields);
        let names: Vec<Ident> = fields.iter().map(|f| self.field(f).ident.clone()).collect();
        let pk_fields = Self::template_args(&self.m.pk);
        let sk_fields = self
            .m
            .sk
            .as_ref()
            .map(Self::template_args)
            .unwrap_or_default();
        let body = if pk_fields.iter().all(|f| !sk_fields.contains(f)) {
            // Each argument in one template: each key attribute encoded from its own arguments.
            let pk = self.encode_key(
                &self.m.pk,
                &format_ident!("__PK_T"),
                &self.key_params(&pk_fields).1,
            );
            let sk = match &self.m.sk {
                Some(t) => {
                    let sk = self.encode_key(
                        t,
                        &format_ident!("__SK_T"),
                        &self.key_params(&sk_fields).1,
                    );
                    quote!(::core::option::Option::Some(#sk))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#p::primary_key(__PK_NAME, #pk, __SK_NAME, #sk))
        } else {
            let insert = self.insert_primary_with(|f| self.bound_arg(f));
            self.with_values(
                &binds,
                &quote!(#p::Key<#ident>),
                quote! {
                    let mut __item = #p::Item::with_capacity(2);
                    #insert
                    ::core::result::Result::Ok(#p::Key::from_item(__item))
                },
            )
        };
        let doc = format!(
            "The primary key of the `{ident}` with these key fields (`{}`{}).",
            self.m.pk.text(),
            self.m
                .sk
                .as_ref()
                .map(|s| format!(", `{}`", s.text()))
                .unwrap_or_default()
        );
        quote! {
            #[doc = #doc]
            /// An invalid value (an empty string) fails every request using it; see [`Self::try_key`].
            pub fn key(#(#args),*) -> #p::Key<#ident> {
                #p::key_or_invalid(Self::try_key(#(#names),*))
            }

            /// The primary key, or the error encoding its fields.
            pub fn try_key(#(#args),*) -> #p::Result<#p::Key<#ident>> {
                #body
            }
        }
    }
}

/// On error: an `Entity` impl on a keyless stub table, so uses of the type report nothing more.
pub fn stub(input: &DeriveInput) -> TokenStream {
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
