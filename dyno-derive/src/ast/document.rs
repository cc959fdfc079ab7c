//! `#[derive(Document)]`: a struct stored as a map attribute, and its fields.

use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::attr::{
    for_each_dyno_attr, key_name, no_value, nonempty_string, unknown_key_continue, Attr, Flag,
};
use crate::ctxt::Ctxt;

use super::no_generics;

/// A document: a struct with named fields.
pub(crate) struct DocumentInput<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub fields: Vec<DocumentField<'a>>,
}

/// One field of a document.
pub(crate) struct DocumentField<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The map key the field is stored under.
    pub attr_name: String,
    pub skip: bool,
    pub serde: bool,
    pub default: bool,
}

const FIELD_KEYS: &[&str] = &["rename", "skip", "serde", "default"];

impl<'a> DocumentInput<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        no_generics(cx, input, "Document");
        for_each_dyno_attr(cx, &input.attrs, |meta| {
            unknown_key_continue(cx, &meta, "#[dyno(...)] on a document", &[])
        });
        let Data::Struct(syn::DataStruct {
            fields: Fields::Named(named),
            ..
        }) = &input.data
        else {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(Document)]` needs a struct with named fields (it is stored as a map, one entry per field)",
            );
            return None;
        };
        let named = &named.named;
        let fields: Vec<DocumentField<'a>> = named
            .iter()
            .filter_map(|f| DocumentField::from_ast(cx, f))
            .collect();
        for (i, f) in fields.iter().enumerate() {
            if f.skip {
                continue;
            }
            if let Some(other) = fields[..i]
                .iter()
                .find(|o| !o.skip && o.attr_name == f.attr_name)
            {
                cx.error_spanned_by(
                    f.ident,
                    format!(
                        "`{}` and `{}` are both stored as `{}`; rename one with `#[dyno(rename = \"...\")]`",
                        other.ident, f.ident, f.attr_name
                    ),
                );
            }
        }
        Some(DocumentInput {
            ident: &input.ident,
            vis: &input.vis,
            fields,
        })
    }
}

impl<'a> DocumentField<'a> {
    fn from_ast(cx: &Ctxt, field: &'a syn::Field) -> Option<Self> {
        let ident = field.ident.as_ref()?;
        let mut rename: Attr<LitStr> = Attr::none("rename");
        let mut skip = Flag::none("skip");
        let mut serde = Flag::none("serde");
        let mut default = Flag::none("default");
        for_each_dyno_attr(cx, &field.attrs, |meta| {
            let flag = match key_name(&meta).as_str() {
                "rename" => {
                    rename.set(cx, &meta.path, nonempty_string(&meta)?);
                    return Ok(());
                }
                "skip" => &mut skip,
                "serde" => &mut serde,
                "default" => &mut default,
                _ => {
                    return unknown_key_continue(
                        cx,
                        &meta,
                        "#[dyno(...)] on a document field",
                        FIELD_KEYS,
                    )
                }
            };
            no_value(&meta)?;
            flag.set(cx, &meta.path);
            Ok(())
        });
        Some(DocumentField {
            ident,
            ty: &field.ty,
            attr_name: rename
                .get()
                .map_or_else(|| ident.unraw().to_string(), |l| l.value()),
            skip: skip.get(),
            serde: serde.get(),
            default: default.get(),
        })
    }
}
