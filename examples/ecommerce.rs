//! The dyno walkthrough: the tutorial's e-commerce model (users, their orders and products in one
//! DynamoDB table with an overloaded GSI) and every one of its access patterns, printing what each
//! step does and the items as they lie in the table.
//!
//! ```sh
//! cargo run --example ecommerce                 # on MemoryStore, the embedded engine
//! AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8000 AWS_REGION=us-east-1 \
//!   AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test cargo run --example ecommerce
//! ```
//!
//! With `AWS_ENDPOINT_URL_DYNAMODB` set, the walkthrough runs on that server, in a table of its
//! own (`dyno-example-<time>-ECommerce`) that it deletes at the end, unless `DYNO_KEEP_TABLES=1`
//! or `--keep-tables` (`cargo run --example ecommerce -- --keep-tables`) asks to keep it: then it
//! says where the table is and how to delete it.
//!
//! Sections: 1 the table and its keys, 2 writes, 3 access patterns, 4 updates, 5 transactions,
//! 6 safe keys, 7 TTL, 8 batches, 9 caching.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use dyno_cache::CachedStore;
use dyno_core::cost::{Metered, Rates};
use dyno_core::entity::IndexTemplate;
use dyno_core::key::Template;
use dyno_core::ops::{BatchGet, BatchWriter, EntityExt, Transaction};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::store::{GetRequest, ScanRequest};
use dyno_core::{AttributeValue, Entity, Error, Item, KeyPart, Store, Table, TableDef};
use rust_decimal::Decimal;
use time::macros::date;
use time::{Date, OffsetDateTime};

// ---------------------------------------------------------------------------------------------
// The model (examples/ecommerce/model.rs, also the one the workspace's tests use):
//
// | entity  | PK             | SK              | GSI1PK               | GSI1SK         |
// |---------|----------------|-----------------|----------------------|----------------|
// | User    | `USER#<id>`    | `PROFILE`       |                      |                |
// | Order   | `USER#<id>`    | `ORDER#<id>`    | `STATUS#<status>`    | `<order_date>` |
// | Product | `PRODUCT#<id>` | `PRODUCT`       | `CATEGORY#<category>`| `<price>`      |
// ---------------------------------------------------------------------------------------------

#[path = "support/backend.rs"]
mod backend;
#[path = "support/logging.rs"]
mod logging;
#[path = "ecommerce/model.rs"]
mod model;
#[path = "support/report.rs"]
mod report;

use backend::Backend;

use model::{ECommerce, Order, OrderStatus, OrderSummary, Product, User, UserItem, UserWithOrders};

fn user(id: &str, name: &str) -> User {
    User {
        user_id: id.into(),
        name: name.into(),
        email: format!("{}@example.com", name.to_lowercase()),
        version: 0,
    }
}

fn order(user: &str, id: &str, status: OrderStatus, date: Date, total: i64) -> Order {
    Order {
        user_id: user.into(),
        order_id: id.into(),
        status,
        order_date: date,
        total: Decimal::new(total, 0),
        product_ids: Vec::new(),
        note: None,
        version: 0,
        expires_at: None,
    }
}

fn product(id: &str, name: &str, category: &str, price: Decimal, stock: u32) -> Product {
    Product {
        product_id: id.into(),
        name: name.into(),
        category: category.into(),
        price,
        stock,
    }
}

// ---------------------------------------------------------------------------------------------
// The walkthrough.
// ---------------------------------------------------------------------------------------------

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Outcome<T = ()> = Result<T, BoxError>;

#[tokio::main]
async fn main() -> ExitCode {
    logging::init();

    let backend = Backend::from_env().await;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "dyno walkthrough on {}", backend.describe());

    // `--report` (or `--report=<dir>`): the run goes through the metering wrapper, then the
    // report prints the model's design document, the capacity and cost of each access pattern,
    // and the hot-partition check, and writes a NoSQL Workbench file, from the table as the run
    // left it.
    let report_dir = report::requested(std::env::args().skip(1));
    let metered = Arc::new(
        Metered::new(backend.store.clone())
            .entity::<User>()
            .entity::<Order>()
            .entity::<Product>(),
    );
    let store: Arc<dyn Store> = match report_dir {
        Some(_) => metered.clone(),
        None => backend.store.clone(),
    };
    let mut result = run(store, &mut out).await;
    if let (Ok(()), Some(dir)) = (&result, report_dir) {
        let model = ECommerce::model();
        let measured = metered.report();
        let capacity = report::Capacity {
            measured: &measured,
            rates: &rates(),
        };
        if let Err(e) = report::report(
            &mut out,
            &model,
            &*backend.store,
            Some(capacity),
            &workload(),
            &dir,
        )
        .await
        {
            result = Err(e);
        }
    }
    // On a server, the run's table goes away with it, whether or not the run got to the end,
    // unless the user asked to keep it (DYNO_KEEP_TABLES=1 or --keep-tables).
    let table = &table_def().name;
    let cleanup = backend.finish(&[table]).await;
    let physical = backend.physical(table);
    let _ = out.flush();
    match (result, cleanup) {
        (Ok(()), Ok(said)) => {
            if let Some(said) = said {
                let _ = writeln!(out, "\n{said}");
            }
            ExitCode::SUCCESS
        }
        (Ok(()), Err(e)) => {
            eprintln!("could not delete the table {physical}: {}", chain(&e));
            ExitCode::FAILURE
        }
        (Err(e), cleanup) => {
            eprintln!("walkthrough failed: {}", chain(&*e));
            if let Err(e) = cleanup {
                eprintln!("and the table {physical} may be left over: {}", chain(&e));
            }
            ExitCode::FAILURE
        }
    }
}

