//! A flash sale: what single-table users fight with when many clients hit one item at once.
//!
//! 1. Contention on one item: 200 buyers race for 50 units. Each order decrements the stock
//!    with a condition (`stock >= qty`) evaluated by DynamoDB itself, so a read-then-write race
//!    cannot oversell or lose an update. Where the backend has transactions, the order and the
//!    decrement are written together (all or nothing); otherwise (dynalite) the decrement comes
//!    first and the order second, with a compensating increment if the order cannot be written.
//! 2. A hot partition: every order of the sale is listed under `SALE#<id>` in GSI1. One partition
//!    key takes every write of the sale, and one DynamoDB partition accepts ~1,000 writes/s. The
//!    index key carries a shard suffix (`SALE#<id>#0` .. `#7`) computed from the item, so writes
//!    spread over 8 partitions; the typed query fans out over the shards and merges them back in
//!    sort-key order.
//! 3. Optimistic locking: every order is tallied into one versioned summary item with
//!    read-modify-write. A stale write fails its version check and is retried from a fresh read,
//!    so no tally is lost.
//! 4. A hot key for reads: everybody refreshes the product page. A `CachedStore` in front of the
//!    store (DAX-style, but write-through) turns 200 concurrent reads into one backend read, and
//!    a write made through it is read back at once.
//! 5. The hot key benchmark: 1,000 readers and one writer on the product, the store behind an
//!    injected 5 ms latency (always MemoryStore, so the latency is the injected one), first
//!    straight on the store and then through a `CachedStore` (typed shared hits,
//!    `get_shared`): backend reads per second and read latency percentiles, with a latency
//!    histogram. `FLASH_SALE_BENCH_SECS` sets the seconds per run (default 3); build with
//!    `--release` for figures.
//! 6. Hot partitions before production: the sale's traffic (orders at 2,500 a second, the
//!    product page, the stock counter) replayed by `dyno_core::hot::simulate` against DynamoDB's
//!    per-partition limits (3,000 read / 1,000 write units a second), with the orders' index
//!    unsharded and sharded 8 ways; then 1,500 orders placed at once on a `MemoryStore` that
//!    enforces those limits (`with_partition_limits`): the unsharded listing is throttled, the
//!    sharded one is not, and the batch engine writes the throttled orders on retry.
//!
//! Runs on the in-process `MemoryStore` by default; set `AWS_ENDPOINT_URL_DYNAMODB` (plus the
//! usual AWS_REGION and credentials) to run against DynamoDB, DynamoDB Local or dynalite on a
//! fresh table that is deleted afterwards. Every number printed is checked; a violated invariant
//! exits non-zero. (moto fails them: its UpdateItem and TransactWriteItems are not atomic under
//! concurrent requests, so it loses updates and oversells. That is moto, not DynamoDB.)
//!
//! ```text
//! cargo run -p dyno-examples --example flash_sale
//! ```

#[path = "support/backend.rs"]
mod backend;
#[path = "support/check.rs"]
mod check;
#[path = "support/latency.rs"]
mod latency;
#[path = "support/logging.rs"]
mod logging;

use backend::Backend;
use check::{check, BoxError};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dyno_cache::CachedStore;
use dyno_core::expr::{Cond, Condition, Path};
use dyno_core::hot::{Keys, PartitionLimits, Pattern, Workload};
use dyno_core::ops::{BatchWriter, EntityExt, FromItem, RetryPolicy, Transaction};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::{AttributeValue, Entity, Error, Item, MemoryStore, Store, Table};
use futures::StreamExt;
use time::OffsetDateTime;
use tokio::sync::Barrier;

/// The sale's table: primary key plus one overloaded GSI.
#[derive(Debug, Table)]
#[dyno(name = "FlashSale", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct FlashSale;

/// The product on sale. `stock` and `sold` only ever change together, under a condition.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = FlashSale, pk = "PRODUCT#{product_id}", sk = "PRODUCT")]
struct Product {
    product_id: String,
    name: String,
    stock: u32,
    sold: u32,
}

/// One buyer's order in the sale. The primary key allows one order per buyer and sale (a second
/// `create` fails its condition). GSI1 lists the sale's orders by time, sharded 8 ways: the
/// stored GSI1PK is `SALE#<sale_id>#<0..7>`, the shard chosen from the item's primary key.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = FlashSale, pk = "BUYER#{buyer_id}", sk = "SALE#{sale_id}")]
#[dyno(index(GSI1, pk = "SALE#{sale_id}", sk = "{placed_at}#{buyer_id}", shards = 8))]
struct SaleOrder {
    buyer_id: String,
    sale_id: String,
    placed_at: OffsetDateTime,
    qty: u32,
}

/// The same order listed the naive way (section 6): every order of the sale under one GSI1
/// partition key, `UNSHARDED#<sale_id>`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = FlashSale, pk = "BUYER#{buyer_id}", sk = "UNSHARDED#{sale_id}")]
#[dyno(index(GSI1, pk = "UNSHARDED#{sale_id}", sk = "{placed_at}#{buyer_id}"))]
struct UnshardedOrder {
    buyer_id: String,
    sale_id: String,
    placed_at: OffsetDateTime,
    qty: u32,
}

