//! `Entity::MODEL`: what the runtime model (`dyno_core::model`) needs beyond the trait's other
//! constants: each stored field (name, attribute, type as written, role, whether a key uses
//! it), each index's query name, and the fields a multi-attribute index is keyed by.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::Gen;

impl Gen<'_> {
    /// The `const MODEL: EntityParts` item of the `Entity` impl.
    pub(super) fn model_parts(&self) -> TokenStream {
        let p = &self.p;
        let mapped_fields: Vec<String> = (self.m.indexes.iter())
            .filter_map(|i| i.fields.as_ref())
            .flat_map(|m| m.partition.iter().chain(&m.sort))
            .map(ToString::to_string)
            .collect();
        let fields = self.m.fields.iter().filter(|f| f.is_stored()).map(|f| {
            let name = f.name();
            let attr = &f.attr_name;
            // The TTL field is stored under the table's TTL attribute.
            let attr = if f.ttl.get() {
                quote!(__TTL_NAME)
            } else {
                quote!(#attr)
            };
            let ty = f.ty.to_token_stream().to_string().replace(' ', "");
            let role = if f.version.get() {
                quote!(Version)
            } else if f.created_at.get() {
                quote!(CreatedAt)
            } else if f.updated_at.get() {
                quote!(UpdatedAt)
            } else if f.ttl.get() {
                quote!(Ttl)
            } else if f.generated.get() {
                quote!(Generated)
            } else {
                quote!(Plain)
            };
            let in_key = self.keyed.contains(&name) || mapped_fields.contains(&name);
            quote!((#name, #attr, #ty, #p::FieldRole::#role, #in_key))
        });
        let queries = self.m.indexes.iter().map(|i| {
            let (name, method, named) = (&i.name, i.method(), i.query.is_some());
            quote!((#name, #method, #named))
        });
        let mapped = self.m.indexes.iter().filter_map(|i| {
            let m = i.fields.as_ref()?;
            let name = &i.name;
            let part = m.partition.iter().map(ToString::to_string);
            let sort = m.sort.iter().map(ToString::to_string);
            Some(quote!((#name, &[#(#part),*], &[#(#sort),*])))
        });
        quote! {
            const MODEL: #p::EntityParts = #p::EntityParts {
                fields: &[#(#fields),*],
                queries: &[#(#queries),*],
                mapped: &[#(#mapped),*],
            };
        }
    }
}