/// The request rates the report prices the measured patterns at (calls per second, by their
/// names in the capacity table).
fn rates() -> Rates {
    Rates::new()
        .rate("Order put", 1_500.0)
        .rate("Order query", 800.0)
        .rate("Product query GSI1", 2_500.0)
}

/// The load the report's hot-partition check replays: the rates this shop expects, per access
/// pattern (named as in the design document), with the keys each one hits. Every new order is
/// `PENDING`, so its GSI1 write lands in one partition, `STATUS#PENDING`.
fn workload() -> dyno_core::hot::Workload {
    use dyno_core::hot::{Keys, Pattern, Workload};
    Workload::new(60.0)
        .pattern(
            Pattern::writes(
                "Order (create): GSI1",
                1_500.0,
                Keys::single("STATUS#PENDING"),
            )
            .item_bytes(300),
        )
        .pattern(
            Pattern::reads("Order::query", 800.0, Keys::uniform("USER#", 50_000))
                .eventually_consistent(),
        )
        .pattern(Pattern::reads(
            "Order::gsi1",
            50.0,
            Keys::uniform("STATUS#", 3),
        ))
        .pattern(Pattern::reads(
            "Product::gsi1",
            2_500.0,
            Keys::zipf("CATEGORY#", 40, 1.2),
        ))
}

/// An error and its sources, on one line.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        s.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    s
}

fn table_def() -> &'static TableDef {
    <ECommerce as Table>::definition()
}

/// Fails the walkthrough when a step did not do what it shows.
fn check(ok: bool, what: &str) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(format!("walkthrough check failed: {what}").into())
    }
}

fn section(out: &mut impl Write, n: u32, title: &str) -> Outcome {
    let line = format!("{n}. {title}");
    writeln!(out, "\n{line}\n{}", "=".repeat(line.len()))?;
    Ok(())
}

/// Runs the whole walkthrough on `store` (which may already hold the table), writing to `out`.
pub async fn run(shared: Arc<dyn Store>, out: &mut impl Write) -> Outcome {
    let store = &*shared;
    the_table(store, out).await?;
    writes(store, out).await?;
    access_patterns(store, out).await?;
    updates(store, out).await?;
    transactions(store, out).await?;
    safe_keys(store, out).await?;
    ttl(store, out).await?;
    batches(store, out).await?;
    caching(Arc::clone(&shared), out).await?;
    writeln!(out, "\nThe table at the end")?;
    print_table(store, out).await?;
    writeln!(out, "\nDone: every access pattern ran.")?;
    Ok(())
}

// 1 -------------------------------------------------------------------------------------------

async fn the_table(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 1, "The table and its keys")?;
    let def = table_def();
    writeln!(out, "One table, `{}`, holds every entity. Its CreateTable request (from TableDef::to_create_table_json):", def.name)?;
    writeln!(out, "{:#}", def.to_create_table_json())?;
    match store.create_table(def).await {
        Ok(()) => writeln!(out, "create_table: created.")?,
        Err(Error::ResourceInUse { .. }) => {
            writeln!(out, "create_table: it already exists, reusing it.")?
        }
        Err(e) => return Err(e.into()),
    }
    if let Some(ttl) = &def.ttl_attribute {
        let described = store.describe_table(&def.name).await?;
        match described.definition.ttl_attribute {
            Some(on) => writeln!(out, "Time to live: enabled on attribute `{on}` (epoch seconds).")?,
            None => writeln!(
                out,
                "Time to live: this backend did not enable it on `{ttl}` (typed reads hide expired items anyway)."
            )?,
        }
    }
    writeln!(
        out,
        "\nHow each entity lays out its keys (from the derive's templates):"
    )?;
    let rows = vec![key_row::<User>(), key_row::<Order>(), key_row::<Product>()];
    print_rows(out, &["entity", "PK", "SK", "GSI1PK", "GSI1SK"], &rows)?;
    writeln!(out, "Orders share their user's partition; GSI1 is overloaded: orders by status and date, products by category and price.")?;
    Ok(())
}

/// One row of the key-design table, read from the entity's templates.
fn key_row<E: Entity>() -> Vec<String> {
    let gsi1: Option<&IndexTemplate> = E::INDEXES.iter().find(|i| i.index == "GSI1");
    let t = |t: Option<Template>| t.map(|t| t.to_string()).unwrap_or_default();
    vec![
        E::ENTITY_TYPE.to_owned(),
        E::PK.to_string(),
        t(E::SK),
        t(gsi1.map(|i| i.pk)),
        t(gsi1.and_then(|i| i.sk)),
    ]
}

// 2 -------------------------------------------------------------------------------------------

