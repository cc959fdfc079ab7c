//! The static checks of an update, made before the item is read, in DynamoDB's order.

use super::*;

/// Checks an update as DynamoDB does before it looks at the table or the item, in its order:
/// every path, the literal operands of ADD and DELETE (a number or a set, a set), those of SET
/// (`+` and `-` take numbers, `list_append` lists), then that no two paths overlap. That the
/// update leaves the key alone needs the table's schema: [`apply`] checks it.
pub(in crate::expr::eval) fn check(update: &Update) -> Result<()> {
    for path in update.paths() {
        check_path(path, EXPRESSION)?;
    }
    for (_, value) in &update.add {
        if !matches!(
            value,
            AttributeValue::N(_)
                | AttributeValue::Ss(_)
                | AttributeValue::Ns(_)
                | AttributeValue::Bs(_)
        ) {
            return Err(incorrect_action_operand("ADD", value));
        }
        validate_value(value, "expression value")?;
    }
    for (_, value) in &update.delete {
        if !matches!(
            value,
            AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
        ) {
            return Err(incorrect_action_operand("DELETE", value));
        }
        validate_value(value, "expression value")?;
    }
    for (_, value) in &update.set {
        check_set_value(value)?;
    }
    crate::expr::eval::check_update_overlap(update)
}

/// Static checks of a SET value: operand paths are valid, literals are valid values of a type
/// their operator takes (`+` and `-` numbers, `list_append` lists). Functions nest
/// (`list_append(if_not_exists(l, :empty), :v)`, `list_append(list_append(a, b), c)`), as the
/// UpdateExpression grammar's `operand ::= path | function` allows.
pub(super) fn check_set_value(value: &SetValue) -> Result<()> {
    match value {
        SetValue::Operand(op) => check_operand(op, None),
        SetValue::Plus(a, b) => {
            check_operand(a, Some("+"))?;
            check_operand(b, Some("+"))
        }
        SetValue::Minus(a, b) => {
            check_operand(a, Some("-"))?;
            check_operand(b, Some("-"))
        }
    }
}

/// `arithmetic`: the operator (`+`, `-`) whose operand this is, which takes numbers.
///
/// A literal's own validity is not checked here: what DynamoDB checks as it reads the request
/// (numbers, NULL, a set at the top of a value) was checked before ([`crate::expr::eval::check_values`]),
/// and a set deeper in it (an empty one inside a list) is found only in the item the update
/// leaves, if the literal lands there: after the paths overlap check and the condition, as
/// dynoxide answers (UpdateItem validates the updated item's values; a transaction checks every
/// set of its values up front).
pub(super) fn check_operand(op: &UpdateOperand, arithmetic: Option<&str>) -> Result<()> {
    match op {
        UpdateOperand::Path(p) => check_path(p, EXPRESSION),
        UpdateOperand::Value(v) => match (arithmetic, v) {
            (Some(symbol), v) if !matches!(v, AttributeValue::N(_)) => {
                Err(incorrect_operand(symbol, v))
            }
            _ => Ok(()),
        },
        UpdateOperand::IfNotExists(p, default) => {
            check_path(p, EXPRESSION)?;
            check_operand(default, None)
        }
        UpdateOperand::ListAppend(a, b) => {
            for operand in [a, b] {
                if let UpdateOperand::Value(v) = &**operand
                    && !matches!(v, AttributeValue::L(_))
                {
                    return Err(incorrect_operand("list_append", v));
                }
            }
            check_nested(a)?;
            check_nested(b)
        }
    }
}

/// An operand of a `list_append`: its paths and values are checked, but a `list_append` inside
/// it has its literals' types checked only when the update is applied (dynoxide's order).
pub(super) fn check_nested(op: &UpdateOperand) -> Result<()> {
    match op {
        UpdateOperand::ListAppend(a, b) => {
            check_nested(a)?;
            check_nested(b)
        }
        other => check_operand(other, None),
    }
}
