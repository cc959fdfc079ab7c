//! A typed transaction gives its caller the capacity it consumed (`Transaction::send` returns the
//! store's `TransactWriteOutput`), as DynamoDB reports it: each action's table write at twice a
//! single write's units, its index writes at their single-write cost. On every backend with
//! transactions; MemoryStore's figures are compared with dynoxide's, the reference.

use dyno_core::ops::Transaction;
use dyno_core::store::{Capacity, TableCapacity};
use dyno_tests::backend::{backends, fresh_table, supports_transactions, BackendKind};
use dyno_tests::model::{ecommerce_table, order, user, TABLE};

/// A user (outside GSI1) and two of their orders (in GSI1), created in one transaction, then one
/// order's status updated (its GSI1 key moves) beside a condition check on the user.
async fn capacities(store: &dyn dyno_core::Store) -> (Vec<TableCapacity>, Vec<TableCapacity>) {
    let created = Transaction::new()
        .create(&user("u1"))
        .create(&order("u1", "o1"))
        .create(&order("u1", "o2"))
        .send(store)
        .await
        .expect("the transaction commits");
    let mut shipped = order("u1", "o1");
    shipped.status = dyno_tests::model::OrderStatus::Shipped;
    // The version the creation stored (a versioned put checks it).
    shipped.version = 1;
    let replaced = Transaction::new()
        .put(&shipped)
        .check(
            dyno_tests::model::User::key("u1").expect("key"),
            dyno_core::expr::Cond::raw(dyno_core::expr::Condition::exists("PK")),
        )
        .send(store)
        .await
        .expect("the transaction commits");
    (
        created.consumed_capacity.unwrap_or_default(),
        replaced.consumed_capacity.unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_typed_transaction_returns_its_consumed_capacity() {
    let mut reference: Option<(Vec<TableCapacity>, Vec<TableCapacity>)> = None;
    let mut memory = None;
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let store = fresh_table(&backend, &ecommerce_table(TABLE), "txcap").await;
        let got = capacities(&*store).await;
        match backend.kind {
            BackendKind::Memory => memory = Some(got),
            BackendKind::Dynoxide => reference = Some(got),
            // moto reports no capacity for transactions (or its own): not compared.
            _ => {}
        }
    }
    let (created, replaced) = memory.expect("MemoryStore always runs");
    // Three small items, twice a 1 KB write each; the two orders enter GSI1 at one unit each.
    let mut expected = Capacity::table(6.0);
    expected.add_index("GSI1", false, 2.0);
    assert_eq!(
        created,
        [TableCapacity {
            table: TABLE.into(),
            capacity: expected
        }]
    );
    // The put order (2) and the checked user (2); the order's GSI1 entry moves to another
    // key: a delete and a put (2).
    let mut expected = Capacity::table(4.0);
    expected.add_index("GSI1", false, 2.0);
    assert_eq!(
        replaced,
        [TableCapacity {
            table: TABLE.into(),
            capacity: expected
        }]
    );
    if let Some((ref_created, ref_replaced)) = reference {
        assert_eq!(created, ref_created, "creation: memory against dynoxide");
        assert_eq!(
            replaced, ref_replaced,
            "replacement: memory against dynoxide"
        );
    }
}
