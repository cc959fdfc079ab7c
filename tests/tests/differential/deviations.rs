//! Disagreements that are no MemoryStore bug: where dynoxide deviates from DynamoDB's
//! documentation. Each entry names the documentation it relies on and matches as narrowly as it
//! can (the operation, MemoryStore's exact response, what dynoxide answered instead), so that a
//! MemoryStore bug of another shape is not excused.

use dyno_core::expr::{Comparator, Condition, Operand};
use dyno_core::store::{ReturnValues, TransactWriteItem};
use dyno_core::AttributeValue;

use super::gen::Op;
use super::run::{canon_item, Explained, Outcome};

/// DynamoDB's API reference, `Condition` (ComparisonOperator): LT, LE, GT, GE and BETWEEN take
/// "AttributeValue element[s] of type String, Number, or Binary (not a set type)"; the expression
/// forms (`<`, `BETWEEN`) are the same operators. MemoryStore rejects a literal operand of another
/// type (BOOL, NULL, a list, a map, a set) as DynamoDB does; dynoxide evaluates the comparison.
pub const ORDERING_OPERAND: &str =
    "an ordering comparison (<, <=, >, >=, BETWEEN) with a literal operand that is not S, N or B \
     is a ValidationException (DynamoDB API reference, Condition: LT/LE/GT/GE/BETWEEN take String, \
     Number or Binary); dynoxide evaluates it";

/// DynamoDB's API reference, UpdateItem, ReturnValues: "ALL_OLD - Returns all of the attributes
/// of the item, as they appeared before the UpdateItem operation." An update that creates the
/// item had no item before it, so nothing is returned; dynoxide returns the key it filled in.
pub const UPSERT_ALL_OLD: &str =
    "UpdateItem with ReturnValues ALL_OLD on an item that did not exist returns no attributes \
     (DynamoDB API reference, UpdateItem: ALL_OLD returns the item as it appeared before the \
     update); dynoxide returns the key attributes";

/// Why the subject's and the reference's responses to `op` may differ, or `None`.
pub fn explain(op: &Op, ours: &Outcome, theirs: &Outcome) -> Option<Explained> {
    if let (Op::Update(u), [o], [t]) = (op, ours.as_slice(), theirs.as_slice()) {
        if u.return_values == ReturnValues::AllOld
            && o.text == "ok -"
            && t.text == format!("ok {}", canon_item(&u.key))
        {
            return Some(Explained {
                why: UPSERT_ALL_OLD,
                same_state: true,
            });
        }
    }
    // A validation error shows on the first page of a query.
    let first = ours.first()?;
    (ordering_operand_error(&first.text) && conditions(op).iter().any(|c| bad_ordering_literal(c)))
        .then_some(Explained {
            why: ORDERING_OPERAND,
            same_state: false,
        })
}

fn ordering_operand_error(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(
        "err Validation: Incorrect operand type for operator or function; operator or function: ",
    ) else {
        return false;
    };
    ["<=", ">=", "<", ">", "BETWEEN"].iter().any(|op| {
        rest.strip_prefix(op)
            .is_some_and(|rest| rest.starts_with(", operand type: "))
    })
}

/// Every condition and filter the step carries.
fn conditions(op: &Op) -> Vec<&Condition> {
    match op {
        Op::Put(r) => r.condition.iter().collect(),
        Op::Update(r) => r.condition.iter().collect(),
        Op::Delete(r) => r.condition.iter().collect(),
        Op::Query { request, .. } => request.filter.iter().collect(),
        Op::Scan(r) => r.filter.iter().collect(),
        Op::TransactWrite(r) => r
            .actions
            .iter()
            .filter_map(|a| match a {
                TransactWriteItem::Put { condition, .. }
                | TransactWriteItem::Update { condition, .. }
                | TransactWriteItem::Delete { condition, .. } => condition.as_ref(),
                TransactWriteItem::ConditionCheck { condition, .. } => Some(condition),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn unordered_literal(o: &Operand) -> bool {
    matches!(
        o,
        Operand::Value(v)
            if !matches!(v, AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_))
    )
}

fn bad_ordering_literal(c: &Condition) -> bool {
    match c {
        Condition::Compare(a, cmp, b) => {
            !matches!(cmp, Comparator::Eq | Comparator::Ne)
                && (unordered_literal(a) || unordered_literal(b))
        }
        Condition::Between(a, lo, hi) => {
            unordered_literal(a) || unordered_literal(lo) || unordered_literal(hi)
        }
        Condition::And(cs) | Condition::Or(cs) => cs.iter().any(bad_ordering_literal),
        Condition::Not(c) => bad_ordering_literal(c),
        _ => false,
    }
}
