//! The cached repository pattern: an application's data access in one type, generic over
//! `Store`, that becomes a cached repository by changing the store it is built on, and stays
//! correct when several instances of the service each keep their own cache.
//!
//! 1. `Repository<S: Store>` serves a shop's reads and writes (customers, products by category,
//!    orders by customer and by status through an overloaded GSI1, orders placed in a
//!    transaction with a stock check). First on the store itself.
//! 2. Two instances of the service, each with its own `CachedStore` and its own client of the
//!    database, and a `Follower` applying the table's change feed (MemoryStore's stream, or
//!    DynamoDB Streams) to each cache. A write through one instance reaches the other's cached
//!    items and cached query pages (a status change moves an order between GSI1 partitions) as
//!    soon as its follower has applied the record; without a follower it would stay stale until
//!    the TTL. Metrics of both caches and followers are printed.
//!
//! Runs on the in-process `MemoryStore` by default; set `AWS_ENDPOINT_URL_DYNAMODB` (plus the
//! usual AWS_REGION and credentials) to run against a server with DynamoDB Streams (DynamoDB,
//! dynoxide, moto) on a fresh table that is deleted afterwards. Every claim printed is checked;
//! a failed check exits non-zero.
//!
//! ```text
//! cargo run -p dyno-examples --example cached_repository
//! ```

#[path = "support/backend.rs"]
mod backend;
#[path = "support/check.rs"]
mod check;
#[path = "support/logging.rs"]
mod logging;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use backend::Backend;
use check::{check, BoxError};
use dyno_cache::{CachedStore, Follower, FollowerMetrics, OnApplied};
use dyno_core::feed::{ChangeFeed, ChangeRecord, StartingPosition, StreamView, StreamsFeed};
use dyno_core::ops::{EntityExt, Transaction};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::store::TableNames;
use dyno_core::{DynamoStore, Entity, Error, KeyPart, MemoryStore, Store, Table};
use tokio::sync::watch;

/// The shop's one table: users' profiles and orders share a partition; GSI1 is overloaded
/// (orders by status, products by category).
#[derive(Debug, Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Shop;

const SHOP: &str = "Shop";

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Shop, pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
struct Customer {
    customer_id: String,
    name: String,
    email: String,
}

#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
enum OrderStatus {
    Placed,
    Shipped,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Shop, pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_id}"))]
struct Order {
    customer_id: String,
    order_id: String,
    product_id: String,
    qty: u32,
    status: OrderStatus,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Shop, pk = "PRODUCT#{product_id}", sk = "PRODUCT")]
#[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{product_id}"))]
struct Product {
    product_id: String,
    name: String,
    category: String,
    price_cents: u32,
    stock: u32,
}

/// The application's data access: every read and write the shop makes, on any `Store` (the
/// database, or a cache in front of it).
#[derive(Debug)]
struct Repository<S> {
    store: S,
}

impl<S: Store> Repository<S> {
    fn new(store: S) -> Self {
        Repository { store }
    }

    async fn customer(&self, id: &str) -> Result<Option<Customer>, Error> {
        Customer::get(Customer::key(id)).send(&self.store).await
    }

    async fn save_customer(&self, customer: &Customer) -> Result<(), Error> {
        customer.put().send(&self.store).await
    }

    async fn product(&self, id: &str) -> Result<Option<Product>, Error> {
        Product::get(Product::key(id)).send(&self.store).await
    }

    async fn add_product(&self, product: &Product) -> Result<(), Error> {
        product.create().send(&self.store).await
    }

    /// A category's products, by id (GSI1).
    async fn catalog(&self, category: &str) -> Result<Vec<Product>, Error> {
        Product::gsi1(category).all(&self.store).await
    }

