//! The typed update builder: `Order::update(key)` returns `OrderUpdate`, with one method per
//! action the field's type allows.
//!
//! - primary-key fields have no setter (a key never changes: delete and re-create instead);
//! - a field used in an index key is set together with the index key attributes it feeds, in
//!   the same request. When an index template also needs other non-key fields, each field's
//!   setter takes the others as values given to rebuild the key, sent as conditions and never
//!   written (`set_status_given(status, region)`), and `set_status_and_region(status, region)`
//!   writes them all; the plain `set_status` is a stub whose compile error names them;
//! - stamps have no setter (a stub says why): `updated_at` is set by every update, `created_at`
//!   where absent, and a key holding `created_at` takes it as a given value;
//! - `Entity::upsert(key, fields..)` takes every field a created item needs;
//! - `remove_*` exists on `Option` fields, `add_*`/`subtract_*` on numbers, `append_*` on
//!   `Vec`s, `add_to_*`/`delete_from_*` on sets; index-key fields get `set_*`/`remove_*` only.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::entity::Gen;
use crate::ctxt::Ctxt;

/// Index key attributes rewritten together: one index's pk, sk or both.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    pub index: usize,
    pub pk: bool,
    pub sk: bool,
}

/// Non-primary fields that must be set together, and the index key attributes they rewrite.
#[derive(Debug, Clone)]
pub(super) struct Group {
    pub fields: Vec<String>,
    pub units: Vec<Unit>,
}

/// True for a field that can leave an index: an `Option` that is not a stamp (every written
/// item holds its stamps, so an index keyed by one is not sparse) nor a generated id.
fn sparse_field(g: &Gen<'_>, name: &str) -> bool {
    let f = g.field(name);
    g.is_optional(name) && !f.created_at.get() && !f.updated_at.get() && !f.generated.get()
}

/// Groups the non-primary fields of index templates: a template (or, for a sparse index, both
/// templates) needs all its non-primary fields at once.
pub(super) fn groups(cx: &Ctxt, g: &Gen<'_>) -> Vec<Group> {
    let mut units: Vec<(Unit, BTreeSet<String>)> = Vec::new();
    for (i, ix) in g.indexes.iter().enumerate() {
        let non_primary = |fields: Vec<&str>| -> BTreeSet<String> {
            fields
                .into_iter()
                .filter(|f| !g.primary.contains(*f))
                .map(str::to_owned)
                .collect()
        };
        let sparse = ix.fields().any(|f| sparse_field(g, f));
        let pk_fields: Vec<&str> = if ix.own_pk {
            ix.pk.fields().collect()
        } else {
            Vec::new()
        };
        let sk_fields: Vec<&str> = ix.sk.map(|t| t.fields().collect()).unwrap_or_default();
        if sparse {
            let all = non_primary(pk_fields.into_iter().chain(sk_fields).collect());
            units.push((
                Unit {
                    index: i,
                    pk: ix.own_pk,
                    sk: ix.sk.is_some(),
                },
                all,
            ));
        } else {
            if ix.own_pk {
                units.push((
                    Unit {
                        index: i,
                        pk: true,
                        sk: false,
                    },
                    non_primary(pk_fields),
                ));
            }
            if ix.sk.is_some() {
                units.push((
                    Unit {
                        index: i,
                        pk: false,
                        sk: true,
                    },
                    non_primary(sk_fields),
                ));
            }
        }
    }
    units.retain(|(_, f)| !f.is_empty());
    // Merge units sharing a field (connected components).
    let mut groups: Vec<(BTreeSet<String>, Vec<Unit>)> = Vec::new();
    for (unit, fields) in units {
        let mut merged = (fields, vec![unit]);
        let mut rest = Vec::new();
        for grp in groups {
            if grp.0.intersection(&merged.0).next().is_some() {
                merged.0.extend(grp.0);
                merged.1.extend(grp.1);
            } else {
                rest.push(grp);
            }
        }
        rest.push(merged);
        groups = rest;
    }
    let order: Vec<String> = g.m.fields.iter().map(|f| f.name()).collect();
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|(fields, units)| {
            let mut fields: Vec<String> = fields.into_iter().collect();
            fields.sort_by_key(|f| order.iter().position(|o| o == f));
            Group { fields, units }
        })
        .collect();
    out.sort_by_key(|grp| order.iter().position(|o| *o == grp.fields[0]));
    for grp in &out {
        for f in &grp.fields {
            let field = g.field(f);
            if field.updated_at.get() && grp.fields.len() > 1 {
                cx.error_spanned_by(
                    field.ident,
                    format!(
                        "`{f}` is `updated_at` (set on every update) but shares an index key with {}: such a key could not be rewritten on every update; keep `{{{f}}}` with key fields only",
                        grp.fields.iter().filter(|o| *o != f).map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ")
                    ),
                );
            }
        }
    }
    out
}

