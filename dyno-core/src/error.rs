//! The one error type of dyno.

use std::fmt;
use std::sync::Arc;

use crate::item::{describe, Item, TableKey, WriteRequest};

/// An error from a lower layer (the SDK, serde_dynamo), kept as the `source`. Shared, so that
/// [`Error`] is `Clone`: every copy of an error keeps the same source chain.
pub type SourceError = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// `Result` with dyno's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in dyno.
///
/// Messages say what was expected, what was found and where; lower-level errors are kept as
/// [`std::error::Error::source`] and never repeated in the message.
///
/// `Error` is `Clone` (sources are shared, see [`SourceError`]), so a result shared by several
/// waiters, or an error kept by a value and returned each time it is used, is a plain clone.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A condition expression evaluated to false. `item` holds the item as it was when the request
    /// asked for it (`ReturnValuesOnConditionCheckFailure = ALL_OLD`) and it existed.
    #[error("condition check failed{}", entity_suffix(.entity))]
    ConditionFailed {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// The item as it was, when asked for and present.
        item: Option<Item>,
    },

    /// A typed write of `entity` found the item at its key owned by another entity (`found`, from
    /// the table's entity-type attribute) and changed nothing: entities that share a key shape
    /// never modify or delete each other's items. The check is a condition of the write itself,
    /// so it is atomic.
    #[error(
        "the item at this key is a {found}, not a {entity}: the write of {entity} changed nothing"
    )]
    WrongEntity {
        /// The entity the write was for.
        entity: &'static str,
        /// The entity type the stored item has.
        found: String,
    },

    /// A transaction was cancelled; `reasons` has one entry per action, in order.
    #[error("transaction cancelled: {}", CancellationSummary(.reasons))]
    TransactionCanceled {
        /// One reason per action, in the order of the request.
        reasons: Vec<CancellationReason>,
    },

    /// The request was throttled (provisioned throughput or request rate exceeded).
    #[error("request throttled: {message}")]
    Throttled {
        /// What the service said.
        message: String,
        /// The service error, when there was one.
        #[source]
        source: Option<SourceError>,
    },

    /// The request was invalid (a DynamoDB `ValidationException` or a check dyno made before sending).
    #[error("validation error: {message}")]
    Validation {
        /// What is wrong, and where.
        message: String,
    },

    /// The named table or index does not exist.
    #[error("resource not found: {message}")]
    ResourceNotFound {
        /// What the service said.
        message: String,
    },

    /// The item a write needs does not exist: an update without upsert of a missing item.
    /// Nothing was written.
    #[error("{} not found: {message}", entity.unwrap_or("item"))]
    NotFound {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// Which item, and what was not done.
        message: String,
    },

    /// The table already exists (from `CreateTable`).
    #[error("resource in use: {message}")]
    ResourceInUse {
        /// What the service said.
        message: String,
    },

    /// An item is larger than DynamoDB's 400 KB limit, detected before sending.
    #[error("item of {} is {size} bytes, over DynamoDB's limit of {limit} bytes", entity.unwrap_or("unknown entity"))]
    ItemTooLarge {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// The size computed with DynamoDB's formula.
        size: usize,
        /// The limit (409,600 bytes).
        limit: usize,
    },

    /// Arithmetic on a stored integer would leave its field's type (`add_stock(5)` on a `u32` at
    /// `u32::MAX - 1`, a `u32` below zero, a version at `u64::MAX`): the write carries a condition
    /// that keeps the result in range, and nothing was written.
    #[error("{}.{field} out of range: {message}; nothing was written", entity.unwrap_or("item"))]
    OutOfRange {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// The field (attribute) whose value would leave its type.
        field: String,
        /// The operation and the type's bounds.
        message: String,
    },

    /// A typed update rebuilt an index key from values it was given rather than writing them
    /// (the other fields of a multi-field index key, a created-at stamp: see
    /// `set_<field>_given`), and the stored item holds another value for `field`: the item
    /// changed since it was read. The given values are conditions of the write, so nothing was
    /// written (a stale read cannot revert a concurrent change); read the item again and retry.
    /// [`Error::is_condition_failed`] is true for it.
    #[error(
        "{}: `{field}` is not the value given to rebuild {key} ({message}): the item changed since it was read, and nothing was written; read it again and retry",
        entity.unwrap_or("item")
    )]
    StaleKeyField {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// The field whose stored value differs.
        field: &'static str,
        /// The index key attribute(s) the value was given to rebuild (`GSI2SK`).
        key: String,
        /// The stored and the given values.
        message: String,
    },

    /// A write was applied, but the item it returned (`ReturnValues ALL_NEW`) does not decode
    /// as its entity (`error` says why). The write is not undone: the item holds what the
    /// write left (an item written by another client or an older schema, say). Read it with a
    /// lenient query, or fix it with a put.
    #[error("{} was written, but the item it returned does not decode: {error}", entity.unwrap_or("item"))]
    WrittenUndecodable {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// The decode error.
        error: Box<Error>,
    },

    /// A value could not be encoded into an attribute (NaN, an infinite float, an empty set...).
    #[error("cannot encode {}: {message}", Location(.entity, .attribute))]
    Encode {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// Attribute name, when known.
        attribute: Option<String>,
        /// What is wrong with the value.
        message: String,
        /// A lower-level error, such as serde_dynamo's.
        #[source]
        source: Option<SourceError>,
    },

    /// An attribute could not be decoded into the field's type.
    #[error("cannot decode {}: expected {expected}, found {found}", Location(.entity, .attribute))]
    Decode {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// Attribute name, when known.
        attribute: Option<String>,
        /// What the field's type needs.
        expected: String,
        /// What the item held.
        found: String,
        /// A lower-level error, such as serde_dynamo's.
        #[source]
        source: Option<SourceError>,
    },

    /// A stored item's primary key is not the key its decoded fields are written to: another
    /// spelling of the same values (a zero-padded integer where the plain one is written, a
    /// `KeyPart` alias or case variant, a string escaped otherwise) or another key altogether.
    /// The item is not decoded: a write of what was read would go to `canonical`, a second
    /// item, and leave this one behind. To move such items to their canonical keys on purpose
    /// (a migration), decode them with [`crate::entity::recover::decode_rekeyed`], write the
    /// value and delete the stored key.
    #[error(
        "{entity}: the item's {attribute} is {stored:?}, but its fields are written to {canonical:?}{}; it is not decoded, so that a write of it cannot go to another key than the one it was read from",
        field_suffix(.field)
    )]
    KeyMismatch {
        /// The entity decoding the item.
        entity: &'static str,
        /// The key attribute (`PK`, `SK`).
        attribute: String,
        /// The first field whose segment differs, when the stored key has the template's shape.
        field: Option<&'static str>,
        /// The key as stored.
        stored: String,
        /// The key the decoded fields encode to.
        canonical: String,
    },

    /// A key value or key string is invalid: an empty key part, a key that does not match its
    /// template, a key over DynamoDB's size limits.
    #[error("invalid key{}: {message}", entity_suffix(.entity))]
    Key {
        /// Entity type, when known.
        entity: Option<&'static str>,
        /// What is wrong.
        message: String,
    },

    /// A pagination cursor was malformed, or belongs to another query.
    #[error("invalid cursor: {message}")]
    InvalidCursor {
        /// What is wrong.
        message: String,
    },

    /// A batch finished its bounded retries with items it could not process; they are returned,
    /// never dropped, with what stopped them. Writes it refused for good (a typed write that
    /// found another entity's item) are in `refused`, apart from the writes that may be sent
    /// again.
    #[error("batch left {} write(s) and {} key(s) unprocessed after {attempts} attempts{}{}", .unprocessed_writes.len(), .unprocessed_keys.len(), Refusals(.refused), LastCause(.causes, .unprocessed_writes.len() + .unprocessed_keys.len()))]
    BatchIncomplete {
        /// Writes that were not applied and may be sent again: their retries ran out, or their
        /// request failed (see `causes`).
        unprocessed_writes: Vec<WriteRequest>,
        /// Typed writes refused for good, each with its reason; they changed nothing. Not
        /// write requests: see [`RefusedWrite`].
        refused: Vec<RefusedWrite>,
        /// Keys that were not read.
        unprocessed_keys: Vec<TableKey>,
        /// The most attempts any chunk made.
        attempts: u32,
        /// Why items are left, oldest first: the errors that stopped requests (the last error
        /// of each chunk whose retries ran out, an error that stopped the batch), one per
        /// distinct message. Empty when the server only kept answering with unprocessed items.
        causes: Vec<Error>,
    },

    /// The client is not configured to send requests: credentials, region or endpoint missing or
    /// invalid. Nothing was sent (so nothing was applied), and retrying does not help.
    #[error("configuration error: {message}")]
    Configuration {
        /// What could not be done.
        message: String,
        /// The SDK's error.
        #[source]
        source: Option<SourceError>,
    },

    /// A time limit dyno was given (a batch's deadline) passed before the work was done. What was
    /// not done is reported with it (a batch's unprocessed items); work in flight at that moment
    /// was abandoned, and a write among it may or may not have been applied.
    #[error("deadline exceeded: {message}")]
    DeadlineExceeded {
        /// The limit, and what was left.
        message: String,
    },

    /// The request timed out or the connection failed: the write may or may not have happened.
    /// A typed put, create or replace says which item it tried to write in `write` (see
    /// [`Error::unknown_write`]): its key and the item with the ids and stamps the write decided,
    /// so the caller can read that key to learn whether it was written, or resend the same
    /// builder, which repeats the same request (no second id).
    #[error("outcome unknown: {message}{}", unknown_write_suffix(.write))]
    OutcomeUnknown {
        /// What happened.
        message: String,
        /// The transport or service error.
        #[source]
        source: Option<SourceError>,
        /// The typed write that was attempted, when the error comes from one.
        write: Option<Box<UnknownWrite>>,
    },

    /// Any other service error.
    #[error("service error{}: {message}", code_suffix(.code))]
    Service {
        /// The service's error code, when there was one.
        code: Option<String>,
        /// What the service said.
        message: String,
        /// The SDK error.
        #[source]
        source: Option<SourceError>,
    },
}