async fn writes(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 2, "Writes")?;
    for u in [user("u1", "Ann"), user("u2", "Bob")] {
        u.create().send(store).await?;
        writeln!(out, "create User {} ({}): ok", u.user_id, u.name)?;
    }
    // create refuses an existing key: the profile of u1 is not overwritten.
    match user("u1", "Impostor").create().send(store).await {
        Err(e @ Error::ConditionFailed { .. }) => writeln!(
            out,
            "create User u1 (Impostor) again: refused, {e} (the item exists)"
        )?,
        other => {
            return Err(format!(
                "a duplicate create should fail with ConditionFailed, got {other:?}"
            )
            .into())
        }
    }
    let kept = User::get(User::key("u1")).send(store).await?;
    check(
        kept.as_ref().is_some_and(|u| u.name == "Ann"),
        "u1 is still Ann",
    )?;

    let products = [
        product("p1", "The Rust Book", "books", Decimal::new(1200, 2), 3),
        product("p2", "Cooking for Crabs", "books", Decimal::new(3000, 2), 0),
        product("p3", "Ferris' Guide", "books", Decimal::new(1950, 2), 8),
        product(
            "p4",
            "Borrow Checker: The Game",
            "games",
            Decimal::new(1500, 2),
            2,
        ),
    ];
    for p in &products {
        p.put().send(store).await?;
        writeln!(
            out,
            "put Product {} ({}, {} at {}, stock {}): ok",
            p.product_id, p.name, p.category, p.price, p.stock
        )?;
    }
    let orders = [
        order(
            "u1",
            "2023-900",
            OrderStatus::Delivered,
            date!(2023 - 12 - 30),
            7,
        ),
        order(
            "u1",
            "2024-001",
            OrderStatus::Pending,
            date!(2024 - 01 - 05),
            10,
        ),
        order(
            "u1",
            "2024-002",
            OrderStatus::Shipped,
            date!(2024 - 01 - 20),
            25,
        ),
        order(
            "u1",
            "2024-003",
            OrderStatus::Shipped,
            date!(2024 - 02 - 11),
            40,
        ),
        order(
            "u2",
            "2024-004",
            OrderStatus::Shipped,
            date!(2024 - 01 - 25),
            99,
        ),
    ];
    for o in &orders {
        o.create().send(store).await?;
        writeln!(
            out,
            "create Order {}/{} ({:?}, {}, total {}): ok",
            o.user_id, o.order_id, o.status, o.order_date, o.total
        )?;
    }
    writeln!(
        out,
        "\nThe items as they lie in the table (a raw scan, sorted by PK and SK):"
    )?;
    print_table(store, out).await?;
    Ok(())
}

// 3 -------------------------------------------------------------------------------------------

