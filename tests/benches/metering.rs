//! What `cost::Metered` adds to a call: MemoryStore gets with and without the wrapper, side by
//! side in one run (goal: under 5% of a MemoryStore get).
//!
//! - `metering/memory_untyped` / `metering/metered_untyped`: `store.get_item(request)` of a
//!   stored e-commerce order, the `GetRequest` borrowing its table name and key (made before the
//!   timing), on MemoryStore and on `Metered<MemoryStore>` with the model's three entities
//!   registered: classifying the key, the pattern's and the partition's counters of the thread.
//! - `metering/memory_typed` / `metering/metered_typed`: `Order::get(key).send(&store)`, the
//!   typed get (request, get, decode) a repository makes.
//! - `metering/paired`: the untyped and typed gets and a typed index query
//!   (`Order::gsi1(status).all(&store)`, one order in the partition) of both stores interleaved
//!   round by round ([`ROUNDS`] rounds of [`PER_ROUND`] gets of each kind and a quarter as many
//!   queries, in a random order each round), the median time per call of each kind and the
//!   overhead ratios printed: a ratio that a change of load between criterion's cases cannot
//!   move. Not a criterion benchmark; runs when no filter is given or the filter mentions
//!   `paired`.
//!
//! `scripts/bench metering` (`-- paired` for the paired figures alone)

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dyno_core::cost::Metered;
use dyno_core::ops::{EntityExt, QueryDsl};
use dyno_core::store::GetRequest;
use dyno_core::{Item, MemoryStore, Store, Table};
use dyno_tests::ecommerce::{self, ECommerce, Order, Product, User};
use tokio::runtime::Runtime;

/// Rounds of the paired run (`DYNO_METERING_ROUNDS` sets fewer, for a run under a profiler).
const ROUNDS: usize = 41;

fn rounds() -> usize {
    std::env::var("DYNO_METERING_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS)
}
/// Gets of each kind per round.
const PER_ROUND: u32 = 20_000;

fn metered(inner: MemoryStore) -> Metered<MemoryStore> {
    Metered::new(inner)
        .entity::<User>()
        .entity::<Order>()
        .entity::<Product>()
}

async fn seed<S: Store>(store: &S, order: &Order) -> Item {
    store
        .create_table(<ECommerce as Table>::definition())
        .await
        .unwrap();
    order.put().send(store).await.unwrap();
    Order::key(order.user_id.as_str(), order.order_id.as_str()).into_item()
}

fn untyped<S: Store>(c: &mut Criterion, rt: &Runtime, name: &str, store: &S, key: &Item) {
    let table = <ECommerce as Table>::definition().name.clone();
    c.benchmark_group("metering").bench_function(name, |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let req = GetRequest::borrowed(black_box(&table), black_box(key));
                let got = store.get_item(req).await.unwrap().item;
                debug_assert!(got.is_some());
                got
            },
            BatchSize::NumIterations(64),
        )
    });
}

fn typed<S: Store>(c: &mut Criterion, rt: &Runtime, name: &str, store: &S, order: &Order) {
    let key = Order::key(order.user_id.as_str(), order.order_id.as_str());
    c.benchmark_group("metering").bench_function(name, |b| {
        b.to_async(rt).iter_batched(
            || key.clone(),
            |key| async {
                let got = Order::get(key).send(store).await.unwrap();
                debug_assert!(got.is_some());
                got
            },
            BatchSize::NumIterations(64),
        )
    });
}

