//! `#[derive(Collection)]`: the entities read together from one partition.

use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::attr::{
    for_each_dyno_attr, key_name, nonempty_string, path_value, unknown_key_continue, Attr,
};
use crate::ctxt::Ctxt;

use super::no_generics;

/// A collection: an enum of entities, or a struct of `Option<E>` / `Vec<E>` fields.
pub(crate) struct CollectionInput<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub partition: Option<syn::Path>,
    /// `index = GSI1`: the index the collection reads (a global or local index every member
    /// has a key in); the table when absent.
    pub index: Option<syn::LitStr>,
    /// `query = "profile"`: the access pattern's name, the query constructor's name in place of
    /// `query` (`UserItem::profile(..)`).
    pub query: Option<syn::LitStr>,
    pub shape: CollectionShape<'a>,
}

/// The two shapes.
pub(crate) enum CollectionShape<'a> {
    /// `enum UserItem { User(User), Order(Order) }`
    Enum(Vec<(&'a Ident, &'a Type)>),
    /// `struct UserWithOrders { user: Option<User>, orders: Vec<Order> }`
    Struct(Vec<GroupField<'a>>),
}

/// A field of a struct-of-vectors collection.
pub(crate) struct GroupField<'a> {
    pub ident: &'a Ident,
    pub entity: &'a Type,
    pub many: bool,
}

impl<'a> CollectionInput<'a> {
    /// The query constructor's name: `query = "..."`, else `query`.
    pub(crate) fn method(&self) -> String {
        self.query
            .as_ref()
            .map_or_else(|| "query".to_owned(), syn::LitStr::value)
    }

    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Collection");
        let mut partition = Attr::none("partition");
        let mut index = Attr::none("index");
        let mut query = Attr::none("query");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "partition" => partition.set(cx, &meta.path, path_value(&meta)?),
                "query" => query.set(cx, &meta.path, nonempty_string(&meta)?),
                "index" => {
                    let value = meta.value()?;
                    let name = if value.peek(syn::LitStr) {
                        value.parse::<syn::LitStr>()?
                    } else {
                        let ident: Ident = value.parse()?;
                        syn::LitStr::new(&ident.to_string(), ident.span())
                    };
                    index.set(cx, &meta.path, name);
                }
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a collection",
                        &["partition", "index", "query"],
                    )
                }
            }
            Ok(())
        });
        let shape = match &input.data {
            Data::Enum(e) => {
                let mut out = Vec::new();
                for v in &e.variants {
                    match &v.fields {
                        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                            out.push((&v.ident, &u.unnamed[0].ty))
                        }
                        _ => cx.error_spanned_by(
                            v,
                            format!(
                                "collection variants wrap one entity each, as in `{}(Order)`",
                                v.ident
                            ),
                        ),
                    }
                }
                if e.variants.is_empty() {
                    cx.error_spanned_by(&input.ident, "a collection needs at least one entity");
                }
                CollectionShape::Enum(out)
            }
            Data::Struct(s) => {
                let Fields::Named(n) = &s.fields else {
                    cx.error_spanned_by(&input.ident, "a collection struct needs named fields of type `Option<Entity>` or `Vec<Entity>`");
                    return None;
                };
                let mut out = Vec::new();
                for f in &n.named {
                    let (entity, many) = if let Some(t) = crate::ty::option_inner(&f.ty) {
                        (t, false)
                    } else if let Some(t) = crate::ty::vec_elem(&f.ty) {
                        (t, true)
                    } else {
                        cx.error_spanned_by(&f.ty, "a collection field is `Option<Entity>` (at most one item) or `Vec<Entity>`");
                        continue;
                    };
                    if let Some(ident) = &f.ident {
                        out.push(GroupField {
                            ident,
                            entity,
                            many,
                        });
                    }
                }
                if n.named.is_empty() {
                    cx.error_spanned_by(&input.ident, "a collection needs at least one entity");
                }
                CollectionShape::Struct(out)
            }
            Data::Union(_) => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(Collection)]` works on enums and structs",
                );
                return None;
            }
        };
        Some(CollectionInput {
            ident: &input.ident,
            vis: &input.vis,
            partition: partition.get(),
            index: index.get(),
            query: query.get(),
            shape,
        })
    }
}
