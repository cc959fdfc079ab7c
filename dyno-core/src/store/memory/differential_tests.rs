//! Regressions found by differential testing against dynoxide (tests/tests/fidelity/differential.rs):
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
    store_with(&TableDef::new("main", "PK", Some("SK")))
}

/// A store holding the one table `def`.
fn store_with(def: &TableDef) -> MemoryStore {
    let store = MemoryStore::new();
    block_on(store.create_table(def)).unwrap();
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
    let put = crate::store::TransactWriteItem::put("main", key());
    let overlapping = crate::store::TransactWriteItem::update(
        "main",
        Item::from([("PK".to_owned(), s("P0")), ("SK".to_owned(), s("b"))]),
        crate::expr::Update {
            add: vec![(Path::attr("n"), n("1"))],
            remove: vec![Path::attr("n")],
            ..Default::default()
        },
    );
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

/// TransactGetItems reads each item once, as TransactWriteItems writes it once.
#[test]
fn a_transactional_read_names_each_item_once() {
    let store = store();
    let get = crate::store::TransactGetItem {
        table: "main".into(),
        key: key(),
        projection: None,
    };
    let result = block_on(store.transact_get(crate::store::TransactGetRequest {
        gets: vec![get.clone(), get],
    }));
    assert_eq!(
        message(result),
        "Transaction request cannot include multiple operations on one item"
    );
}

/// `if_not_exists(l, list_append(:a, :b))` is a valid SET value; `list_append` only refuses to
/// take another `list_append` as an operand.
#[test]
fn list_append_may_be_the_default_of_if_not_exists() {
    use crate::expr::{SetValue, UpdateOperand};
    let store = store();
    let list = |v: &str| UpdateOperand::Value(AttributeValue::L(vec![s(v)]));
    let update = crate::expr::Update {
        set: vec![(
            Path::attr("l"),
            SetValue::Operand(UpdateOperand::IfNotExists(
                Path::attr("l"),
                Box::new(UpdateOperand::ListAppend(
                    Box::new(list("a")),
                    Box::new(list("b")),
                )),
            )),
        )],
        ..Default::default()
    };
    let out = block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update,
        condition: None,
        return_values: ReturnValues::AllNew,
        return_old_on_condition_failure: false,
    }))
    .unwrap();
    assert_eq!(
        out.attributes.unwrap()["l"],
        AttributeValue::L(vec![s("a"), s("b")])
    );
}

/// TransactGetItems returns the projected attributes alone (Get's ProjectionExpression names
/// the attributes to retrieve), and an empty item when none of them exists: dynoxide's extra key
/// attributes are its deviation (tests/tests/fidelity/differential/deviations.rs).
#[test]
fn a_transactional_read_returns_the_projected_attributes() {
    let store = store();
    let mut item = key();
    item.insert("a".into(), s("x"));
    item.insert("b".into(), s("y"));
    put(&store, item);
    let get = |paths: Vec<Path>| crate::store::TransactGetItem {
        table: "main".into(),
        key: key(),
        projection: Some(paths),
    };
    let out = block_on(store.transact_get(crate::store::TransactGetRequest {
        gets: vec![get(vec![Path::attr("a")])],
    }))
    .unwrap();
    let expected = Item::from([("a".to_owned(), s("x"))]);
    assert_eq!(out.items[0].as_deref(), Some(&expected));
    let out = block_on(store.transact_get(crate::store::TransactGetRequest {
        gets: vec![get(vec![Path::attr("missing")])],
    }))
    .unwrap();
    assert_eq!(out.items[0].as_deref(), Some(&Item::new()));
}

fn codes(result: Result<impl std::fmt::Debug>) -> Vec<Option<String>> {
    match result {
        Err(Error::TransactionCanceled { reasons }) => {
            reasons.into_iter().map(|r| r.code).collect()
        }
        other => panic!("expected a cancelled transaction, got {other:?}"),
    }
}

/// An empty key value in TransactGetItems is its read's ValidationError (the transaction is
/// cancelled with a reason per read), not a ValidationException of the request as in
/// TransactWriteItems (dynoxide).
#[test]
fn an_empty_key_is_a_transactional_reads_reason() {
    let store = store();
    let empty = Item::from([("PK".to_owned(), s("")), ("SK".to_owned(), s("a"))]);
    let get = |key: Item| crate::store::TransactGetItem {
        table: "main".into(),
        key,
        projection: None,
    };
    let result = block_on(store.transact_get(crate::store::TransactGetRequest {
        gets: vec![get(key()), get(empty)],
    }));
    assert_eq!(
        codes(result),
        [Some("None".to_owned()), Some("ValidationError".to_owned())]
    );
}

/// Two actions on one item are refused even when one of them is otherwise invalid (here a put
/// whose index key is empty); an empty index key value in a put refuses the whole transaction.
#[test]
fn one_item_twice_is_refused_before_the_actions_are_validated() {
    let def = TableDef::new("main", "PK", Some("SK"))
        .global_index(crate::table::IndexDef::new("GSI1", "GPK", None));
    let store = store_with(&def);
    let delete = crate::store::TransactWriteItem::delete("main", key());
    // An index key of the wrong type: invalid for the action, not for reading the request (a
    // value that cannot be read, such as the number `x`, is refused first: see
    // `a_value_that_cannot_be_read_fails_a_transaction_first`).
    let mut item = key();
    item.insert("GPK".into(), AttributeValue::N("1".into()));
    let put = |item: Item| crate::store::TransactWriteItem::put("main", item);
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![delete, put(item)],
        client_request_token: None,
    }));
    assert_eq!(
        message(result),
        "Transaction request cannot include multiple operations on one item"
    );
    let mut item = Item::from([("PK".to_owned(), s("P9")), ("SK".to_owned(), s("a"))]);
    item.insert("GPK".into(), s(""));
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![put(item)],
        client_request_token: None,
    }));
    assert!(
        message(result).contains("A value specified for a secondary index key is not supported")
    );
}