fn ids(orders: &[Order]) -> String {
    orders
        .iter()
        .map(|o| o.order_id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

async fn access_patterns(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 3, "Access patterns")?;

    writeln!(out, "User profile: User::get(User::key(\"u1\"))")?;
    let ann = User::get(User::key("u1"))
        .send(store)
        .await?
        .ok_or("u1 has a profile")?;
    writeln!(
        out,
        "  -> {} <{}>, version {}",
        ann.name, ann.email, ann.version
    )?;
    let nobody = User::get(User::key("nobody")).send(store).await?;
    writeln!(out, "  User::get(User::key(\"nobody\")) -> {nobody:?}")?;
    check(nobody.is_none(), "no profile for nobody")?;

    writeln!(
        out,
        "\nA user's orders of 2024: Order::query(\"u1\").order_id().begins_with(\"2024\")"
    )?;
    let orders = Order::query("u1")
        .order_id()
        .begins_with("2024")
        .all(store)
        .await?;
    writeln!(
        out,
        "  -> {} orders: {}  (key condition PK = USER#u1 AND begins_with(SK, ORDER#2024))",
        orders.len(),
        ids(&orders)
    )?;
    check(
        ids(&orders) == "2024-001, 2024-002, 2024-003",
        "the 2024 orders of u1",
    )?;
    let newest = Order::query("u1")
        .descending()
        .first(store)
        .await?
        .ok_or("u1 has orders")?;
    writeln!(
        out,
        "  newest first: Order::query(\"u1\").descending().first() -> {}",
        newest.order_id
    )?;
    let summaries = Order::query("u1")
        .project::<OrderSummary>()
        .all(store)
        .await?;
    writeln!(
        out,
        "  as a projection (reads only order_id, status, total):"
    )?;
    for s in &summaries {
        writeln!(out, "    {} {:?} {}", s.order_id, s.status, s.total)?;
    }

    writeln!(
        out,
        "\nProfile and orders in one query: UserWithOrders::query(\"u1\").all()"
    )?;
    let both = UserWithOrders::query("u1").all(store).await?;
    writeln!(
        out,
        "  -> user {:?}, {} orders: {}",
        both.user.as_ref().map(|u| u.name.as_str()),
        both.orders.len(),
        ids(&both.orders)
    )?;
    check(
        both.user.is_some() && both.orders.len() == 4,
        "u1's profile and 4 orders",
    )?;
    let items = UserItem::query("u1").all(store).await?;
    let kinds: Vec<&str> = items
        .iter()
        .map(|i| match i {
            UserItem::User(_) => "User",
            UserItem::Order(_) => "Order",
        })
        .collect();
    writeln!(
        out,
        "  one item at a time (UserItem::query): {}",
        kinds.join(", ")
    )?;

    writeln!(out, "\nOrders by status within a date range (GSI1): Order::gsi1(Shipped).order_date().between(2024-01-01, 2024-01-31)")?;
    let january = Order::gsi1(OrderStatus::Shipped)
        .order_date()
        .between(date!(2024 - 01 - 01), date!(2024 - 01 - 31))
        .all(store)
        .await?;
    for o in &january {
        writeln!(
            out,
            "  -> {}/{} shipped {} total {}",
            o.user_id, o.order_id, o.order_date, o.total
        )?;
    }
    check(
        ids(&january) == "2024-002, 2024-004",
        "January's shipped orders of both users",
    )?;

    writeln!(out, "\nGSI1 is overloaded: the index as it lies (a raw scan of GSI1, sorted by GSI1PK and GSI1SK):")?;
    print_index(store, out, "GSI1").await?;
    let encoded = [
        Decimal::new(12, 0),
        Decimal::new(195, 1),
        Decimal::new(30, 0),
    ]
    .iter()
    .map(|d| {
        let mut segment = String::new();
        d.encode_key(&mut segment)
            .map(|()| format!("{d} -> {segment}"))
    })
    .collect::<Result<Vec<_>, _>>()?;
    writeln!(
        out,
        "Prices are encoded so that text order is numeric order ({}); dates as YYYY-MM-DD.",
        encoded.join(", ")
    )?;
    writeln!(
        out,
        "Products by category under a price (GSI1): Product::gsi1(\"books\").price().lt(20)"
    )?;
    let cheap = Product::gsi1("books")
        .price()
        .lt(Decimal::new(20, 0))
        .all(store)
        .await?;
    for p in &cheap {
        writeln!(
            out,
            "  -> Product {} {} at {}",
            p.product_id, p.name, p.price
        )?;
    }
    writeln!(out, "  only products come back: the key condition reads the CATEGORY#books partition, and items of other entities would be skipped, never mis-decoded")?;
    check(
        cheap
            .iter()
            .map(|p| p.product_id.as_str())
            .collect::<Vec<_>>()
            == ["p1", "p3"],
        "books under 20",
    )?;
    let as_orders = Order::query("u1").all(store).await?;
    check(
        as_orders.len() == 4,
        "Order::query skips the profile in the user's partition",
    )?;
    writeln!(out, "  the same holds on the table: Order::query(\"u1\") returns {} orders and skips the PROFILE item", as_orders.len())?;

    writeln!(
        out,
        "\nPagination with a cursor: Order::query(\"u1\").page_size(2).page(&store, cursor)"
    )?;
    let mut cursor = None;
    let mut pages = 0;
    loop {
        // The same query each time, resumed where the cursor says.
        let page = Order::query("u1")
            .page_size(2)
            .page(store, cursor.as_ref())
            .await?;
        pages += 1;
        let next = page.cursor.as_ref().map(|c| abbreviate(&c.to_string()));
        writeln!(
            out,
            "  page {pages}: [{}]  next cursor: {}",
            ids(&page.items),
            next.as_deref().unwrap_or("none (last page)")
        )?;
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
        check(pages < 10, "pagination ends")?;
    }
    writeln!(
        out,
        "  (DynamoDB cannot know page 2 is the last until it looks again, hence the empty page 3."
    )?;
    writeln!(
        out,
        "   The cursor is opaque text bound to its query: it can travel through an API and back.)"
    )?;
    Ok(())
}

/// The first and last characters of a long string.
fn abbreviate(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() > 24 {
        let head: String = chars[..10].iter().collect();
        let tail: String = chars[chars.len() - 10..].iter().collect();
        format!("{head}…{tail} ({} chars)", chars.len())
    } else {
        s.to_owned()
    }
}

// 4 -------------------------------------------------------------------------------------------

async fn updates(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 4, "Updates")?;
    let key = Order::key("u1", "2024-001");
    let before = raw_get(store, key.as_item()).await?;
    writeln!(
        out,
        "Order u1/2024-001 before: status {}, GSI1PK {}",
        attr(&before, "status"),
        attr(&before, "GSI1PK")
    )?;
    writeln!(
        out,
        "Order::update(Order::key(\"u1\", \"2024-001\")).set_status(Shipped)"
    )?;
    let shipped = Order::update(key.clone())
        .set_status(OrderStatus::Shipped)
        .send(store)
        .await?;
    let after = raw_get(store, key.as_item()).await?;
    writeln!(
        out,
        "  -> status {:?}, version {}; GSI1PK rewritten in the same request: {}",
        shipped.status,
        shipped.version,
        attr(&after, "GSI1PK")
    )?;
    check(
        attr(&after, "GSI1PK") == "STATUS#SHIPPED",
        "GSI1PK follows the status",
    )?;
    let pending = Order::gsi1(OrderStatus::Pending).all(store).await?;
    writeln!(out, "  pending orders now (GSI1): [{}]", ids(&pending))?;

    writeln!(
        out,
        "\nOptimistic locking: two writers read the profile of u1, both at version 1."
    )?;
    let mut alice_copy = User::get(User::key("u1"))
        .send(store)
        .await?
        .ok_or("u1 exists")?;
    let mut bob_copy = alice_copy.clone();
    alice_copy.name = "Ann Smith".into();
    alice_copy.put().send(store).await?;
    writeln!(
        out,
        "  writer A puts name = \"Ann Smith\" (expects version {}): ok, now version {}",
        alice_copy.version,
        alice_copy.version + 1
    )?;
    bob_copy.email = "ann@work.example".into();
    match bob_copy.put().send(store).await {
        Err(e @ Error::ConditionFailed { .. }) => writeln!(
            out,
            "  writer B puts email (expects version {}): refused, {e}: the stored version moved on",
            bob_copy.version
        )?,
        other => {
            return Err(
                format!("a stale put should fail with ConditionFailed, got {other:?}").into(),
            )
        }
    }
    let fresh = User::get(User::key("u1"))
        .send(store)
        .await?
        .ok_or("u1 exists")?;
    writeln!(
        out,
        "  writer B re-reads (version {}, name {:?}) and updates with if_version:",
        fresh.version, fresh.name
    )?;
    let updated = User::update(User::key("u1"))
        .set_email("ann@work.example")
        .if_version(fresh.version)
        .send(store)
        .await?;
    writeln!(
        out,
        "  -> ok: {} <{}>, version {}",
        updated.name, updated.email, updated.version
    )?;
    check(
        updated.name == "Ann Smith" && updated.version == fresh.version + 1,
        "both writes kept",
    )?;
    match User::update(User::key("u1"))
        .set_name("Annie")
        .if_version(fresh.version)
        .send(store)
        .await
    {
        Err(e @ Error::ConditionFailed { .. }) => writeln!(
            out,
            "  the same update again with version {}: refused, {e}",
            fresh.version
        )?,
        other => {
            return Err(
                format!("a stale update should fail with ConditionFailed, got {other:?}").into(),
            )
        }
    }
    Ok(())
}

