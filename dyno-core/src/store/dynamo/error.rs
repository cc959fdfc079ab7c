//! Mapping the SDK's errors onto dyno's [`Error`].
//!
//! The mapping goes by the service's error code (what every DynamoDB-compatible server sends),
//! plus each operation's typed variants for the data only they carry: the old item of a failed
//! condition and the per-action reasons of a cancelled transaction. The SDK error is kept as the
//! `source` where the variant has one and is never repeated in the message.

use std::sync::Arc;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;

use super::config::Wire;
use crate::error::{CancellationReason, Error, SourceError};
use crate::value::Item;

/// What an operation's error type can tell beyond its code and message.
pub(crate) trait OperationError:
    ProvideErrorMetadata + std::error::Error + Send + Sync + 'static
{
    /// `Some` when this is a `ConditionalCheckFailedException`, with the old item when the
    /// request asked for it (`ReturnValuesOnConditionCheckFailure = ALL_OLD`).
    fn condition_failed(&self) -> Option<Option<Item>> {
        None
    }

    /// `Some` when this is a `TransactionCanceledException`: one reason per action, in order.
    fn cancellation_reasons(&self) -> Option<Vec<CancellationReason>> {
        None
    }
}

macro_rules! plain_errors {
    ($($t:ty),* $(,)?) => { $(impl OperationError for $t {})* };
}

plain_errors!(
    operation::get_item::GetItemError,
    operation::query::QueryError,
    operation::scan::ScanError,
    operation::batch_get_item::BatchGetItemError,
    operation::batch_write_item::BatchWriteItemError,
    operation::create_table::CreateTableError,
    operation::delete_table::DeleteTableError,
    operation::describe_table::DescribeTableError,
    operation::describe_time_to_live::DescribeTimeToLiveError,
    operation::update_time_to_live::UpdateTimeToLiveError,
    operation::update_table::UpdateTableError,
);

macro_rules! conditional_errors {
    ($($t:ident),* $(,)?) => {$(
        impl OperationError for $t {
            fn condition_failed(&self) -> Option<Option<Item>> {
                match self {
                    $t::ConditionalCheckFailedException(e) => Some(e.item.clone().filter(|i| !i.is_empty())),
                    _ => None,
                }
            }
        }
    )*};
}

use operation::delete_item::DeleteItemError;
use operation::put_item::PutItemError;
use operation::update_item::UpdateItemError;
conditional_errors!(PutItemError, UpdateItemError, DeleteItemError);

macro_rules! transaction_errors {
    ($($t:ident),* $(,)?) => {$(
        impl OperationError for $t {
            fn cancellation_reasons(&self) -> Option<Vec<CancellationReason>> {
                match self {
                    $t::TransactionCanceledException(e) => {
                        Some(e.cancellation_reasons.iter().flatten().map(convert_reason).collect())
                    }
                    _ => None,
                }
            }
        }
    )*};
}

use operation::transact_get_items::TransactGetItemsError;
use operation::transact_write_items::TransactWriteItemsError;
transaction_errors!(TransactGetItemsError, TransactWriteItemsError);

fn convert_reason(r: &aws_sdk_dynamodb::types::CancellationReason) -> CancellationReason {
    CancellationReason {
        // Kept as sent: DynamoDB says "None" for the actions that were fine (as MemoryStore does).
        code: r.code.clone(),
        message: r.message.clone(),
        item: r.item.clone().filter(|i| !i.is_empty()),
    }
}

/// Codes of the errors DynamoDB documents as throttling.
const THROTTLING_CODES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "Throttling",
];