/// `n` typed queries of the order's status partition in GSI1, in nanoseconds per query.
async fn run_query<S: Store>(store: &S, order: &Order, n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let got = Order::gsi1(black_box(order.status))
            .all(store)
            .await
            .unwrap();
        debug_assert_eq!(got.len(), 1);
        black_box(got);
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

/// `n` untyped gets (`typed`: typed gets), in nanoseconds per get.
async fn run<S: Store>(store: &S, key: &Item, order: &Order, typed: bool, n: u32) -> f64 {
    let table = <ECommerce as Table>::definition().name.as_str();
    let typed_key = Order::key(order.user_id.as_str(), order.order_id.as_str());
    let start = Instant::now();
    for _ in 0..n {
        if typed {
            let got = Order::get(typed_key.clone()).send(store).await.unwrap();
            black_box(got);
        } else {
            let req = GetRequest::borrowed(black_box(table), black_box(key));
            black_box(store.get_item(req).await.unwrap().item);
        }
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn paired(
    rt: &Runtime,
    plain: &MemoryStore,
    meter: &Metered<MemoryStore>,
    key: &Item,
    order: &Order,
) {
    // kinds: 0 plain untyped, 1 metered untyped, 2 plain typed, 3 metered typed, 4 plain
    // query, 5 metered query.
    let mut times: [Vec<f64>; 6] = Default::default();
    let mut rng = fastrand::Rng::with_seed(0x3e7e);
    rt.block_on(async {
        for kind in 0..6 {
            let _ = one(kind, plain, meter, key, order, PER_ROUND / 4).await;
        }
        for _ in 0..rounds() {
            let mut kinds = [0, 1, 2, 3, 4, 5];
            rng.shuffle(&mut kinds);
            for kind in kinds {
                times[kind].push(one(kind, plain, meter, key, order, PER_ROUND).await);
            }
        }
    });
    let [pu, mu, pt, mt, pq, mq] = times.map(median);
    let line = |what: &str, plain: f64, metered: f64| {
        format!(
            "{what} MemoryStore {plain:.1} ns, Metered {metered:.1} ns: +{:.1} ns, {:.3}x ({:+.1}%)",
            metered - plain,
            metered / plain,
            (metered / plain - 1.0) * 100.0
        )
    };
    println!(
        "metering/paired ({} rounds x {PER_ROUND} gets and {} queries, medians):\n  {}\n  {}\n  {}",
        rounds(),
        PER_ROUND / 4,
        line("untyped get: ", pu, mu),
        line("typed get:   ", pt, mt),
        line("typed query: ", pq, mq),
    );
    let report = meter.report();
    let gets = report
        .pattern("Order get")
        .expect("the metered gets were attributed");
    println!(
        "  (the wrapper attributed {} gets to `Order get`)",
        gets.calls
    );
}

async fn one(
    kind: usize,
    plain: &MemoryStore,
    meter: &Metered<MemoryStore>,
    key: &Item,
    order: &Order,
    n: u32,
) -> f64 {
    match kind {
        0 => run(plain, key, order, false, n).await,
        1 => run(meter, key, order, false, n).await,
        2 => run(plain, key, order, true, n).await,
        3 => run(meter, key, order, true, n).await,
        4 => run_query(plain, order, n / 4).await,
        _ => run_query(meter, order, n / 4).await,
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Version 0: never stored, so the versioned put creates it.
    let order = Order {
        version: 0,
        ..ecommerce::full_order()
    };
    let plain = MemoryStore::new();
    let key = rt.block_on(seed(&plain, &order));
    let meter = metered(MemoryStore::new());
    rt.block_on(seed(&meter, &order));
    let stored = rt
        .block_on(
            Order::get(Order::key(order.user_id.as_str(), order.order_id.as_str())).send(&meter),
        )
        .unwrap()
        .expect("seeded");

    // The filter: the arguments that are neither options nor the values of criterion's
    // options that take one.
    let mut filter: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a.starts_with('-') {
            let valued = [
                "--warm-up-time",
                "--measurement-time",
                "--sample-size",
                "--save-baseline",
                "--baseline",
                "--load-baseline",
                "--noise-threshold",
                "--confidence-level",
                "--significance-level",
                "--nresamples",
                "--profile-time",
                "--output-format",
                "--color",
                "--plotting-backend",
            ];
            if valued.contains(&a.as_str()) {
                args.next();
            }
        } else {
            filter.push(a);
        }
    }
    if filter.is_empty() || filter.iter().any(|f| f.contains("paired")) {
        paired(&rt, &plain, &meter, &key, &stored);
    }
    untyped(c, &rt, "memory_untyped", &plain, &key);
    untyped(c, &rt, "metered_untyped", &meter, &key);
    typed(c, &rt, "memory_typed", &plain, &stored);
    typed(c, &rt, "metered_typed", &meter, &stored);
}

criterion_group! {
    name = metering;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(metering);