// 5 -------------------------------------------------------------------------------------------

/// Creates the order and takes `quantity` of `product_id` from stock, all or nothing.
fn place_order(order: &Order, product_id: &str, quantity: u32) -> Outcome<Transaction> {
    let take = Product::update(Product::key(product_id))
        .subtract_stock(quantity)
        .condition(Product::STOCK.ge(quantity))
        .into_update()?;
    Ok(Transaction::new().create(order).update(take))
}

async fn transactions(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 5, "Placing an order in a transaction")?;
    writeln!(out, "Transaction::new().create(&order).update(Product::update(key).subtract_stock(q).condition(Product::STOCK.ge(q)))")?;
    let mut first = order(
        "u2",
        "2024-005",
        OrderStatus::Pending,
        date!(2024 - 03 - 01),
        30,
    );
    first.product_ids = vec!["p4".into()];
    match place_order(&first, "p4", 2)?.send(store).await {
        Ok(_) => {}
        // dynalite, for one, has no TransactWriteItems.
        Err(Error::Service {
            code: Some(code), ..
        }) if matches!(
            code.as_str(),
            "UnknownOperationException" | "NotImplementedException" | "InvalidAction"
        ) =>
        {
            writeln!(
                out,
                "note: this backend has no transactions ({code}); skipping this section."
            )?;
            writeln!(out, "      (MemoryStore, moto and DynamoDB run it.)")?;
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    }
    let p4 = Product::get(Product::key("p4"))
        .send(store)
        .await?
        .ok_or("p4 exists")?;
    writeln!(
        out,
        "u2 orders 2 of p4 (stock 2): committed; order 2024-005 created, p4 stock now {}",
        p4.stock
    )?;
    check(p4.stock == 0, "p4 stock decremented to 0")?;

    let mut second = order(
        "u1",
        "2024-006",
        OrderStatus::Pending,
        date!(2024 - 03 - 02),
        15,
    );
    second.product_ids = vec!["p4".into()];
    match place_order(&second, "p4", 1)?.send(store).await {
        Err(Error::TransactionCanceled { reasons }) => {
            writeln!(
                out,
                "u1 orders 1 of p4 (stock 0): cancelled, nothing written. Reasons, one per action:"
            )?;
            let what = [
                "create Order u1/2024-006",
                "update Product p4 if stock >= 1",
            ];
            for (i, r) in reasons.iter().enumerate() {
                let code = r.code.as_deref().unwrap_or("None");
                writeln!(
                    out,
                    "  action {i} ({}): {code}",
                    what.get(i).unwrap_or(&"?")
                )?;
            }
            check(
                reasons.get(1).is_some_and(|r| r.is_condition_failed()),
                "the stock condition failed",
            )?;
        }
        other => {
            return Err(format!("an order beyond stock should be cancelled, got {other:?}").into())
        }
    }
    let written = Order::get(Order::key("u1", "2024-006")).send(store).await?;
    writeln!(out, "  Order u1/2024-006 exists: {}", written.is_some())?;
    check(written.is_none(), "the cancelled order is not written")?;
    Ok(())
}

// 6 -------------------------------------------------------------------------------------------

