//! SET's operands read from the item as it was, and the arithmetic of `+` and `-`.

use super::*;

/// A SET action's operands, read from the original item: its value, or the two sides of a sum or
/// difference with their operator.
pub(super) enum SetOperands<'u> {
    Value(AttributeValue),
    Arithmetic {
        symbol: &'static str,
        a: &'u UpdateOperand,
        b: &'u UpdateOperand,
        x: AttributeValue,
        y: AttributeValue,
    },
}

/// A SET action's operands read from the item, their types checked (dynoxide reads and checks
/// one action's operands before the next action's).
pub(super) fn set_operands<'u>(
    value: &'u SetValue,
    item: &Item,
    deep_literal: &mut Option<Error>,
) -> Result<SetOperands<'u>> {
    let (a, b, symbol) = match value {
        SetValue::Operand(op) => return operand(op, item, deep_literal).map(SetOperands::Value),
        SetValue::Plus(a, b) => (a, b, "+"),
        SetValue::Minus(a, b) => (a, b, "-"),
    };
    let (x, y) = (
        operand(a, item, deep_literal)?,
        operand(b, item, deep_literal)?,
    );
    for (op, v) in [(a, &x), (b, &y)] {
        if !matches!(v, AttributeValue::N(_)) {
            return Err(wrong_operand(op, symbol, v));
        }
    }
    Ok(SetOperands::Arithmetic { symbol, a, b, x, y })
}

/// The value a SET action writes.
pub(super) fn set_value(operands: SetOperands<'_>) -> Result<AttributeValue> {
    let (symbol, a, b, x, y) = match operands {
        SetOperands::Value(v) => return Ok(v),
        SetOperands::Arithmetic { symbol, a, b, x, y } => (symbol, a, b, x, y),
    };
    let number = |op: &UpdateOperand, v: &AttributeValue| match v {
        AttributeValue::N(n) => Number::parse_checked(n).map_err(|e| number_error(e, n)),
        other => Err(wrong_operand(op, symbol, other)),
    };
    let (dx, dy) = (number(a, &x)?, number(b, &y)?);
    let result = if symbol == "+" {
        dx.add(&dy)
    } else {
        dx.sub(&dy)
    };
    checked(result, || format!("{dx} {symbol} {dy}"))
}

/// The value of an operand, read from the original item. A literal's fault deep inside it is kept
/// in `deep_literal` (the first one met) and the literal read as sent: DynamoDB names it only
/// once the update has been applied (see [`apply`]).
pub(super) fn operand(
    op: &UpdateOperand,
    item: &Item,
    deep_literal: &mut Option<Error>,
) -> Result<AttributeValue> {
    match op {
        UpdateOperand::Path(p) => resolve(item, p).cloned().ok_or_else(|| {
            Error::validation(format!(
                "The provided expression refers to an attribute that does not exist in the item; path: {}",
                display_path(p)
            ))
        }),
        // Its request-time checks were made before (see `check_operand`); what is left is a set
        // deep inside it, which DynamoDB finds in the updated item, in the older layer's words.
        UpdateOperand::Value(v) => Ok(
            match crate::expr::eval::validate_value_on(v, "expression value", Layer::Older) {
                Ok(valid) => valid,
                Err(e) => {
                    deep_literal.get_or_insert(e);
                    v.clone()
                }
            },
        ),
        UpdateOperand::IfNotExists(p, default) => match resolve(item, p) {
            Some(v) => Ok(v.clone()),
            None => operand(default, item, deep_literal),
        },
        UpdateOperand::ListAppend(a, b) => match (
            operand(a, item, deep_literal)?,
            operand(b, item, deep_literal)?,
        ) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                Ok(AttributeValue::L(a))
            }
            (AttributeValue::L(_), other) => Err(wrong_operand(b, "list_append", &other)),
            (other, _) => Err(wrong_operand(a, "list_append", &other)),
        },
    }
}

/// An arithmetic result as DynamoDB stores it, or its error.
pub(super) fn checked(
    result: Number,
    operation: impl FnOnce() -> String,
) -> Result<AttributeValue> {
    match result.check() {
        Ok(()) => Ok(AttributeValue::N(result.to_string())),
        Err(NumberError::Precision) => Err(Error::validation(format!(
            "{}: the exact result of {} has {} significant digits",
            NumberError::Precision.message(),
            operation(),
            result.significant_digits()
        ))),
        Err(e) => Err(Error::validation(format!(
            "{}: result of {}",
            e.message(),
            operation()
        ))),
    }
}

pub(super) fn number_error(e: NumberError, n: &str) -> Error {
    Error::validation(format!("{}: {n}", e.message()))
}