    /// Places an order if the stock allows it: the decrement (conditional on the stock) and
    /// the order are written together or not at all. `false` when sold out.
    async fn place_order(&self, order: &Order) -> Result<bool, Error> {
        let decrement = Product::update(Product::key(&order.product_id))
            .subtract_stock(order.qty)
            .condition(Product::STOCK.ge(order.qty));
        let placed = Transaction::new()
            .update(decrement.into_update()?)
            .create(order)
            .send(&self.store)
            .await;
        match placed {
            Ok(_) => Ok(true),
            Err(Error::TransactionCanceled { reasons })
                if reasons.first().is_some_and(|r| r.is_condition_failed()) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// A customer's orders (the partition also holds the profile: the typed query skips it).
    async fn orders_of(&self, customer_id: &str) -> Result<Vec<Order>, Error> {
        Order::query(customer_id).all(&self.store).await
    }

    /// Orders in one status, by id (GSI1).
    async fn orders_with_status(&self, status: OrderStatus) -> Result<Vec<Order>, Error> {
        Order::gsi1(status).all(&self.store).await
    }

    async fn ship(&self, customer_id: &str, order_id: &str) -> Result<Order, Error> {
        Order::update(Order::key(customer_id, order_id))
            .set_status(OrderStatus::Shipped)
            .send(&self.store)
            .await
    }
}

/// How each instance reaches the database: its own client, as separate processes would.
#[derive(Debug, Clone)]
enum Database {
    /// One in-process engine shared by the "instances".
    Memory(Arc<MemoryStore>),
    /// A local server with test credentials (the example's tests).
    #[allow(dead_code)] // used by the tests
    Local(String),
    /// The server of the standard AWS environment.
    Env,
}

impl Database {
    async fn client(&self) -> Arc<dyn Store> {
        match self {
            Database::Memory(m) => m.clone(),
            Database::Local(endpoint) => Arc::new(DynamoStore::local(endpoint).await),
            Database::Env => Arc::new(DynamoStore::from_env().await),
        }
    }

    /// A reader of the table's changes from now on.
    async fn feed(&self, table: &str) -> Result<Box<dyn ChangeFeed>, Error> {
        let start = StartingPosition::Latest;
        Ok(match self {
            Database::Memory(m) => Box::new(m.change_feed(table, start)?),
            Database::Local(endpoint) => Box::new(
                StreamsFeed::local(endpoint, table, start)
                    .await?
                    .with_poll_interval(Duration::from_millis(50)),
            ),
            Database::Env => Box::new(StreamsFeed::from_env(table, start).await?),
        })
    }
}

/// The cache an instance's repository runs on; the cache sees physical table names, as the
/// change feed does.
type Cached = CachedStore<Arc<dyn Store>>;

/// One instance of the service: its cache, the follower keeping it coherent, and how many
/// records the follower has applied.
struct Instance {
    name: &'static str,
    repo: Repository<TableNames<Arc<Cached>>>,
    cache: Arc<Cached>,
    follower: Follower,
    applied: watch::Receiver<u64>,
}

impl Instance {
    async fn start(
        name: &'static str,
        db: &Database,
        physical: &str,
    ) -> Result<Instance, BoxError> {
        let cache = Arc::new(CachedStore::new(db.client().await));
        let (tx, applied) = watch::channel(0u64);
        let on_applied: OnApplied = Arc::new(move |_: &ChangeRecord| {
            tx.send_modify(|n| *n += 1);
        });
        let follower =
            Follower::spawn_with(cache.clone(), db.feed(physical).await?, Some(on_applied));
        // The follower's first step drops what the cache holds of the table: serve from the
        // cache once it has, or a fill made before would be dropped after.
        if !follower.started(Duration::from_secs(10)).await {
            return Err(format!("{name}'s follower did not start within 10 s").into());
        }
        let repo = Repository::new(TableNames::new(cache.clone()).map(SHOP, physical));
        Ok(Instance {
            name,
            repo,
            cache,
            follower,
            applied,
        })
    }

    /// Waits (at most 10 s) until the follower has applied `records` records in all.
    async fn caught_up(&mut self, records: u64) -> Result<(), BoxError> {
        let wait = self.applied.wait_for(|n| *n >= records);
        let reached = tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .is_ok_and(|r| r.is_ok());
        if reached {
            return Ok(());
        }
        Err(format!(
            "{}'s follower applied {} of {records} records within 10 s",
            self.name,
            *self.applied.borrow()
        )
        .into())
    }

    fn report(&self, follower: &FollowerMetrics) {
        let m = self.cache.metrics();
        println!(
            "  {}: items {} hits, {} misses, {} backend reads; queries {} hits, {} misses; \
             follower {} records applied, {} gaps, {} invalidations, lag {:?} (max {:?}), \
             checkpoint in {} shard(s)",
            self.name,
            m.item.hits,
            m.item.misses,
            m.item.loads,
            m.query.hits,
            m.query.misses,
            follower.records_applied,
            follower.gaps,
            follower.invalidations,
            follower.lag.unwrap_or_default(),
            follower.max_lag,
            follower.checkpoint.shards.len(),
        );
    }
}

/// What a run saw; every claim has been checked before it is returned.
#[derive(Debug)]
struct Outcome {
    records_applied: (u64, u64),
    gaps: u64,
    b_item_hits: u64,
}

/// Runs the shop on `db`, in the table called `physical` there.
async fn run(db: &Database, physical: &str) -> Result<Outcome, BoxError> {
    let definition = Shop::definition()
        .clone()
        .named(physical)
        .stream(StreamView::NewAndOldImages);
    db.client().await.create_table(&definition).await?;

    // 1. The repository on the database itself.
    let plain = Repository::new(TableNames::new(db.client().await).map(SHOP, physical));
    let ann = Customer {
        customer_id: "c1".into(),
        name: "Ann".into(),
        email: "ann@example.com".into(),
    };
    plain.save_customer(&ann).await?;
    for (id, name, stock) in [("p1", "Console", 5), ("p2", "Controller", 20)] {
        let product = Product {
            product_id: id.into(),
            name: name.into(),
            category: "games".into(),
            price_cents: 29_900,
            stock,
        };
        plain.add_product(&product).await?;
    }
    let first = order("c1", "o1", "p2", 2);
    check(
        plain.place_order(&first).await?,
        "an order within the stock is placed",
    )?;
    check(
        !plain.place_order(&order("c1", "o2", "p1", 9)).await?,
        "an order beyond the stock is refused, and nothing of it is written",
    )?;
    check_eq(
        plain.orders_of("c1").await?.len(),
        1,
        "the customer's orders (the profile in the same partition is skipped)",
    )?;
    println!(
        "repository on the database: {} products in games",
        plain.catalog("games").await?.len()
    );

    // 2. Two instances, each with its cache and follower.
    let mut a = Instance::start("instance A", db, physical).await?;
    let mut b = Instance::start("instance B", db, physical).await?;
    // B serves the product page, the catalog and the list of placed orders from its cache.
    let console = b.repo.product("p1").await?.ok_or("p1 missing")?;
    check_eq(console.stock, 5, "B reads the console's stock")?;
    check_eq(
        b.repo.product("p1").await?.map(|p| p.stock),
        Some(5),
        "B again, from its cache",
    )?;
    check_eq(
        b.repo.orders_with_status(OrderStatus::Placed).await?.len(),
        1,
        "B lists placed orders",
    )?;
    check_eq(
        b.repo.catalog("games").await?.len(),
        2,
        "B lists the catalog",
    )?;
    let hits = b.cache.metrics().query.hits;
    b.repo.catalog("games").await?;
    check_eq(
        b.cache.metrics().query.hits,
        hits + 1,
        "B lists it again from its cache",
    )?;

    // A customer orders through A: a transaction writes the order and the stock (2 records).
    check(
        a.repo.place_order(&order("c1", "o3", "p1", 2)).await?,
        "A places an order",
    )?;
    b.caught_up(2).await?;
    check_eq(
        b.repo.product("p1").await?.map(|p| p.stock),
        Some(3),
        "B's cached product shows A's decrement once its follower applied the record",
    )?;
    check_eq(
        b.repo.orders_with_status(OrderStatus::Placed).await?.len(),
        2,
        "B's cached query page of placed orders shows A's new order",
    )?;
    let stock_in_catalog = b.repo.catalog("games").await?;
    check_eq(
        stock_in_catalog
            .iter()
            .find(|p| p.product_id == "p1")
            .map(|p| p.stock),
        Some(3),
        "B's cached catalog page (the product's GSI1 partition) shows it too",
    )?;
    // Shipping moves the order from STATUS#Placed to STATUS#Shipped in GSI1.
    let shipped = a.repo.ship("c1", "o3").await?;
    check_eq(shipped.status, OrderStatus::Shipped, "A ships the order")?;
    b.caught_up(3).await?;
    check_eq(
        b.repo.orders_with_status(OrderStatus::Placed).await?.len(),
        1,
        "B's page of the order's old GSI1 partition no longer lists it",
    )?;
    check_eq(
        b.repo.orders_with_status(OrderStatus::Shipped).await?.len(),
        1,
        "B's page of its new partition does",
    )?;
    // And the other way: A cached the profile, B renames the customer.
    check_eq(
        a.repo.customer("c1").await?.map(|c| c.name),
        Some("Ann".into()),
        "A reads the customer",
    )?;
    b.repo
        .save_customer(&Customer {
            name: "Ann Lee".into(),
            ..ann.clone()
        })
        .await?;
    check_eq(
        b.repo.customer("c1").await?.map(|c| c.name),
        Some("Ann Lee".into()),
        "B reads its own write at once (write-through)",
    )?;
    a.caught_up(4).await?;
    check_eq(
        a.repo.customer("c1").await?.map(|c| c.name),
        Some("Ann Lee".into()),
        "A's cached profile shows B's rename once its follower applied the record",
    )?;

    let b_item_hits = b.cache.metrics().item.hits;
    println!("metrics:");
    let (fa, fb) = (a.follower.metrics(), b.follower.metrics());
    a.report(&fa);
    b.report(&fb);
    check(b_item_hits > 0, "B served reads from its cache")?;
    let (fa, fb) = (a.follower.shutdown().await, b.follower.shutdown().await);
    check(fa.gaps + fb.gaps == 0, "no gap in either feed")?;
    Ok(Outcome {
        records_applied: (fa.records_applied, fb.records_applied),
        gaps: fa.gaps + fb.gaps,
        b_item_hits,
    })
}

fn order(customer: &str, id: &str, product: &str, qty: u32) -> Order {
    Order {
        customer_id: customer.into(),
        order_id: id.into(),
        product_id: product.into(),
        qty,
        status: OrderStatus::Placed,
    }
}

fn check_eq<T: PartialEq + std::fmt::Debug>(got: T, want: T, what: &str) -> Result<(), BoxError> {
    check(got == want, what).map_err(|_| format!("{what}: expected {want:?}, found {got:?}").into())
}

#[tokio::main]
async fn main() -> ExitCode {
    logging::init();
    let backend = Backend::from_env().await;
    let db = if backend.is_remote() {
        Database::Env
    } else {
        Database::Memory(Arc::new(MemoryStore::new()))
    };
    println!("backend: {}", backend.describe());
    let result = run(&db, &backend.physical(SHOP)).await;
    backend.delete_tables_or_warn(&[SHOP]).await;
    match result {
        Ok(o) => {
            println!(
                "\ndone: followers applied {} and {} records, {} gaps; B answered {} reads from its cache",
                o.records_applied.0, o.records_applied.1, o.gaps, o.b_item_hits
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn runs_on_memory_store() {
        let db = Database::Memory(Arc::new(MemoryStore::new()));
        let o = run(&db, SHOP).await.unwrap();
        // After both started: the order (2 records), the shipping, the rename. A waited for all
        // four; B for the first three (the rename is its own write).
        assert!(
            o.records_applied.0 >= 4 && o.records_applied.1 >= 3,
            "{o:?}"
        );
        assert_eq!(o.gaps, 0);
    }

    /// On dynoxide (DynamoDB Streams) when `scripts/test` started it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn runs_on_dynoxide() {
        let Some(backend) = Backend::from_test_env("DYNO_DYNOXIDE_ENDPOINT").await else {
            return;
        };
        let endpoint = backend.endpoint.clone().expect("a server backend");
        let result = run(&Database::Local(endpoint), &backend.physical(SHOP)).await;
        backend.delete_tables_or_warn(&[SHOP]).await;
        let o = result.unwrap();
        assert!(
            o.records_applied.0 >= 4 && o.records_applied.1 >= 3,
            "{o:?}"
        );
        assert_eq!(o.gaps, 0);
    }
}