async fn safe_keys(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 6, "Safe keys: values cannot forge other keys")?;
    let sneaky_id = "u1#ORDER#2024-002";
    let sneaky = user(sneaky_id, "Mallory");
    sneaky.create().send(store).await?;
    let key = User::key(sneaky_id);
    writeln!(out, "create User {sneaky_id:?}: ok")?;
    writeln!(out, "  naive concatenation would give PK = USER#{sneaky_id}, which reads as user u1, order 2024-002")?;
    writeln!(
        out,
        "  dyno escapes '#' (and '%') in values: PK = {}",
        attr(key.as_item(), "PK")
    )?;
    check(
        attr(key.as_item(), "PK") == "USER#u1%23ORDER%232024-002",
        "the escaped key",
    )?;
    let back = User::get(key)
        .send(store)
        .await?
        .ok_or("the sneaky user exists")?;
    writeln!(
        out,
        "  read back: user_id {:?} (decoded exactly), name {}",
        back.user_id, back.name
    )?;
    let theirs = UserWithOrders::query(sneaky_id).all(store).await?;
    writeln!(
        out,
        "  UserWithOrders::query({sneaky_id:?}): user {:?}, {} orders",
        theirs.user.map(|u| u.name),
        theirs.orders.len()
    )?;
    check(theirs.orders.is_empty(), "the sneaky id reaches no order")?;
    let ann = UserWithOrders::query("u1").all(store).await?;
    writeln!(
        out,
        "  UserWithOrders::query(\"u1\"): user {:?}, {} orders, untouched",
        ann.user.map(|u| u.name),
        ann.orders.len()
    )?;
    Ok(())
}

// 7 -------------------------------------------------------------------------------------------

async fn ttl(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 7, "Time to live")?;
    let now = OffsetDateTime::now_utc();
    let mut expired = order(
        "u1",
        "2024-007",
        OrderStatus::Pending,
        date!(2024 - 03 - 03),
        5,
    );
    expired.expires_at = Some(now - time::Duration::hours(1));
    expired.note = Some("unpaid".into());
    expired.put().send(store).await?;
    let mut live = order(
        "u1",
        "2024-008",
        OrderStatus::Pending,
        date!(2024 - 03 - 04),
        6,
    );
    live.expires_at = Some(now + time::Duration::days(1));
    live.put().send(store).await?;
    writeln!(
        out,
        "put Order u1/2024-007 expiring an hour ago, and u1/2024-008 expiring tomorrow"
    )?;
    let got = Order::get(Order::key("u1", "2024-007")).send(store).await?;
    writeln!(
        out,
        "  Order::get(u1/2024-007) -> {}",
        if got.is_some() {
            "found"
        } else {
            "None: expired items are hidden"
        }
    )?;
    check(got.is_none(), "the expired order is hidden")?;
    let listed = Order::query("u1")
        .order_id()
        .ge("2024-007")
        .all(store)
        .await?;
    writeln!(
        out,
        "  Order::query(\"u1\").order_id().ge(\"2024-007\") -> [{}]",
        ids(&listed)
    )?;
    check(ids(&listed) == "2024-008", "only the live order is listed")?;
    match store
        .get_item(GetRequest::new(&table_def().name, Order::key("u1", "2024-007").into_item()).consistent())
        .await?
        .item
    {
        Some(item) => writeln!(
            out,
            "  a raw GetItem still finds it (ttl = {}): DynamoDB deletes expired items up to days late, dyno hides them at once",
            attr(&item, "ttl")
        )?,
        None => writeln!(out, "  a raw GetItem does not find it either: this store has already deleted it")?,
    }
    Ok(())
}

// 8 -------------------------------------------------------------------------------------------

async fn batches(store: &dyn Store, out: &mut impl Write) -> Outcome {
    section(out, 8, "Batches")?;
    let stock: Vec<Product> = (0..100)
        .map(|i| {
            product(
                &format!("bulk-{i:03}"),
                &format!("Sticker #{i}"),
                "stickers",
                Decimal::new(100 + i, 2),
                50,
            )
        })
        .collect();
    let mut batch = BatchWriter::new();
    batch.put_all(&stock)?;
    let report = batch.send(store).await?;
    writeln!(
        out,
        "BatchWriter: {} puts -> {} written in {} BatchWriteItem requests (25 writes each), {} unprocessed",
        stock.len(),
        report.written,
        report.requests,
        report.unprocessed.len()
    )?;
    check(report.written == 100, "100 written")?;
    let read = BatchGet::new(stock.iter().map(|p| Product::key(&p.product_id)))
        .send(store)
        .await?;
    writeln!(
        out,
        "BatchGet: {} keys -> {} products read, in the order of the keys ({} … {})",
        stock.len(),
        read.len(),
        read.first().map_or("", |p| p.product_id.as_str()),
        read.last().map_or("", |p| p.product_id.as_str())
    )?;
    check(
        read.len() == 100 && read == stock,
        "the 100 products read back",
    )?;
    let listed = Product::gsi1("stickers").count(store).await?;
    writeln!(out, "Product::gsi1(\"stickers\").count() -> {listed}")?;
    check(listed == 100, "100 stickers in GSI1")?;
    let mut cleanup = BatchWriter::new();
    for p in &stock {
        cleanup.delete(Product::key(&p.product_id))?;
    }
    let report = cleanup.send(store).await?;
    writeln!(
        out,
        "BatchWriter: {} deletes -> {} applied (the walkthrough's table stays small)",
        stock.len(),
        report.written
    )?;
    check(report.written == 100, "100 deleted")?;
    Ok(())
}

// 9 -------------------------------------------------------------------------------------------