/// dynoxide's order within an update: a missing operand attribute, then where a SET writes (a
/// path through a missing parent), then an overflowing sum.
#[test]
fn an_invalid_update_path_is_named_before_an_overflow() {
    let store = store();
    let result = block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update: crate::expr::Update {
            set: vec![(
                Path::attr("missing").key("x"),
                crate::expr::SetValue::Operand(crate::expr::UpdateOperand::Path(Path::attr(
                    "absent",
                ))),
            )],
            ..Default::default()
        },
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }));
    assert!(message(result).starts_with(
        "The provided expression refers to an attribute that does not exist in the item"
    ));
    // A REMOVE through a missing parent is named before an overflow too.
    let huge = AttributeValue::N("9.9999999999999999999999999999999999999E+125".into());
    let result = block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update: crate::expr::Update {
            set: vec![(
                Path::attr("n"),
                crate::expr::SetValue::Plus(
                    crate::expr::UpdateOperand::Value(huge.clone()),
                    crate::expr::UpdateOperand::Value(huge),
                ),
            )],
            remove: vec![Path::attr("missing").key("x")],
            ..Default::default()
        },
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }));
    assert!(message(result)
        .starts_with("The document path provided in the update expression is invalid for update"));
    let huge = AttributeValue::N("9.9999999999999999999999999999999999999E+125".into());
    let result = block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update: crate::expr::Update {
            set: vec![(
                Path::attr("missing").key("x"),
                crate::expr::SetValue::Plus(
                    crate::expr::UpdateOperand::Value(huge.clone()),
                    crate::expr::UpdateOperand::Value(huge),
                ),
            )],
            ..Default::default()
        },
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }));
    assert!(message(result)
        .starts_with("The document path provided in the update expression is invalid for update"),);
}

/// dynoxide reads every value of a transaction before it looks at its actions: a number it
/// cannot read, in any action's item, fails the request before two actions on one item do.
#[test]
fn a_value_that_cannot_be_read_fails_a_transaction_first() {
    let store = store();
    let delete = crate::store::TransactWriteItem::delete("main", key());
    let mut item = key();
    item.insert("n".into(), AttributeValue::N("x".into()));
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![delete, crate::store::TransactWriteItem::put("main", item)],
        client_request_token: None,
    }));
    assert!(message(result).starts_with("The parameter cannot be converted to a numeric value: x"));
}

/// A sort key condition's operand types come before the index's checks (ConsistentRead on a
/// GSI); BETWEEN's bounds (one type, in order) after them, then the schema's (type, empty
/// values), as dynoxide binds the condition.
#[test]
fn a_key_conditions_own_checks_come_first() {
    let def = TableDef::new("main", "PK", Some("SK")).global_index(crate::table::IndexDef::new(
        "GSI1",
        "GPK",
        Some("GSK"),
    ));
    let store = store_with(&def);
    let query = |sort: crate::expr::SortCondition, consistent: bool| {
        let mut q = QueryRequest::new(
            "main",
            Some("GSI1"),
            KeyCondition::partition("GPK", s("g")).sort("GSK", sort),
        );
        q.consistent_read = consistent;
        validation(block_on(store.query(q)))
    };
    use crate::expr::SortCondition as C;
    assert_eq!(
        query(C::Between(AttributeValue::Bool(true), AttributeValue::Bool(false)), true),
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL"
    );
    assert_eq!(
        query(C::Lt(AttributeValue::Null(true)), true),
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: NULL"
    );
    assert_eq!(
        query(C::Between(s("a"), AttributeValue::N("1".into())), true),
        "Consistent reads are not supported on global secondary indexes"
    );
    assert!(
        query(C::Between(s("a"), AttributeValue::N("1".into())), false)
            .contains("requires same data type for lower and upper bounds")
    );
    assert!(query(C::Between(s("b"), s("")), false)
        .contains("requires upper bound to be greater than or equal to lower bound"));
    // The bounds' order comes after the index's check.
    assert_eq!(
        query(C::Between(s("b"), s("a")), true),
        "Consistent reads are not supported on global secondary indexes"
    );
    assert_eq!(
        query(C::Eq(s("a")), true),
        "Consistent reads are not supported on global secondary indexes"
    );
}

/// An invalid literal (here an empty set) fails a transaction as a request, before any
/// condition is evaluated.
#[test]
fn an_invalid_literal_fails_a_transaction_as_a_request() {
    let store = store();
    let check =
        crate::store::TransactWriteItem::condition_check("main", key(), Condition::exists("PK"));
    let delete_empty = crate::store::TransactWriteItem::update(
        "main",
        Item::from([("PK".to_owned(), s("P1")), ("SK".to_owned(), s("a"))]),
        crate::expr::Update {
            delete: vec![(Path::attr("ss"), AttributeValue::Ss(vec![]))],
            ..Default::default()
        },
    );
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![check, delete_empty],
        client_request_token: None,
    }));
    assert!(message(result).contains("may not be empty"));
}