/// The sale's dashboard, updated by read-modify-write under an optimistic lock.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = FlashSale, pk = "SALE#{sale_id}", sk = "SUMMARY")]
struct SaleSummary {
    sale_id: String,
    orders: u32,
    units: u32,
    /// The last few buyers, newest first: a structured value an atomic counter cannot maintain.
    recent_buyers: Vec<String>,
    #[dyno(version)]
    version: u64,
}

const SALE: &str = "BF-2024";
const PRODUCT: &str = "console-x";
const INITIAL_STOCK: u32 = 50;
const BUYERS: usize = 200;
/// Buyers in flight at once (a real shop would see more, spread over many processes).
const CONCURRENCY: usize = 32;
const SHARDS: usize = 8;
const PAGE_VIEWS: usize = 200;
const RESTOCK: u32 = 10;

/// What a run measured; every invariant has been checked before it is returned.
#[derive(Debug)]
struct Outcome {
    orders: usize,
    units_sold: u32,
    final_stock: u32,
    refused: usize,
    tx_retries: u32,
    per_shard: BTreeMap<String, usize>,
    summary_version: u64,
    lock_retries: u32,
    cache_loads: u64,
}

/// How an order is placed on this backend.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Order put + conditional decrement in one transaction.
    Transaction,
    /// Conditional decrement, then the order put (compensated if it fails).
    ConditionalUpdate,
}

/// What happened to one buyer, and how many times their transaction was retried.
enum Attempt {
    Bought { retries: u32 },
    SoldOut { retries: u32 },
}