async fn caching(store: Arc<dyn Store>, out: &mut impl Write) -> Outcome {
    section(out, 9, "Caching")?;
    // The one change: wrap the store. Typed operations run on it unchanged.
    let cached = CachedStore::new(store);
    writeln!(out, "let cached = CachedStore::new(store);  // the same typed calls, now through a write-through cache")?;
    let first = User::get(User::key("u2"))
        .send(&cached)
        .await?
        .ok_or("u2 exists")?;
    let second = User::get(User::key("u2"))
        .send(&cached)
        .await?
        .ok_or("u2 exists")?;
    writeln!(
        out,
        "User::get(u2) twice -> {} and {} (the second from the cache)",
        first.name, second.name
    )?;
    let a = Order::query("u1").all(&cached).await?;
    let b = Order::query("u1").all(&cached).await?;
    writeln!(
        out,
        "Order::query(\"u1\") twice -> {} and {} orders",
        a.len(),
        b.len()
    )?;
    let renamed = User::update(User::key("u2"))
        .set_name("Robert")
        .send(&cached)
        .await?;
    let third = User::get(User::key("u2"))
        .send(&cached)
        .await?
        .ok_or("u2 exists")?;
    writeln!(out, "User::update(u2).set_name(\"Robert\") through the cache, then User::get(u2) -> {} (read your writes)", third.name)?;
    check(
        third.name == renamed.name && third.name == "Robert",
        "the cache serves the write",
    )?;
    let m = cached.metrics();
    writeln!(out, "cache metrics:")?;
    writeln!(
        out,
        "  items:   {} hits, {} misses, {} backend reads",
        m.item.hits, m.item.misses, m.item.loads
    )?;
    writeln!(
        out,
        "  queries: {} hits, {} misses, {} backend reads",
        m.query.hits, m.query.misses, m.query.loads
    )?;
    writeln!(
        out,
        "  writes:  {} write-through updates, {} query generations bumped",
        m.write_through_updates, m.generation_bumps
    )?;
    check(
        m.item.hits >= 2 && m.item.loads == 1,
        "two item hits, one load",
    )?;
    check(m.query.hits >= 1, "a query hit")?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Looking at raw items.
// ---------------------------------------------------------------------------------------------

async fn raw_get(store: &dyn Store, key: &Item) -> Outcome<Item> {
    let request = GetRequest::borrowed(&table_def().name, key).consistent();
    let item = store
        .get_item(request)
        .await?
        .item
        .ok_or("the item exists")?;
    Ok((*item).clone())
}

/// Every item of the table or of one of its indexes, page after page.
async fn scan_all(store: &dyn Store, index: Option<&str>) -> Outcome<Vec<Item>> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = store
            .scan(
                ScanRequest::new(table_def().name.clone())
                    .with_index(index)
                    .with_exclusive_start_key(start),
            )
            .await?;
        items.extend(page.items.iter().map(|i| (**i).clone()));
        match page.last_evaluated_key {
            Some(k) => start = Some(k),
            None => return Ok(items),
        }
    }
}

const KEY_COLUMNS: [&str; 5] = ["PK", "SK", "GSI1PK", "GSI1SK", "_type"];

/// The table as it lies: one line per item, key attributes in columns, the rest after them.
async fn print_table(store: &dyn Store, out: &mut impl Write) -> Outcome {
    let mut items = scan_all(store, None).await?;
    items.sort_by_key(|i| (attr(i, "PK"), attr(i, "SK")));
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            let mut row: Vec<String> = KEY_COLUMNS.iter().map(|c| attr(item, c)).collect();
            let rest: BTreeMap<&String, &AttributeValue> = item
                .iter()
                .filter(|(k, _)| !KEY_COLUMNS.contains(&k.as_str()))
                .collect();
            row.push(
                rest.iter()
                    .map(|(k, v)| format!("{k}={}", show(v)))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            row
        })
        .collect();
    print_rows(
        out,
        &["PK", "SK", "GSI1PK", "GSI1SK", "type", "attributes"],
        &rows,
    )?;
    writeln!(out, "({} items)", rows.len())?;
    Ok(())
}

/// An index as it lies: its keys and the entity type of each item.
async fn print_index(store: &dyn Store, out: &mut impl Write, index: &str) -> Outcome {
    let mut items = scan_all(store, Some(index)).await?;
    items.sort_by_key(|i| (attr(i, "GSI1PK"), attr(i, "GSI1SK")));
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|i| {
            ["GSI1PK", "GSI1SK", "_type", "PK", "SK"]
                .iter()
                .map(|c| attr(i, c))
                .collect()
        })
        .collect();
    print_rows(out, &["GSI1PK", "GSI1SK", "type", "PK", "SK"], &rows)?;
    Ok(())
}

