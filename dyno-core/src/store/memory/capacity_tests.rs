//! Write capacity as the engine computes it from what a write already knows (the stored item's
//! size and index keys, the prepared item's): exact figures for projected indexes, and the same
//! figures as the path that measures items alone (batch writes and transactions), over a
//! sequence of writes to a model whose entities share keys and indexes.

use futures::executor::block_on;

use super::*;
use crate::expr::{Path, SetValue, Update};
use crate::store::{BatchWriteRequest, TransactWriteItem, WriteRequest};
use crate::table::{IndexDef, Projection};
use crate::value::AttributeValue;

use super::tests::{item, key, n, s};

const TABLE: &str = "Shop";

fn ss(v: &[&str]) -> AttributeValue {
    AttributeValue::Ss(v.iter().map(|x| (*x).to_owned()).collect())
}

/// Two global indexes sharing a partition attribute (one `ALL`, one `KEYS_ONLY`), a second
/// `ALL` index, an `INCLUDE` index, and a `KEYS_ONLY` local index.
fn store() -> MemoryStore {
    let store = MemoryStore::new();
    let def = TableDef::new(TABLE, "PK", Some("SK"))
        .global_index(IndexDef::new("All", "GPK", Some("GSK")))
        .global_index(IndexDef::new("Also", "GSK", None))
        .global_index(IndexDef::new("Keys", "GPK", Some("KSK")).projection(Projection::KeysOnly))
        .global_index(
            IndexDef::new("Inc", "IPK", None).projection(Projection::Include(vec!["total".into()])),
        )
        .local_index(IndexDef::new("ByDate", "PK", Some("LSK")).projection(Projection::KeysOnly));
    block_on(store.create_table(&def)).unwrap();
    store
}

/// What a single-item write consumed.
fn charged(out: Result<WriteOutput>) -> Capacity {
    out.unwrap().consumed_capacity.unwrap()
}

fn put(store: &MemoryStore, it: Item) -> Capacity {
    charged(block_on(store.put_item(PutRequest {
        table: TABLE.into(),
        item: it,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    })))
}

fn update(store: &MemoryStore, k: Item, update: Update) -> Capacity {
    charged(block_on(store.update_item(UpdateRequest {
        table: TABLE.into(),
        key: k,
        update,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    })))
}

fn delete(store: &MemoryStore, k: Item) -> Capacity {
    charged(block_on(store.delete_item(DeleteRequest {
        table: TABLE.into(),
        key: k,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    })))
}

fn set(name: &str, value: AttributeValue) -> Update {
    Update {
        set: vec![(Path::attr(name), SetValue::value(value))],
        ..Update::default()
    }
}

/// Units per index name.
type Shares<'c> = Vec<(&'c str, f64)>;

/// The split as `(table, [(global index, units)], [(local index, units)])`.
fn split(c: &Capacity) -> (f64, Shares<'_>, Shares<'_>) {
    fn named(l: &[(String, f64)]) -> Shares<'_> {
        l.iter().map(|(n, u)| (n.as_str(), *u)).collect()
    }
    (c.table, named(&c.global_indexes), named(&c.local_indexes))
}

/// An order of 3,047 bytes: 3 write units, of which every projection but `All` holds less
/// than 1 KB.
fn order() -> Item {
    item(&[
        ("PK", s("U#1")),
        ("SK", s("O#1")),
        ("GPK", s("G")),
        ("GSK", s("a")),
        ("KSK", s("k")),
        ("IPK", s("i")),
        ("LSK", s("l")),
        ("total", n(5)),
        ("blob", s(&"x".repeat(3000))),
        ("tags", ss(&["a", "b"])),
    ])
}

