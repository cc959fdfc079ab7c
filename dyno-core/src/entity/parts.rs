//! What the derive tells the model of an entity beyond the trait's key constants: its fields
//! and their roles, and the names of its queries. The model (`crate::model`) reads them; they
//! live here, below it, because the `Entity` trait names them.

/// What a field is, beyond its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldRole {
    /// An ordinary attribute.
    Plain,
    /// The optimistic-locking version.
    Version,
    /// The creation stamp.
    CreatedAt,
    /// The update stamp.
    UpdatedAt,
    /// The TTL field (stored as epoch seconds under the table's TTL attribute).
    Ttl,
    /// An id generated on the first write.
    Generated,
}

#[doc(hidden)]
/// What `#[derive(Entity)]` adds to the trait's constants for the model (see
/// [`Entity::MODEL`](crate::Entity::MODEL)): fields, stamps and query names. Not public API.
#[derive(Debug, Clone, Copy)]
pub struct EntityParts {
    /// `(field, attribute, type, role, in a key)`.
    pub fields: &'static [(&'static str, &'static str, &'static str, FieldRole, bool)],
    /// `(index, query name, named)`.
    pub queries: &'static [(&'static str, &'static str, bool)],
    /// For each multi-attribute index, `(index, partition fields, sort fields)`.
    pub mapped: &'static [(
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
    )],
}

impl EntityParts {
    /// What a hand-written entity has: nothing beyond the trait's constants.
    pub const NONE: EntityParts = EntityParts {
        fields: &[],
        queries: &[],
        mapped: &[],
    };
}
