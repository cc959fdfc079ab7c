//! The item codec: `to_item` (stamps decided once per write, then attributes and keys) and
//! `from_item` (attributes, key fields recovered from keys when absent, the stored primary key
//! compared with the one the decoded fields encode to, which is how a primary-key field's
//! attribute is checked against the key; index-key fields are compared with their index keys).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Gen;

impl Gen<'_> {
    /// `to_item`. Timestamps are decided first, once per write, from one clock reading:
    /// `__r_<field>` is the value the item holds (now, for `updated_at` and an unset
    /// `created_at`), and both the attribute and every key segment made from the field use it.
    pub(super) fn encode_fn(&self) -> TokenStream {
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
            if f.created_at.get() || f.updated_at.get() || f.generated.get() {
                let r = format_ident!("__r_{}", f.name());
                let now = format_ident!("__now_{}", f.name());
                let decide = if f.generated.get() {
                    quote!((&#p::Generate::<#ty>::new()).decide(&self.#fid))
                } else if f.created_at.get() {
                    quote!(if (&__stamp).is_unset(&self.#fid) { (&__stamp).at(__clock) } else { #p::None })
                } else {
                    quote!((&__stamp).at(__clock))
                };
                let decide = if f.generated.get() {
                    decide
                } else {
                    quote!({ let __stamp = #p::Stamp::<#ty>::new(); #decide })
                };
                stamps.extend(quote! {
                    let #now: #p::Option<#ty> = #decide;
                    let #r: &#ty = match &#now {
                        #p::Some(now) => now,
                        #p::None => &self.#fid,
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
        // One clock reading per write: `created_at` and `updated_at` of a new item are equal.
        if self
            .m
            .fields
            .iter()
            .any(|f| f.is_stored() && (f.created_at.get() || f.updated_at.get()))
        {
            stamps = quote! {
                let __clock = ::std::time::SystemTime::now();
                #stamps
            };
        }
        let primary = self.insert_primary_with(|f| self.primary_value(f, self.self_ref(f)));
        let mut indexes = TokenStream::new();
        for ix in &self.indexes {
            indexes.extend(
                self.insert_index(ix, true, true, None, &quote!(&__item), |f| {
                    self.primary_value(f, self.self_ref(f))
                }),
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
                    #p::String::from(<#table as #p::Table>::ENTITY_ATTRIBUTE),
                    #p::AttributeValue::S(#p::String::from(__ENTITY)),
                );
                #p::Ok(__item)
            }
        }
    }

    /// `value` (a `&F` of field `name`) as a key function argument: a generated id is an
    /// `Option` whose keys need the id (`?` on the error of an unset one).
    pub(super) fn primary_value(&self, name: &str, value: TokenStream) -> TokenStream {
        if self.field(name).generated.get() {
            let p = &self.p;
            quote!(#p::generated_key(#value, __ENTITY, #name)?)
        } else {
            value
        }
    }

    /// The index keys `from_item` compares whole with the ones the decoded fields encode to
    /// (`(attribute constant, key function call)` pairs for `at_stored_key`'s `rebuild`): the
    /// index keys whose fields are all required, except sharded partition keys. And the key
    /// fields that comparison, or the primary key's, checks: those whose first key attribute (the
    /// one `Recover` reads) is compared whole; other key fields are compared with their key one
    /// by one.
    fn index_key_checks(
        &self,
    ) -> (
        Vec<(TokenStream, TokenStream)>,
        std::collections::BTreeSet<String>,
    ) {
        let mut checks = Vec::new();
        let mut checked = self.primary.clone();
        let mut seen = self.primary.clone();
        // In `__KEY_SOURCES` order: `(template, constant, attribute, sharded)`.
        let keys = self.indexes.iter().flat_map(|ix| {
            let pk = ix
                .own_pk
                .then_some((ix.pk, &ix.pk_t, &ix.pk_name, ix.shards > 0));
            let sk = ix.sk.map(|t| (t, &ix.sk_t, &ix.sk_name, false));
            pk.into_iter().chain(sk)
        });
        for (t, tc, name, sharded) in keys {
            let whole = !sharded && t.fields().all(|f| !self.is_optional(f));
            if whole {
                let write = Self::key_write(t, tc, |f| {
                    let fid = self.field(f).ident;
                    quote!(&__e.#fid)
                });
                checks.push((quote!(#name), write));
            }
            for f in t.fields() {
                if seen.insert(f.to_owned()) && whole {
                    checked.insert(f.to_owned());
                }
            }
        }
        (checks, checked)
    }

    /// `from_item`: one pass over the item's attributes puts each one the entity reads into its
    /// field's slot (a `match` on the name instead of a hash lookup per field), then each field
    /// is decoded from its slot, falling back to the key attributes for key fields.
    pub(super) fn decode_fn(&self) -> TokenStream {
        let p = &self.p;
        let ident = self.ident;
        // One slot per stored field: its attribute's value, found in the one pass over the item.
        let mut n_slots = 0usize;
        let mut by_attribute: Vec<(String, Vec<TokenStream>)> = Vec::new();
        let mut ttl_check = TokenStream::new();
        let mut inits = TokenStream::new();
        let (index_checks, checked) = self.index_key_checks();
        for f in &self.m.fields {
            let fid = f.ident;
            let ty = f.ty;
            let a = &f.attr_name;
            let name = f.name();
            let slot_index = proc_macro2::Literal::usize_unsuffixed(n_slots);
            let slot = quote!(__v[#slot_index]);
            if !f.skip.get() {
                n_slots += 1;
                if f.ttl.get() {
                    // The table's TTL name is a constant the macro cannot see: another field may
                    // share it, so it is not a `match` arm.
                    ttl_check = quote! {
                        if __name.as_str() == __TTL_NAME {
                            #slot = #p::Some(__value);
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
                match &f.default {
                    Some(Some(path)) => {
                        quote!(#p::attr_or_else_in::<#p::Serde<#ty>>(#slot, __ENTITY, #a, || #p::Serde(#path()))?.0)
                    }
                    Some(None) => {
                        quote!(#p::attr_or_default_in::<#p::Serde<#ty>>(#slot, __ENTITY, #a)?.0)
                    }
                    None => quote!(#p::attr_in::<#p::Serde<#ty>>(#slot, __ENTITY, #a)?.0),
                }
            } else if self.keyed.contains(&name) {
                let inner = self.key_arg_ty(&name);
                // A `fn` pointer (one per field type), not a closure per field.
                let args = quote!(#slot, item, __ENTITY, #name, #a, __KEY_SOURCES, (&#p::Recover::<#inner>::new()).recover_fn());
                if self.is_optional(&name) {
                    quote!(#p::key_field_opt_at::<#inner>(#args)?)
                } else if checked.contains(&name) {
                    // Checked against its key by `at_stored_key`, below.
                    quote!(#p::key_field_attr_at::<#ty>(#args)?)
                } else {
                    quote!(#p::key_field_at::<#ty>(#args)?)
                }
            } else if let Some(Some(path)) = &f.default {
                quote!(#p::attr_or_else_in::<#ty>(#slot, __ENTITY, #a, #path)?)
            } else if f.default.is_some() || f.version.get() {
                quote!(#p::attr_or_default_in::<#ty>(#slot, __ENTITY, #a)?)
            } else {
                quote!(#p::attr_in::<#ty>(#slot, __ENTITY, #a)?)
            };
            inits.extend(quote!(#fid: #value,));
        }
        let arms = by_attribute
            .iter()
            .map(|(a, slots)| quote!(#a => { #(#slots = #p::Some(__value);)* }));
        // Attributes no field reads may be key attributes: kept for `at_stored_key`'s check.
        let offer = quote!(__keys.offer(__name, __value));
        let offer = if by_attribute.is_empty() {
            quote!(#offer;)
        } else {
            quote!(match __name.as_str() { #(#arms)* _ => #offer, })
        };
        let (index_names, index_checks): (Vec<_>, Vec<_>) = index_checks.into_iter().unzip();
        let index_arms = (2usize..).zip(&index_checks).map(|(i, write)| {
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            quote!(#i => #write,)
        });
        // The stored primary key must be the one the decoded fields encode to (a padded integer
        // or an alias there would send a write of what was read to another key).
        let field = |f: &str| {
            let fid = self.field(f).ident;
            self.primary_value(f, quote!(&__e.#fid))
        };
        let pk = Self::key_write(&self.m.pk, &format_ident!("__PK_T"), field);
        let sk = match &self.m.sk {
            Some(t) => Self::key_write(t, &format_ident!("__SK_T"), field),
            None => quote!(#p::Ok(())),
        };
        let slots = (n_slots > 0).then(|| {
            quote! {
                let mut __v: [#p::Option<&#p::AttributeValue>; #n_slots] = [#p::None; #n_slots];
            }
        });
        quote! {
            fn from_item(item: &#p::Item) -> #p::Result<Self> {
                #slots
                let mut __keys = #p::StoredKeys::new([__PK_NAME, __SK_NAME, #(#index_names),*]);
                for (__name, __value) in item {
                    #ttl_check
                    #offer
                }
                // Every key compared with its stored one, written by one function (not a
                // closure per key: each would be an item of its own to compile).
                fn __rebuild(__e: &#ident, __i: ::core::primitive::usize, __k: &mut #p::String) -> #p::Result<()> {
                    match __i {
                        0 => #pk,
                        1 => #sk,
                        #(#index_arms)*
                        _ => #p::Ok(()),
                    }
                }
                #p::at_stored_key(item, &__keys, #ident { #inits }, __rebuild)
            }
        }
    }
}