#[test]
fn projected_indexes_are_charged_their_entry_sizes_and_only_when_their_entry_changes() {
    let store = store();
    let k = || key("U#1", "O#1");
    assert_eq!(item_size(&order()), 3047);

    let c = put(&store, order());
    assert_eq!(
        split(&c),
        (
            3.0,
            vec![("All", 3.0), ("Also", 3.0), ("Inc", 1.0), ("Keys", 1.0)],
            vec![("ByDate", 1.0)]
        ),
        "a new item: each index its entry's size"
    );
    assert_eq!(c.units, 12.0);

    let c = update(&store, k(), set("blob", s(&"y".repeat(3000))));
    assert_eq!(
        split(&c),
        (3.0, vec![("All", 3.0), ("Also", 3.0)], vec![]),
        "an attribute no projection but ALL holds"
    );

    let c = update(&store, k(), set("total", n(6)));
    assert_eq!(
        split(&c),
        (3.0, vec![("All", 3.0), ("Also", 3.0), ("Inc", 1.0)], vec![]),
        "an included attribute"
    );

    let c = update(&store, k(), set("KSK", s("k2")));
    assert_eq!(
        split(&c),
        (
            3.0,
            vec![("All", 3.0), ("Also", 3.0), ("Keys", 2.0)],
            vec![]
        ),
        "a moved index key: a delete and a put in Keys; Inc does not hold KSK"
    );

    let mut same = order();
    same.insert("blob".into(), s(&"y".repeat(3000)));
    same.insert("total".into(), n(6));
    same.insert("KSK".into(), s("k2"));
    same.insert("tags".into(), ss(&["b", "a"]));
    let c = put(&store, same);
    assert_eq!(
        split(&c),
        (3.0, vec![], vec![]),
        "the same item, its set in another order: no index write"
    );

    let mut without = order();
    without.remove("IPK");
    without.insert("total".into(), n(6));
    without.insert("blob".into(), s(&"y".repeat(3000)));
    without.insert("KSK".into(), s("k2"));
    let c = put(&store, without);
    assert_eq!(
        split(&c),
        (3.0, vec![("All", 3.0), ("Also", 3.0), ("Inc", 1.0)], vec![]),
        "leaving Inc (IPK removed) changes the ALL entries too"
    );

    let c = delete(&store, k());
    assert_eq!(
        split(&c),
        (
            3.0,
            vec![("All", 3.0), ("Also", 3.0), ("Keys", 1.0)],
            vec![("ByDate", 1.0)]
        ),
        "a delete: every index the item was in"
    );
    let c = delete(&store, k());
    assert_eq!(split(&c), (1.0, vec![], vec![]), "a delete of nothing");
}

/// A small deterministic generator (no dependency): xorshift64.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// An item of one of two entities sharing partitions and the overloaded `GPK`: orders (in every
/// index, some sparse) and profiles (no `KSK`, no `IPK`), with attributes of every size class.
fn random_item(rng: &mut Rng, pk: &str, sk: &str) -> Item {
    let mut it = key(pk, sk);
    let profile = sk.starts_with("P");
    let mut attr = |name: &str, v: AttributeValue| {
        it.insert(name.to_owned(), v);
    };
    if rng.below(4) > 0 {
        attr("GPK", s(&format!("G{}", rng.below(2))));
    }
    if rng.below(4) > 0 {
        attr("GSK", s(&format!("{}", rng.below(3))));
    }
    if !profile && rng.below(3) > 0 {
        attr("KSK", s(&format!("k{}", rng.below(2))));
    }
    if !profile && rng.below(3) > 0 {
        attr("IPK", s(&format!("i{}", rng.below(2))));
    }
    if rng.below(2) > 0 {
        attr("LSK", s(&format!("l{}", rng.below(2))));
    }
    if rng.below(2) > 0 {
        attr("total", n(rng.below(3)));
    }
    if rng.below(2) > 0 {
        attr("blob", s(&"z".repeat(rng.below(2500) as usize)));
    }
    if rng.below(2) > 0 {
        let tags = [["a", "b"], ["b", "a"]][rng.below(2) as usize];
        attr("tags", ss(&tags));
    }
    it
}