impl Error {
    /// A [`Error::Validation`] with `message`.
    pub fn validation(message: impl Into<String>) -> Self {
        Error::Validation {
            message: message.into(),
        }
    }

    /// A [`Error::Key`] with `message`.
    pub fn key(entity: Option<&'static str>, message: impl Into<String>) -> Self {
        Error::Key {
            entity,
            message: message.into(),
        }
    }

    /// A [`Error::Decode`] without a location; see [`Error::at`].
    pub fn decode(expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error::Decode {
            entity: None,
            attribute: None,
            expected: expected.into(),
            found: found.into(),
            source: None,
        }
    }

    /// A [`Error::Encode`] without a location; see [`Error::at`].
    pub fn encode(message: impl Into<String>) -> Self {
        Error::Encode {
            entity: None,
            attribute: None,
            message: message.into(),
            source: None,
        }
    }

    /// Fills in the entity and attribute of an encode, decode or key error where still unknown.
    #[must_use]
    pub fn at(mut self, at_entity: &'static str, at_attribute: &str) -> Self {
        match &mut self {
            Error::Decode {
                entity, attribute, ..
            }
            | Error::Encode {
                entity, attribute, ..
            } => {
                entity.get_or_insert(at_entity);
                if attribute.is_none() {
                    *attribute = Some(at_attribute.to_owned());
                }
            }
            Error::Key { entity, message } => {
                // A key error has no attribute of its own: the field goes into the message, as
                // the generated key encoders write it.
                if entity.is_none() {
                    *message = format!("field `{at_attribute}`: {message}");
                }
                entity.get_or_insert(at_entity);
            }
            Error::ItemTooLarge { entity, .. }
            | Error::ConditionFailed { entity, .. }
            | Error::StaleKeyField { entity, .. }
            | Error::WrittenUndecodable { entity, .. }
            | Error::OutOfRange { entity, .. } => {
                entity.get_or_insert(at_entity);
            }
            _ => {}
        }
        self
    }