async fn run(store: Arc<dyn Store>) -> Result<Outcome, BoxError> {
    store.create_table(FlashSale::definition()).await?;
    Product {
        product_id: PRODUCT.into(),
        name: "Console X (limited edition)".into(),
        stock: INITIAL_STOCK,
        sold: 0,
    }
    .create()
    .send(&*store)
    .await?;

    // ---------------------------------------------------------------------------------------
    let mode = if supports_transactions(&*store).await? {
        Mode::Transaction
    } else {
        Mode::ConditionalUpdate
    };
    println!("\n== 1. Contention: {BUYERS} buyers, {INITIAL_STOCK} units ==");
    match mode {
        Mode::Transaction => {
            println!("mode: transaction (order create + `stock >= qty` decrement, all or nothing)")
        }
        Mode::ConditionalUpdate => println!(
            "mode: conditional update `stock >= qty`, then the order (no transactions here)"
        ),
    }
    let attempts: Vec<Result<Attempt, Error>> = futures::stream::iter(0..BUYERS)
        .map(|i| {
            let store = Arc::clone(&store);
            // Tasks, not just futures: buyers run in parallel on the runtime's threads.
            tokio::spawn(async move { buy(&*store, mode, &buyer(i), wanted(i)).await })
        })
        .buffer_unordered(CONCURRENCY)
        .map(|joined| joined.unwrap_or_else(|e| panic!("buyer task panicked: {e}")))
        .collect()
        .await;
    let (mut refused, mut tx_retries) = (0, 0);
    for a in attempts {
        match a? {
            Attempt::Bought { retries } => tx_retries += retries,
            Attempt::SoldOut { retries } => {
                refused += 1;
                tx_retries += retries;
            }
        }
    }

    // The authority: a strongly consistent read of the product, and a strongly consistent scan
    // of the table for the orders (GSIs are eventually consistent on DynamoDB).
    let product = Product::get(Product::key(PRODUCT))
        .consistent()
        .send(&*store)
        .await?
        .ok_or("the product disappeared")?;
    let orders = SaleOrder::scan().consistent().all(&*store).await?;
    let ordered_units: u32 = orders.iter().map(|o| o.qty).sum();
    println!(
        "orders accepted: {:>3}   units in them: {ordered_units}",
        orders.len()
    );
    println!("buyers refused:  {refused:>3}   (not enough stock left for their quantity)");
    println!("transactions retried (conflict, throttled, outcome unknown): {tx_retries}");
    println!(
        "product: stock {} + sold {} = {} (initial {INITIAL_STOCK})",
        product.stock,
        product.sold,
        product.stock + product.sold
    );
    check(
        product.stock + product.sold == INITIAL_STOCK,
        "no lost update: stock + sold == initial stock",
    )?;
    check(
        ordered_units == product.sold,
        "no oversell: units in orders == units sold",
    )?;
    check(
        orders.len() + refused == BUYERS,
        "every buyer either has an order or was refused",
    )?;

    // ---------------------------------------------------------------------------------------
    println!("\n== 2. Hot partition: the sale's orders, write-sharded {SHARDS} ways ==");
    // A raw scan of GSI1 shows where the index entries physically went.
    let keys = Gsi1Key::scan_index(&*store).await?;
    let mut per_shard: BTreeMap<String, usize> = BTreeMap::new();
    for k in keys.iter().filter(|k| k.0.starts_with("SALE#")) {
        *per_shard.entry(k.0.clone()).or_default() += 1;
    }
    for (pk, n) in &per_shard {
        println!("  {pk:<16} {n:>3} {}", "#".repeat(*n));
    }
    check(
        per_shard.len() > 1 && per_shard.len() <= SHARDS,
        "index writes are spread over several partitions",
    )?;
    // The typed query takes only the logical partition: it queries all 8 shards concurrently and
    // merges their pages in GSI1SK order.
    let listing = SaleOrder::gsi1(SALE).all(&*store).await?;
    let in_order = listing
        .windows(2)
        .all(|w| (w[0].placed_at, &w[0].buyer_id) <= (w[1].placed_at, &w[1].buyer_id));
    check(
        listing.len() == orders.len(),
        "the merged listing has every order",
    )?;
    check(
        in_order,
        "the merged listing is in (placed_at, buyer) order",
    )?;
    let first = SaleOrder::gsi1(SALE).limit(5).all(&*store).await?;
    let last = SaleOrder::gsi1(SALE)
        .descending()
        .limit(3)
        .all(&*store)
        .await?;
    println!("first 5 orders (merged across shards):");
    for o in &first {
        println!("  {}  {}  qty {}", clock(o.placed_at), o.buyer_id, o.qty);
    }
    println!("last 3 orders (descending):");
    for o in &last {
        println!("  {}  {}  qty {}", clock(o.placed_at), o.buyer_id, o.qty);
    }
    let latest: Vec<&SaleOrder> = listing.iter().rev().take(3).collect();
    check(
        first.as_slice() == &listing[..5.min(listing.len())]
            && last.iter().collect::<Vec<_>>() == latest,
        "limit(5) returns the 5 earliest, descending().limit(3) the 3 latest",
    )?;

    // ---------------------------------------------------------------------------------------
    println!(
        "\n== 3. Optimistic locking: {} writers on one summary item ==",
        orders.len()
    );
    SaleSummary {
        sale_id: SALE.into(),
        orders: 0,
        units: 0,
        recent_buyers: Vec::new(),
        version: 0,
    }
    .put()
    .send(&*store)
    .await?;
    let lock_retries = Arc::new(AtomicU32::new(0));
    // Everybody reads the same version before anybody writes: the worst case, made certain.
    let barrier = Arc::new(Barrier::new(orders.len()));
    let tasks: Vec<_> = orders
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let (store, barrier, retries) = (
                Arc::clone(&store),
                Arc::clone(&barrier),
                Arc::clone(&lock_retries),
            );
            let order = o.clone();
            tokio::spawn(async move { tally(&*store, &order, i, &barrier, &retries).await })
        })
        .collect();
    for t in tasks {
        t.await??;
    }
    let summary = SaleSummary::get(SaleSummary::key(SALE))
        .consistent()
        .send(&*store)
        .await?
        .ok_or("the summary disappeared")?;
    let lock_retries = lock_retries.load(Ordering::Relaxed);
    println!(
        "summary: {} orders, {} units, version {}, newest buyers {:?}",
        summary.orders, summary.units, summary.version, summary.recent_buyers
    );
    println!("stale writes rejected and retried: {lock_retries}");
    check(
        summary.orders as usize == orders.len() && summary.units == product.sold,
        "no tally lost: the summary matches the orders",
    )?;
    check(
        summary.version == orders.len() as u64 + 1,
        "one version per successful write (the put that created it included)",
    )?;

    // ---------------------------------------------------------------------------------------
    println!("\n== 4. Hot key reads: {PAGE_VIEWS} views of the product page ==");
    let cached = Arc::new(CachedStore::new(Arc::clone(&store)));
    let views: Vec<dyno_core::Result<Option<Product>>> = futures::stream::iter(0..PAGE_VIEWS)
        .map(|_| {
            let cached = Arc::clone(&cached);
            tokio::spawn(async move { Product::get(Product::key(PRODUCT)).send(&*cached).await })
        })
        .buffer_unordered(CONCURRENCY)
        .map(|joined| joined.unwrap_or_else(|e| panic!("page view task panicked: {e}")))
        .collect()
        .await;
    for v in views {
        check_eq(v?.map(|p| p.stock), Some(product.stock), "page view stock")?;
    }
    let m = cached.metrics().item;
    println!(
        "cache: hits {}, misses {}, backend reads {}, misses that waited for another's read {}",
        m.hits,
        m.misses,
        m.loads,
        cached.metrics().coalesced_waiters
    );
    check(
        m.hits + m.misses == PAGE_VIEWS as u64 && m.loads == 1,
        "concurrent misses share one backend read (single flight), the rest are hits",
    )?;
    // Restocking through the cache updates the cached item before it returns.
    let restocked = Product::update(Product::key(PRODUCT))
        .add_stock(RESTOCK)
        .send(&*cached)
        .await?;
    let seen = Product::get(Product::key(PRODUCT)).send(&*cached).await?;
    println!(
        "restocked {RESTOCK} units; next (cached) page view shows stock {}",
        seen.as_ref().map_or(0, |p| p.stock)
    );
    check(
        seen.map(|p| p.stock) == Some(restocked.stock)
            && restocked.stock == product.stock + RESTOCK,
        "a write through the cache is read back at once",
    )?;
    let cache_loads = m.loads;

    Ok(Outcome {
        orders: orders.len(),
        units_sold: product.sold,
        final_stock: product.stock,
        refused,
        tx_retries,
        per_shard,
        summary_version: summary.version,
        lock_retries,
        cache_loads,
    })
}

/// `hh:mm:ss.micros` of a timestamp, fixed width.
fn clock(t: OffsetDateTime) -> String {
    let (h, m, s, us) = t.time().as_hms_micro();
    format!("{h:02}:{m:02}:{s:02}.{us:06}")
}