fn only_table(c: Option<Vec<crate::store::TableCapacity>>) -> Capacity {
    let mut tables = c.unwrap();
    assert_eq!(tables.len(), 1);
    tables.remove(0).capacity
}

/// Every write through PutItem, UpdateItem and DeleteItem (sizes and index keys from the write)
/// is charged what the same write costs through BatchWriteItem or a transaction (sizes and
/// index keys computed from the items), on two stores kept in step.
#[test]
fn single_writes_are_charged_as_batch_and_transaction_writes_measure_them() {
    let (single, multi) = (store(), store());
    let mut rng = Rng(0x5EED_CAFE);
    let mut index_writes = 0;
    for step in 0..3000 {
        let pk = format!("U#{}", rng.below(3));
        let sk = ["O#1", "O#2", "P#1", "O#3"][rng.below(4) as usize];
        let (one, other) = match rng.below(3) {
            0 => {
                let it = random_item(&mut rng, &pk, sk);
                let one = put(&single, it.clone());
                let other = block_on(multi.batch_write(BatchWriteRequest {
                    writes: vec![WriteRequest::put(TABLE, it)],
                }))
                .unwrap();
                (one, only_table(other.consumed_capacity))
            }
            1 => {
                let source = random_item(&mut rng, &pk, sk);
                let mut u = Update::default();
                for (name, value) in &source {
                    if name != "PK" && name != "SK" && rng.below(2) == 0 {
                        u.set
                            .push((Path::attr(name), SetValue::value(value.clone())));
                    }
                }
                for name in ["GPK", "IPK", "blob", "tags"] {
                    if !source.contains_key(name) && rng.below(4) == 0 {
                        u.remove.push(Path::attr(name));
                    }
                }
                if u.is_empty() {
                    u.set.push((Path::attr("total"), SetValue::value(n(7))));
                }
                let one = update(&single, key(&pk, sk), u.clone());
                let other = block_on(multi.transact_write(TransactWriteRequest {
                    actions: vec![TransactWriteItem::update(TABLE, key(&pk, sk), u)],
                    client_request_token: None,
                }))
                .unwrap();
                let mut other = only_table(other.consumed_capacity);
                // A transaction doubles the table's share only.
                other.units -= other.table / 2.0;
                other.table /= 2.0;
                (one, other)
            }
            _ => {
                let one = delete(&single, key(&pk, sk));
                let other = block_on(multi.batch_write(BatchWriteRequest {
                    writes: vec![WriteRequest::delete(TABLE, key(&pk, sk))],
                }))
                .unwrap();
                (one, only_table(other.consumed_capacity))
            }
        };
        assert_eq!(one, other, "step {step}: {pk} {sk}");
        index_writes += one.global_indexes.len() + one.local_indexes.len();
    }
    assert!(
        index_writes > 3000,
        "the sequence writes indexes: {index_writes}"
    );
}

/// An item a backfill left out of a new index (its index key value has another type: DynamoDB's
/// "index key violation") has no entry there: a write that gives it a valid key charges the
/// index one put (not a delete and a put), and deleting an item still in violation charges the
/// index nothing.
#[test]
fn items_left_out_by_a_backfill_are_charged_as_not_in_the_index() {
    let store = store();
    put(
        &store,
        item(&[("PK", s("U#1")), ("SK", s("O#1")), ("V", n(5))]),
    );
    put(
        &store,
        item(&[("PK", s("U#1")), ("SK", s("O#2")), ("V", n(6))]),
    );
    block_on(
        store.update_table(crate::store::UpdateTableRequest::create_index(
            TABLE,
            IndexDef::new("Late", "V", None),
        )),
    )
    .unwrap();
    let c = update(&store, key("U#1", "O#1"), set("V", s("x")));
    assert_eq!(split(&c), (1.0, vec![("Late", 1.0)], vec![]));
    let c = delete(&store, key("U#1", "O#2"));
    assert_eq!(split(&c), (1.0, vec![], vec![]));
}