/// A key that does not match the schema is its action's ValidationError in a cancelled
/// transaction (the other actions' reasons beside it); an empty key value fails the request.
#[test]
fn an_invalid_key_is_its_actions_cancellation_reason() {
    let store = store();
    let check = |key: Item| {
        crate::store::TransactWriteItem::condition_check("main", key, Condition::exists("PK"))
    };
    let without_sort_key = Item::from([("PK".to_owned(), s("P0"))]);
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![check(key()), check(without_sort_key)],
        client_request_token: None,
    }));
    match result {
        Err(Error::TransactionCanceled { reasons }) => {
            let codes: Vec<_> = reasons.iter().map(|r| r.code.as_deref()).collect();
            assert_eq!(
                codes,
                [Some("ConditionalCheckFailed"), Some("ValidationError")]
            );
            assert_eq!(
                reasons[1].message.as_deref(),
                Some("The provided key element does not match the schema")
            );
        }
        other => panic!("expected a cancelled transaction, got {other:?}"),
    }
    let empty = Item::from([("PK".to_owned(), s("P0")), ("SK".to_owned(), s(""))]);
    let result = block_on(store.transact_write(crate::store::TransactWriteRequest {
        actions: vec![check(key()), check(empty)],
        client_request_token: None,
    }));
    assert!(message(result).contains("cannot contain an empty string value"));
}

/// Write capacity as DynamoDB charges it and dynoxide reports it (the figures below are
/// dynoxide's answers to the same writes): a unit per started KB of the larger of the item before
/// and after, plus the index writes (an entry added, removed, or moved to another index key as a
/// delete and a put).
#[test]
fn writes_report_their_capacity_with_index_writes() {
    let def = TableDef::new("gsit", "PK", None)
        .global_index(crate::table::IndexDef::new("GSI1", "G", None));
    let store = store_with(&def);
    let big = s(&"x".repeat(1500));
    let put = |item: Vec<(&str, AttributeValue)>| {
        let item: Item = item.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        block_on(store.put_item(PutRequest {
            table: "gsit".into(),
            item,
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }))
        .unwrap()
        .consumed_capacity
        .unwrap()
    };
    let split = |table: f64, gsi: Option<f64>| crate::store::Capacity {
        units: table + gsi.unwrap_or(0.0),
        table,
        global_indexes: gsi.map(|u| ("GSI1".to_owned(), u)).into_iter().collect(),
        local_indexes: Vec::new(),
    };
    // Not in the index: the table alone, and GSI1 absent from the breakdown.
    assert_eq!(
        put(vec![("PK", s("a")), ("x", big.clone())]),
        split(2.0, None)
    );
    assert_eq!(
        put(vec![("PK", s("a")), ("G", s("g")), ("x", big)]),
        split(2.0, Some(2.0))
    );
    // The index key moves: a delete of the 2 KB entry and a put of the small one.
    assert_eq!(
        put(vec![("PK", s("a")), ("G", s("h"))]),
        split(2.0, Some(3.0))
    );
    let key = Item::from([("PK".to_owned(), s("a"))]);
    let updated = block_on(store.update_item(UpdateRequest {
        table: "gsit".into(),
        key: key.clone(),
        update: crate::expr::Update {
            set: vec![(Path::attr("y"), crate::expr::SetValue::value(s("1")))],
            ..Default::default()
        },
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }))
    .unwrap();
    assert_eq!(updated.consumed_capacity, Some(split(1.0, Some(1.0))));
    let delete = || {
        block_on(store.delete_item(DeleteRequest {
            table: "gsit".into(),
            key: key.clone(),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }))
        .unwrap()
        .consumed_capacity
        .unwrap()
    };
    assert_eq!(delete(), split(1.0, Some(1.0)));
    assert_eq!(delete(), split(1.0, None));
    // A put that changes only the order of a set's members leaves the index entry unchanged:
    // GSI1 absent from the breakdown (sets are unordered; dynoxide's capture).
    let set = |members: [&str; 2]| AttributeValue::Ss(members.map(str::to_owned).to_vec());
    put(vec![
        ("PK", s("b")),
        ("G", s("g")),
        ("tags", set(["x", "y"])),
    ]);
    assert_eq!(
        put(vec![
            ("PK", s("b")),
            ("G", s("g")),
            ("tags", set(["y", "x"]))
        ]),
        split(1.0, None)
    );
}

/// One projection check for every read: besides the empty projection and overlapping
/// paths, paths that conflict (`a.b` beside `a[1]`) and paths deeper than 32 levels are refused,
/// as in every other expression (the check eval.rs had and read.rs lacked).
#[test]
fn a_projection_is_checked_for_conflicts_and_depth() {
    let store = store();
    let get = |paths: Vec<Path>| {
        let key = key();
        let mut request = GetRequest::borrowed("main", &key);
        request.projection = Some(paths);
        match block_on(store.get_item(request)) {
            Err(Error::Validation { message }) => message,
            other => panic!("expected a validation error, got {other:?}"),
        }
    };
    let conflict = get(vec![Path::attr("a").key("b"), Path::attr("a").index(1)]);
    assert!(
        conflict.contains("Two document paths conflict"),
        "{conflict}"
    );
    let deep = (0..32).fold(Path::attr("a"), |p, _| p.key("b"));
    assert!(get(vec![deep]).contains("too many nesting levels"));
    let overlap = get(vec![Path::attr("a"), Path::attr("a").key("b")]);
    assert!(overlap.contains("Two document paths overlap"), "{overlap}");
}