    /// A key-encoding error of field `field` of `entity`: the message names the field, and the
    /// entity is filled in where still unknown. Other errors get [`Error::at`].
    #[must_use]
    pub(crate) fn in_key_field(self, entity: &'static str, field: &str) -> Self {
        match self {
            Error::Key { entity: e, message } => Error::Key {
                entity: e.or(Some(entity)),
                message: format!("field `{field}`: {message}"),
            },
            other => other.at(entity, field),
        }
    }

    /// Fills in the entity of errors that carry one, where still unknown.
    #[must_use]
    pub fn for_entity(mut self, at_entity: &'static str) -> Self {
        match &mut self {
            Error::Decode { entity, .. }
            | Error::Encode { entity, .. }
            | Error::Key { entity, .. }
            | Error::ItemTooLarge { entity, .. }
            | Error::ConditionFailed { entity, .. }
            | Error::StaleKeyField { entity, .. }
            | Error::WrittenUndecodable { entity, .. }
            | Error::OutOfRange { entity, .. } => {
                entity.get_or_insert(at_entity);
            }
            _ => {}
        }
        self
    }

    /// True for errors worth retrying with backoff (throttling).
    pub fn is_throttled(&self) -> bool {
        matches!(self, Error::Throttled { .. })
    }

    /// True when a write may or may not have been applied (timeouts, transport failures, 5xx).
    pub fn is_outcome_unknown(&self) -> bool {
        matches!(self, Error::OutcomeUnknown { .. })
    }

