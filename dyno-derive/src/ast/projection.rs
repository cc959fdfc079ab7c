//! `#[derive(Projection)]`: the entity a projection reads and its fields.

use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::attr::{
    for_each_dyno_attr, key_name, no_value, path_value, unknown_key_continue, Attr, Flag,
};
use crate::ctxt::Ctxt;

use super::no_generics;

/// A projection: a subset of an entity's fields.
pub(crate) struct ProjectionInput<'a> {
    pub ident: &'a Ident,
    pub entity: syn::Path,
    pub fields: Vec<ProjectionField<'a>>,
}

/// One projected field.
pub(crate) struct ProjectionField<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub serde: bool,
    pub default: bool,
}

impl<'a> ProjectionInput<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Projection");
        let mut entity = Attr::none("entity");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            match key_name(&meta).as_str() {
                "entity" | "projection_of" => entity.set(cx, &meta.path, path_value(&meta)?),
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a projection",
                        &["entity"],
                    )
                }
            }
            Ok(())
        });
        let fields = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(n) => n
                    .named
                    .iter()
                    .filter_map(|f| {
                        let mut serde = Flag::none("serde");
                        let mut default = Flag::none("default");
                        for_each_dyno_attr(cx, &f.attrs, |meta| {
                            let flag = match key_name(&meta).as_str() {
                                "serde" => &mut serde,
                                "default" => &mut default,
                                _ => {
                                    return unknown_key_continue(
                                        cx,
                                        &meta,
                                        "#[dyno(...)] on a projection field",
                                        &["serde", "default"],
                                    )
                                }
                            };
                            no_value(&meta)?;
                            flag.set(cx, &meta.path);
                            Ok(())
                        });
                        Some(ProjectionField {
                            ident: f.ident.as_ref()?,
                            ty: &f.ty,
                            serde: serde.get(),
                            default: default.get(),
                        })
                    })
                    .collect(),
                _ => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Projection)]` needs a struct with named fields",
                    );
                    return None;
                }
            },
            _ => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(Projection)]` needs a struct with named fields",
                );
                return None;
            }
        };
        let Some(entity) = entity.get() else {
            cx.error_spanned_by(
                &input.ident,
                "missing entity: add `#[dyno(entity = Order)]` naming the entity this projects",
            );
            return None;
        };
        Some(ProjectionInput {
            ident: &input.ident,
            entity,
            fields,
        })
    }
}
