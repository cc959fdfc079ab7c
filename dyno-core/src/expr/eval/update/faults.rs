//! The errors an update meets while it is applied, in DynamoDB's words.

use super::*;

pub(super) fn incorrect_operand(function: &str, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: {function}, operand type: {}",
        type_name(value)
    ))
}

/// An operand of the wrong type met while the update is applied: a value read from the item, or
/// a literal the static check leaves to this point (one inside a nested `list_append`, as
/// dynoxide checks only the outer function's literals before reading the item).
pub(super) fn wrong_operand(_op: &UpdateOperand, function: &str, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "An operand in the update expression has an incorrect data type; {function} of {}",
        type_name(value)
    ))
}

pub(super) fn incorrect_action_operand(action: &str, value: &AttributeValue) -> Error {
    // DynamoDB names the operand's type in its own spelling here (dynoxide agrees).
    let operand = match value {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "Binary",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
        other => type_name(other),
    };
    Error::validation(format!(
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: {action}, operand type: {operand}, typeSet: ALLOWED_FOR_{action}_OPERAND"
    ))
}

pub(super) fn incorrect_data_type(
    action: &str,
    path: &Path,
    existing: Option<&AttributeValue>,
    value: &AttributeValue,
) -> Error {
    Error::validation(format!(
        "An operand in the update expression has an incorrect data type; {action} of {} to {} holding {}",
        type_name(value),
        display_path(path),
        existing.map_or("nothing", type_name)
    ))
}