/// UPDATED_NEW returns what the update wrote where it landed (API reference, UpdateItem,
/// ReturnValues: "as they appear after the UpdateItem operation"): a list element SET past the
/// end is appended, and returned at its new index; a lower element's REMOVE shifts a written one
/// down. UPDATED_OLD returns only what existed before: nothing for an element that was not there.
#[test]
fn updated_new_returns_a_list_element_where_it_landed() {
    use crate::expr::{PathElement, SetValue, Update, UpdateOperand};
    let store = store();
    let l = |xs: &[&str]| AttributeValue::L(xs.iter().map(|x| s(x)).collect());
    let at = |i: usize| Path(vec![PathElement::Attr("l".into()), PathElement::Index(i)]);
    let set = |i: usize, v: &str| (at(i), SetValue::Operand(UpdateOperand::Value(s(v))));
    let update = |update: Update, rv: ReturnValues| {
        block_on(store.update_item(UpdateRequest {
            table: "main".into(),
            key: key(),
            update,
            condition: None,
            return_values: rv,
            return_old_on_condition_failure: false,
        }))
        .unwrap()
        .attributes
    };
    let only = |v: AttributeValue| Some(Item::from([("l".to_owned(), v)]));
    let mut item = key();
    item.insert("l".into(), l(&["a"]));
    put(&store, item);

    // SET l[3] on a list of one lands at l[1].
    let past_end = Update {
        set: vec![set(3, "b")],
        ..Default::default()
    };
    assert_eq!(
        update(past_end.clone(), ReturnValues::UpdatedNew),
        only(l(&["b"]))
    );
    // Before it, there was no such element: nothing to return.
    assert_eq!(update(past_end, ReturnValues::UpdatedOld), None);
    // Two past the end land in index order, at l[3] and l[4] of [a, b, c].
    let two = Update {
        set: vec![set(9, "e"), set(7, "d")],
        ..Default::default()
    };
    assert_eq!(update(two, ReturnValues::UpdatedNew), only(l(&["d", "e"])));
    // [a, b, c, d, e]: REMOVE l[0] and SET l[2]: the element written at l[2] is l[1] after.
    let shifted = Update {
        set: vec![set(2, "C")],
        remove: vec![at(0)],
        ..Default::default()
    };
    assert_eq!(update(shifted, ReturnValues::UpdatedNew), only(l(&["C"])));
    // A REMOVE leaves nothing to return after the update (not the element shifted into its
    // place): [b, C, d, e] -> [b, d, e].
    let removed = Update {
        remove: vec![at(1)],
        ..Default::default()
    };
    assert_eq!(update(removed, ReturnValues::UpdatedNew), None);
    let stored = block_on(store.get_item(GetRequest::new("main", key()))).unwrap();
    assert_eq!(stored.item.unwrap().get("l"), Some(&l(&["b", "d", "e"])));
}

/// Puts `item` into `main`, unconditionally.
fn put(store: &MemoryStore, item: Item) {
    block_on(store.put_item(PutRequest {
        table: "main".into(),
        item,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }))
    .unwrap();
}

fn ns(members: &[&str]) -> AttributeValue {
    AttributeValue::Ns(members.iter().map(|m| (*m).to_owned()).collect())
}

/// The table `main` is still empty: the refused requests wrote nothing.
fn assert_nothing_written(store: &MemoryStore) {
    let scan = block_on(store.scan(ScanRequest {
        table: "main".into(),
        ..ScanRequest::default()
    }))
    .unwrap();
    assert_eq!(scan.count, 0, "nothing is written");
}

/// BatchWriteItem names faults in DynamoDB's order over the whole request (dynoxide's): first
/// what reading the request refuses (a number it cannot store), in any write; then the values of
/// every write (a repeated set member); only then keys (an empty key value, a key given twice).
/// Nothing is written.
#[test]
fn a_batch_names_values_before_keys_and_numbers_before_values() {
    use crate::store::{BatchWriteRequest, WriteRequest};
    let store = store();
    let put = |pk: &str, sk: &str, extra: Option<(&str, AttributeValue)>| {
        let mut item = Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))]);
        if let Some((name, value)) = extra {
            item.insert(name.to_owned(), value);
        }
        WriteRequest::put("main", item)
    };
    let delete = |pk: &str, sk: &str| {
        WriteRequest::delete(
            "main",
            Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))]),
        )
    };
    // MemoryStore adds where the fault is (` (at ns)`, `: 1E-131`) to DynamoDB's words.
    let batch = |writes: Vec<WriteRequest>, words: &str| {
        let message = message(block_on(store.batch_write(BatchWriteRequest { writes })));
        assert!(
            message.starts_with(words),
            "{message:?} does not say {words:?}"
        );
    };
    let repeated = "Input collection contains duplicates";
    // A key given twice, then a number set with a repeated member (1 and 1.0).
    batch(
        vec![
            put("P2", "a", None),
            delete("P2", "a"),
            put("P1", "a", Some(("ns", ns(&["1", "1.0", "10"])))),
        ],
        repeated,
    );
    // An empty key value, then a repeated member.
    batch(
        vec![
            put("", "a", None),
            put("P1", "b", Some(("ns", ns(&["10", "10"])))),
        ],
        repeated,
    );
    // A key given twice, then a number too small to store.
    batch(vec![
            put("P1", "b", None),
            delete("P1", "b"),
            put("P0", "a", Some(("n", n("1E-131")))),
        ],
        "Number underflow. Attempting to store a number with magnitude smaller than supported range",
    );
    // A repeated member, then a number too large: the number is read first.
    batch(
        vec![
            put("P1", "a", Some(("ns", ns(&["10", "10"])))),
            put("P1", "b", Some(("n", n("1E+126")))),
        ],
        "Number overflow. Attempting to store a number with magnitude larger than supported range",
    );
    assert_nothing_written(&store);
}