/// The `i`th buyer.
fn buyer(i: usize) -> String {
    format!("buyer-{i:03}")
}

/// How many units buyer `i` wants: mostly one, some two or three.
fn wanted(i: usize) -> u32 {
    [1, 1, 2, 1, 3][i % 5]
}

/// One buyer's attempt: an order for `qty` units if the stock allows it.
async fn buy(store: &dyn Store, mode: Mode, buyer_id: &str, qty: u32) -> Result<Attempt, Error> {
    let order = SaleOrder {
        buyer_id: buyer_id.into(),
        sale_id: SALE.into(),
        placed_at: OffsetDateTime::now_utc(),
        qty,
    };
    // The decrement is conditional: DynamoDB evaluates `stock >= qty` and applies the update
    // atomically on the item, so two buyers can never both take the last unit.
    let decrement = || {
        Product::update(Product::key(PRODUCT))
            .subtract_stock(qty)
            .add_sold(qty)
            .condition(Product::STOCK.ge(qty))
    };
    match mode {
        Mode::Transaction => {
            // The same token on every attempt: a retry after an unknown outcome (a timeout, a
            // 5xx) is not applied twice by DynamoDB (for 10 minutes).
            let token = format!("{SALE}/{buyer_id}");
            let (mut retries, mut unknown) = (0, false);
            loop {
                let result = Transaction::new()
                    .update(decrement().into_update()?)
                    .create(&order)
                    .token(token.as_str())
                    .send(store)
                    .await;
                match result {
                    Ok(_) => return Ok(Attempt::Bought { retries }),
                    // The order exists: an earlier attempt whose outcome was unknown went
                    // through (the create doubles as an idempotency check, for backends that
                    // ignore tokens).
                    Err(Error::TransactionCanceled { reasons })
                        if unknown && reasons.get(1).is_some_and(|r| r.is_condition_failed()) =>
                    {
                        return Ok(Attempt::Bought { retries })
                    }
                    Err(Error::TransactionCanceled { reasons })
                        if reasons.first().is_some_and(|r| r.is_condition_failed()) =>
                    {
                        return Ok(Attempt::SoldOut { retries })
                    }
                    // Concurrent transactions on one item cancel each other on DynamoDB
                    // (TransactionConflict): nothing was written, so retry after a pause.
                    Err(Error::TransactionCanceled { reasons })
                        if reasons
                            .iter()
                            .any(|r| r.code.as_deref() == Some("TransactionConflict")) => {}
                    Err(e) if e.is_outcome_unknown() => unknown = true,
                    Err(e) if e.is_throttled() => {}
                    Err(e) => return Err(e),
                }
                retries += 1;
                if retries > 20 {
                    return Err(Error::validation(format!(
                        "{buyer_id}: the order transaction failed {retries} times in a row"
                    )));
                }
                tokio::time::sleep(backoff(buyer_id, retries)).await;
            }
        }
        Mode::ConditionalUpdate => {
            // Without a transaction, an unknown outcome of the decrement cannot be retried
            // blindly (it may have been applied): it stops the example with an error.
            match decrement().send(store).await {
                Ok(_) => {}
                Err(e) if e.is_condition_failed() => return Ok(Attempt::SoldOut { retries: 0 }),
                Err(e) => return Err(e),
            }
            // The units are reserved; if the order cannot be written, give them back so that
            // stock + sold stays equal to the initial stock.
            if let Err(e) = order.create().send(store).await {
                Product::update(Product::key(PRODUCT))
                    .add_stock(qty)
                    .subtract_sold(qty)
                    .send(store)
                    .await?;
                return Err(e);
            }
            Ok(Attempt::Bought { retries: 0 })
        }
    }
}