/// Maps an SDK error of operation `op` (`"PutItem"`...) to dyno's [`Error`], knowing what its
/// attempts did on the wire:
/// - a failure before any attempt reached the HTTP client (credentials, region, endpoint,
///   signing) is [`Error::Configuration`]: nothing can have been applied and no retry helps;
/// - a condition failure on a retry after an attempt whose outcome is unknown (no response, or
///   a 5xx) is [`Error::OutcomeUnknown`]: the lost attempt may have applied the write, which is
///   what made the retry's condition fail (a create that "already exists" because it worked).
pub(crate) fn from_sdk<E: OperationError>(
    op: &'static str,
    err: SdkError<E, HttpResponse>,
    wire: Wire,
) -> Error {
    let mapped = map(op, err, wire.sent);
    let condition_failed = match &mapped {
        Error::ConditionFailed { .. } => true,
        Error::TransactionCanceled { reasons } => reasons.iter().any(|r| r.is_condition_failed()),
        _ => false,
    };
    if condition_failed && wire.unknown_attempts > 0 {
        return Error::OutcomeUnknown {
            message: format!(
                "{op}'s condition failed on a retry, after {} attempt(s) whose outcome is unknown: \
                 an earlier attempt may have applied the write",
                wire.unknown_attempts
            ),
            source: Some(Arc::new(mapped)),
            write: None,
        };
    }
    mapped
}

fn map<E: OperationError>(op: &'static str, err: SdkError<E, HttpResponse>, sent: bool) -> Error {
    // A zero time limit refused the call before it was built (see `Timeouts`).
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&err);
    while let Some(e) = cause {
        if let Some(zero) = e.downcast_ref::<super::config::ZeroTimeout>() {
            return Error::Configuration {
                message: format!("{op} was not sent: {zero}"),
                source: None,
            };
        }
        cause = e.source();
    }
    if !sent
        && !matches!(
            err,
            SdkError::ServiceError(_) | SdkError::ConstructionFailure(_)
        )
    {
        return Error::Configuration {
            message: format!(
                "{op} was not sent: the client could not resolve its credentials, region or \
                 endpoint, or could not sign the request"
            ),
            source: Some(Arc::new(err)),
        };
    }
    match &err {
        SdkError::ConstructionFailure(_) => Error::Service {
            code: None,
            message: format!("the SDK could not build the {op} request"),
            source: Some(Arc::new(err)),
        },
        SdkError::TimeoutError(_) => outcome_unknown(format!("{op} timed out"), err),
        SdkError::DispatchFailure(_) => outcome_unknown(
            format!("{op} could not be sent or its connection failed"),
            err,
        ),
        SdkError::ResponseError(_) => {
            outcome_unknown(format!("the response to {op} could not be read"), err)
        }
        SdkError::ServiceError(service) => {
            let e = service.err();
            if let Some(item) = e.condition_failed() {
                return Error::ConditionFailed { entity: None, item };
            }
            if let Some(reasons) = e.cancellation_reasons() {
                return Error::TransactionCanceled { reasons };
            }
            let status = service.raw().status();
            let code = e.code().map(str::to_owned);
            let message = e.message().map(str::to_owned).unwrap_or_else(|| {
                format!(
                    "{op} failed with {}{}",
                    code.as_deref().unwrap_or("no error code"),
                    status_suffix(status.as_u16())
                )
            });
            match code.as_deref() {
                Some("ConditionalCheckFailedException") => Error::ConditionFailed {
                    entity: None,
                    item: None,
                },
                Some("TransactionCanceledException") => Error::TransactionCanceled {
                    reasons: Vec::new(),
                },
                Some(c) if THROTTLING_CODES.contains(&c) => Error::Throttled {
                    message,
                    source: Some(Arc::new(err)),
                },
                // A reused idempotency token with other parameters is a caller mistake; its
                // code is kept in the message, which `Transaction::send` explains.
                Some("IdempotentParameterMismatchException")
                    if !message.contains("IdempotentParameterMismatch") =>
                {
                    Error::Validation {
                        message: format!("IdempotentParameterMismatch: {message}"),
                    }
                }
                Some("ValidationException" | "IdempotentParameterMismatchException") => {
                    Error::Validation { message }
                }
                // moto spells it without "Exception" on UpdateTimeToLive.
                Some("ResourceNotFoundException" | "ResourceNotFound") => {
                    Error::ResourceNotFound { message }
                }
                Some("ResourceInUseException") => Error::ResourceInUse { message },
                Some("InternalServerError" | "ServiceUnavailable") => outcome_unknown(message, err),
                _ if status.is_server_error() => outcome_unknown(message, err),
                _ => Error::Service {
                    code,
                    message,
                    source: Some(Arc::new(err)),
                },
            }
        }
        // `SdkError` is non-exhaustive: whatever comes next, the request may have been sent.
        _ => outcome_unknown(format!("{op} failed"), err),
    }
}