/// A transaction's checks in dynoxide's order: what reading the request refuses (a number too
/// large) in any action first; then action by action its item's sets (attributes by name), its
/// expression values' sets, its update's overlapping paths. Nothing is written.
#[test]
fn a_transaction_reads_everything_then_checks_action_by_action() {
    use crate::expr::{Comparator, Condition, Operand, SetValue, Update, UpdateOperand};
    use crate::store::{TransactWriteItem, TransactWriteRequest};
    let store = store();
    let at = |sk: &str| Item::from([("PK".to_owned(), s("P0")), ("SK".to_owned(), s(sk))]);
    let update = |sk: &str, update: Update| TransactWriteItem::update("main", at(sk), update);
    let transact = |actions: Vec<TransactWriteItem>| {
        message(block_on(store.transact_write(TransactWriteRequest {
            actions,
            client_request_token: None,
        })))
    };
    // A repeated member (100 and 1e2) in the first action's condition, a number too large in
    // the second's update: the number is read first.
    let repeated_in_condition =
        TransactWriteItem::delete("main", at("a")).with_condition(Condition::Compare(
            Operand::Path(Path::attr("m")),
            Comparator::Ge,
            Operand::Value(ns(&["100", "1e2"])),
        ));
    let too_large = update(
        "b",
        Update {
            set: vec![(
                Path::attr("n"),
                SetValue::Plus(
                    UpdateOperand::Value(n("1.0")),
                    UpdateOperand::Value(n("1E+126")),
                ),
            )],
            ..Default::default()
        },
    );
    assert_eq!(
        transact(vec![repeated_in_condition, too_large]),
        "ExpressionAttributeValues contains invalid value: Number overflow. Attempting to store a number with magnitude larger than supported range for key :v1"
    );
    // The first action ADDs to one path twice, the second DELETEs an empty set: the first
    // action's overlap is named before the second action's value.
    let twice = update(
        "a",
        Update {
            add: vec![(Path::attr("c"), n("1")), (Path::attr("c"), n("2"))],
            ..Default::default()
        },
    );
    let empty_set = update(
        "b",
        Update {
            delete: vec![(Path::attr("ss"), AttributeValue::Ss(Vec::new()))],
            ..Default::default()
        },
    );
    assert_eq!(
        transact(vec![twice, empty_set]),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c], path two: [c]"
    );
    // A put whose item has a repeated member in `ns` and an empty set in `ss`: by name, `ns`.
    let mut item = at("a");
    item.insert("ss".into(), AttributeValue::Ss(Vec::new()));
    item.insert("ns".into(), ns(&["0", "100", "1e2"]));
    let put = TransactWriteItem::put("main", item);
    assert!(transact(vec![put]).starts_with("Input collection contains duplicates"));
    assert_nothing_written(&store);
}

/// UpdateItem checks a set deep inside a literal (an empty set in a list) only in the item the
/// update leaves (dynoxide): overlapping paths and a failing condition are named first, and the
/// set is named, in the older layer's words, only when the literal lands in the item.
#[test]
fn a_set_deep_in_an_update_literal_is_checked_in_the_updated_item() {
    use crate::expr::{Condition, SetValue, Update, UpdateOperand};
    let store = store();
    let list = |xs: Vec<AttributeValue>| UpdateOperand::Value(AttributeValue::L(xs));
    let request = |update: Update, condition: Option<Condition>| UpdateRequest {
        table: "main".into(),
        key: key(),
        update,
        condition,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    };
    let nested_empty = list(vec![AttributeValue::Ss(Vec::new()), s("10")]);
    let overlapping = Update {
        set: vec![
            (Path::attr("l"), SetValue::Operand(nested_empty.clone())),
            (
                Path::attr("l"),
                SetValue::Operand(UpdateOperand::Value(s("x"))),
            ),
        ],
        ..Default::default()
    };
    assert!(
        message(block_on(store.update_item(request(overlapping, None))))
            .starts_with("Invalid UpdateExpression: Two document paths overlap with each other"),
    );
    let nested_repeat = list(vec![AttributeValue::Ns(vec!["100".into(), "1e2".into()])]);
    let set_l = Update {
        set: vec![(Path::attr("l"), SetValue::Operand(nested_repeat))],
        ..Default::default()
    };
    let exists = Condition::AttributeExists(Path::attr("PK"));
    assert!(matches!(
        block_on(store.update_item(request(set_l.clone(), Some(exists)))),
        Err(Error::ConditionFailed { .. })
    ));
    let said = message(block_on(store.update_item(request(set_l, None))));
    assert!(
        said.starts_with("Input collection contains duplicates (at "),
        "{said}"
    );
    let got = block_on(store.get_item(GetRequest::new("main", key()))).unwrap();
    assert_eq!(got.item, None, "nothing is written");
}

/// An operand of a type its function does not take (`begins_with(a, :n)` with a number) is
/// named with the expression that holds it, as DynamoDB words its parse errors (dynoxide:
/// `Invalid FilterExpression: ` in a Query or Scan, `Invalid ConditionExpression: ` in a write),
/// as the key condition's and the update's are.
#[test]
fn an_operand_of_the_wrong_type_names_its_expression() {
    use crate::expr::{Condition, Operand};
    let store = store();
    let begins_with_number = Condition::BeginsWith(Path::attr("a"), Operand::Value(n("1")));
    let words = "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N";
    let scan = ScanRequest {
        table: "main".into(),
        filter: Some(begins_with_number.clone()),
        ..ScanRequest::default()
    };
    assert_eq!(
        validation(block_on(store.scan(scan))),
        format!("Invalid FilterExpression: {words}")
    );
    let delete = DeleteRequest {
        table: "main".into(),
        key: key(),
        condition: Some(begins_with_number),
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    };
    assert_eq!(
        message(block_on(store.delete_item(delete))),
        format!("Invalid ConditionExpression: {words}")
    );
}