    /// The typed write behind an [`Error::OutcomeUnknown`], when the error comes from a put,
    /// create or replace: the key it tried and the item with its generated ids and stamps.
    ///
    /// ```
    /// # use dyno_core::Error;
    /// fn tried(e: &Error) -> Option<&dyno_core::Item> {
    ///     e.unknown_write().map(|w| w.key())
    /// }
    /// # assert!(tried(&Error::validation("no")).is_none());
    /// ```
    pub fn unknown_write(&self) -> Option<&UnknownWrite> {
        match self {
            Error::OutcomeUnknown { write, .. } => write.as_deref(),
            _ => None,
        }
    }

    /// An [`Error::OutcomeUnknown`] without a typed write.
    pub fn outcome_unknown(message: impl Into<String>, source: Option<SourceError>) -> Self {
        Error::OutcomeUnknown {
            message: message.into(),
            source,
            write: None,
        }
    }

    /// True when a condition expression failed: [`Error::ConditionFailed`], or
    /// [`Error::StaleKeyField`] (a value given to rebuild an index key is not the stored one).
    /// Nothing was written either way.
    pub fn is_condition_failed(&self) -> bool {
        matches!(
            self,
            Error::ConditionFailed { .. } | Error::StaleKeyField { .. }
        )
    }

    /// True when a typed write found another entity's item at its key ([`Error::WrongEntity`]).
    pub fn is_wrong_entity(&self) -> bool {
        matches!(self, Error::WrongEntity { .. })
    }

    /// True when a write found no item to change (see [`Error::NotFound`]).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }

    /// True when arithmetic on a stored integer was refused (see [`Error::OutOfRange`]).
    pub fn is_out_of_range(&self) -> bool {
        matches!(self, Error::OutOfRange { .. })
    }

    /// True when the client is not configured to send requests (see [`Error::Configuration`]).
    pub fn is_configuration(&self) -> bool {
        matches!(self, Error::Configuration { .. })
    }

    /// The variant's name (`"OutcomeUnknown"`, `"Throttled"`...): a stable, low-cardinality label
    /// for metrics and for tracing's `error.type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::ConditionFailed { .. } => "ConditionFailed",
            Error::StaleKeyField { .. } => "StaleKeyField",
            Error::WrittenUndecodable { .. } => "WrittenUndecodable",
            Error::TransactionCanceled { .. } => "TransactionCanceled",
            Error::Throttled { .. } => "Throttled",
            Error::Validation { .. } => "Validation",
            Error::ResourceNotFound { .. } => "ResourceNotFound",
            Error::ResourceInUse { .. } => "ResourceInUse",
            Error::NotFound { .. } => "NotFound",
            Error::WrongEntity { .. } => "WrongEntity",
            Error::ItemTooLarge { .. } => "ItemTooLarge",
            Error::OutOfRange { .. } => "OutOfRange",
            Error::Encode { .. } => "Encode",
            Error::Decode { .. } => "Decode",
            Error::Key { .. } => "Key",
            Error::KeyMismatch { .. } => "KeyMismatch",
            Error::InvalidCursor { .. } => "InvalidCursor",
            Error::BatchIncomplete { .. } => "BatchIncomplete",
            Error::Configuration { .. } => "Configuration",
            Error::DeadlineExceeded { .. } => "DeadlineExceeded",
            Error::OutcomeUnknown { .. } => "OutcomeUnknown",
            Error::Service { .. } => "Service",
        }
    }
}

