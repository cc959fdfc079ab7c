//! `#[derive(Collection)]`: several entities of one partition, read with one query.
//!
//! - on an enum (`enum UserItem { User(User), Order(Order) }`): `FromItem` picks the variant by
//!   each entity's `is_entity`, and `UserItem::query(user_id)` queries the partition;
//! - on a struct of `Option<E>` / `Vec<E>` fields: `UserWithOrders::query(user_id).get(&store)`
//!   reads the partition and groups the items by entity.
//!
//! The partition arguments are those of the first entity's partition key (or the one named by
//! `#[dyno(partition = Entity)]`); all entities must live in the same table.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, Type};

use super::{dummy_const, private};
use crate::ast::{CollectionInput, CollectionShape};
use crate::ctxt::Ctxt;

pub(super) fn generate(cx: &Ctxt, input: &DeriveInput) -> Option<TokenStream> {
    let model = CollectionInput::from_ast(cx, input)?;
    if cx.has_errors() {
        return None;
    }
    let p = private();
    let ident = model.ident;
    let vis = model.vis;
    let variants: Vec<(Ident, &Type)> = match &model.shape {
        CollectionShape::Enum(v) => v.iter().map(|(i, t)| ((*i).clone(), *t)).collect(),
        CollectionShape::Struct(fields) => fields
            .iter()
            .enumerate()
            .map(|(i, f)| (format_ident!("F{}", i), f.entity))
            .collect(),
    };
    let Some((_, first)) = variants.first() else {
        cx.error_spanned_by(ident, "a collection needs at least one entity");
        return None;
    };
    let partition: TokenStream = match &model.partition {
        Some(path) => quote!(#path),
        None => quote!(#first),
    };
    let mut checks = TokenStream::new();
    for (_, ty) in &variants {
        let span = ty.span();
        checks.extend(quote_spanned! {span=>
            const _: fn() = #p::assert_same_table::<#partition, #ty>;
        });
    }

    // The item type the query decodes: the enum itself, or a hidden enum for the struct shape.
    let (item_ty, item_def) = match &model.shape {
        CollectionShape::Enum(_) => (ident.clone(), TokenStream::new()),
        CollectionShape::Struct(_) => {
            let hidden = format_ident!("__Dyno{}Item", ident);
            let vs = variants.iter().map(|(v, t)| quote!(#v(#t)));
            let def = quote! {
                #[doc(hidden)]
                #[allow(non_camel_case_types, missing_debug_implementations)]
                #vis enum #hidden { #(#vs),* }
            };
            (hidden, def)
        }
    };
    let names = variants
        .iter()
        .map(|(_, t)| quote!(#t).to_string().replace(' ', ""))
        .collect::<Vec<_>>()
        .join(", ");
    let expected = format!("an item of one of {names}");
    let accepts = variants
        .iter()
        .map(|(_, t)| quote!(<#t as #p::FromItem>::accepts(item)));
    let decode = variants.iter().map(|(v, t)| {
        quote! {
            if <#t as #p::FromItem>::accepts(item) {
                return <#t as #p::FromItem>::from_item(item).map(#item_ty::#v);
            }
        }
    });
    let members = variants
        .iter()
        .map(|(_, t)| quote!(impl #p::FilterBy<#t> for #item_ty {}));
    let from_item = quote! {
        #[automatically_derived]
        impl #p::FromItem for #item_ty {
            fn accepts(item: &#p::Item) -> bool {
                #(#accepts)||*
            }
            fn ttl_attribute() -> ::core::option::Option<&'static str> {
                <#partition as #p::FromItem>::ttl_attribute()
            }
            fn from_item(item: &#p::Item) -> #p::Result<Self> {
                #(#decode)*
                ::core::result::Result::Err(#p::Error::decode(#expected, #p::describe_item_type::<#partition>(item)))
            }
        }
        #(#[automatically_derived] #members)*
    };

    let query_ty = format_ident!("{}Query", ident);
    let wrap = match &model.shape {
        CollectionShape::Enum(_) => quote!(query),
        CollectionShape::Struct(_) => quote!(#query_ty { query }),
    };
    let ctor = quote! {
        /// Queries one partition (the arguments are the partition key fields of the first entity,
        /// a tuple when there are several) and returns every entity in it.
        pub fn query<A>(partition: A) -> #query_ty
        where
            #partition: #p::PartitionKeyOf<A>,
        {
            let query = #p::Query::partition::<#partition>(<#partition as #p::PartitionKeyOf<A>>::partition_key(partition));
            #wrap
        }
    };
    let debug_name = query_ty.to_string();
    let (query_def, run) = match &model.shape {
        CollectionShape::Enum(_) => {
            let doc = format!(
                "A query returning every `{ident}` in one partition; built by [`{ident}::query`]."
            );
            let def = quote! {
                #[doc = #doc]
                #vis type #query_ty = ::dyno_core::ops::Query<#ident>;
            };
            (def, TokenStream::new())
        }
        CollectionShape::Struct(fields) => {
            let doc = format!("A query reading one partition into a `{ident}`; built by [`{ident}::query`], run by `.get(&store)`.");
            let def = quote! {
                #[doc = #doc]
                #[must_use = "a query does nothing until it is run with `.get(&store)`"]
                #vis struct #query_ty {
                    query: #p::Query<#item_ty>,
                }
            };
            let inits = fields.iter().map(|f| {
                let fid = f.ident;
                if f.many {
                    quote!(#fid: ::std::vec::Vec::new())
                } else {
                    quote!(#fid: ::core::option::Option::None)
                }
            });
            let arms = fields.iter().zip(&variants).map(|(f, (v, t))| {
                let fid = f.ident;
                if f.many {
                    quote!(#item_ty::#v(x) => out.#fid.push(x),)
                } else {
                    let msg = format!("the partition holds several `{}` items but `{ident}.{fid}` is an `Option`: make it a `Vec`", quote!(#t).to_string().replace(' ', ""));
                    quote! {
                        #item_ty::#v(x) => {
                            if out.#fid.is_some() {
                                return ::core::result::Result::Err(#p::Error::validation(#msg));
                            }
                            out.#fid = ::core::option::Option::Some(x);
                        }
                    }
                }
            });
            let run = quote! {
                #[automatically_derived]
                impl ::core::fmt::Debug for #query_ty {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.debug_struct(#debug_name).field("query", &self.query).finish()
                    }
                }
                #[automatically_derived]
                impl #query_ty {
                    /// Keeps only items matching `condition`, built from one entity's fields.
                    pub fn filter<E>(self, condition: #p::Cond<E>) -> Self
                    where
                        #item_ty: #p::FilterBy<E>,
                    {
                        #query_ty { query: self.query.filter(condition) }
                    }

                    /// Strongly consistent read.
                    pub fn consistent(self) -> Self {
                        #query_ty { query: self.query.consistent() }
                    }

                    /// Asks the store for at most `n` items per page.
                    pub fn page_size(self, n: u32) -> Self {
                        #query_ty { query: self.query.page_size(n) }
                    }

                    /// Reads the whole partition (all pages) and groups it.
                    pub async fn get<St: #p::Store + ?::core::marker::Sized>(self, store: &St) -> #p::Result<#ident> {
                        let items = self.query.all(store).await?;
                        let mut out = #ident { #(#inits),* };
                        for item in items {
                            match item { #(#arms)* }
                        }
                        ::core::result::Result::Ok(out)
                    }
                }
            };
            (def, run)
        }
    };

    let body = dummy_const(quote! {
        #checks
        #from_item
        #[automatically_derived]
        impl #ident {
            #ctor
        }
        #run
    });
    Some(quote! {
        #item_def
        #query_def
        #body
    })
}

/// On error: a `FromItem` impl that accepts nothing.
pub(super) fn stub(input: &DeriveInput) -> TokenStream {
    let p = private();
    let ident = &input.ident;
    dummy_const(quote! {
        impl #p::FromItem for #ident {
            fn accepts(_: &#p::Item) -> bool {
                false
            }
            fn from_item(_: &#p::Item) -> #p::Result<Self> {
                ::core::result::Result::Err(#p::Error::validation("invalid Collection derive"))
            }
        }
    })
}