/// A Query's filter naming several key attributes is refused naming the first of them by name
/// (dynoxide sorts the filter's attributes): `LSK` before `PK` on a local index.
#[test]
fn a_filter_on_key_attributes_names_the_first_by_name() {
    use crate::expr::{Condition, Operand};
    let def = TableDef::new("main", "PK", Some("SK")).local_index(crate::table::IndexDef::new(
        "LSI1",
        "PK",
        Some("LSK"),
    ));
    let store = store_with(&def);
    let mut query = QueryRequest::new("main", Some("LSI1"), KeyCondition::partition("PK", s("P0")));
    query.filter = Some(Condition::Or(vec![
        Condition::Compare(
            Operand::Path(Path::attr("PK")),
            crate::expr::Comparator::Eq,
            Operand::Value(s("x")),
        ),
        Condition::AttributeNotExists(Path::attr("LSK")),
    ]));
    assert_eq!(
        validation(block_on(store.query(query))),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: LSK"
    );
}

/// Two actions of a transaction on one item are refused before an earlier action's empty key
/// value is named (dynoxide checks every action's target first).
#[test]
fn one_item_twice_is_named_before_an_empty_key_value() {
    use crate::expr::Condition;
    use crate::store::{TransactWriteItem, TransactWriteRequest};
    let store = store();
    let mut empty_sort_key = key();
    empty_sort_key.insert("SK".into(), s(""));
    let check = || {
        TransactWriteItem::condition_check(
            "main",
            key(),
            Condition::AttributeExists(Path::attr("PK")),
        )
    };
    let result = block_on(store.transact_write(TransactWriteRequest {
        actions: vec![
            TransactWriteItem::put("main", empty_sort_key),
            check(),
            check(),
        ],
        client_request_token: None,
    }));
    assert_eq!(
        message(result),
        "Transaction request cannot include multiple operations on one item"
    );
}

/// The table `main` with a global index `ByG` on `G`.
fn store_with_index() -> MemoryStore {
    store_with(
        &TableDef::new("main", "PK", Some("SK"))
            .global_index(crate::table::IndexDef::new("ByG", "G", None)),
    )
}

/// PutItem: an item's number that cannot be read is named before a NULL that is not true in the
/// condition's values (dynoxide reads the item as it parses the request, before the expression
/// attribute values). Nothing is written.
#[test]
fn a_puts_unreadable_number_is_named_before_its_conditions_values() {
    use crate::expr::Operand;
    let store = store();
    let mut item = key();
    item.insert("n".into(), n("abc"));
    let result = block_on(store.put_item(PutRequest {
        table: "main".into(),
        item,
        condition: Some(Condition::Contains(
            Path::attr("ns"),
            Operand::Value(AttributeValue::Null(false)),
        )),
        return_values: ReturnValues::AllOld,
        return_old_on_condition_failure: false,
    }));
    let message = message(result);
    assert!(
        message.contains("The parameter cannot be converted to a numeric value: abc"),
        "{message}"
    );
    assert_nothing_written(&store);
}

/// Query: a sort key condition's NULL that is not true is refused as reading the request refuses
/// it, before the operator's operand types are checked (dynoxide).
#[test]
fn a_sort_key_conditions_null_is_refused_as_it_is_read() {
    let store = store();
    let mut query = QueryRequest::new(
        "main",
        None,
        KeyCondition::partition("PK", s("P0")).sort(
            "SK",
            crate::expr::SortCondition::Ge(AttributeValue::Null(false)),
        ),
    );
    let words = "One or more parameter values were invalid: Null attribute value types must have the value of true";
    assert!(validation(block_on(store.query(query.clone()))).starts_with(words));
    // Also when the filter has a fault of its own, and on a missing table.
    query.filter = Some(Condition::eq("PK", s("P0")));
    assert!(validation(block_on(store.query(query.clone()))).starts_with(words));
    query.table = "missing".into();
    assert!(validation(block_on(store.query(query))).starts_with(words));
}

/// BatchWriteItem: of a put's key faults, the partition key's come first (dynoxide checks the key
/// attribute by attribute): an empty partition key value is named before a sort key of the wrong
/// type, where a missing key attribute or one of the wrong type is the schema's error. Nothing
/// is written.
#[test]
fn a_batch_puts_empty_partition_key_is_named_before_a_mistyped_sort_key() {
    use crate::store::{BatchWriteRequest, WriteRequest};
    let store = store();
    let batch = |pairs: Vec<(&str, AttributeValue)>| {
        let item: Item = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        message(block_on(store.batch_write(BatchWriteRequest {
            writes: vec![WriteRequest::put("main", item)],
        })))
    };
    assert_eq!(
        batch(vec![("PK", s("")), ("SK", AttributeValue::Bool(true))]),
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: PK"
    );
    let mismatch = "The provided key element does not match the schema";
    assert_eq!(
        batch(vec![("PK", AttributeValue::Bool(true)), ("SK", s(""))]),
        mismatch
    );
    assert_eq!(batch(vec![("PK", s(""))]), mismatch);
    assert_eq!(
        batch(vec![("PK", s("P0")), ("SK", AttributeValue::Bool(true))]),
        mismatch
    );
    assert_nothing_written(&store);
}