/// The write behind an [`Error::OutcomeUnknown`] of a typed put, create or replace: what it
/// tried to write, decided when its builder was built (generated ids, `created_at` and
/// `updated_at` stamps, the incremented version). Read [`UnknownWrite::key`] strongly
/// consistently to learn whether it was applied, or resend the same builder (its `send` takes
/// `&self`): the resend writes this same item, never a second one under a new id.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UnknownWrite {
    /// The entity type written.
    pub entity: &'static str,
    /// The table written to.
    pub table: String,
    /// The primary key the write tried (with its generated ids).
    pub key: Item,
    /// The whole item the write sent.
    pub item: Item,
}

impl UnknownWrite {
    /// The write behind an unknown outcome.
    pub fn new(entity: &'static str, table: impl Into<String>, key: Item, item: Item) -> Self {
        UnknownWrite {
            entity,
            table: table.into(),
            key,
            item,
        }
    }

    /// The primary key the write tried.
    pub fn key(&self) -> &Item {
        &self.key
    }
}

fn unknown_write_suffix(write: &Option<Box<UnknownWrite>>) -> String {
    match write {
        Some(w) => format!(
            " (the write of {} at key {}: read that key to learn whether it was written, or resend the same builder, which writes the same item)",
            w.entity,
            {
                let mut parts: Vec<String> = (w.key.iter())
                    .map(|(k, v)| format!("{k}={}", describe(v)))
                    .collect();
                parts.sort();
                parts.join(", ")
            }
        ),
        None => String::new(),
    }
}

/// A typed batch write refused for good: a put or delete of `entity` that changed nothing, with
/// why (most often [`Error::WrongEntity`]: the item at its key is another entity's). Resending
/// it as it is would fail the same way, and its request is not handed out as a
/// [`WriteRequest`]: sent again through the raw
/// [`BatchWriter::write`](crate::ops::BatchWriter::write) it would skip the entity check that
/// refused it. Read what it tried ([`key`](Self::key), [`item`](Self::item)) and decide: a put
/// of another entity, or a typed write under another key.
///
/// ```compile_fail
/// # fn f(report: dyno_core::ops::BatchWriteReport, table: &dyno_core::TableDef) -> dyno_core::Result<()> {
/// let mut batch = dyno_core::ops::BatchWriter::new();
/// for refused in report.refused {
///     batch.write(table, refused)?; // not a WriteRequest: the raw write would skip the check
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RefusedWrite {
    /// Why the write was refused.
    pub reason: Error,
    entity: &'static str,
    key: Item,
    request: WriteRequest,
}

impl RefusedWrite {
    /// The write `request` of `entity` at `key`, refused for `reason`.
    pub(crate) fn new(
        entity: &'static str,
        key: Item,
        request: WriteRequest,
        reason: Error,
    ) -> Self {
        RefusedWrite {
            reason,
            entity,
            key,
            request,
        }
    }

    /// The entity the write was for.
    pub fn entity(&self) -> &'static str {
        self.entity
    }

    /// The table written.
    pub fn table(&self) -> &str {
        self.request.table()
    }

    /// The primary key of the item the write was for.
    pub fn key(&self) -> &Item {
        &self.key
    }

    /// The whole item a put tried to write; `None` for a delete.
    pub fn item(&self) -> Option<&Item> {
        match &self.request {
            WriteRequest::Put { item, .. } => Some(item),
            WriteRequest::Delete { .. } => None,
        }
    }

    /// True when the refused write was a delete.
    pub fn is_delete(&self) -> bool {
        matches!(self.request, WriteRequest::Delete { .. })
    }
}

/// Why one action of a cancelled transaction failed.
#[derive(Debug, Clone, PartialEq)]
pub struct CancellationReason {
    /// `None` (the action was fine), `ConditionalCheckFailed`, `TransactionConflict`,
    /// `ValidationError`, `ThrottlingError`, `ItemCollectionSizeLimitExceeded`...
    pub code: Option<String>,
    /// The service's message, when any.
    pub message: Option<String>,
    /// The item as it was, when `ReturnValuesOnConditionCheckFailure = ALL_OLD` was asked.
    pub item: Option<Item>,
}