fn outcome_unknown<E: OperationError>(message: String, err: SdkError<E, HttpResponse>) -> Error {
    Error::OutcomeUnknown {
        message,
        source: Some(Arc::new(err) as SourceError),
        write: None,
    }
}

fn status_suffix(status: u16) -> String {
    format!(" (HTTP {status})")
}

/// The error for a request the SDK's builders refused (a required field missing): a bug in the
/// conversion, reported rather than panicking.
pub(crate) fn build_error(what: &str, err: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::Service {
        code: None,
        message: format!("could not build {what}"),
        source: Some(Arc::new(err)),
    }
}

/// True for the error code of a server that does not implement the operation at all (dynalite
/// has no TTL and no transactions), as opposed to one rejecting this particular request.
pub(crate) fn is_unsupported_code(code: &str) -> bool {
    code == "UnknownOperationException"
}

/// True when `err` says the server does not implement the operation (see
/// [`is_unsupported_code`]).
pub(crate) fn is_unsupported_operation(err: &Error) -> bool {
    matches!(err, Error::Service { code: Some(code), .. } if is_unsupported_code(code))
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::error::ErrorMetadata;
    use aws_sdk_dynamodb::types::error::{
        ConditionalCheckFailedException, TransactionCanceledException,
    };
    use aws_sdk_dynamodb::types::AttributeValue;
    use aws_smithy_runtime_api::client::result::ConnectorError;
    use aws_smithy_types::body::SdkBody;

    use super::*;

    const SENT: Wire = Wire {
        sent: true,
        unknown_attempts: 0,
        in_flight: false,
    };
    const NOT_SENT: Wire = Wire {
        sent: false,
        unknown_attempts: 0,
        in_flight: false,
    };

    fn response(status: u16) -> HttpResponse {
        HttpResponse::new(status.try_into().unwrap(), SdkBody::empty())
    }

    fn meta(code: &str, message: &str) -> ErrorMetadata {
        ErrorMetadata::builder().code(code).message(message).build()
    }

    #[test]
    fn condition_failure_keeps_the_old_item() {
        let item: Item = [("PK".to_owned(), AttributeValue::S("a".into()))].into();
        let e = ConditionalCheckFailedException::builder()
            .message("The conditional request failed")
            .set_item(Some(item.clone()))
            .meta(meta(
                "ConditionalCheckFailedException",
                "The conditional request failed",
            ))
            .build();
        let err = SdkError::service_error(
            PutItemError::ConditionalCheckFailedException(e),
            response(400),
        );
        match from_sdk("PutItem", err, SENT) {
            Error::ConditionFailed {
                entity: None,
                item: Some(old),
            } => assert_eq!(old, item),
            other => panic!("expected ConditionFailed with the old item, got {other:?}"),
        }
    }

    #[test]
    fn cancellation_reasons_keep_order_codes_and_items() {
        let reasons = vec![
            aws_sdk_dynamodb::types::CancellationReason::builder()
                .code("None")
                .build(),
            aws_sdk_dynamodb::types::CancellationReason::builder()
                .code("ConditionalCheckFailed")
                .message("The conditional request failed")
                .item("PK", AttributeValue::S("b".into()))
                .build(),
        ];
        let e = TransactionCanceledException::builder()
            .set_cancellation_reasons(Some(reasons))
            .meta(meta(
                "TransactionCanceledException",
                "Transaction cancelled",
            ))
            .build();
        let err = SdkError::service_error(
            TransactWriteItemsError::TransactionCanceledException(e),
            response(400),
        );
        match from_sdk("TransactWriteItems", err, SENT) {
            Error::TransactionCanceled { reasons } => {
                assert_eq!(reasons.len(), 2);
                assert_eq!(reasons[0].code.as_deref(), Some("None"));
                assert!(!reasons[0].is_condition_failed());
                assert!(reasons[1].is_condition_failed());
                assert_eq!(
                    reasons[1].item.as_ref().and_then(|i| i.get("PK")),
                    Some(&AttributeValue::S("b".into()))
                );
            }
            other => panic!("expected TransactionCanceled, got {other:?}"),
        }
    }

    fn by_code(code: &str, status: u16) -> Error {
        // An operation error with only metadata: what an unmodelled code becomes.
        let e = operation::get_item::GetItemError::generic(meta(code, "what the service said"));
        from_sdk(
            "GetItem",
            SdkError::service_error(e, response(status)),
            SENT,
        )
    }

    #[test]
    fn codes_map_to_typed_errors() {
        assert!(
            matches!(by_code("ValidationException", 400), Error::Validation { message } if message == "what the service said")
        );
        assert!(matches!(
            by_code("ResourceNotFoundException", 400),
            Error::ResourceNotFound { .. }
        ));
        assert!(matches!(
            by_code("ResourceInUseException", 400),
            Error::ResourceInUse { .. }
        ));
        for code in [
            "ProvisionedThroughputExceededException",
            "ThrottlingException",
            "RequestLimitExceeded",
        ] {
            assert!(by_code(code, 400).is_throttled(), "{code}");
        }
        assert!(by_code("InternalServerError", 500).is_outcome_unknown());
        assert!(by_code("SomethingNew", 503).is_outcome_unknown());
        match by_code("AccessDeniedException", 400) {
            Error::Service {
                code,
                message,
                source,
            } => {
                assert_eq!(code.as_deref(), Some("AccessDeniedException"));
                assert_eq!(message, "what the service said");
                assert!(source.is_some());
            }
            other => panic!("expected Service, got {other:?}"),
        }
    }

    #[test]
    fn transport_failures_have_unknown_outcome() {
        let timeout: SdkError<operation::get_item::GetItemError, HttpResponse> =
            SdkError::timeout_error("deadline passed");
        assert!(from_sdk("GetItem", timeout, SENT).is_outcome_unknown());
        let io: SdkError<operation::get_item::GetItemError, HttpResponse> =
            SdkError::dispatch_failure(ConnectorError::io("connection reset".into()));
        let err = from_sdk("GetItem", io, SENT);
        assert!(err.is_outcome_unknown());
        // The source is kept, not repeated in the message.
        assert!(!err.to_string().contains("connection reset"), "{err}");
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn failures_before_sending_are_configuration_errors() {
        let unsigned: SdkError<operation::get_item::GetItemError, HttpResponse> =
            SdkError::dispatch_failure(ConnectorError::other("no credentials".into(), None));
        let err = from_sdk("GetItem", unsigned, NOT_SENT);
        assert!(
            matches!(err, Error::Configuration { .. }) && !err.is_outcome_unknown(),
            "{err:?}"
        );
        assert!(err.to_string().contains("GetItem was not sent"), "{err}");
        // A timeout before anything was sent (credentials loading) changed nothing either.
        let slow: SdkError<operation::get_item::GetItemError, HttpResponse> =
            SdkError::timeout_error("resolving credentials");
        assert!(matches!(
            from_sdk("GetItem", slow, NOT_SENT),
            Error::Configuration { .. }
        ));
        // The same failures after a send keep their unknown outcome.
        let slow: SdkError<operation::get_item::GetItemError, HttpResponse> =
            SdkError::timeout_error("deadline passed");
        assert!(from_sdk("GetItem", slow, SENT).is_outcome_unknown());
    }

    #[test]
    fn a_condition_failing_on_a_retry_after_a_lost_attempt_is_an_unknown_outcome() {
        let failed = || {
            let e = ConditionalCheckFailedException::builder()
                .message("The conditional request failed")
                .meta(meta("ConditionalCheckFailedException", "failed"))
                .build();
            SdkError::service_error(
                PutItemError::ConditionalCheckFailedException(e),
                response(400),
            )
        };
        let after_loss = Wire {
            unknown_attempts: 1,
            ..SENT
        };
        let err = from_sdk("PutItem", failed(), after_loss);
        assert!(err.is_outcome_unknown(), "{err:?}");
        assert!(std::error::Error::source(&err).is_some());
        assert!(from_sdk("PutItem", failed(), SENT).is_condition_failed());
    }
}