/// The update builder type and its impls.
pub(super) fn expand(cx: &Ctxt, g: &Gen<'_>, groups: &[Group]) -> (TokenStream, TokenStream) {
    let p = &g.p;
    let ident = g.ident;
    let vis = g.m.vis;
    let ty = format_ident!("{}Update", ident);
    let doc = format!("A typed update of one `{ident}`, built by [`{ident}::update`]; run it with `.send(&store)`.");
    // Beside the entity, outside the `const _` where `__d` is defined.
    let full = super::private();
    let def = quote! {
        #[doc = #doc]
        #[must_use = "an update does nothing until it is sent with `.send(&store)`"]
        #vis struct #ty {
            update: #full::UpdateBuilder<#ident>,
        }
    };

    let mut methods = TokenStream::new();
    let mut helpers = TokenStream::new();
    let grouped: BTreeSet<&str> = groups
        .iter()
        .flat_map(|grp| grp.fields.iter().map(String::as_str))
        .collect();

    // Every method name, with the field it is for: checked against each other and the
    // builder's own methods once generated (`check::update_methods`).
    let mut names: Vec<(String, &Ident)> = Vec::new();
    // Index-key groups.
    for grp in groups {
        let (helper, public) = group_setter(g, grp);
        helpers.extend(helper);
        let first = g.field(&grp.fields[0]).ident;
        names.extend(fn_names(&public).into_iter().map(|n| (n, first)));
        methods.extend(public);
        if grp.fields.len() > 1 {
            for f in writable(g, grp) {
                let field = g.field(f).ident;
                names.push((format!("set_{field}"), field));
                helpers.extend(hidden_group_setter(g, grp, f));
            }
        }
    }
    // The methods of the field `last`, named once it is done (walking only its own methods).
    let mut last: Option<&Ident> = None;
    let mut pending = TokenStream::new();

    let mut touch = TokenStream::new();
    // `updated_at` is stamped when the update is finished (sent, turned into a builder or a
    // transaction action), unless `keep_updated_at()` was called.
    let mut touch_updated = TokenStream::new();
    for f in &g.m.fields {
        // The methods the previous field added.
        if let Some(prev) = last {
            let added = std::mem::take(&mut pending);
            names.extend(fn_names(&added).into_iter().map(|n| (n, prev)));
            methods.extend(added);
        }
        last = Some(f.ident);
        let name = f.name();
        if f.is_stored() && g.primary.contains(&name) {
            names.push((format!("set_{}", f.ident), f.ident));
            helpers.extend(primary_key_setter(g, f.ident, &name));
            continue;
        }
        if !f.is_stored() || f.version.get() {
            continue;
        }
        let fid = f.ident;
        let ty_f = f.ty;
        let a = &f.attr_name;
        let optional = crate::ty::option_inner(ty_f);
        // The attribute the field is stored in, as `to_item` names it: a TTL field lives in the
        // table's TTL attribute.
        let attr_name = if f.ttl.get() {
            quote!(__TTL_NAME)
        } else {
            quote!(#a)
        };
        let remove = optional.map(|_| {
            let m = format_ident!("remove_{}", fid);
            let doc = format!(
                "Removes `{fid}` (sets it to `None`){}.",
                if grouped.contains(name.as_str()) {
                    ", and the index keys it feeds (the item leaves those sparse indexes)"
                } else {
                    ""
                }
            );
            let index_removes = groups
                .iter()
                .filter(|grp| grp.fields.contains(&name))
                .flat_map(|grp| grp.units.iter())
                .map(|u| {
                    let ix = &g.indexes[u.index];
                    let (pn, sn) = (&ix.pk_name, &ix.sk_name);
                    let pk = (ix.own_pk).then(|| quote!(self.update.remove_attr(#pn);));
                    let sk = ix
                        .sk
                        .is_some()
                        .then(|| quote!(self.update.remove_attr(#sn);));
                    quote!(#pk #sk)
                });
            quote! {
                #[doc = #doc]
                pub fn #m(mut self) -> Self {
                    self.update.remove_attr(#attr_name);
                    #(#index_removes)*
                    self
                }
            }
        });
        if f.created_at.get() || f.updated_at.get() {
            names.push((format!("set_{fid}"), fid));
            helpers.extend(stamp_setter(
                g,
                grp_of(groups, &name),
                fid,
                f.created_at.get(),
            ));
        }
        if f.created_at.get() {
            // Stamped where absent; an index key made of the stamp alone (with primary-key
            // fields) is written where absent too, from the same value, so that an item an upsert
            // creates is in that index.
            let alone = groups
                .iter()
                .any(|grp| grp.fields.len() == 1 && grp.fields[0] == name);
            let setter = if alone {
                let helper = format_ident!("__dyno_key_{}", fid);
                let mode = quote!(#p::KeyField::IfAbsent);
                let call =
                    key_helper_call(g, 1, &helper, quote!(&mut __update), [mode], [quote!(now)]);
                quote!(let r = #call; __update.update.record(r);)
            } else {
                quote!(__update.update.set_if_absent_value(#a, #p::ToAttribute::to_attribute(&now));)
            };
            touch.extend(quote! {
                if let #p::Some(now) = (&#p::Stamp::<#ty_f>::new()).now() {
                    #setter
                }
            });
            continue;
        }
        if f.updated_at.get() {
            let setter = if grouped.contains(name.as_str()) {
                let helper = format_ident!("__dyno_key_{}", fid);
                let mode = quote!(#p::KeyField::Write);
                let call =
                    key_helper_call(g, 1, &helper, quote!(&mut __update), [mode], [quote!(now)]);
                quote!(let r = #call; __update.update.record(r);)
            } else {
                quote!(__update.update.set_value(#a, #p::ToAttribute::to_attribute(&now));)
            };
            touch_updated.extend(quote! {
                if let #p::Some(now) = (&#p::Stamp::<#ty_f>::new()).now() {
                    #setter
                }
            });
            continue;
        }
        if grouped.contains(name.as_str()) {
            pending.extend(remove);
            continue;
        }
        let set = format_ident!("set_{}", fid);
        let set_doc = format!(
            "Sets `{fid}`{}.",
            if optional.is_some() {
                " (`None` removes it)"
            } else {
                ""
            }
        );
        let encode = if f.ttl.get() {
            quote!(#p::FieldValue::<#ty_f>::with_value(value, |v| (&#p::Ttl::<#ty_f>::new()).value(v)))
        } else if f.serde.get() {
            quote!(#p::FieldValue::<#ty_f>::with_value(value, |v| #p::ToAttribute::to_attribute(&#p::Serde(v))))
        } else {
            quote!(#p::encode_value::<#ty_f, _>(value))
        };
        pending.extend(quote! {
            #[doc = #set_doc]
            pub fn #set(mut self, value: impl #p::FieldValue<#ty_f>) -> Self {
                self.update.set_value(#attr_name, #encode);
                self
            }
        });
        pending.extend(remove);
        if f.ttl.get() {
            continue;
        }
        let if_absent = format_ident!("set_if_absent_{}", fid);
        let doc = format!("Sets `{fid}` unless the item has it already (`if_not_exists`).");
        pending.extend(quote! {
            #[doc = #doc]
            pub fn #if_absent(mut self, value: impl #p::FieldValue<#ty_f>) -> Self {
                self.update.set_if_absent_value(#a, #encode);
                self
            }
        });
        if f.serde.get() {
            continue;
        }
        let inner = optional.unwrap_or(ty_f);
        if crate::ty::is_numeric(ty_f) {
            let add = format_ident!("add_{}", fid);
            let sub = format_ident!("subtract_{}", fid);
            let add_doc = format!("Adds `n` to `{fid}` (an absent value counts as 0), atomically; a result outside the field's type is `Error::OutOfRange` and writes nothing.");
            let sub_doc = format!("Subtracts `n` from `{fid}` (an absent value counts as 0), atomically; a result outside the field's type is `Error::OutOfRange` and writes nothing.");
            pending.extend(quote! {
                #[doc = #add_doc]
                pub fn #add(mut self, n: impl #p::FieldValue<#inner>) -> Self {
                    self.update.add_number::<#inner>(#a, n);
                    self
                }
                #[doc = #sub_doc]
                pub fn #sub(mut self, n: impl #p::FieldValue<#inner>) -> Self {
                    self.update.subtract_number::<#inner>(#a, n);
                    self
                }
            });
        }
        if crate::ty::vec_elem(ty_f).is_some() {
            let append = format_ident!("append_{}", fid);
            let doc = format!("Appends `items` to the list `{fid}` (created when absent).");
            pending.extend(quote! {
                #[doc = #doc]
                pub fn #append(mut self, items: impl #p::FieldValue<#inner>) -> Self {
                    self.update.append_value(#a, #p::encode_value::<#inner, _>(items));
                    self
                }
            });
        }
        if crate::ty::set_elem(ty_f).is_some() {
            let add_to = format_ident!("add_to_{}", fid);
            let delete_from = format_ident!("delete_from_{}", fid);
            let add_doc = format!("Adds `values` to the set `{fid}` (ADD).");
            let del_doc = format!("Deletes `values` from the set `{fid}` (DELETE).");
            pending.extend(quote! {
                #[doc = #add_doc]
                pub fn #add_to(mut self, values: impl #p::FieldValue<#inner>) -> Self {
                    self.update.add_value(#a, #p::encode_value::<#inner, _>(values));
                    self
                }
                #[doc = #del_doc]
                pub fn #delete_from(mut self, values: impl #p::FieldValue<#inner>) -> Self {
                    self.update.delete_value(#a, #p::encode_value::<#inner, _>(values));
                    self
                }
            });
        }
    }

    if let Some(prev) = last {
        names.extend(fn_names(&pending).into_iter().map(|n| (n, prev)));
        methods.extend(pending);
    }
    crate::check::update_methods(cx, g.ident, &names);

    let version = g.m.fields.iter().any(|f| f.version.get()).then(|| {
        quote! {
            #[automatically_derived]
            impl #p::Versioned for #ident {}
        }
    });

    // Upsert: the item may not exist, so write what a fresh item needs.
    // The primary-key fields, read back from the key and written where absent.
    let mut primary = Vec::new();
    for name in g.primary_args() {
        let f = g.field(name);
        let ty_f = f.ty;
        let a = &f.attr_name;
        primary.push(quote!((#a, #name, (&#p::Recover::<#ty_f>::new()).recover_attr_fn())));
    }
    // The fields an item needs to decode: the upsert must write them (see `require_fields`),
    // each with whether its type decodes from an absent attribute (a list, a set).
    let mut required = Vec::new();
    for f in &g.m.fields {
        let name = f.name();
        if !f.is_stored()
            || g.primary.contains(&name)
            || f.default.is_some()
            || f.version.get()
            || crate::ty::option_inner(f.ty).is_some()
        {
            continue;
        }
        let ty_f = f.ty;
        let attr = if f.ttl.get() {
            quote!(__TTL_NAME)
        } else {
            let a = &f.attr_name;
            quote!(#a)
        };
        let decodes_absent = if f.serde.get() || f.ttl.get() {
            quote!(#p::never)
        } else {
            quote!(#p::decodes_absent::<#ty_f>)
        };
        required.push(quote!((#attr, #name, #decodes_absent)));
    }
    let (index_keys_helper, index_keys_call, needs) = upsert_index_keys(g);
    helpers.extend(index_keys_helper);
    let debug_name = ty.to_string();
    let start = if touch.is_empty() {
        quote!(#ty { update: #p::UpdateBuilder::new(key) })
    } else {
        quote! {
            let mut __update = #ty { update: #p::UpdateBuilder::new(key) };
            #touch
            __update
        }
    };
    let into_update = if touch_updated.is_empty() {
        quote!(self.update)
    } else {
        methods.extend(quote! {
            /// Leaves the `updated_at` field as it is: this update does not bump it (nor rewrite
            /// the index keys made from it), so an item sorted by it keeps its place.
            pub fn keep_updated_at(mut self) -> Self {
                self.update = self.update.keep_updated_at();
                self
            }
        });
        quote! {
            let mut __update = self;
            if !__update.update.keeps_updated_at() {
                #touch_updated
            }
            __update.update
        }
    };
    let upsert_fn = upsert_entry(g, groups);
    let impls = quote! {
        #[automatically_derived]
        impl #ident {
            /// Starts a typed update of the item with primary key `key`.
            pub fn update(key: #p::Key<#ident>) -> #ty {
                #start
            }

            #upsert_fn
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#debug_name).field("update", &self.update).finish()
            }
        }

        #helpers

        #[automatically_derived]
        impl #ty {
            #methods

        }

        #version

        #[automatically_derived]
        impl #p::UpdateDsl for #ty {
            type Entity = #ident;

            fn map_update(self, f: impl ::core::ops::FnOnce(#p::UpdateBuilder<#ident>) -> #p::UpdateBuilder<#ident>) -> Self {
                #ty { update: f(self.update) }
            }

            fn into_inner(self) -> #p::UpdateBuilder<#ident> {
                #into_update
            }

            // The key fields (where absent) and the index keys the primary key alone determines;
            // the other keys of non-sparse indexes only the update's setters can give.
            fn prepare_upsert(mut self) -> Self {
                const __NEEDS: &[#p::IndexKeyNeed] = &[#(#needs),*];
                #p::prepare_upsert(&mut self.update, &#p::UpsertPlan {
                    entity: __ENTITY,
                    sources: __KEY_SOURCES,
                    needs: __NEEDS,
                    primary: &[#(#primary),*],
                    fields: &[#(#required),*],
                });
                #index_keys_call
                self
            }
        }
    };
    (def, impls)
}

/// The names of the `pub fn`s in `tokens`, a run of method definitions (`pub fn name(..) {..}`
/// at the top level). Only the top level is read: descending into every signature and body
/// walked each generated method token by token again, a large part of the derive's time.
fn fn_names(tokens: &TokenStream) -> Vec<String> {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    let mut public = false;
    let mut after_fn = false;
    for tree in tokens.clone() {
        if let TokenTree::Ident(id) = &tree {
            if after_fn {
                out.push(id.to_string());
                after_fn = false;
                public = false;
                continue;
            }
            let text = id.to_string();
            after_fn = public && text == "fn";
            public = text == "pub";
        } else {
            public = false;
            after_fn = false;
        }
    }
    out
}

/// The fields of a group an update can write: all but the stamps (a created-at stamp is only
/// ever given, as a condition; `updated_at` is stamped, see `expand`).
fn writable<'g>(g: &Gen<'_>, grp: &'g Group) -> Vec<&'g str> {
    grp.fields
        .iter()
        .map(String::as_str)
        .filter(|f| {
            let field = g.field(f);
            !field.created_at.get() && !field.updated_at.get()
        })
        .collect()
}

/// A call of the index-key helper `helper` of a group of `n` fields on the builder `target`,
/// with `modes` and the values `args`: a single-field group's helper takes `&T`, so its call
/// goes through `with_key_value` (see [`group_setter`]).
fn key_helper_call(
    g: &Gen<'_>,
    n: usize,
    helper: &Ident,
    target: TokenStream,
    modes: impl IntoIterator<Item = TokenStream>,
    args: impl IntoIterator<Item = TokenStream>,
) -> TokenStream {
    let p = &g.p;
    let (modes, args) = (modes.into_iter(), args.into_iter());
    if n == 1 {
        quote!(#p::with_key_value(#target, [#(#modes),*], #(#args),*, #helper))
    } else {
        quote!(#helper(#target, [#(#modes),*], #(#args),*))
    }
}

/// `set_<fields>[_given]`: the setter writing `written` of `grp`, given the others.
fn setter_name(grp: &Group, written: &[&str]) -> String {
    let base = format!("set_{}", written.join("_and_"));
    if written.len() < grp.fields.len() {
        format!("{base}_given")
    } else {
        base
    }
}

/// The helper of one index-key group (`__dyno_key_<fields>`), which every setter of the group
/// and the stamps call: each field is written, written where absent, or given (a condition
/// that the stored item holds it, see `UpdateBuilder::given_value`), as `__modes` says; the
/// keys of the group's index units are rebuilt from the values. Then the public setters: for a
/// field alone in its key (with primary-key fields) `set_<field>`; for a multi-field key,
/// `set_<field>_given(field, others..)` per writable field, `set_<all writable>[_given]`, and a
/// `set_<field>` whose call fails to compile with a message naming them.
fn group_setter(g: &Gen<'_>, grp: &Group) -> (TokenStream, TokenStream) {
    let p = &g.p;
    let args: Vec<Ident> = grp
        .fields
        .iter()
        .map(|f| g.field(f).ident.clone())
        .collect();
    let tys: Vec<&syn::Type> = grp.fields.iter().map(|f| g.field(f).ty).collect();
    // Primary-key fields the rewritten templates need, from the update's key; whether one of
    // the keys has an optional field (then `None` removes that index's keys).
    let mut needed: Vec<&str> = Vec::new();
    let mut rebuilds: Vec<TokenStream> = Vec::new();
    let mut sparse = false;
    for u in &grp.units {
        let ix = &g.indexes[u.index];
        let fields = ix
            .pk
            .fields()
            .filter(|_| u.pk && ix.own_pk)
            .chain(ix.sk.into_iter().flat_map(|t| t.fields()).filter(|_| u.sk));
        for f in fields {
            if g.primary.contains(f) && !needed.contains(&f) {
                needed.push(f);
            }
            sparse |= g.is_optional(f) && !g.field(f).generated.get();
        }
        let (pn, sn) = (&ix.pk_name, &ix.sk_name);
        if u.pk && ix.own_pk {
            rebuilds.push(quote!(#pn));
        }
        if u.sk && ix.sk.is_some() {
            rebuilds.push(quote!(#sn));
        }
    }
    let mut sets = TokenStream::new();
    for (i, (name, arg)) in grp.fields.iter().zip(&args).enumerate() {
        let a = &g.field(name).attr_name;
        sets.extend(quote! {
            #p::rebuild_key_field(&mut __update.update, __modes[#i], #name, #a, #p::ToAttribute::to_attribute(#arg), &[#(#rebuilds),*]);
        });
    }
    let primary = primary_fields(g, &needed);
    let removes = format_ident!("__removes");
    let writes: Vec<TokenStream> = grp
        .units
        .iter()
        .map(|u| {
            let ix = &g.indexes[u.index];
            g.insert_index(
                ix,
                u.pk,
                u.sk,
                Some(&removes),
                &quote!(__update.update.key()),
                |f| {
                    if g.primary.contains(f) {
                        let v = format_ident!("__p_{}", f);
                        quote!(&#v)
                    } else {
                        g.bound_arg(f)
                    }
                },
            )
        })
        .collect();
    let binds: Vec<(Ident, TokenStream)> = args
        .iter()
        .zip(&tys)
        .map(|(a, t)| (a.clone(), quote!(#t)))
        .collect();
    let n = grp.fields.len();
    let inner = if sparse {
        quote! {
            #sets
            let mut __item = #p::Item::new();
            let mut #removes: ::std::vec::Vec<&'static str> = ::std::vec::Vec::new();
            #(#writes)*
            #p::set_index_keys(&mut __update.update, __item, &#removes, &__modes)
        }
    } else {
        quote! {
            #sets
            let mut __item = #p::Item::new();
            #(#writes)*
            #p::set_index_keys(&mut __update.update, __item, &[], &__modes)
        }
    };
    let helper = format_ident!("__dyno_key_{}", grp.fields.join("_and_"));
    let ty = format_ident!("{}Update", g.ident);
    // A single-field group's helper takes the value as a `&T` (its callers go through
    // `with_key_value`): one ordinary function, no closure. A multi-field group's takes each
    // value as `impl FieldValue`.
    let helper_fn = if n == 1 {
        let (a, t) = (&args[0], tys[0]);
        quote! {
            fn #helper(__update: &mut #ty, __modes: [#p::KeyField; 1], #a: &#t) -> #p::Result<()> {
                #primary
                #inner
            }
        }
    } else {
        let params = args
            .iter()
            .zip(&tys)
            .map(|(a, t)| quote!(#a: impl #p::FieldValue<#t>));
        let body = g.with_values(&binds, &quote!(()), inner);
        quote! {
            fn #helper(__update: &mut #ty, __modes: [#p::KeyField; #n], #(#params),*) -> #p::Result<()> {
                #primary
                #body
            }
        }
    };

    let written_all = writable(g, grp);
    if written_all.is_empty() {
        return (helper_fn, TokenStream::new());
    }
    let index_names: Vec<String> = grp
        .units
        .iter()
        .map(|u| g.indexes[u.index].decl.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let templates: Vec<String> = grp
        .units
        .iter()
        .flat_map(|u| {
            let ix = &g.indexes[u.index];
            let pk = (u.pk && ix.own_pk).then(|| ix.pk.text());
            let sk = ix.sk.filter(|_| u.sk).map(|t| t.text());
            pk.into_iter().chain(sk)
        })
        .map(|t| format!("`{t}`"))
        .collect();
    let quoted = |fields: &[&str]| {
        fields
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let mut public = TokenStream::new();
    // One setter per set of written fields: each writable field alone, and all of them.
    let mut variants: Vec<Vec<&str>> = Vec::new();
    if n > 1 {
        variants.extend(written_all.iter().map(|f| vec![*f]));
    }
    if written_all.len() > 1 || n == 1 {
        variants.push(written_all.clone());
    }
    for written in &variants {
        let method = format_ident!("{}", setter_name(grp, written));
        let given: Vec<&str> = grp
            .fields
            .iter()
            .map(String::as_str)
            .filter(|f| !written.contains(f))
            .collect();
        let modes = grp.fields.iter().map(|f| {
            if written.contains(&f.as_str()) {
                quote!(#p::KeyField::Write)
            } else {
                quote!(#p::KeyField::Given)
            }
        });
        // Parameters: the written fields, then the given ones; a stamp is given as a value,
        // never as `None` (an item always holds its stamp).
        let mut params = Vec::new();
        let mut wraps: Vec<(Ident, TokenStream)> = Vec::new();
        for f in written.iter().chain(&given) {
            let field = g.field(f);
            let id = &field.ident;
            if field.created_at.get() {
                let inner = g.key_arg_ty(f);
                params.push(quote!(#id: impl #p::FieldValue<#inner>));
                if g.is_optional(f) {
                    wraps.push(((*id).clone(), quote!(#inner)));
                }
            } else {
                let t = field.ty;
                params.push(quote!(#id: impl #p::FieldValue<#t>));
            }
        }
        let mut call = key_helper_call(
            g,
            n,
            &helper,
            quote!(&mut self),
            modes,
            args.iter().map(|a| quote!(#a)),
        );
        for (id, inner) in wraps.iter().rev() {
            call = quote! {
                #p::FieldValue::<#inner>::with_value(#id, |#id: &#inner| {
                    let #id: #p::Option<#inner> =
                        #p::Some(::core::clone::Clone::clone(#id));
                    #call
                })
            };
        }
        let doc = if given.is_empty() {
            format!(
                "Sets {} and rewrites the keys of index {} in the same request{}.",
                quoted(written),
                index_names.join(", "),
                if written.len() > 1 {
                    " (these fields make up one index key, so they are set together)"
                } else {
                    ""
                }
            )
        } else {
            format!(
                "Sets {} and rewrites the keys of index {} ({}), which are made of {} too: those \
                 are given to rebuild the keys, not written. The update is conditioned on the \
                 item holding them, so an update built from a stale read fails with \
                 `Error::StaleKeyField` (naming the field that changed) and writes nothing, \
                 instead of reverting a concurrent change{}.",
                quoted(written),
                index_names.join(", "),
                templates.join(", "),
                quoted(&given),
                if given.iter().any(|f| g.field(f).created_at.get()) {
                    "; a created-at stamp is never rewritten"
                } else {
                    ""
                }
            )
        };
        public.extend(quote! {
            #[doc = #doc]
            pub fn #method(mut self, #(#params),*) -> Self {
                let r = #call;
                self.update.record(r);
                self
            }
        });
    }
    (helper_fn, public)
}

/// The group holding field `name`, if any.
fn grp_of<'g>(groups: &'g [Group], name: &str) -> Option<&'g Group> {
    groups
        .iter()
        .find(|grp| grp.fields.iter().any(|f| f == name))
}

/// `set_<stamp>`: present so that calling it says why there is none (stamps are decided by
/// the writes, see DESIGN's "stamps are read-only"), under a bound no type meets.
fn stamp_setter(g: &Gen<'_>, grp: Option<&Group>, fid: &Ident, created: bool) -> TokenStream {
    let ident = g.ident;
    let ty = format_ident!("{}Update", ident);
    let tr = format_ident!(
        "__{}UpdateStamp{}",
        ident,
        crate::case::pascal(&fid.to_string())
    );
    let set = format_ident!("set_{}", fid);
    let (message, note) = if created {
        let rebuild = grp
            .map(|grp| {
                let written = writable(g, grp);
                let setters = written
                    .iter()
                    .map(|w| format!("`{}(..)`", setter_name(grp, &[w])))
                    .collect::<Vec<_>>()
                    .join(", ");
                let take = if written.len() == 1 { "takes" } else { "take" };
                format!("; the index key holding it is rewritten by {setters}, which {take} the stamp as a value given to rebuild the key (a condition, never a write)")
            })
            .unwrap_or_default();
        (
            format!("`{fid}` is the created-at stamp of `{ident}`: no update sets or removes it"),
            format!("the write that creates the item stamps it, and it is read-only afterwards{rebuild}"),
        )
    } else {
        (
            format!("`{fid}` is the updated-at stamp of `{ident}`: every update sets it"),
            "each update stamps it with the time it is built; `keep_updated_at()` leaves it as it is".to_owned(),
        )
    };
    quote! {
        /// Not implemented by any type: see the method using it.
        #[diagnostic::on_unimplemented(message = #message, label = "a stamp has no setter", note = #note)]
        pub trait #tr {}

        #[automatically_derived]
        impl #ty {
            #[doc(hidden)]
            pub fn #set<V: #tr>(self, _value: V) -> Self {
                self
            }
        }
    }
}

/// `set_<field>` for a field of a multi-field index key: present so that calling it names the
/// setters to use, under a bound no type meets (as `primary_key_setter`).
fn hidden_group_setter(g: &Gen<'_>, grp: &Group, name: &str) -> TokenStream {
    let ident = g.ident;
    let ty = format_ident!("{}Update", ident);
    let fid = &g.field(name).ident;
    let tr = format_ident!("__{}Update{}InKey", ident, crate::case::pascal(name));
    let set = format_ident!("set_{}", fid);
    let others: Vec<&str> = grp
        .fields
        .iter()
        .map(String::as_str)
        .filter(|f| *f != name)
        .collect();
    let one = setter_name(grp, &[name]);
    let call = std::iter::once(name)
        .chain(others.iter().copied())
        .collect::<Vec<_>>()
        .join(", ");
    let written_all = writable(g, grp);
    let all = (written_all.len() > 1).then(|| {
        format!(
            "; to change {} at once, `{}(..)`",
            written_all
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            setter_name(grp, &written_all)
        )
    });
    let others_list = others
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(" and ");
    let message =
        format!("`{name}` shares an index key with {others_list}: set it with `{one}({call})`");
    let label = format!("the key needs {others_list} too");
    let (verb, sent) = if others.len() == 1 {
        ("rebuilds", "is sent as a condition")
    } else {
        ("rebuild", "are sent as conditions")
    };
    let note = format!(
        "{others_list} {verb} the key and {sent}, not written: an update from a stale read fails instead of reverting a concurrent change{}",
        all.unwrap_or_default()
    );
    quote! {
        /// Not implemented by any type: see the method using it.
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #tr {}

        #[automatically_derived]
        impl #ty {
            #[doc(hidden)]
            pub fn #set<V: #tr>(self, _value: V) -> Self {
                self
            }
        }
    }
}

/// `Entity::upsert(key, fields..)`: an upsert whose arguments are every field an item it creates
/// needs (those not `Option`, not `#[dyno(default)]`, not lists or sets, not primary-key fields
/// or stamps; and the fields of index keys), so a created item decodes by construction. Each
/// is written where absent (`if_not_exists`), with the index keys made of them: an existing item
/// keeps its own values and keys. The update's setters add the rest.
fn upsert_entry(g: &Gen<'_>, groups: &[Group]) -> TokenStream {
    let p = &g.p;
    let ident = g.ident;
    let ty = format_ident!("{}Update", ident);
    let grouped: BTreeSet<&str> = groups
        .iter()
        .flat_map(|grp| grp.fields.iter().map(String::as_str))
        .collect();
    let mut params = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    let mut body = TokenStream::new();
    for f in &g.m.fields {
        let name = f.name();
        if !f.is_stored()
            || g.primary.contains(&name)
            || f.version.get()
            || f.created_at.get()
            || f.updated_at.get()
        {
            continue;
        }
        let ty_f = f.ty;
        let optional = crate::ty::option_inner(ty_f).is_some();
        let in_group = grouped.contains(name.as_str());
        let required = !optional
            && f.default.is_none()
            && crate::ty::vec_elem(ty_f).is_none()
            && crate::ty::set_elem(ty_f).is_none();
        if !(required || (in_group && !optional)) {
            continue;
        }
        let fid = f.ident;
        params.push(quote!(#fid: impl #p::FieldValue<#ty_f>));
        taken.push(name.clone());
        if in_group {
            continue;
        }
        let a = &f.attr_name;
        let (attr, encode) = if f.ttl.get() {
            (
                quote!(__TTL_NAME),
                quote!(#p::FieldValue::<#ty_f>::with_value(#fid, |v| (&#p::Ttl::<#ty_f>::new()).value(v))),
            )
        } else if f.serde.get() {
            (
                quote!(#a),
                quote!(#p::FieldValue::<#ty_f>::with_value(#fid, |v| #p::ToAttribute::to_attribute(&#p::Serde(v)))),
            )
        } else {
            (quote!(#a), quote!(#p::encode_value::<#ty_f, _>(#fid)))
        };
        body.extend(quote!(__update.update.set_if_absent_value(#attr, #encode);));
    }
    for grp in groups {
        if !grp.fields.iter().any(|f| taken.contains(f))
            || grp.fields.iter().any(|f| g.field(f).updated_at.get())
        {
            continue;
        }
        let helper = format_ident!("__dyno_key_{}", grp.fields.join("_and_"));
        let modes = grp.fields.iter().map(|_| quote!(#p::KeyField::IfAbsent));
        let stamps: Vec<(&Ident, &syn::Type)> = grp
            .fields
            .iter()
            .map(|f| g.field(f))
            .filter(|field| field.created_at.get())
            .map(|field| (field.ident, field.ty))
            .collect();
        let args = grp.fields.iter().map(|f| {
            let field = g.field(f);
            let fid = field.ident;
            if taken.contains(f) || field.created_at.get() {
                quote!(#fid)
            } else {
                // An `Option` field of the key, absent: the item starts outside that index.
                let inner = g.key_arg_ty(f);
                quote!(#p::Option::<#inner>::None)
            }
        });
        let call = key_helper_call(
            g,
            grp.fields.len(),
            &helper,
            quote!(&mut __update),
            modes,
            args,
        );
        let mut call = quote! {
            let r = #call;
            __update.update.record(r);
        };
        for (fid, ty_s) in stamps.into_iter().rev() {
            call = quote! {
                if let #p::Some(#fid) = (&#p::Stamp::<#ty_s>::new()).now() {
                    #call
                }
            };
        }
        body.extend(call);
    }
    let doc = format!(
        "Starts an upsert of the `{ident}` at `key` that creates a readable item: the arguments are \
         every field a created item needs ({}), written where absent (`if_not_exists`), with \
         the index keys made of them; an existing item keeps its own values and keys. Add the \
         update's other actions with its setters, and send it.",
        if taken.is_empty() {
            "none besides the key".to_owned()
        } else {
            taken
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    // `key`, unless a field argument has that name.
    let key = if taken.iter().any(|f| g.field(f).ident == "key") {
        format_ident!("__key")
    } else {
        format_ident!("key")
    };
    quote! {
        #[doc = #doc]
        pub fn upsert(#key: #p::Key<#ident>, #(#params),*) -> #ty {
            #[allow(unused_mut)]
            let mut __update = #p::UpdateDsl::upsert(#ident::update(#key));
            #body
            __update
        }
    }
}

/// What `upsert` needs for the keys of non-sparse indexes: a helper writing the keys that the
/// primary key alone determines (no update sets them: the primary key never changes), the call
/// to it, and the keys only the update's values can give, which the update must set.
fn upsert_index_keys(g: &Gen<'_>) -> (TokenStream, TokenStream, Vec<TokenStream>) {
    let p = &g.p;
    let mut needs = Vec::new();
    let mut own: Vec<(usize, bool, bool)> = Vec::new();
    for (i, ix) in g.indexes.iter().enumerate() {
        if ix.fields().any(|f| sparse_field(g, f)) {
            continue;
        }
        let name_const = &ix.name_const;
        let roles = [
            (ix.own_pk.then_some(ix.pk), &ix.pk_name, "partition", true),
            (ix.sk, &ix.sk_name, "sort", false),
        ];
        let (mut pk, mut sk) = (false, false);
        for (template, attr, role, is_pk) in roles {
            let Some(template) = template else { continue };
            let outside: Vec<&str> = template
                .fields()
                .filter(|f| !g.primary.contains(*f))
                .collect();
            if outside.is_empty() {
                if is_pk {
                    pk = true;
                } else {
                    sk = true;
                }
                continue;
            }
            let text = template.text();
            needs.push(quote! {
                #p::IndexKeyNeed::new(#attr, #name_const, #role, #text, &[#(#outside),*])
            });
        }
        if pk || sk {
            own.push((i, pk, sk));
        }
    }
    if own.is_empty() {
        return (TokenStream::new(), TokenStream::new(), needs);
    }
    let mut primary: Vec<&str> = Vec::new();
    for &(i, pk, sk) in &own {
        let ix = &g.indexes[i];
        let fields = ix
            .pk
            .fields()
            .filter(|_| pk)
            .chain(ix.sk.into_iter().flat_map(|t| t.fields()).filter(|_| sk));
        for f in fields {
            if !primary.contains(&f) {
                primary.push(f);
            }
        }
    }
    let segments = primary_fields(g, &primary);
    let writes = own.iter().map(|&(i, pk, sk)| {
        g.insert_index(
            &g.indexes[i],
            pk,
            sk,
            None,
            &quote!(__update.update.key()),
            |f| {
                let v = format_ident!("__p_{}", f);
                quote!(&#v)
            },
        )
    });
    let ty = format_ident!("{}Update", g.ident);
    let helper = quote! {
        fn __dyno_upsert_index_keys(__update: &mut #ty) -> #p::Result<()> {
            #segments
            let mut __item = #p::Item::new();
            #(#writes)*
            __update.update.set_index_keys(__item, &[], false);
            #p::Ok(())
        }
    };
    let call = quote! {
        let r = __dyno_upsert_index_keys(&mut self);
        self.update.record(r);
    };
    (helper, call, needs)
}

/// `let __p_<field>: T = ...;` for each primary-key field, read from the update's key: an index
/// key made of them is encoded by the same key function as `to_item`'s.
fn primary_fields(g: &Gen<'_>, fields: &[&str]) -> TokenStream {
    let p = &g.p;
    let lets = fields.iter().map(|f| {
        let v = format_ident!("__p_{}", f);
        let ty = g.key_arg_ty(f);
        quote! {
            let #v: #ty = #p::primary_field(
                (&#p::Recover::<#ty>::new()).recover(__update.update.key(), __ENTITY, #f, __KEY_SOURCES),
                __ENTITY,
                #f,
            )?;
        }
    });
    quote! {
        #(#lets)*
    }
}

/// `set_<primary-key field>`: present so that calling it names the fix, under a bound no type
/// meets (a trait without impls whose `on_unimplemented` message is the error).
fn primary_key_setter(g: &Gen<'_>, fid: &Ident, name: &str) -> TokenStream {
    let ident = g.ident;
    let ty = format_ident!("{}Update", ident);
    let tr = format_ident!("__{}Update{}", ident, crate::case::pascal(name));
    let set = format_ident!("set_{}", fid);
    let message =
        format!("`{name}` is part of the primary key of `{ident}`; delete and re-create the item");
    let note = format!(
        "a key never changes: delete the item (`{ident}::delete(key)`) and create it with the new `{name}`"
    );
    quote! {
        /// Not implemented by any type: see the method using it.
        #[diagnostic::on_unimplemented(message = #message, label = "a primary-key field cannot be updated", note = #note)]
        pub trait #tr {}

        #[automatically_derived]
        impl #ty {
            #[doc(hidden)]
            pub fn #set<V: #tr>(self, _value: V) -> Self {
                self
            }
        }
    }
}
