//! Key attributes: the one generated function per key attribute (`__key_pk`, `__key_i0_sk`)
//! and everything that calls it: `key`, the key constructors (`key`, `try_key`), partition keys
//! for queries and collections, and index keys written into items.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::{Gen, IndexGen};
use crate::template::{Seg, Template};

impl<'a> Gen<'a> {
    /// The name of the one generated function encoding the key attribute of template constant
    /// `tc` (`__PK_T` -> `__key_pk`, `__I0_SK_T` -> `__key_i0_sk`).
    pub(crate) fn key_fn_name(tc: &Ident) -> Ident {
        let s = tc.to_string();
        let s = s
            .trim_start_matches("__")
            .trim_end_matches("_T")
            .to_lowercase();
        format_ident!("__key_{}", s)
    }

    /// The distinct fields of `t`, in order of first appearance: the parameters of its key
    /// function.
    pub(crate) fn template_args(t: &Template) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for f in t.fields() {
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// The key function of template `t` (constant `tc`): it appends the key to `__k` (reserved
    /// once), each segment checked there. Every consumer of the key attribute calls it: `key`,
    /// `try_key`, `to_item`, query partitions, update setters and upsert keys into a new string
    /// (see [`Self::key_call`]), and `from_item` into a reused buffer to compare the stored key with
    /// the one its fields encode to (`entity::recover::check_key`). `extra`: bytes to reserve for
    /// a shard suffix.
    /// `partition`: `t` is a partition-key template (see [`Self::key_format`]).
    pub(super) fn key_fn_def(
        &self,
        t: &Template,
        tc: &Ident,
        extra: usize,
        partition: bool,
    ) -> TokenStream {
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
        // The last segment's result is the function's when it is a field.
        let last = t.segments.len().saturating_sub(1);
        let writes = t.segments.iter().enumerate().map(|(i, seg)| match seg {
            Seg::Lit(l) => quote!(__k.push_str(#l);),
            Seg::Field(f) => {
                let id = self.field(f).ident;
                let format = self.key_format(f, partition);
                let write = quote!((&#p::Part(#id)).write_part(__k, #format, &#tc, __ENTITY, #f));
                if i == last {
                    write
                } else {
                    quote!(#write?;)
                }
            }
        });
        let ok = matches!(t.segments.last(), Some(Seg::Lit(_))).then(|| quote!(#p::Ok(())));
        quote! {
            #[inline]
            fn #name(__k: &mut #p::String, #(#params),*) -> #p::Result<()> {
                #p::reserve_key(__k, #literals #(#hints)*);
                #(#writes)*
                #ok
            }
        }
    }

    /// Every key function: primary key, then each index's own keys.
    pub(super) fn key_fn_defs(&self) -> TokenStream {
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

    /// A call of template `t`'s key function (constant `tc`) into a new string, each argument
    /// from `value(field)` (a `&T` of the key argument type); `?` on its error. A block rather
    /// than a helper taking a closure: no function is instantiated per call site.
    pub(crate) fn key_call(
        t: &Template,
        tc: &Ident,
        value: impl Fn(&str) -> TokenStream,
    ) -> TokenStream {
        let write = Self::key_write(t, tc, value);
        quote!({
            let __k = &mut ::std::string::String::new();
            #write?;
            ::core::mem::take(__k)
        })
    }

    /// A call of template `t`'s key function appending to `__k: &mut String`, each argument
    /// from `value(field)`: a `Result<()>` expression.
    pub(crate) fn key_write(
        t: &Template,
        tc: &Ident,
        value: impl Fn(&str) -> TokenStream,
    ) -> TokenStream {
        let name = Self::key_fn_name(tc);
        let args = Self::template_args(t).into_iter().map(value);
        quote!(#name(__k, #(#args),*))
    }

    /// The key attribute of template `t` (constant `tc`) from the arguments `binds` (see
    /// [`Self::key_params`]): a `Result<String>` expression. One argument is handed to the key
    /// function as it is.
    pub(crate) fn encode_key(
        &self,
        t: &Template,
        tc: &Ident,
        binds: &[(Ident, TokenStream)],
    ) -> TokenStream {
        let p = &self.p;
        match binds {
            [(id, ty)] => {
                let name = Self::key_fn_name(tc);
                quote!(#p::key_from::<#ty, _>(#id, #name))
            }
            _ => {
                let call = Self::key_call(t, tc, |f| self.bound_arg(f));
                self.with_values(binds, &quote!(#p::String), quote!(#p::Ok(#call)))
            }
        }
    }

    /// Nested `FieldValue::with_value` calls binding each `(name, T)` argument to a `&T` of the
    /// same name around `body`, a block returning `Result<ret>`.
    pub(crate) fn with_values(
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
    pub(super) fn self_ref(&self, name: &str) -> TokenStream {
        let f = self.field(name);
        if f.created_at.get() || f.updated_at.get() || f.generated.get() {
            let r = format_ident!("__r_{}", name);
            quote!(#r)
        } else {
            let fid = f.ident;
            quote!(&self.#fid)
        }
    }

    /// Inserts the key attributes of template `t` (constant `tc`, attribute `attr`) into
    /// `__item`, the arguments from `value`; with `shard`, the shard suffix is pushed first.
    /// Without one, the key function writes straight into the attribute (`key_buf`).
    pub(super) fn insert_key(
        t: &Template,
        tc: &Ident,
        attr: &TokenStream,
        shard: Option<TokenStream>,
        value: impl Fn(&str) -> TokenStream,
    ) -> TokenStream {
        let p = crate::expand::private_alias();
        match shard {
            Some(shard) => {
                let call = Self::key_call(t, tc, value);
                quote! {{
                    let mut __k = #call;
                    #shard
                    __item.insert(#p::String::from(#attr), #p::AttributeValue::S(__k));
                }}
            }
            None => {
                let name = Self::key_fn_name(tc);
                let args = Self::template_args(t).into_iter().map(value);
                quote!(#name(#p::key_buf(&mut __item, #attr), #(#args),*)?;)
            }
        }
    }

    /// Inserts the primary key attributes into `__item`, each field from `value`.
    pub(super) fn insert_primary_with(&self, value: impl Fn(&str) -> TokenStream) -> TokenStream {
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
    pub(crate) fn insert_index(
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
            // A generated id is an `Option` that every written item has (the write decides it):
            // `value` gives it unwrapped, as a key field.
            if self.is_optional(f) && !self.field(f).generated.get() && !optional.contains(&f) {
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
            quote!(#p::Some(#o))
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

    pub(super) fn key_fn(&self) -> TokenStream {
        let p = &self.p;
        let insert = self.insert_primary_with(|f| {
            let fid = self.field(f).ident;
            self.primary_value(f, quote!(&self.#fid))
        });
        quote! {
            fn key(&self) -> #p::Result<#p::Item> {
                let mut __item = #p::Item::with_capacity(2);
                #insert
                #p::Ok(__item)
            }
        }
    }

    /// The ordered, deduplicated fields of the primary key: the key constructor's arguments.
    pub(crate) fn primary_args(&self) -> Vec<&'a str> {
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
    pub(crate) fn key_params(
        &self,
        fields: &[&str],
    ) -> (Vec<TokenStream>, Vec<(Ident, TokenStream)>) {
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
    pub(crate) fn bound_arg(&self, name: &str) -> TokenStream {
        let id = self.field(name).ident;
        quote!(#id)
    }

    /// `PartitionKeyOf<A, INDEX>`: the partition key from its fields (one value, or a tuple), in
    /// the table (`INDEX` 0) and in each index keyed by a template (`INDEX`: the index's
    /// `case::index_id`), for collections.
    pub(super) fn partition_impl(&self) -> TokenStream {
        let mut out = self.partition_impl_of(0, &self.m.pk, &format_ident!("__PK_T"));
        for ix in &self.indexes {
            let id = crate::case::index_id(&ix.decl.name);
            let tc = if ix.own_pk {
                ix.pk_t.clone()
            } else {
                format_ident!("__PK_T")
            };
            out.extend(self.partition_impl_of(id, ix.pk, &tc));
        }
        out
    }

    fn partition_impl_of(&self, id: u64, t: &Template, tc: &Ident) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        let fields = Self::template_args(t);
        let (_, binds) = self.key_params(&fields);
        let names: Vec<Ident> = fields.iter().map(|f| self.field(f).ident.clone()).collect();
        let params: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("A{}", i)).collect();
        let bounds = fields.iter().zip(&params).map(|(f, a)| {
            let ty = self.key_arg_ty(f);
            quote!(#a: #p::FieldValue<#ty>)
        });
        let (args_ty, arg) = match params.len() {
            1 => {
                let (a, n) = (&params[0], &names[0]);
                (quote!(#a), quote!(#n))
            }
            _ => (quote!((#(#params,)*)), quote!((#(#names,)*))),
        };
        let body = self.encode_key(t, tc, &binds);
        let id = proc_macro2::Literal::u64_unsuffixed(id);
        quote!(#p::partition_key_of!(#ident, #id, [#(#bounds),*], #args_ty, #arg, #body);)
    }

    pub(super) fn key_ctor(&self) -> TokenStream {
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
                    quote!(#p::Some(#sk))
                }
                None => quote!(#p::None),
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
                    #p::Ok(#p::Key::from_item(__item))
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