impl CancellationReason {
    /// A reason with only a code (`None` means the action itself was fine).
    pub fn code(code: Option<&str>) -> Self {
        CancellationReason {
            code: code.map(str::to_owned),
            message: None,
            item: None,
        }
    }

    /// True when this action's condition failed.
    pub fn is_condition_failed(&self) -> bool {
        self.code.as_deref() == Some("ConditionalCheckFailed")
    }

    /// True when the action conflicted with another request in flight on the same item
    /// (`TransactionConflict`: a concurrent transaction or write): nothing was written, and
    /// the transaction can be retried as it is, where a failed condition
    /// ([`Self::is_condition_failed`]) needs a fresh read first.
    ///
    /// ```
    /// use dyno_core::error::CancellationReason;
    /// let conflict = CancellationReason::code(Some("TransactionConflict"));
    /// assert!(conflict.is_conflict() && !conflict.is_condition_failed());
    /// assert!(!CancellationReason::code(Some("ConditionalCheckFailed")).is_conflict());
    /// assert!(!CancellationReason::code(None).is_conflict());
    /// ```
    pub fn is_conflict(&self) -> bool {
        self.code.as_deref() == Some("TransactionConflict")
    }
}

fn entity_suffix(entity: &Option<&'static str>) -> String {
    entity.map(|e| format!(" for {e}")).unwrap_or_default()
}

fn field_suffix(field: &Option<&'static str>) -> String {
    field
        .map(|f| format!(" (field `{f}` is spelled otherwise)"))
        .unwrap_or_else(|| " (the stored key does not have the template's shape)".to_owned())
}

fn code_suffix(code: &Option<String>) -> String {
    code.as_ref().map(|c| format!(" ({c})")).unwrap_or_default()
}

struct Location<'a>(&'a Option<&'static str>, &'a Option<String>);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Some(e), Some(a)) => write!(f, "{e}.{a}"),
            (Some(e), None) => write!(f, "{e}"),
            (None, Some(a)) => write!(f, "attribute {a}"),
            (None, None) => write!(f, "value"),
        }
    }
}

/// `: <the last cause>` of a batch, or nothing.
struct Refusals<'a>(&'a [RefusedWrite]);

impl fmt::Display for Refusals<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => Ok(()),
            [first, ..] => write!(
                f,
                " and refused {} write(s) for good, which changed nothing (the first: {})",
                self.0.len(),
                first.reason
            ),
        }
    }
}

/// The last cause of a batch's leftovers, and how many items it left unprocessed.
struct LastCause<'a>(&'a [Error], usize);

impl fmt::Display for LastCause<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.last(), self.1) {
            (Some(cause), _) => write!(f, "; last cause: {cause}"),
            (None, 0) => Ok(()),
            (None, _) => f.write_str("; the server kept returning them unprocessed"),
        }
    }
}

struct CancellationSummary<'a>(&'a [CancellationReason]);

impl fmt::Display for CancellationSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (i, r) in self.0.iter().enumerate() {
            if let Some(code) = r.code.as_deref().filter(|c| *c != "None") {
                if !first {
                    f.write_str(", ")?;
                }
                first = false;
                write!(f, "action {i}: {code}")?;
            }
        }
        if first {
            f.write_str("no reason given")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_clone_is_the_same_error_with_the_same_source() {
        let io: SourceError = Arc::new(std::io::Error::other("socket said no"));
        let original = Error::outcome_unknown("PutItem timed out", Some(io.clone()));
        let batch = Error::BatchIncomplete {
            unprocessed_writes: Vec::new(),
            refused: Vec::new(),
            unprocessed_keys: Vec::new(),
            attempts: 3,
            causes: vec![original.clone()],
        };
        let copy = batch.clone();
        assert_eq!(copy.to_string(), batch.to_string());
        let Error::BatchIncomplete { causes, .. } = copy else {
            unreachable!()
        };
        let cause = &causes[0];
        assert!(cause.is_outcome_unknown());
        assert_eq!(cause.to_string(), original.to_string());
        // The source is shared, not copied into the message: the chain reaches the same value.
        let source = cause.source().expect("the clone keeps its source");
        assert_eq!(source.to_string(), "socket said no");
        let Error::OutcomeUnknown {
            source: Some(shared),
            ..
        } = cause
        else {
            unreachable!()
        };
        assert!(Arc::ptr_eq(shared, &io));
    }
}