/// UpdateItem: the exact sum of two 38-digit numbers at the top of the range has 39 significant
/// digits and is out of range; its precision is what is named (dynoxide checks a number's digits
/// before its magnitude). Nothing is written.
#[test]
fn a_sum_past_both_limits_is_refused_for_its_digits() {
    use crate::expr::{SetValue, Update, UpdateOperand};
    let store = store();
    let max = || UpdateOperand::Value(n("9.9999999999999999999999999999999999999E+125"));
    let result = block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update: Update {
            set: vec![(Path::attr("l"), SetValue::Plus(max(), max()))],
            ..Default::default()
        },
        condition: None,
        return_values: ReturnValues::AllNew,
        return_old_on_condition_failure: true,
    }));
    let message = message(result);
    assert!(
        message.starts_with("Attempting to store more than 38 significant digits in a Number"),
        "{message}"
    );
    assert_nothing_written(&store);
}

/// TransactWriteItems: a Put's key is checked as PutItem checks it, table key before index keys,
/// and only the first fault counts: a sort key of the wrong type is the action's ValidationError
/// reason even when its index key value is empty (which alone refuses the request), and the other
/// actions' conditions are evaluated beside it (dynoxide; the API reference lists index key
/// faults among the ValidationError cancellation reasons).
#[test]
fn a_mistyped_sort_key_in_a_transaction_put_is_its_reason_before_an_empty_index_key() {
    use crate::store::{TransactWriteItem, TransactWriteRequest};
    let store = store_with_index();
    let put = |sk: AttributeValue| {
        TransactWriteItem::put(
            "main",
            Item::from([
                ("PK".to_owned(), s("P2")),
                ("SK".to_owned(), sk),
                ("G".to_owned(), s("")),
            ]),
        )
    };
    let failing_check = TransactWriteItem::condition_check("main", key(), Condition::exists("PK"));
    let result = block_on(store.transact_write(TransactWriteRequest {
        actions: vec![failing_check.clone(), put(AttributeValue::Bool(true))],
        client_request_token: None,
    }));
    assert_eq!(
        codes(result),
        [
            Some("ConditionalCheckFailed".to_owned()),
            Some("ValidationError".to_owned())
        ]
    );
    // With a valid table key, the empty index key value refuses the request.
    let result = block_on(store.transact_write(TransactWriteRequest {
        actions: vec![failing_check, put(s("a"))],
        client_request_token: None,
    }));
    assert_eq!(
        message(result),
        "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ByG, IndexKey: G"
    );
    assert_nothing_written(&store);
}

/// TransactWriteItems: an Update that sets a secondary index key to an empty value fails the
/// request (a ValidationException in DynamoDB's update words), as an empty key value in a Put
/// does, not its action's cancellation reason (dynoxide). Nothing is written.
#[test]
fn an_update_emptying_an_index_key_fails_a_transaction_as_a_request() {
    use crate::expr::{SetValue, Update, UpdateOperand};
    use crate::store::{TransactWriteItem, TransactWriteRequest};
    let store = store_with_index();
    let failing_check = TransactWriteItem::condition_check(
        "main",
        Item::from([("PK".to_owned(), s("P1")), ("SK".to_owned(), s("a"))]),
        Condition::exists("PK"),
    );
    let update = TransactWriteItem::update(
        "main",
        key(),
        Update {
            set: vec![(
                Path::attr("G"),
                SetValue::Operand(UpdateOperand::Value(s(""))),
            )],
            ..Default::default()
        },
    );
    let result = block_on(store.transact_write(TransactWriteRequest {
        actions: vec![failing_check, update],
        client_request_token: None,
    }));
    let message = message(result);
    assert!(
        message.starts_with("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value."),
        "{message}"
    );
    assert_nothing_written(&store);
}

/// A filter's `begins_with` with a literal of a type it does not take is named for that type
/// before what lies inside the literal (a number set with a repeated member in a map), as the
/// ordering comparisons are (dynoxide).
#[test]
fn begins_with_names_its_operands_type_before_its_contents() {
    use crate::expr::Operand;
    let store = store();
    let map = AttributeValue::M(Item::from([("a".to_owned(), ns(&["1e2", "0.001", "100"]))]));
    let scan = ScanRequest {
        table: "main".into(),
        filter: Some(Condition::Not(Box::new(Condition::BeginsWith(
            Path::attr("l"),
            Operand::Value(map),
        )))),
        ..ScanRequest::default()
    };
    assert_eq!(
        validation(block_on(store.scan(scan))),
        "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: M"
    );
}

/// UpdateItem reads every SET operand before it names a set deep inside a literal (an empty set
/// in a list given to `list_append`): a missing attribute in the same `list_append` is named
/// first, as dynoxide finds such a set only in the updated item. Nothing is written.
#[test]
fn a_missing_operand_is_named_before_a_set_deep_in_a_literal() {
    use crate::expr::{SetValue, Update, UpdateOperand};
    let store = store();
    let nested_empty =
        UpdateOperand::Value(AttributeValue::L(vec![AttributeValue::Ss(Vec::new())]));
    let update = Update {
        set: vec![(
            Path::attr("m"),
            SetValue::Operand(UpdateOperand::ListAppend(
                Box::new(nested_empty),
                Box::new(UpdateOperand::Path(Path::attr("l"))),
            )),
        )],
        ..Default::default()
    };
    let said = message(block_on(store.update_item(UpdateRequest {
        table: "main".into(),
        key: key(),
        update,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    })));
    assert!(
        said.starts_with(
            "The provided expression refers to an attribute that does not exist in the item"
        ),
        "{said}"
    );
    assert_nothing_written(&store);
}