/// Aligned columns; the last one is not padded.
fn print_rows(out: &mut impl Write, header: &[&str], rows: &[Vec<String>]) -> Outcome {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let mut s = String::from("  ");
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i == last {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.trim_end().to_owned()
    };
    writeln!(out, "{}", line(header.to_vec()))?;
    writeln!(
        out,
        "{}",
        line(
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str)
                .collect()
        )
    )?;
    for row in rows {
        writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

/// A string or number attribute as text (empty when absent).
fn attr(item: &Item, name: &str) -> String {
    item.get(name).map(show).unwrap_or_default()
}

/// An attribute value, compactly.
fn show(v: &AttributeValue) -> String {
    let join = |parts: Vec<String>| parts.join(", ");
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".into(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        AttributeValue::L(l) => format!("[{}]", join(l.iter().map(show).collect())),
        AttributeValue::M(m) => {
            let sorted: BTreeMap<_, _> = m.iter().collect();
            format!(
                "{{{}}}",
                join(
                    sorted
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", show(v)))
                        .collect()
                )
            )
        }
        AttributeValue::Ss(s) | AttributeValue::Ns(s) => format!("<<{}>>", s.join(", ")),
        AttributeValue::Bs(b) => format!("<<{} binaries>>", b.len()),
        _ => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walkthrough runs to the end on MemoryStore (every step checks what it shows), and
    /// prints every section.
    #[tokio::test]
    async fn walkthrough_runs_on_memory_store() {
        let mut out = Vec::new();
        let result = run(Arc::new(dyno_core::MemoryStore::new()), &mut out).await;
        let text = String::from_utf8(out).unwrap();
        if let Err(e) = result {
            panic!(
                "walkthrough failed: {}\n--- output so far ---\n{text}",
                chain(&*e)
            );
        }
        for n in 1..=9 {
            assert!(
                text.contains(&format!("\n{n}. ")),
                "section {n} missing:\n{text}"
            );
        }
        assert!(
            text.contains("ConditionalCheckFailed"),
            "the cancelled transaction's reason:\n{text}"
        );
        assert!(
            !text.contains("has no transactions"),
            "MemoryStore has transactions:\n{text}"
        );
        assert!(
            text.contains("USER#u1%23ORDER%232024-002"),
            "the escaped key:\n{text}"
        );
        assert!(text.ends_with("Done: every access pattern ran.\n"));
    }

    #[test]
    fn keeping_tables_is_asked_by_the_variable_or_the_flag() {
        let args = |a: &[&str]| {
            a.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .into_iter()
        };
        assert!(backend::keep_requested(Some("1"), args(&[])));
        assert!(backend::keep_requested(Some("true"), args(&[])));
        assert!(backend::keep_requested(None, args(&["--keep-tables"])));
        assert!(!backend::keep_requested(None, args(&[])));
        assert!(!backend::keep_requested(Some("0"), args(&["--other"])));
        assert!(!backend::keep_requested(Some(""), args(&[])));
    }

    /// The server the keep test uses: dynoxide (the reference), else dynalite; `None` skips.
    fn server_endpoint() -> Option<String> {
        let found = ["DYNO_DYNOXIDE_ENDPOINT", "DYNO_DYNALITE_ENDPOINT"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|e| !e.is_empty()));
        if found.is_none() {
            assert!(
                std::env::var_os("DYNO_REQUIRE_BACKENDS").is_none(),
                "DYNO_REQUIRE_BACKENDS is set but no server endpoint is"
            );
            eprintln!("skipped: neither DYNO_DYNOXIDE_ENDPOINT nor DYNO_DYNALITE_ENDPOINT is set");
        }
        found
    }

    /// Whether the run's table still answers on the server.
    async fn table_answers(b: &Backend) -> Result<bool, Error> {
        let key = Item::from([
            ("PK".to_owned(), AttributeValue::S("USER#kept".into())),
            ("SK".to_owned(), AttributeValue::S("PROFILE".into())),
        ]);
        let table = &table_def().name;
        match b.store.get_item(GetRequest::borrowed(table, &key)).await {
            Ok(out) => Ok(out.item.is_some()),
            Err(Error::ResourceNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    #[tokio::test]
    async fn on_a_server_a_kept_table_stays_and_the_run_says_how_to_delete_it() {
        let Some(endpoint) = server_endpoint() else {
            return;
        };
        let table = table_def().name.as_str();

        // Asked to keep: the table and its items stay; the text names the table and the command.
        let kept = Backend::local(&endpoint).await.keep_tables(true);
        kept.store.create_table(table_def()).await.unwrap();
        user("kept", "Kim").put().send(&*kept.store).await.unwrap();
        let said = kept
            .finish(&[table])
            .await
            .unwrap()
            .expect("a server run says something");
        let physical = kept.physical(table);
        assert!(
            table_answers(&kept).await.unwrap(),
            "the kept table is gone"
        );
        assert!(
            said.contains(&format!(
                "aws dynamodb delete-table --endpoint-url {endpoint} --table-name {physical}"
            )),
            "{said}"
        );
        assert!(said.starts_with("Kept the table(s)"), "{said}");
        kept.delete_tables(&[table]).await.unwrap();
        assert!(
            !table_answers(&kept).await.unwrap(),
            "delete_tables left it"
        );

        // Not asked: the table is deleted, and the text says so.
        let run = Backend::local(&endpoint).await;
        run.store.create_table(table_def()).await.unwrap();
        user("kept", "Kim").put().send(&*run.store).await.unwrap();
        let said = run.finish(&[table]).await.unwrap().unwrap();
        assert_eq!(
            said,
            format!("Deleted the table(s) {}.", run.physical(table))
        );
        assert!(
            !table_answers(&run).await.unwrap(),
            "the table was not deleted"
        );
    }

    #[tokio::test]
    async fn on_memory_store_there_is_nothing_to_keep_or_say() {
        let b = Backend::from_env().await;
        if b.is_remote() {
            return; // AWS_ENDPOINT_URL_DYNAMODB points the examples at a server
        }
        b.store.create_table(table_def()).await.unwrap();
        assert_eq!(b.finish(&[&table_def().name]).await.unwrap(), None);
    }
}
