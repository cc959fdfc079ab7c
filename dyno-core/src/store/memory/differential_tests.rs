//! Regressions found by differential testing against dynoxide (tests/tests/differential.rs):
//! each test is the shrunk sequence that showed a disagreement, reduced to what MemoryStore must
//! answer.

use futures::executor::block_on;

use super::*;
use crate::expr::{KeyCondition, Path};
use crate::value::AttributeValue;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn store() -> MemoryStore {
    let store = MemoryStore::new();
    block_on(store.create_table(&TableDef::new("main", "PK", Some("SK")))).unwrap();
    store
}

fn validation(result: Result<Page>) -> String {
    match result {
        Err(Error::Validation { message }) => message,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// `Select = COUNT` with a ProjectionExpression is refused by Query and Scan, before the table
/// is looked up (a count returns no attribute to project).
#[test]
fn a_count_cannot_name_a_projection() {
    let store = store();
    let message = "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count";
    let mut query = QueryRequest::new("main", None, KeyCondition::partition("PK", s("P0")));
    query.count_only = true;
    query.projection = Some(vec![Path::attr("a")]);
    assert_eq!(validation(block_on(store.query(query.clone()))), message);
    query.table = "missing".into();
    assert_eq!(validation(block_on(store.query(query))), message);
    let scan = ScanRequest {
        table: "main".into(),
        count_only: true,
        projection: Some(vec![Path::attr("a")]),
        ..ScanRequest::default()
    };
    assert_eq!(validation(block_on(store.scan(scan))), message);
    // A count alone, and a projection alone, stay fine.
    let mut count = QueryRequest::new("main", None, KeyCondition::partition("PK", s("P0")));
    count.count_only = true;
    assert_eq!(block_on(store.query(count)).unwrap().count, 0);
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn key() -> Item {
    Item::from([("PK".to_owned(), s("P0")), ("SK".to_owned(), s("a"))])
}

fn message(result: Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(Error::Validation { message }) => message,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// An invalid update expression is refused before the table, the key or the condition is looked
/// at: a failing condition, a missing table or a wrong key do not hide it.
#[test]
fn an_invalid_update_is_refused_before_the_item_is_read() {
    let store = store();
    let add_string = crate::expr::Update {
        add: vec![(Path::attr("n"), s("x"))],
        ..Default::default()
    };
    let expected = "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND";
    let request = UpdateRequest {
        table: "main".into(),
        key: key(),
        update: add_string,
        // Fails on the absent item.
        condition: Some(Condition::exists("PK")),
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    };
    assert_eq!(
        message(block_on(store.update_item(request.clone()))),
        expected
    );
    let missing = UpdateRequest {
        table: "missing".into(),
        ..request.clone()
    };
    assert_eq!(message(block_on(store.update_item(missing))), expected);
    let wrong_key = UpdateRequest {
        key: Item::from([("PK".to_owned(), s("P0"))]),
        ..request.clone()
    };
    assert_eq!(message(block_on(store.update_item(wrong_key))), expected);
    // `+` takes numbers, `list_append` lists: a literal of another type is refused up front too.
    let plus_string = crate::expr::Update {
        set: vec![(
            Path::attr("n"),
            crate::expr::SetValue::Plus(
                crate::expr::UpdateOperand::Path(Path::attr("n")),
                crate::expr::UpdateOperand::Value(s("x")),
            ),
        )],
        ..Default::default()
    };
    let plus = UpdateRequest {
        update: plus_string,
        ..request.clone()
    };
    assert!(message(block_on(store.update_item(plus)))
        .ends_with("operator or function: +, operand type: S"));
    // Overlapping paths, before the key-attribute check that needs the schema.
    let overlap = crate::expr::Update {
        set: vec![(Path::attr("SK"), crate::expr::SetValue::value(n("1")))],
        remove: vec![Path::attr("m"), Path::attr("m").key("k")],
        ..Default::default()
    };
    let overlap = UpdateRequest {
        update: overlap,
        condition: None,
        ..request
    };
    assert!(message(block_on(store.update_item(overlap))).contains("Two document paths overlap"));
    assert!(block_on(store.get_item(GetRequest::new("main", key())))
        .unwrap()
        .item
        .is_none());
}

/// A filter is validated even when no item reaches it.
#[test]
fn an_invalid_filter_is_refused_on_an_empty_partition() {
    let store = store();
    let mut query = QueryRequest::new("main", None, KeyCondition::partition("PK", s("P0")));
    query.filter = Some(Condition::BeginsWith(
        Path::attr("a"),
        crate::expr::Operand::Value(n("1")),
    ));
    assert!(message(block_on(store.query(query.clone()))).contains("begins_with, operand type: N"));
    let scan = ScanRequest {
        table: "main".into(),
        filter: query.filter,
        ..ScanRequest::default()
    };
    assert!(message(block_on(store.scan(scan))).contains("begins_with, operand type: N"));
}

/// An invalid expression in one action fails the whole TransactWriteItems request with a
/// validation error, not a cancellation reason, and writes nothing.
#[test]
fn an_invalid_expression_fails_a_transaction_as_a_request() {
    let store = store();
    let put = crate::store::TransactWriteItem::Put {
        table: "main".into(),
        item: key(),
        condition: None,
        return_old_on_condition_failure: false,
    };
    let overlapping = crate::store::TransactWriteItem::Update {
        table: "main".into(),
        key: Item::from([("PK".to_owned(), s("P0")), ("SK".to_owned(), s("b"))]),
        update: crate::expr::Update {
            add: vec![(Path::attr("n"), n("1"))],
            remove: vec![Path::attr("n")],
            ..Default::default()
        },
        condition: None,
        return_old_on_condition_failure: false,
    };
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![put, overlapping],
        client_request_token: None,
    }));
    assert!(message(result).contains("Two document paths overlap"));
    assert!(block_on(store.get_item(GetRequest::new("main", key())))
        .unwrap()
        .item
        .is_none());
}
