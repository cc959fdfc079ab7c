//! Derive features beyond the e-commerce model: composite sort keys, sparse, sharded and local
//! indexes, index keys made of several fields, and the field attributes (rename, skip, default,
//! serde, ttl, version, created_at/updated_at, a custom entity-type attribute).

use std::collections::{BTreeSet, HashMap};

use dyno_core::expr::{KeyCondition, Path, SetValue, SortCondition};
use dyno_core::ops::{EntityExt, FromItem};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::{
    AttributeValue, Collection, Entity, Error, Item, KeyPart, MemoryStore, Store, Table,
};
use dyno_tests::fault::FaultStore;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Debug, Table)]
#[dyno(
    name = "Ledger",
    pk = "PK",
    sk = "SK",
    ttl = "expires",
    entity_attribute = "kind"
)]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK", include("amount")))]
#[dyno(index(name = "ByDay", pk = "DAYPK", sk = "DAYSK"))]
#[dyno(index(name = "Audit", pk = "AUDITPK", keys_only))]
#[dyno(index(name = "LSI1", local, sk = "LSI1SK"))]
struct Ledger;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
struct Meta {
    source: String,
    retries: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
#[dyno(rename_all = "lowercase")]
enum Region {
    Eu,
    Us,
}

/// A ledger entry: composite sort key, a sparse index (flag), an index made of two non-key
/// fields (region, tier), a sharded index by day, and a local index on the amount.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Ledger, pk = "ACCOUNT#{account}", sk = "TX#{day}#{seq}", entity_type = "Tx")]
#[dyno(index(GSI1, pk = "FLAG#{flag}", sk = "{day}#{seq}"))]
#[dyno(index(GSI2, pk = "REGION#{region}#{tier}", sk = "{amount}"))]
#[dyno(index(ByDay, pk = "DAY#{day}", sk = "{seq}", shards = 4))]
#[dyno(index(LSI1, sk = "AMOUNT#{amount}"))]
struct Tx {
    account: String,
    day: String,
    seq: u32,
    flag: Option<String>,
    region: Region,
    tier: u8,
    amount: u64,
    #[dyno(default)]
    fees: u32,
    #[dyno(rename = "desc")]
    description: String,
    #[dyno(skip)]
    cached: Option<String>,
    #[dyno(default)]
    tags: Vec<String>,
    #[dyno(serde)]
    meta: Meta,
    #[dyno(ttl)]
    expires_at: Option<u64>,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    updated: Option<OffsetDateTime>,
    #[dyno(version)]
    rev: u32,
}

fn tx(account: &str, day: &str, seq: u32, flag: Option<&str>, amount: u64) -> Tx {
    Tx {
        account: account.into(),
        day: day.into(),
        seq,
        flag: flag.map(str::to_owned),
        region: Region::Eu,
        tier: 1,
        amount,
        fees: 0,
        description: format!("tx {seq}"),
        cached: Some("not stored".into()),
        tags: vec!["a".into()],
        meta: Meta {
            source: "api".into(),
            retries: 2,
        },
        expires_at: Some(1_900_000_000),
        created: None,
        updated: None,
        rev: 0,
    }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn kc<T: FromItem>(q: dyno_core::Result<dyno_core::ops::Query<T>>) -> KeyCondition {
    q.unwrap().request().key_condition.clone()
}

fn sort(q: KeyCondition) -> Option<SortCondition> {
    q.sort.map(|(_, s)| s)
}

// ---------------------------------------------------------------------------------------------
// Items

#[test]
fn field_attributes_shape_the_item() {
    let it = tx("a1", "2024-05-01", 7, Some("fraud"), 500)
        .to_item()
        .unwrap();
    assert_eq!(it["kind"], s("Tx"), "custom entity-type attribute");
    assert!(!it.contains_key("_type"));
    assert_eq!(it["desc"], s("tx 7"), "renamed");
    assert!(
        !it.contains_key("description") && !it.contains_key("cached"),
        "skipped"
    );
    assert_eq!(
        it["expires"],
        AttributeValue::N("1900000000".into()),
        "ttl as epoch seconds under the table's ttl attribute"
    );
    assert!(!it.contains_key("expires_at"));
    match &it["meta"] {
        AttributeValue::M(m) => assert_eq!(m["source"], s("api")),
        other => panic!("serde field stored as {other:?}"),
    }
    assert!(
        matches!(it["created"], AttributeValue::S(_)),
        "created_at filled in when unset"
    );
    assert!(
        matches!(it["updated"], AttributeValue::S(_)),
        "updated_at set on every write"
    );
    assert_eq!(it["rev"], AttributeValue::N("0".into()));
    // Keys.
    assert_eq!(it["PK"], s("ACCOUNT#a1"));
    assert_eq!(it["SK"], s("TX#2024-05-01#0000000007"));
    assert_eq!(it["GSI1PK"], s("FLAG#fraud"));
    assert_eq!(it["GSI1SK"], s("2024-05-01#0000000007"));
    assert_eq!(it["GSI2PK"], s("REGION#eu#1"));
    assert_eq!(it["GSI2SK"], s("00000000000000000500"));
    assert_eq!(it["LSI1SK"], s("AMOUNT#00000000000000000500"));
    let day = match &it["DAYPK"] {
        AttributeValue::S(d) => d.clone(),
        other => panic!("{other:?}"),
    };
    let shard: u32 = day
        .strip_prefix("DAY#2024-05-01#")
        .expect("shard suffix")
        .parse()
        .unwrap();
    assert!(shard < 4);
    // The shard comes from the primary key: the same item always lands on the same shard.
    assert_eq!(
        tx("a1", "2024-05-01", 7, None, 1).to_item().unwrap()["DAYPK"],
        s(&day)
    );
    assert!(
        !it.contains_key("LSI1PK"),
        "a local index shares the table's partition key"
    );

    let back = Tx::from_item(&it).unwrap();
    assert_eq!(back.cached, None, "skip reads as Default");
    assert_eq!(back.description, "tx 7");
    assert_eq!(
        back.meta,
        Meta {
            source: "api".into(),
            retries: 2
        }
    );
    assert_eq!(back.expires_at, Some(1_900_000_000));
    assert!(back.created.is_some() && back.updated.is_some());
    assert_eq!(Tx::TTL_ATTRIBUTE, Some("expires"));
    assert_eq!(Tx::VERSION_ATTRIBUTE, Some("rev"));
}

#[test]
fn table_derive_declares_indexes_and_projections() {
    use dyno_core::table::Projection;
    let def = Ledger::definition();
    assert_eq!(def.name, "Ledger");
    assert_eq!(
        def.global_indexes
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        vec!["GSI1", "GSI2", "ByDay", "Audit"]
    );
    assert_eq!(
        def.index("GSI2").unwrap().projection,
        Projection::Include(vec!["amount".into()])
    );
    assert_eq!(def.index("Audit").unwrap().projection, Projection::KeysOnly);
    assert_eq!(def.index("Audit").unwrap().sort_key, None);
    assert!(def.is_local_index("LSI1"));
    assert_eq!(def.index("LSI1").unwrap().partition_key.name, "PK");
    assert_eq!(def.ttl_attribute.as_deref(), Some("expires"));
    assert_eq!(<Ledger as Table>::ENTITY_ATTRIBUTE, "kind");
    assert_eq!((Ledger::BY_DAY.name, Ledger::LSI1.name), ("ByDay", "LSI1"));
    assert_eq!(Ledger::LSI1.sort_key, Some("LSI1SK"));
}

#[test]
fn a_none_field_leaves_its_sparse_index_out() {
    let it = tx("a1", "2024-05-01", 1, None, 5).to_item().unwrap();
    assert!(!it.contains_key("GSI1PK") && !it.contains_key("GSI1SK"));
    assert!(it.contains_key("GSI2PK"), "other indexes are unaffected");
    let back = Tx::from_item(&it).unwrap();
    assert_eq!(back.flag, None);
}

#[test]
fn defaults_fill_missing_attributes() {
    let mut it = tx("a1", "2024-05-01", 1, None, 5).to_item().unwrap();
    it.remove("tags");
    assert_eq!(Tx::from_item(&it).unwrap().tags, Vec::<String>::new());
    it.remove("desc");
    let err = Tx::from_item(&it).unwrap_err().to_string();
    assert!(err.contains("Tx.desc"), "{err}");
}

#[test]
fn composite_and_index_fields_are_recovered_from_keys() {
    let it = tx("a1", "2024-05-01", 7, Some("fraud"), 500)
        .to_item()
        .unwrap();
    let keys_only: Item = it
        .iter()
        .filter(|(k, _)| {
            [
                "PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "DAYPK", "DAYSK", "LSI1SK",
                "desc", "meta",
            ]
            .contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let back = Tx::from_item(&keys_only).unwrap();
    assert_eq!(
        (back.account.as_str(), back.day.as_str(), back.seq),
        ("a1", "2024-05-01", 7)
    );
    assert_eq!(
        back.flag.as_deref(),
        Some("fraud"),
        "from the sparse index key"
    );
    assert_eq!((back.region, back.tier, back.amount), (Region::Eu, 1, 500));
}

// ---------------------------------------------------------------------------------------------
// Queries

#[test]
fn composite_sort_key_conditions_go_part_by_part() {
    let q = kc(Tx::query("a1").into_query());
    assert_eq!(sort(q), Some(SortCondition::BeginsWith(s("TX#"))));
    let q = kc(Tx::query("a1").day().eq("2024-05-01").into_query());
    assert_eq!(
        sort(q),
        Some(SortCondition::BeginsWith(s("TX#2024-05-01#"))),
        "a fixed part includes its delimiter"
    );
    let q = kc(Tx::query("a1")
        .day()
        .eq("2024-05-01")
        .seq()
        .eq(7u32)
        .into_query());
    assert_eq!(
        sort(q),
        Some(SortCondition::Eq(s("TX#2024-05-01#0000000007")))
    );
    let q = kc(Tx::query("a1")
        .day()
        .eq("2024-05-01")
        .seq()
        .between(2u32, 4u32)
        .into_query());
    assert_eq!(
        sort(q),
        Some(SortCondition::Between(
            s("TX#2024-05-01#0000000002"),
            s("TX#2024-05-01#0000000004")
        ))
    );
    let q = kc(Tx::query("a1").day().lt("2024-05-01").into_query());
    assert!(
        matches!(sort(q), Some(SortCondition::Between(lo, _)) if lo == s("TX#")),
        "ranges stay under the prefix"
    );
    let q = kc(Tx::gsi1("fraud").day().eq("2024-05-01").into_query());
    assert_eq!(q.partition_value, s("FLAG#fraud"));
    assert_eq!(sort(q), Some(SortCondition::BeginsWith(s("2024-05-01#"))));
    let q = kc(Tx::gsi2(Region::Us, 3u8).amount().gt(10u64).into_query());
    assert_eq!(q.partition_value, s("REGION#us#3"));
    let q = kc(Tx::lsi1("a1").amount().ge(10u64).into_query());
    assert_eq!(
        q.partition_name, "PK",
        "a local index queries the table's partition key"
    );
}

async fn store_with(items: &[Tx]) -> MemoryStore {
    let store = MemoryStore::new();
    store.create_table(Ledger::definition()).await.unwrap();
    for t in items {
        t.put().send(&store).await.unwrap();
    }
    store
}

#[tokio::test]
async fn sharded_index_queries_fan_out_and_merge_in_sort_order() {
    let items: Vec<Tx> = (0..40)
        .map(|i| tx(&format!("acct{}", i % 7), "2024-05-01", i, None, i as u64))
        .collect();
    let mut other_day = tx("acct1", "2024-05-02", 99, None, 1);
    other_day.seq = 1000;
    let mut all = items.clone();
    all.push(other_day);
    let store = store_with(&all).await;
    // The items are spread over several shards.
    let mut shards = BTreeSet::new();
    for t in &items {
        if let AttributeValue::S(k) = &t.to_item().unwrap()["DAYPK"] {
            shards.insert(k.clone());
        }
    }
    assert!(shards.len() > 1, "{shards:?}");
    let got = Tx::by_day("2024-05-01").all(&store).await.unwrap();
    let seqs: Vec<u32> = got.iter().map(|t| t.seq).collect();
    assert_eq!(
        seqs,
        (0..40).collect::<Vec<_>>(),
        "every shard, merged in sort-key order"
    );
    let got = Tx::by_day("2024-05-01")
        .seq()
        .ge(35u32)
        .descending()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(
        got.iter().map(|t| t.seq).collect::<Vec<_>>(),
        vec![39, 38, 37, 36, 35]
    );
}

#[tokio::test]
async fn sparse_index_holds_only_items_with_the_field() {
    let store = store_with(&[
        tx("a1", "2024-05-01", 1, Some("fraud"), 1),
        tx("a1", "2024-05-01", 2, None, 1),
        tx("a2", "2024-05-03", 3, Some("fraud"), 1),
    ])
    .await;
    let flagged = Tx::gsi1("fraud").all(&store).await.unwrap();
    assert_eq!(
        flagged.iter().map(|t| t.seq).collect::<Vec<_>>(),
        vec![1, 3]
    );
    // Clearing the flag takes the item out of the index; setting it puts it back, with the
    // index sort key rebuilt from the primary key.
    Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .set_flag(None)
        .send(&store)
        .await
        .unwrap();
    assert_eq!(Tx::gsi1("fraud").all(&store).await.unwrap().len(), 1);
    Tx::update(Tx::key("a1", "2024-05-01", 2u32))
        .set_flag("fraud")
        .send(&store)
        .await
        .unwrap();
    let flagged = Tx::gsi1("fraud")
        .day()
        .eq("2024-05-01")
        .all(&store)
        .await
        .unwrap();
    assert_eq!(flagged.iter().map(|t| t.seq).collect::<Vec<_>>(), vec![2]);
    Tx::update(Tx::key("a2", "2024-05-03", 3u32))
        .remove_flag()
        .send(&store)
        .await
        .unwrap();
    assert_eq!(Tx::gsi1("fraud").all(&store).await.unwrap().len(), 1);
}

#[tokio::test]
async fn index_keys_made_of_several_fields_are_set_together() {
    let store = store_with(&[tx("a1", "2024-05-01", 1, None, 10)]).await;
    let updated = Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .set_region_and_tier(Region::Us, 2u8)
        .send(&store)
        .await
        .unwrap();
    assert_eq!((updated.region, updated.tier), (Region::Us, 2));
    // GSI2 projects only `amount`: count instead of decoding.
    assert_eq!(Tx::gsi2(Region::Us, 2u8).count(&store).await.unwrap(), 1);
    assert_eq!(Tx::gsi2(Region::Eu, 1u8).count(&store).await.unwrap(), 0);
    // The amount feeds GSI2SK and LSI1SK: both are rewritten.
    Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .set_amount(77u64)
        .send(&store)
        .await
        .unwrap();
    assert_eq!(
        Tx::gsi2(Region::Us, 2u8)
            .amount()
            .eq(77u64)
            .count(&store)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        Tx::lsi1("a1")
            .amount()
            .eq(77u64)
            .consistent()
            .all(&store)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn updates_touch_timestamps_and_versions() {
    let store = store_with(&[tx("a1", "2024-05-01", 1, None, 10)]).await;
    let before = Tx::get(Tx::key("a1", "2024-05-01", 1u32))
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(before.rev, 1, "a put increments the version");
    let created = before.created;
    let after = Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .if_version(1)
        .add_fees(3u32)
        .send(&store)
        .await
        .unwrap();
    assert_eq!(after.rev, 2);
    assert_eq!(after.fees, 3);
    assert_eq!(after.created, created, "created_at is kept");
    assert!(after.updated >= before.updated);
    let stale = Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .if_version(1)
        .add_fees(1u32)
        .send(&store)
        .await
        .unwrap_err();
    assert!(stale.is_condition_failed(), "{stale}");
}

#[test]
fn every_update_sets_updated_at_and_keeps_created_at() {
    let b = Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .set_description("x")
        .into_update()
        .unwrap();
    let set: HashMap<String, SetValue> = b
        .update_expr()
        .set
        .iter()
        .map(|(p, v)| (p.top().unwrap().to_owned(), v.clone()))
        .collect();
    assert!(matches!(
        set["updated"],
        SetValue::Operand(dyno_core::expr::UpdateOperand::Value(AttributeValue::S(_)))
    ));
    assert!(matches!(
        set["created"],
        SetValue::Operand(dyno_core::expr::UpdateOperand::IfNotExists(..))
    ));
    assert_eq!(set["desc"], SetValue::value(s("x")));
    let b = Tx::update(Tx::key("a1", "2024-05-01", 1u32))
        .set_expires_at(None)
        .into_update()
        .unwrap();
    assert!(b.update_expr().remove.contains(&Path::attr("expires")));
}

#[tokio::test]
async fn upsert_writes_the_key_fields_of_a_new_item() {
    let store = store_with(&[]).await;
    let created = Tx::update(Tx::key("a9", "2024-06-01", 3u32))
        .set_description("new")
        .set_region_and_tier(Region::Eu, 1u8)
        .set_amount(1u64)
        .set_meta(Meta::default())
        .upsert()
        .send(&store)
        .await
        .unwrap();
    assert_eq!(
        (created.account.as_str(), created.day.as_str(), created.seq),
        ("a9", "2024-06-01", 3)
    );
    let raw = store
        .get_item(
            dyno_core::store::GetRequest::new(
                "Ledger",
                Tx::key("a9", "2024-06-01", 3u32).into_item(),
            )
            .consistent(),
        )
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(raw["account"], s("a9"));
    assert_eq!(raw["kind"], s("Tx"));
    // Every index key is the one a put of the created item writes: ByDay's (`DAY#{day}`,
    // sharded, and `{seq}`) come from the primary key alone, GSI2's and LSI1's from the
    // values set; the sparse GSI1 stays out (no flag).
    let full = created.to_item().unwrap();
    for attr in ["DAYPK", "DAYSK", "GSI2PK", "GSI2SK", "LSI1SK"] {
        assert_eq!(raw.get(attr), full.get(attr), "{attr}");
    }
    assert!(!raw.contains_key("GSI1PK") && !raw.contains_key("GSI1SK"));
    let by_day = Tx::by_day("2024-06-01").all(&store).await.unwrap();
    assert_eq!(by_day, vec![created]);
}

#[tokio::test]
async fn an_upsert_missing_an_index_field_is_refused_before_sending() {
    let store = FaultStore::new(store_with(&[]).await);
    let err = Tx::update(Tx::key("a9", "2024-06-01", 3u32))
        .set_description("new")
        .set_amount(1u64)
        .upsert()
        .send(&store)
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    assert!(
        msg.contains("GSI2PK")
            && msg.contains("`region` and `tier`")
            && msg.contains("REGION#{region}#{tier}"),
        "{msg}"
    );
    assert!(
        !msg.contains("GSI2SK") && !msg.contains("DAYPK") && !msg.contains("GSI1"),
        "{msg}"
    );
    assert_eq!(store.counts().total(), 0, "refused before any call");
}

// ---------------------------------------------------------------------------------------------
// Overloading, collections with a composite partition, tables without a sort key

/// Shares `Tx`'s partitions (the account) and its GSI1 partitions (the flag).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Ledger, pk = "ACCOUNT#{account}", sk = "ALERT#{id}")]
#[dyno(index(GSI1, pk = "FLAG#{flag}", sk = "{day}#{id}"))]
struct Alert {
    account: String,
    id: String,
    flag: String,
    day: String,
}

#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(partition = Alert)]
enum AccountItem {
    Tx(Tx),
    Alert(Alert),
}

#[tokio::test]
async fn an_overloaded_index_returns_only_the_asked_entity() {
    let store = store_with(&[tx("a1", "2024-05-01", 1, Some("fraud"), 1)]).await;
    let alert = Alert {
        account: "a1".into(),
        id: "x".into(),
        flag: "fraud".into(),
        day: "2024-05-01".into(),
    };
    alert.put().send(&store).await.unwrap();
    // Both items sit in GSI1 partition FLAG#fraud, both sort keys start with the day.
    let txs = Tx::gsi1("fraud")
        .day()
        .eq("2024-05-01")
        .all(&store)
        .await
        .unwrap();
    assert_eq!(txs.iter().map(|t| t.seq).collect::<Vec<_>>(), vec![1]);
    let alerts = Alert::gsi1("fraud").all(&store).await.unwrap();
    assert_eq!(alerts, vec![alert.clone()]);
    // The account partition holds both: the collection reads them as what they are.
    let items = AccountItem::query("a1").all(&store).await.unwrap();
    assert_eq!(items.len(), 2);
    assert!(items.contains(&AccountItem::Alert(alert)));
    assert!(items
        .iter()
        .any(|i| matches!(i, AccountItem::Tx(t) if t.seq == 1)));
    assert_eq!(
        Tx::query("a1").all(&store).await.unwrap().len(),
        1,
        "the entity's own query skips the alert"
    );
}

#[derive(Debug, Table)]
#[dyno(name = "Teams", pk = "PK")]
struct Teams;

/// A table without a sort key, and a partition key of two fields.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Teams, pk = "ORG#{org}#TEAM#{team}")]
struct Team {
    org: String,
    team: u16,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Collection)]
struct TeamGroup {
    team: Option<Team>,
}

#[tokio::test]
async fn tables_without_sort_key_and_composite_partitions() {
    let store = MemoryStore::new();
    store.create_table(Teams::definition()).await.unwrap();
    let t = Team {
        org: "acme".into(),
        team: 7,
        name: "core".into(),
    };
    assert_eq!(
        t.key().unwrap(),
        [("PK".to_owned(), s("ORG#acme#TEAM#7"))]
            .into_iter()
            .collect::<Item>()
    );
    t.put().send(&store).await.unwrap();
    assert_eq!(
        Team::get(Team::key("acme", 7u16))
            .send(&store)
            .await
            .unwrap(),
        Some(t.clone())
    );
    assert_eq!(
        Team::query("acme", 7u16).all(&store).await.unwrap(),
        vec![t.clone()]
    );
    let group = TeamGroup::query(("acme", 7u16)).all(&store).await.unwrap();
    assert_eq!(group.team, Some(t.clone()));
    let renamed = Team::update(Team::key("acme", 7u16))
        .set_name("platform")
        .send(&store)
        .await
        .unwrap();
    assert_eq!(renamed.name, "platform");
    let foreign: Item = [
        ("PK".to_owned(), s("ORG#acme#TEAM#9")),
        ("name".to_owned(), s("legacy")),
    ]
    .into_iter()
    .collect();
    let decoded = Team::from_item(&foreign).unwrap();
    assert_eq!((decoded.org.as_str(), decoded.team), ("acme", 9));
}

/// A constant partition: the key constructor and the query take the sort-key fields only.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Ledger, pk = "CONFIG", sk = "SETTING#{name}")]
struct Setting {
    name: String,
    value: String,
}

#[derive(Debug, Clone, PartialEq, Collection)]
enum ConfigItem {
    Setting(Setting),
}

#[tokio::test]
async fn constant_partitions_take_no_partition_arguments() {
    let store = store_with(&[]).await;
    for (n, v) in [("a", "1"), ("b", "2")] {
        Setting {
            name: n.into(),
            value: v.into(),
        }
        .put()
        .send(&store)
        .await
        .unwrap();
    }
    assert_eq!(Setting::key("a").as_item()["PK"], s("CONFIG"));
    let all = Setting::query().all(&store).await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(
        Setting::query().name().eq("b").all(&store).await.unwrap()[0].value,
        "2"
    );
    assert_eq!(ConfigItem::query(()).all(&store).await.unwrap().len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Ranges on an inner part of a composite sort key

#[derive(Debug, Table)]
#[dyno(name = "Catalog", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Catalog;

/// Listed by category then name, in the table and in a sharded index.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Catalog, pk = "SHOP#{shop}", sk = "ITEM#{category}#{name}")]
#[dyno(index(GSI1, pk = "ALL#{shop}", sk = "{category}#{name}", shards = 3))]
struct Listing {
    shop: String,
    category: String,
    name: String,
}

/// Another entity in the same partition, right after `ITEM#` in sort order.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Catalog, pk = "SHOP#{shop}", sk = "ITEM$")]
struct ShopInfo {
    shop: String,
}

/// Categories with characters below the delimiter `#`: `"a!x"` is above `"a"` as a category but
/// `"ITEM#a!x#..."` is below `"ITEM#a#..."` as a key.
const CATEGORIES: [&str; 8] = ["a", "a!x", "a x", "a\"", "b", "a$", "ab", "\u{1}"];

fn listings(shop: &str) -> Vec<Listing> {
    CATEGORIES
        .iter()
        .flat_map(|c| {
            ["n1", "n2"].map(|n| Listing {
                shop: shop.into(),
                category: (*c).into(),
                name: n.into(),
            })
        })
        .collect()
}

fn categories(found: &[Listing]) -> BTreeSet<(String, String)> {
    found
        .iter()
        .map(|l| (l.category.clone(), l.name.clone()))
        .collect()
}

fn expected(pred: impl Fn(&str) -> bool) -> BTreeSet<(String, String)> {
    categories(
        &listings("s")
            .into_iter()
            .filter(|l| pred(&l.category))
            .collect::<Vec<_>>(),
    )
}

#[tokio::test]
async fn ranges_on_an_inner_part_with_low_characters_are_exact_on_every_backend() {
    for backend in dyno_tests::backend::backends().await {
        let table = dyno_tests::backend::unique_table_name("catalog");
        let store = dyno_core::store::TableNames::new(backend.store.clone()).map("Catalog", table);
        store.create_table(Catalog::definition()).await.unwrap();
        for l in listings("s") {
            l.put().send(&store).await.unwrap();
        }
        ShopInfo { shop: "s".into() }
            .put()
            .send(&store)
            .await
            .unwrap();
        let name = backend.name;

        let gt = Listing::query("s")
            .category()
            .gt("a")
            .all(&store)
            .await
            .unwrap();
        assert_eq!(categories(&gt), expected(|c| c > "a"), "{name}: gt");
        let le = Listing::query("s")
            .category()
            .le("a")
            .all(&store)
            .await
            .unwrap();
        assert_eq!(categories(&le), expected(|c| c <= "a"), "{name}: le");
        let lt = Listing::query("s")
            .category()
            .lt("a!")
            .all(&store)
            .await
            .unwrap();
        assert_eq!(categories(&lt), expected(|c| c < "a!"), "{name}: lt");
        let between = Listing::query("s")
            .category()
            .between("a", "a!x")
            .all(&store)
            .await
            .unwrap();
        assert_eq!(
            categories(&between),
            expected(|c| ("a"..="a!x").contains(&c)),
            "{name}: between"
        );
        // Sort-key order, descending, and a limit counted on the results.
        let desc = Listing::query("s")
            .category()
            .ge("a")
            .descending()
            .limit(5)
            .all(&store)
            .await
            .unwrap();
        let mut all_ge = Listing::query("s")
            .category()
            .ge("a")
            .all(&store)
            .await
            .unwrap();
        all_ge.reverse();
        assert_eq!(
            desc,
            all_ge[..5].to_vec(),
            "{name}: descending with a limit"
        );
        assert_eq!(
            Listing::query("s")
                .category()
                .gt("a")
                .count(&store)
                .await
                .unwrap(),
            gt.len(),
            "{name}: count"
        );
        // Pages of two items read, with cursors: a page may hold fewer results than it read.
        let mut paged = Vec::new();
        let mut cursor = None;
        loop {
            let page = Listing::query("s")
                .category()
                .gt("a")
                .page_size(2)
                .page(&store, cursor.as_ref())
                .await
                .unwrap();
            assert!(page.items.len() <= 2, "{name}");
            paged.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(paged, gt, "{name}: pages");
        // The sharded index, merged across shards in sort-key order.
        let sharded = Listing::gsi1("s")
            .category()
            .gt("a")
            .page_size(3)
            .all(&store)
            .await
            .unwrap();
        assert_eq!(
            categories(&sharded),
            expected(|c| c > "a"),
            "{name}: sharded"
        );
        let keys: Vec<String> = sharded
            .iter()
            .map(|l| match &l.to_item().unwrap()["GSI1SK"] {
                AttributeValue::S(k) => k.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{name}: {keys:?}");
        let _ = store.delete_table("Catalog").await;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random categories (low characters included) and bounds: every range on the inner part
    /// returns exactly what a filter on the decoded field returns, in sort-key order.
    #[test]
    fn inner_part_ranges_match_a_reference_filter(
        cats in proptest::collection::vec("[\\x01 !\"$a-c]{1,3}", 1..12),
        bound in "[\\x01 !\"$a-c]{1,3}",
        op in 0u8..4,
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let store = MemoryStore::new();
            store.create_table(Catalog::definition()).await.unwrap();
            let items: Vec<Listing> = cats
                .iter()
                .enumerate()
                .map(|(i, c)| Listing { shop: "s".into(), category: c.clone(), name: format!("n{i}") })
                .collect();
            for l in &items {
                l.put().send(&store).await.unwrap();
            }
            let q = Listing::query("s");
            let b = bound.as_str();
            let found = match op {
                0 => q.category().lt(b).all(&store).await,
                1 => q.category().le(b).all(&store).await,
                2 => q.category().gt(b).all(&store).await,
                _ => q.category().ge(b).all(&store).await,
            }
            .unwrap();
            let keep = |c: &str| match op {
                0 => c < b,
                1 => c <= b,
                2 => c > b,
                _ => c >= b,
            };
            let mut reference: Vec<Listing> =
                items.iter().filter(|l| keep(&l.category)).cloned().collect();
            reference.sort_by_key(|l| match &l.key().unwrap()["SK"] {
                AttributeValue::S(k) => k.clone(),
                _ => String::new(),
            });
            proptest::prop_assert_eq!(found, reference);
            Ok(())
        })?;
    }
}