/// Adds one order to the summary: read, modify, write if the version is still the one read.
async fn tally(
    store: &dyn Store,
    order: &SaleOrder,
    i: usize,
    barrier: &Barrier,
    retries: &AtomicU32,
) -> Result<(), Error> {
    let mut first = true;
    loop {
        let mut summary = SaleSummary::get(SaleSummary::key(SALE))
            .consistent()
            .send(store)
            .await?
            .ok_or_else(|| Error::validation("the summary is missing"))?;
        if std::mem::take(&mut first) {
            barrier.wait().await;
        }
        summary.orders += 1;
        summary.units += order.qty;
        summary.recent_buyers.insert(0, order.buyer_id.clone());
        summary.recent_buyers.truncate(3);
        // A versioned put requires the stored version to be `summary.version`, and writes +1.
        match summary.put().send(store).await {
            Ok(()) => return Ok(()),
            Err(e) if e.is_condition_failed() => {
                let n = retries.fetch_add(1, Ordering::Relaxed) + 1;
                tokio::time::sleep(backoff(&order.buyer_id, n % 8 + (i % 3) as u32)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// A short pause growing with `attempt`, spread by a hash of `who` so retries do not collide
/// again in lockstep.
fn backoff(who: &str, attempt: u32) -> Duration {
    let spread = who
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    Duration::from_micros(100 * u64::from(attempt.min(10)) + spread % 500)
}

/// Probes for TransactWriteItems with a harmless condition check (dynalite has none).
async fn supports_transactions(store: &dyn Store) -> Result<bool, Error> {
    let probe = Transaction::new().check(
        Product::key("transaction-probe"),
        Cond::raw(Condition::not_exists(Path::attr("PK"))),
    );
    match probe.send(store).await {
        Ok(_) => Ok(true),
        Err(Error::Service { .. } | Error::Validation { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The partition key of one GSI1 entry, read raw: the shard suffix is visible here, while the
/// typed entities hide it.
struct Gsi1Key(String);

impl FromItem for Gsi1Key {
    fn accepts(item: &Item) -> bool {
        matches!(item.get("GSI1PK"), Some(AttributeValue::S(_)))
    }
    fn from_item(item: &Item) -> dyno_core::Result<Self> {
        match item.get("GSI1PK") {
            Some(AttributeValue::S(s)) => Ok(Gsi1Key(s.clone())),
            other => Err(Error::decode("GSI1PK as a string", format!("{other:?}"))),
        }
    }
    fn projection() -> Option<&'static [&'static str]> {
        Some(&["GSI1PK"])
    }
}

impl Gsi1Key {
    async fn scan_index(store: &dyn Store) -> dyno_core::Result<Vec<Gsi1Key>> {
        dyno_core::ops::Scan::<Gsi1Key>::new(FlashSale::definition().name.clone())
            .index("GSI1")
            .all(store)
            .await
    }
}

fn check_eq<T: PartialEq + std::fmt::Debug>(got: T, want: T, what: &str) -> Result<(), BoxError> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: expected {want:?}, found {got:?}").into())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    logging::init();
    let backend = Backend::from_env().await;
    println!("backend: {}", backend.describe());
    let result = run(Arc::clone(&backend.store)).await;
    backend.delete_tables_or_warn(&["FlashSale"]).await;
    match result {
        Ok(o) => {
            println!(
                "\ndone: {} orders, {} units sold, {} left, {} refused; {} transactions \
                 and {} stale writes retried; {} index shards used; summary at version {}; \
                 {} backend read(s) for {PAGE_VIEWS} page views",
                o.orders,
                o.units_sold,
                o.final_stock,
                o.refused,
                o.tx_retries,
                o.lock_retries,
                o.per_shard.len(),
                o.summary_version,
                o.cache_loads
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    let secs = std::env::var("FLASH_SALE_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    let settings = HotKeyBench {
        readers: 1000,
        duration: Duration::from_secs_f64(secs),
        ..HotKeyBench::default()
    };
    if let Err(e) = settings.run_both().await {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    match hot_partitions().await {
        Ok(h) => {
            println!(
                "\nhot partitions: simulated orders throttled {} unsharded, {} sharded; of \
                 {BURST} at once on the throttled MemoryStore {} unsharded, {} sharded; \
                 {} listed after the batch engine's retries",
                h.simulated_unsharded,
                h.simulated_sharded,
                h.burst_unsharded,
                h.burst_sharded,
                h.listed_after_retry
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

// ---- 6. hot partitions before production ----

/// Orders a second at the height of the sale (for the simulation).
const SALE_ORDERS_PER_SECOND: f64 = 2_500.0;
/// Orders placed in the same instant on the throttled MemoryStore.
const BURST: usize = 1_500;

/// What section 6 measured (every claim checked before it is returned).
#[derive(Debug)]
struct HotOutcome {
    /// Simulated orders throttled with the listing unsharded, and sharded 8 ways.
    simulated_unsharded: u64,
    simulated_sharded: u64,
    /// Of [`BURST`] orders placed at once on the throttled MemoryStore: throttled unsharded and
    /// sharded.
    burst_unsharded: usize,
    burst_sharded: usize,
    /// Unsharded orders in the index after the batch engine retried the throttled ones.
    listed_after_retry: usize,
}

/// Section 6: the sale's traffic against DynamoDB's per-partition limits, simulated, then on a
/// MemoryStore enforcing them.
async fn hot_partitions() -> Result<HotOutcome, BoxError> {
    println!("\n== 6. Hot partitions before production ==");
    let sale_key = format!("SALE#{SALE}");
    let report = Workload::new(60.0)
        .seed(2024)
        .pattern(
            Pattern::writes(
                "orders listed unsharded",
                SALE_ORDERS_PER_SECOND,
                Keys::single(format!("UNSHARDED#{SALE}")),
            )
            .item_bytes(200),
        )
        .pattern(
            Pattern::writes(
                "orders listed, 8 shards",
                SALE_ORDERS_PER_SECOND,
                Keys::sharded(&sale_key, SHARDS as u32),
            )
            .item_bytes(200),
        )
        .pattern(
            Pattern::reads(
                "product page (eventual)",
                4_000.0,
                Keys::single(format!("PRODUCT#{PRODUCT}")),
            )
            .item_bytes(300)
            .eventually_consistent(),
        )
        .simulate();
    println!(
        "simulated: 60 s at {SALE_ORDERS_PER_SECOND} orders/s, 4,000 page views/s, \
         on DynamoDB's limits (3,000 RCU / 1,000 WCU per partition, adaptive capacity)"
    );
    print!("{report}");
    let (simulated_unsharded, simulated_sharded) =
        (report.patterns[0].throttled, report.patterns[1].throttled);
    check(
        simulated_unsharded > report.patterns[0].requests / 3,
        "unsharded: more than a third of the orders would be throttled (one partition takes 1,000 writes/s)",
    )?;
    check(
        simulated_sharded == 0,
        "sharded 8 ways (~313 writes/s per shard): no order would be throttled",
    )?;
    check(
        report.patterns[2].throttled == 0,
        "4,000 eventually consistent page views/s (2,000 RCU) fit one partition",
    )?;
    println!(
        "note: each order also decrements the product's stock, one item: 2,500 writes/s on it \
         would be throttled however the listing is sharded (split the stock into counters)"
    );

    // The same burst, for real, on a MemoryStore enforcing the limits. Its clock is held still
    // while the orders arrive, so that they arrive in the same instant however slow this
    // machine is (a partition refills while time passes); then it runs on again.
    let held: Arc<std::sync::Mutex<Option<SystemTime>>> = Arc::default();
    let clock = Arc::clone(&held);
    let store = MemoryStore::with_clock(Arc::new(move || {
        clock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .unwrap_or_else(SystemTime::now)
    }))
    .with_partition_limits(PartitionLimits::dynamodb());
    store.create_table(FlashSale::definition()).await?;
    let hold = |on: bool| {
        *held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = on.then(SystemTime::now);
    };
    hold(true);
    let placed_at = OffsetDateTime::now_utc();
    let unsharded: Vec<UnshardedOrder> = (0..BURST)
        .map(|i| UnshardedOrder {
            buyer_id: buyer(i),
            sale_id: SALE.into(),
            placed_at,
            qty: wanted(i),
        })
        .collect();
    let mut throttled_unsharded = Vec::new();
    for order in &unsharded {
        match order.create().send(&store).await {
            Ok(()) => {}
            Err(e) if e.is_throttled() => throttled_unsharded.push(order.clone()),
            Err(e) => return Err(e.into()),
        }
    }
    let mut burst_sharded = 0;
    for i in 0..BURST {
        let order = SaleOrder {
            buyer_id: buyer(i),
            sale_id: SALE.into(),
            placed_at,
            qty: wanted(i),
        };
        match order.create().send(&store).await {
            Ok(()) => {}
            Err(e) if e.is_throttled() => burst_sharded += 1,
            Err(e) => return Err(e.into()),
        }
    }
    hold(false);
    println!(
        "MemoryStore with DynamoDB's partition limits, {BURST} orders placed in one instant: \
         unsharded {} throttled, sharded {burst_sharded} throttled",
        throttled_unsharded.len()
    );
    check(
        throttled_unsharded.len() == BURST - 1_000,
        "the unsharded listing takes 1,000 orders and throttles the rest \
         (ProvisionedThroughputExceededException)",
    )?;
    check(burst_sharded == 0, "the sharded listing is not throttled")?;
    // The retry path: the batch engine takes the throttled orders back with backoff.
    let started = std::time::Instant::now();
    let mut batch = BatchWriter::new().retry(RetryPolicy {
        max_attempts: 40,
        base_delay: Duration::from_millis(50),
        max_delay: Duration::from_millis(500),
    });
    batch.put_all(&throttled_unsharded)?;
    let written = batch.send(&store).await?.written;
    let listed = UnshardedOrder::gsi1(SALE).all(&store).await?.len();
    println!(
        "the batch engine wrote the {written} throttled orders in {:.1} s; the listing has {listed}",
        started.elapsed().as_secs_f64()
    );
    check(
        written == throttled_unsharded.len() && listed == BURST,
        "every throttled order was written on retry, none lost",
    )?;
    Ok(HotOutcome {
        simulated_unsharded,
        simulated_sharded,
        burst_unsharded: throttled_unsharded.len(),
        burst_sharded,
        listed_after_retry: listed,
    })
}

// ---- 5. the hot key benchmark ----

/// One run of the hot key benchmark: `readers` tasks reading the product in a loop and one
/// writer updating it every `write_every`, for `duration`, on a MemoryStore behind `latency`.
#[derive(Debug, Clone)]
struct HotKeyBench {
    readers: usize,
    duration: Duration,
    latency: Duration,
    write_every: Duration,
    /// The cache's item TTL (cached run).
    ttl: Duration,
}

impl Default for HotKeyBench {
    fn default() -> Self {
        HotKeyBench {
            readers: 1000,
            duration: Duration::from_secs(3),
            latency: Duration::from_millis(5),
            write_every: Duration::from_millis(500),
            ttl: Duration::from_millis(200),
        }
    }
}

/// What one run measured.
#[derive(Debug)]
struct HotKeyReport {
    reads: u64,
    backend_reads: u64,
    writes: u64,
    /// Read latencies, sorted, in nanoseconds.
    latencies: Vec<u64>,
    elapsed: Duration,
    /// The backend latency injected.
    latency: Duration,
    /// The highest `sold` any reader saw before the final write, and the final `sold`.
    last_seen: u32,
    final_sold: u32,
}

impl HotKeyReport {
    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        Duration::from_nanos(self.latencies.get(i).copied().unwrap_or(0))
    }

    fn backend_reads_per_sec(&self) -> f64 {
        self.backend_reads as f64 / self.elapsed.as_secs_f64()
    }

    fn print(&self, title: &str) {
        println!(
            "\n{title}: {} reads in {:.1} s ({:.0}/s), {} writes (sold {}, the newest a reader \
             saw {}); backend reads {} ({:.1}/s)",
            self.reads,
            self.elapsed.as_secs_f64(),
            self.reads as f64 / self.elapsed.as_secs_f64(),
            self.writes,
            self.final_sold,
            self.last_seen,
            self.backend_reads,
            self.backend_reads_per_sec(),
        );
        println!(
            "  read latency p50 {:?}  p99 {:?}  p99.9 {:?}  max {:?}",
            self.percentile(0.5),
            self.percentile(0.99),
            self.percentile(0.999),
            self.percentile(1.0),
        );
        // Reads faster than the injected latency cannot have waited for the backend: the hits.
        let hits = self
            .latencies
            .partition_point(|&l| l < self.latency.as_nanos() as u64);
        if hits > 0 && hits < self.latencies.len() {
            let at = |p: f64| {
                Duration::from_nanos(self.latencies[((hits as f64 - 1.0) * p).round() as usize])
            };
            println!(
                "  {hits} reads under the {:?} backend latency (hits): p50 {:?}  p99 {:?}  \
                 p99.9 {:?}; {} waited for the backend",
                self.latency,
                at(0.5),
                at(0.99),
                at(0.999),
                self.latencies.len() - hits
            );
        }
        // A log2 histogram: each row counts the reads from its bound up to twice it.
        let mut bound = 250u64; // ns
        let mut rows = Vec::new();
        let mut i = 0;
        while i < self.latencies.len() {
            let end = self.latencies.partition_point(|&l| l < bound * 2);
            if end > i {
                rows.push((bound, end - i));
            }
            i = end.max(i);
            bound *= 2;
        }
        let widest = rows.iter().map(|r| r.1).max().unwrap_or(1);
        for (bound, count) in rows {
            let bar = "#".repeat((count * 50).div_ceil(widest));
            println!(
                "  {:>10} .. {:>10} {:>9} {bar}",
                format!("{:?}", Duration::from_nanos(bound)),
                format!("{:?}", Duration::from_nanos(bound * 2)),
                count
            );
        }
    }
}

impl HotKeyBench {
    /// Runs without and with the cache, prints both and the comparison, and checks what must
    /// hold whatever the machine: every read saw a state at least as new as the last write
    /// before it began (no lost update, no going back), and the cache made at most about one
    /// backend read per TTL.
    async fn run_both(&self) -> Result<(HotKeyReport, HotKeyReport), BoxError> {
        println!(
            "\nhot key: {} readers, 1 writer (every {:?}), backend latency {:?}, {:?} per run",
            self.readers, self.write_every, self.latency, self.duration
        );
        let plain = self.run(false).await?;
        plain.print("without cache");
        let cached = self.run(true).await?;
        cached.print(&format!("with CachedStore (item TTL {:?})", self.ttl));
        println!(
            "\nbackend reads/s: {:.1} without, {:.1} with (1/TTL = {:.1}/s); read p99 {:?} with, {:?} without",
            plain.backend_reads_per_sec(),
            cached.backend_reads_per_sec(),
            1.0 / self.ttl.as_secs_f64(),
            cached.percentile(0.99),
            plain.percentile(0.99),
        );
        // Every TTL at most one load (single flight), plus the first, plus up to three per
        // write: the write may not install its image (a read overlapped it), a read that saw
        // the write in flight drops the older entry, and the write restarts the entry's TTL, so
        // expiries no longer fall on the run's TTL boundaries. Counted over the time the run
        // really took (on a loaded machine the readers finish after `duration`), so the bound
        // holds whatever the machine; the figure printed above is what to compare with 1/TTL.
        let bound = (cached.elapsed.as_secs_f64() / self.ttl.as_secs_f64()).ceil() as u64
            + 3 * cached.writes
            + 1;
        if cached.backend_reads > bound {
            return Err(format!(
                "the cache made {} backend reads, more than one per TTL ({bound})",
                cached.backend_reads
            )
            .into());
        }
        Ok((plain, cached))
    }

    async fn run(&self, cache: bool) -> Result<HotKeyReport, BoxError> {
        let memory = dyno_core::MemoryStore::new();
        memory.create_table(FlashSale::definition()).await?;
        let slow = Arc::new(latency::Latency::new(memory, self.latency));
        let cached = cache.then(|| {
            Arc::new(
                CachedStore::builder(Arc::clone(&slow))
                    .item_ttl(self.ttl)
                    .table(FlashSale::definition().clone())
                    .build(),
            )
        });
        let store: Arc<dyn Store> = match &cached {
            Some(c) => c.clone(),
            None => slow.clone(),
        };
        let product = Product {
            product_id: PRODUCT.into(),
            name: "Console X".into(),
            stock: 1_000_000,
            sold: 0,
        };
        product.create().send(&*store).await?;
        let before = slow.reads();
        let start = std::time::Instant::now();
        let deadline = start + self.duration;
        // The writer: sells one unit per period. `written` is the `sold` of the last write
        // completed (readers check they never see less than what was written before they began).
        let written = Arc::new(AtomicU32::new(0));
        let writer = tokio::spawn({
            let (store, written, every) = (store.clone(), written.clone(), self.write_every);
            async move {
                let mut writes = 0u64;
                while std::time::Instant::now() + every < deadline {
                    tokio::time::sleep(every).await;
                    let p = Product::update(Product::key(PRODUCT))
                        .add_sold(1)
                        .send(&*store)
                        .await?;
                    written.fetch_max(p.sold, Ordering::SeqCst);
                    writes += 1;
                }
                Ok::<u64, Error>(writes)
            }
        });
        let readers: Vec<_> = (0..self.readers)
            .map(|_| {
                let (store, cached, written) = (store.clone(), cached.clone(), written.clone());
                tokio::spawn(async move {
                    let key = Product::key(PRODUCT);
                    let mut latencies = Vec::new();
                    let mut seen = 0u32;
                    while std::time::Instant::now() < deadline {
                        let floor = written.load(Ordering::SeqCst);
                        let t = std::time::Instant::now();
                        let sold = match &cached {
                            Some(c) => c.get_shared(&key).await?.map(|p| p.sold),
                            None => Product::get(key.clone())
                                .send(&*store)
                                .await?
                                .map(|p| p.sold),
                        };
                        latencies.push(t.elapsed().as_nanos() as u64);
                        let sold = sold.ok_or("the product vanished")?;
                        if sold < floor || sold < seen {
                            return Err(format!(
                                "a read saw sold = {sold} after {} had been seen",
                                floor.max(seen)
                            )
                            .into());
                        }
                        seen = sold;
                        tokio::task::yield_now().await;
                    }
                    Ok::<_, BoxError>((latencies, seen))
                })
            })
            .collect();
        let mut latencies = Vec::new();
        let mut last_seen = 0;
        for r in readers {
            let (l, seen) = r.await??;
            latencies.extend(l);
            last_seen = last_seen.max(seen);
        }
        let writes = writer.await??;
        let elapsed = start.elapsed();
        latencies.sort_unstable();
        let final_sold = Product::get(Product::key(PRODUCT))
            .send(&*store)
            .await?
            .map_or(0, |p| p.sold);
        if u64::from(final_sold) != writes {
            return Err(format!("{writes} writes but sold = {final_sold}").into());
        }
        Ok(HotKeyReport {
            reads: latencies.len() as u64,
            backend_reads: slow.reads() - before,
            writes,
            latencies,
            elapsed,
            latency: self.latency,
            last_seen,
            final_sold,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What must hold whatever the interleaving (`run` checked it too; restated here).
    fn assert_invariants(o: &Outcome) {
        assert_eq!(o.final_stock + o.units_sold, INITIAL_STOCK, "{o:?}");
        assert_eq!(o.orders + o.refused, BUYERS, "{o:?}");
        assert!(o.units_sold > 0 && o.orders > 0, "{o:?}");
        // 200 buyers want far more than 50 units. Stock only falls, so if 3 or more units were
        // left every buyer would have been served, which 50 units cannot do.
        assert!(o.final_stock < 3, "{o:?}");
        assert_eq!(o.per_shard.values().sum::<usize>(), o.orders, "{o:?}");
        assert!(
            o.per_shard.len() > 1 && o.per_shard.len() <= SHARDS,
            "{o:?}"
        );
        assert_eq!(o.summary_version, o.orders as u64 + 1, "{o:?}");
        // All writers read version 1 before any wrote: all but one had to retry at least once.
        assert!(o.lock_retries as usize >= o.orders - 1, "{o:?}");
        assert_eq!(o.cache_loads, 1, "{o:?}");
    }

    /// The hot key benchmark in a short mode: 200 readers, half a second per run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hot_key_benchmark_short() {
        let bench = HotKeyBench {
            readers: 200,
            duration: Duration::from_millis(600),
            write_every: Duration::from_millis(100),
            ttl: Duration::from_millis(100),
            ..HotKeyBench::default()
        };
        let (plain, cached) = bench.run_both().await.unwrap();
        assert!(plain.reads > 0 && cached.reads > 0);
        // Every uncached read reaches the backend; the cache's reads are bounded in run_both.
        assert_eq!(plain.backend_reads, plain.reads + 1, "plus the final check");
        assert!(cached.backend_reads < plain.backend_reads);
        assert!(cached.last_seen <= cached.final_sold);
        assert!(cached.writes > 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hot_partitions_are_found_before_production() {
        let o = hot_partitions().await.unwrap();
        assert!(
            o.simulated_unsharded > 0 && o.simulated_sharded == 0,
            "{o:?}"
        );
        // One partition's second holds 1,000 writes of 1 unit.
        assert_eq!(o.burst_unsharded, BURST - 1_000, "{o:?}");
        assert_eq!(o.burst_sharded, 0, "{o:?}");
        assert_eq!(o.listed_after_retry, BURST, "{o:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn runs_on_memory_store() {
        let o = run(Arc::new(dyno_core::MemoryStore::new())).await.unwrap();
        assert_invariants(&o);
        assert_eq!(o.tx_retries, 0, "MemoryStore serializes transactions");
    }

    /// On dynalite when `scripts/test` started one (no transactions there: the conditional
    /// update path).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn runs_on_dynalite() {
        let Some(backend) = Backend::from_test_env("DYNO_DYNALITE_ENDPOINT").await else {
            return;
        };
        let store = Arc::clone(&backend.store);
        let result = run(Arc::clone(&store)).await;
        let _ = backend.delete_tables(&["FlashSale"]).await;
        assert_invariants(&result.unwrap());
    }
}