/// Query: a key condition's set with a repeated member (100 and 1e2) is refused as an invalid
/// expression value before the key condition's operand types and the schema are checked
/// (dynoxide checks every ExpressionAttributeValue first).
#[test]
fn a_key_conditions_repeated_set_member_is_named_first() {
    use crate::expr::SortCondition as C;
    let store = store();
    let words = "One or more parameter values were invalid: Input collection contains duplicates";
    for sort in [
        C::Eq(ns(&["100", "1e2"])),
        C::Between(n("-10.25"), ns(&["100", "1e2"])),
    ] {
        let query = QueryRequest::new(
            "main",
            None,
            KeyCondition::partition("PK", s("P0")).sort("SK", sort),
        );
        let said = validation(block_on(store.query(query)));
        assert!(said.starts_with(words), "{said}");
    }
}

/// PutItem: the item's values (a number set with a repeated member) are checked before its
/// condition (a BETWEEN with reversed bounds), as dynoxide checks them; what reading the request
/// refuses in the condition's values still comes before the item's sets. Nothing is written.
#[test]
fn a_puts_item_values_come_before_its_condition() {
    use crate::expr::Operand;
    let store = store();
    let mut item = key();
    item.insert("ns".into(), ns(&["1", "1.0", "10"]));
    let put = |condition: Condition| PutRequest {
        table: "main".into(),
        item: item.clone(),
        condition: Some(condition),
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    };
    let reversed = Condition::Between(
        Operand::Path(Path::attr("c")),
        Operand::Value(s("abc")),
        Operand::Value(s("a#1")),
    );
    let said = message(block_on(store.put_item(put(reversed))));
    assert!(
        said.contains("Input collection contains duplicates"),
        "{said}"
    );
    let null_false = Condition::eq("c", AttributeValue::Null(false));
    let said = message(block_on(store.put_item(put(null_false))));
    assert!(
        said.starts_with("One or more parameter values were invalid: Null attribute value types must have the value of true"),
        "{said}"
    );
    assert_nothing_written(&store);
}

/// TransactWriteItems: two actions on one item are refused first even when that item's key has
/// an empty value (which alone refuses the request), as dynoxide compares the keys as given.
#[test]
fn one_item_twice_is_named_before_its_own_empty_key_value() {
    use crate::store::{TransactWriteItem, TransactWriteRequest};
    let store = store();
    let empty_sort_key = Item::from([("PK".to_owned(), s("P1")), ("SK".to_owned(), s(""))]);
    let check = || {
        TransactWriteItem::condition_check("main", empty_sort_key.clone(), Condition::exists("PK"))
    };
    let result = block_on(store.transact_write(TransactWriteRequest {
        actions: vec![check(), check()],
        client_request_token: None,
    }));
    assert_eq!(
        message(result),
        "Transaction request cannot include multiple operations on one item"
    );
}

/// A condition's literal with a set deeper inside it (a repeated member in a map) is compared,
/// not refused: DynamoDB (dynoxide) checks an expression value's sets at its top only, and a
/// condition's literal is never stored. Its top is still checked.
#[test]
fn a_set_deep_in_a_condition_literal_is_compared() {
    let store = store();
    let deep = AttributeValue::M(Item::from([(
        "a".to_owned(),
        AttributeValue::Ss(vec!["Z".into(), "Z".into()]),
    )]));
    let delete = |value: AttributeValue| DeleteRequest {
        table: "main".into(),
        key: key(),
        condition: Some(Condition::eq("n", value)),
        return_values: ReturnValues::AllOld,
        return_old_on_condition_failure: false,
    };
    assert!(matches!(
        block_on(store.delete_item(delete(deep))),
        Err(Error::ConditionFailed { .. })
    ));
    let top = AttributeValue::Ss(vec!["Z".into(), "Z".into()]);
    assert!(message(block_on(store.delete_item(delete(top)))).contains("contains duplicates"));
}

/// Query: a sort key value of the wrong type is named before an empty partition key value
/// (dynoxide binds the whole condition to the schema first, and names the empty value after
/// the other checks; seeds 111403, 111657 and 111974 of the differential run from 110000).
/// On a multi-attribute partition key, a later attribute's wrong type also comes first.
#[test]
fn a_sort_value_of_the_wrong_type_is_named_before_an_empty_partition_value() {
    use crate::expr::SortCondition as C;
    use crate::table::{IndexDef, KeyAttribute, ScalarType};
    let mut def = TableDef::new("num", "PK", None);
    def.sort_key = Some(KeyAttribute::new("SK", ScalarType::N));
    let def = def.global_index(
        IndexDef::multi(
            "Multi",
            [KeyAttribute::string("A"), KeyAttribute::string("B")],
            [],
        )
        .unwrap(),
    );
    let store = store_with(&def);
    let query = |index: Option<&str>, key: KeyCondition| {
        validation(block_on(store.query(QueryRequest::new("num", index, key))))
    };
    let mismatch = "One or more parameter values were invalid: Condition parameter type does not match schema type";
    for sort in [C::Eq(s("x")), C::BeginsWith(s(" ")), C::Ge(s("1"))] {
        let message = query(None, KeyCondition::partition("PK", s("")).sort("SK", sort));
        assert!(message.starts_with(mismatch), "{message}");
    }
    let message = query(
        Some("Multi"),
        KeyCondition::partition("A", s("")).and_partition("B", n("1")),
    );
    assert!(message.starts_with(mismatch), "{message}");
    // Alone, the empty value is still refused.
    let message = query(
        None,
        KeyCondition::partition("PK", s("")).sort("SK", C::Eq(n("1"))),
    );
    assert!(
        message.contains("cannot contain an empty string value. Key: PK"),
        "{message}"
    );
}
