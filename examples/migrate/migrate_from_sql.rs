//! Moving a relational schema onto one DynamoDB table, and proving nothing was lost.
//!
//! The source is a small SQLite database (in memory, filled deterministically) with four tables
//! joined by foreign keys:
//!
//! ```text
//! users(id, name, email UNIQUE, created_on)
//! products(id, name, category, price_cents, stock)
//! orders(id, user_id -> users, status, order_date)
//! order_items(order_id -> orders, line, product_id -> products, quantity, unit_price_cents)
//! ```
//!
//! The target is the single-table design of the tutorial, one item per row:
//!
//! | entity    | PK             | SK                          | GSI1PK              | GSI1SK         |
//! |-----------|----------------|-----------------------------|---------------------|----------------|
//! | User      | `USER#<id>`    | `PROFILE`                   |                     |                |
//! | Order     | `USER#<id>`    | `ORDER#<order>`             | `STATUS#<status>`   | `<order_date>` |
//! | OrderItem | `USER#<id>`    | `ORDER#<order>#ITEM#<line>` |                     |                |
//! | Product   | `PRODUCT#<id>` | `PRODUCT`                   | `CATEGORY#<cat>`    | `<price>`      |
//!
//! How the relationships map:
//! - `orders.user_id -> users`: the order lives in its user's partition (same PK), so "a user
//!   and their orders" is one query, no join.
//! - `order_items.order_id -> orders`: the lines live in the same partition too, with a sort key
//!   that extends their order's (`ORDER#7` then `ORDER#7#ITEM#001`...), so one query returns the
//!   profile, the orders and every line, and `begins_with(SK, "ORDER#7")` returns one order with
//!   its lines. The alternative, `PK = ORDER#<order>`, makes "one order with its lines" a query
//!   by order id alone but "a user's orders with their lines" one query per order; our access
//!   patterns start from the user, so the lines go under the user. Lines stay separate items
//!   (instead of a list embedded in the order) because an order can grow, and each line is read
//!   and priced on its own; the order embeds what listings need: the product ids (a list
//!   attribute, as in the tutorial) and its total.
//! - `order_items.product_id -> products`: products are their own items (`PRODUCT#<id>`); the
//!   line keeps the product id plus a snapshot of its name and unit price, which is what the
//!   order was priced at, whatever the catalog says later.
//! - Denormalized on purpose: the order's `total` (SQL computes it with SUM over the lines) and
//!   the user's name (a listing of orders by status shows who ordered without one extra read per
//!   order). The price: renaming a user rewrites their orders, one query on their partition.
//! - `email UNIQUE` has no equivalent on a non-key attribute; when uniqueness must be enforced,
//!   write an `EMAIL#<email>` item with `create` in the same transaction as the user.
//!
//! The copy uses the batch engine (25 writes per request, several requests in flight, unprocessed
//! items retried with backoff, and whatever is left reported, never dropped). It is idempotent,
//! since a put of the same row writes the same item, and it is resumable: after each chunk it
//! saves a checkpoint (the last id copied, per table) as an item of the table itself, and a rerun
//! starts after it. A crash between a chunk and its checkpoint only means that chunk is written
//! twice, which changes nothing. The example proves both by rewinding a checkpoint and resuming.
//!
//! While it copies, a progress bar per source table shows the rows copied of the table's total
//! (rows a checkpoint already covers count as done), the rate and the time left. The bars are
//! drawn only when stdout is a terminal; piped or in CI, each chunk prints one plain line instead.
//!
//! Then it verifies: rows per table equal items per entity, and the access patterns answer what
//! the equivalent SQL queries answer. Any mismatch exits non-zero.
//!
//! ```text
//! cargo run --example migrate_from_sql
//! ```

#[path = "../support/backend.rs"]
mod backend;
#[path = "../support/logging.rs"]
mod logging;

use backend::Backend;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use dyno_core::ops::batch::MAX_BATCH_WRITES;
use dyno_core::ops::QueryDsl;
use dyno_core::ops::{BatchWriter, EntityExt};
use dyno_core::{Collection, Entity, KeyPart, Store, Table};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use time::macros::{date, format_description};
use time::{Date, Duration};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

// ---------------------------------------------------------------------------------------------
// The single-table model

/// The one table.
#[derive(Debug, Table)]
#[dyno(name = "ECommerce", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct ECommerce;

/// A `users` row. Integer ids are encoded fixed-width (`USER#0000000042`), so keys sort
/// numerically.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: u32,
    name: String,
    email: String,
    created_on: Date,
}

/// `orders.status`; SQL stores the names in capitals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
#[dyno(rename_all = "SCREAMING_SNAKE_CASE")]
enum OrderStatus {
    Pending,
    Paid,
    Shipped,
    Delivered,
    Cancelled,
}

const STATUSES: [OrderStatus; 5] = [
    OrderStatus::Pending,
    OrderStatus::Paid,
    OrderStatus::Shipped,
    OrderStatus::Delivered,
    OrderStatus::Cancelled,
];

impl OrderStatus {
    fn sql(self) -> &'static str {
        match self {
            OrderStatus::Pending => "PENDING",
            OrderStatus::Paid => "PAID",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
        }
    }

    fn from_sql(s: &str) -> Result<Self, BoxError> {
        STATUSES
            .into_iter()
            .find(|st| st.sql() == s)
            .ok_or_else(|| format!("orders.status: expected one of PENDING, PAID, SHIPPED, DELIVERED, CANCELLED, found {s:?}").into())
    }
}

/// An `orders` row, under its user, listed in GSI1 by status and date. `total`, `product_ids`
/// and `user_name` are denormalized from the lines and the user.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_date}"))]
struct Order {
    user_id: u32,
    order_id: u32,
    user_name: String,
    status: OrderStatus,
    order_date: Date,
    total: Decimal,
    product_ids: Vec<u32>,
}

/// An `order_items` row, under its order's user, sorted right after its order.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}#ITEM#{line}")]
struct OrderItem {
    user_id: u32,
    order_id: u32,
    line: u16,
    product_id: u32,
    product_name: String,
    quantity: u32,
    unit_price: Decimal,
}

/// A `products` row, listed in GSI1 by category and price (the same index as orders: GSI
/// overloading, told apart by the key prefixes).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "PRODUCT#{product_id}", sk = "PRODUCT")]
#[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{price}"))]
struct Product {
    product_id: u32,
    name: String,
    category: String,
    price: Decimal,
    stock: u32,
}

/// Where the copy of one SQL table stands: the last id written. Kept in the table itself.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "MIGRATION#{migration}", sk = "TABLE#{table}")]
struct Checkpoint {
    migration: String,
    table: String,
    last_id: u32,
}

/// A user's whole partition, grouped: what SQL answers with a three-table join.
#[derive(Debug, Clone, PartialEq, Collection)]
struct UserOrders {
    user: Option<User>,
    orders: Vec<Order>,
    items: Vec<OrderItem>,
}

const MIGRATION: &str = "sql-import-v1";
const USERS: u32 = 50;
const PRODUCTS: u32 = 20;
const ORDERS: u32 = 300;
const CATEGORIES: [&str; 4] = ["books", "games", "garden", "kitchen"];
/// Rows read from SQL per chunk: one checkpoint per chunk.
const CHUNK: u32 = 100;
/// Batch requests in flight at once.
const CONCURRENCY: usize = 4;
/// The price bound of the "products in a category under a price" check.
const PRICE_LIMIT_CENTS: i64 = 4500;

// ---------------------------------------------------------------------------------------------
// The relational source

/// A deterministic generator (64-bit LCG), so every run migrates the same data.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Creates and fills the SQL database.
fn source_database() -> rusqlite::Result<Connection> {
    let mut conn = Connection::open_in_memory()?;
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         CREATE TABLE users (
             id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
             created_on TEXT NOT NULL);
         CREATE TABLE products (
             id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL,
             price_cents INTEGER NOT NULL, stock INTEGER NOT NULL);
         CREATE TABLE orders (
             id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
             status TEXT NOT NULL, order_date TEXT NOT NULL);
         CREATE TABLE order_items (
             order_id INTEGER NOT NULL REFERENCES orders(id), line INTEGER NOT NULL,
             product_id INTEGER NOT NULL REFERENCES products(id),
             quantity INTEGER NOT NULL, unit_price_cents INTEGER NOT NULL,
             PRIMARY KEY (order_id, line));
         CREATE INDEX orders_by_user ON orders(user_id);
         CREATE INDEX orders_by_status_date ON orders(status, order_date);",
    )?;
    let first = [
        "Ann", "Bob", "Chen", "Dara", "Eve", "Femi", "Gus", "Hana", "Ivo", "Jo",
    ];
    let last = ["Smith", "Okafor", "Silva", "Novak", "Kim"];
    let mut rng = Lcg(2024);
    let tx = conn.transaction()?;
    let start = date!(2024 - 01 - 01);
    for id in 1..=USERS {
        let (f, l) = (first[(id as usize - 1) % 10], last[(id as usize - 1) / 10]);
        tx.execute(
            "INSERT INTO users VALUES (?1, ?2, ?3, ?4)",
            params![
                id,
                format!("{f} {l}"),
                format!("{}.{}.{id}@example.com", f.to_lowercase(), l.to_lowercase()),
                iso(start - Duration::days(rng.below(700) as i64)),
            ],
        )?;
    }
    let mut prices = Vec::new();
    for id in 1..=PRODUCTS {
        let price = 199 + rng.below(60) as i64 * 100; // 1.99 .. 60.99, with repeats
        prices.push(price);
        tx.execute(
            "INSERT INTO products VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                id,
                format!("Product {id}"),
                CATEGORIES[id as usize % 4],
                price,
                rng.below(100)
            ],
        )?;
    }
    for id in 1..=ORDERS {
        // Statuses weighted like a live shop: most orders delivered, few pending.
        let status = [0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 4][rng.below(12) as usize];
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2, ?3, ?4)",
            params![
                id,
                1 + rng.below(u64::from(USERS)),
                STATUSES[status].sql(),
                iso(start + Duration::days(rng.below(366) as i64)),
            ],
        )?;
        for line in 1..=1 + rng.below(5) {
            let product = 1 + rng.below(u64::from(PRODUCTS));
            tx.execute(
                "INSERT INTO order_items VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    id,
                    line,
                    product,
                    1 + rng.below(4),
                    prices[product as usize - 1]
                ],
            )?;
        }
    }
    tx.commit()?;
    Ok(conn)
}

fn iso(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn parse_date(column: &str, s: &str) -> Result<Date, BoxError> {
    Date::parse(s, format_description!("[year]-[month]-[day]"))
        .map_err(|e| format!("{column}: expected YYYY-MM-DD, found {s:?} ({e})").into())
}

fn cents(c: i64) -> Decimal {
    Decimal::new(c, 2)
}

fn count_rows(conn: &Connection, table: &str) -> rusqlite::Result<usize> {
    conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
}

// ---------------------------------------------------------------------------------------------
// The migration

/// What the batch engine did for one entity, summed over chunks.
#[derive(Debug, Default, Clone, Copy)]
struct Copied {
    rows: usize,
    written: usize,
    requests: usize,
    retried: usize,
    unprocessed: usize,
}

/// Runs one chunk through the batch engine; an incomplete chunk stops the migration (its
/// checkpoint is not advanced, so a rerun resumes with it).
async fn write_chunk(
    store: &dyn Store,
    batch: BatchWriter,
    rows: usize,
    stats: &mut Copied,
) -> Result<(), BoxError> {
    let chunks = batch.len().div_ceil(MAX_BATCH_WRITES);
    let report = batch.concurrency(CONCURRENCY).send_report(store).await;
    stats.rows += rows;
    stats.written += report.written;
    stats.requests += report.requests;
    stats.retried += report.requests.saturating_sub(chunks);
    stats.unprocessed += report.unprocessed.len();
    if !report.is_complete() {
        let first_error = report.errors.first().map(ToString::to_string);
        return Err(format!(
            "batch incomplete: {} writes unprocessed after {} attempts (first error: {}); \
             rerun to resume from the last checkpoint",
            report.unprocessed.len(),
            report.attempts,
            first_error.as_deref().unwrap_or("none")
        )
        .into());
    }
    Ok(())
}

async fn checkpoint(store: &dyn Store, table: &str) -> Result<u32, BoxError> {
    let key = Checkpoint::key(MIGRATION, table);
    let saved = Checkpoint::get(key).consistent().send(store).await?;
    Ok(saved.map_or(0, |c| c.last_id))
}

async fn save_checkpoint(store: &dyn Store, table: &str, last_id: u32) -> Result<(), BoxError> {
    Checkpoint {
        migration: MIGRATION.into(),
        table: table.into(),
        last_id,
    }
    .put()
    .send(store)
    .await?;
    Ok(())
}

/// The progress of one source table's copy: a bar with the rows copied of the table's total,
/// the rate and the time left, drawn on stdout when stdout is a terminal. Elsewhere (a pipe, a
/// file, CI) the bar is hidden and each chunk's line is printed plainly, so logs stay readable.
struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `table`, `done` of its `total` rows already copied (by an earlier run, up to its
    /// checkpoint). Drawn when stdout is a terminal.
    fn new(table: &str, total: usize, done: usize) -> Self {
        Self::with_target(
            table,
            total,
            done,
            draw_target(std::io::stdout().is_terminal()),
        )
    }

    fn with_target(table: &str, total: usize, done: usize, target: ProgressDrawTarget) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        bar.set_style(
            ProgressStyle::with_template(
                "  {prefix:<12} [{bar:30}] {pos:>5}/{len:5} rows  {per_sec:>12}  ETA {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(table.to_owned());
        bar.set_position(done as u64);
        // The rate and ETA count only this run's rows, not those a checkpoint covers.
        bar.reset_eta();
        Progress { bar }
    }

    /// `rows` more rows copied; `line` says what the chunk did (printed above the bar on a
    /// terminal, as a plain line otherwise).
    fn chunk(&self, rows: usize, line: String) {
        self.bar.inc(rows as u64);
        if self.bar.is_hidden() {
            println!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// The table is copied: the bar stays on screen, full.
    fn finish(self) {
        self.bar.finish();
    }
}

impl Drop for Progress {
    /// A copy that stopped early (an error) leaves its bar where it stopped, not full.
    fn drop(&mut self) {
        if !self.bar.is_finished() {
            self.bar.abandon();
        }
    }
}

/// Where the bars are drawn: stdout on a terminal, nowhere otherwise.
fn draw_target(stdout_is_terminal: bool) -> ProgressDrawTarget {
    if stdout_is_terminal {
        ProgressDrawTarget::stdout()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// Rows of `sql` (a `SELECT COUNT(*)` with one parameter, the checkpoint id).
fn count_upto(conn: &Connection, sql: &str, id: u32) -> rusqlite::Result<usize> {
    conn.query_row(sql, params![id], |r| r.get(0))
}

/// Copies every table, resuming each after its checkpoint. The SQL reads use keyset pagination
/// (`WHERE id > ? ORDER BY id LIMIT ?`), which is what makes a checkpoint an id. (rusqlite is
/// blocking; on a real database server, read in `spawn_blocking` or use an async driver.)
async fn migrate(
    conn: &Connection,
    store: &dyn Store,
) -> Result<BTreeMap<&'static str, Copied>, BoxError> {
    let mut stats: BTreeMap<&'static str, Copied> = BTreeMap::new();

    // Products and users first. DynamoDB enforces no foreign keys, so the order is not needed
    // for correctness; it means a half-done migration never holds orders of missing users.
    let mut after = checkpoint(store, "products").await?;
    let progress = Progress::new(
        "products",
        count_rows(conn, "products")?,
        count_upto(conn, "SELECT COUNT(*) FROM products WHERE id <= ?1", after)?,
    );
    let mut select = conn.prepare(
        "SELECT id, name, category, price_cents, stock FROM products
         WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    loop {
        let products = select
            .query_map(params![after, CHUNK], |r| {
                Ok(Product {
                    product_id: r.get(0)?,
                    name: r.get(1)?,
                    category: r.get(2)?,
                    price: cents(r.get(3)?),
                    stock: r.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let Some(last) = products.last().map(|p| p.product_id) else {
            break;
        };
        let mut batch = BatchWriter::new();
        batch.put_all(&products)?;
        let s = stats.entry("Product").or_default();
        write_chunk(store, batch, products.len(), s).await?;
        save_checkpoint(store, "products", last).await?;
        progress.chunk(
            products.len(),
            format!(
                "  products    {:>4} rows copied, checkpoint id {last}",
                s.rows
            ),
        );
        after = last;
    }
    progress.finish();

    let mut after = checkpoint(store, "users").await?;
    let progress = Progress::new(
        "users",
        count_rows(conn, "users")?,
        count_upto(conn, "SELECT COUNT(*) FROM users WHERE id <= ?1", after)?,
    );
    let mut select = conn.prepare(
        "SELECT id, name, email, created_on FROM users WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    loop {
        let rows = select
            .query_map(params![after, CHUNK], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, String>(3)?))
            })?
            .collect::<rusqlite::Result<Vec<(u32, String, String, String)>>>()?;
        let Some(last) = rows.last().map(|r| r.0) else {
            break;
        };
        let copied = rows.len();
        let mut users = Vec::with_capacity(rows.len());
        for (user_id, name, email, created_on) in rows {
            let created_on = parse_date("users.created_on", &created_on)?;
            users.push(User {
                user_id,
                name,
                email,
                created_on,
            });
        }
        let mut batch = BatchWriter::new();
        // A copy of the source rows: no newer version can exist at these keys, and a resumed run
        // rewrites what it already copied, so the version check is knowingly skipped.
        batch.put_all_ignoring_version(&users)?;
        let s = stats.entry("User").or_default();
        write_chunk(store, batch, users.len(), s).await?;
        save_checkpoint(store, "users", last).await?;
        progress.chunk(
            copied,
            format!(
                "  users       {:>4} rows copied, checkpoint id {last}",
                s.rows
            ),
        );
        after = last;
    }
    progress.finish();

    // Orders with their lines: a chunk of orders, then the lines of exactly those orders, so a
    // checkpoint on orders.id covers both tables.
    let mut after = checkpoint(store, "orders").await?;
    let progress = Progress::new(
        "orders+lines",
        count_rows(conn, "orders")? + count_rows(conn, "order_items")?,
        count_upto(conn, "SELECT COUNT(*) FROM orders WHERE id <= ?1", after)?
            + count_upto(
                conn,
                "SELECT COUNT(*) FROM order_items WHERE order_id <= ?1",
                after,
            )?,
    );
    let mut select_orders = conn.prepare(
        "SELECT o.id, o.user_id, u.name, o.status, o.order_date
         FROM orders o JOIN users u ON u.id = o.user_id
         WHERE o.id > ?1 ORDER BY o.id LIMIT ?2",
    )?;
    let mut select_lines = conn.prepare(
        "SELECT oi.order_id, oi.line, oi.product_id, p.name, oi.quantity, oi.unit_price_cents
         FROM order_items oi JOIN products p ON p.id = oi.product_id
         WHERE oi.order_id > ?1 AND oi.order_id <= ?2 ORDER BY oi.order_id, oi.line",
    )?;
    loop {
        let rows = select_orders
            .query_map(params![after, CHUNK], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get::<_, String>(4)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<(u32, u32, String, String, String)>>>()?;
        let Some(last) = rows.last().map(|r| r.0) else {
            break;
        };
        let mut orders: BTreeMap<u32, Order> = BTreeMap::new();
        for (order_id, user_id, user_name, status, date) in rows {
            let order = Order {
                user_id,
                order_id,
                user_name,
                status: OrderStatus::from_sql(&status)?,
                order_date: parse_date("orders.order_date", &date)?,
                total: Decimal::ZERO,
                product_ids: Vec::new(),
            };
            orders.insert(order_id, order);
        }
        let mut lines = Vec::new();
        let rows = select_lines.query_map(params![after, last], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
        for row in rows {
            let (order_id, line, product_id, product_name, quantity, unit): (
                u32,
                u16,
                u32,
                String,
                u32,
                i64,
            ) = row?;
            let order = orders
                .get_mut(&order_id)
                .ok_or_else(|| format!("order_items: line {line} of unknown order {order_id}"))?;
            order.total += cents(unit) * Decimal::from(quantity);
            if !order.product_ids.contains(&product_id) {
                order.product_ids.push(product_id);
            }
            lines.push(OrderItem {
                user_id: order.user_id,
                order_id,
                line,
                product_id,
                product_name,
                quantity,
                unit_price: cents(unit),
            });
        }
        let mut batch = BatchWriter::new();
        batch.put_all_ignoring_version(orders.values())?; // a copy, as for users
        batch.put_all(&lines)?;
        // One batch for both entities: its rows are orders plus lines.
        let s = stats.entry("Order + OrderItem").or_default();
        let copied = orders.len() + lines.len();
        write_chunk(store, batch, copied, s).await?;
        save_checkpoint(store, "orders", last).await?;
        progress.chunk(
            copied,
            format!(
                "  orders      {:>4} rows (orders and their lines) copied, checkpoint id {last}",
                s.rows
            ),
        );
        after = last;
    }
    progress.finish();
    Ok(stats)
}

// ---------------------------------------------------------------------------------------------
// Verification

/// Counts checks and failures; a failure prints what differs.
#[derive(Debug, Default)]
struct Checks {
    passed: usize,
    failed: usize,
}

impl Checks {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, sql: &T, dynamo: &T) {
        if sql == dynamo {
            self.passed += 1;
            println!("OK       {what}");
        } else {
            self.failed += 1;
            println!("MISMATCH {what}\n  SQL:      {sql:?}\n  DynamoDB: {dynamo:?}");
        }
    }
}

/// One order as both sides describe it: id, status, date, total, number of lines.
type OrderRow = (u32, OrderStatus, Date, Decimal, usize);

async fn verify(conn: &Connection, store: &dyn Store) -> Result<Checks, BoxError> {
    let mut checks = Checks::default();

    println!("\n== Verify: rows per table == items per entity ==");
    // Typed scans decode only their entity and skip the others.
    let users = User::scan().all(store).await?;
    let products = Product::scan().all(store).await?;
    let orders = Order::scan().segments(4).all(store).await?;
    let lines = OrderItem::scan().segments(4).all(store).await?;
    for (table, entity, items) in [
        ("users", "User", users.len()),
        ("products", "Product", products.len()),
        ("orders", "Order", orders.len()),
        ("order_items", "OrderItem", lines.len()),
    ] {
        let rows = count_rows(conn, table)?;
        checks.check(
            &format!("{table:<12} {rows:>4} rows -> {entity:<10} {items:>4} items"),
            &rows,
            &items,
        );
    }

    println!("\n== Verify: access patterns answer like SQL ==");
    // 1. A user's orders with totals. SQL: a join and a GROUP BY. DynamoDB: one query of the
    //    user's partition, which also returns the lines; the stored total is checked against
    //    both SQL's SUM and the lines read back.
    let mut sql_user_orders = conn.prepare(
        "SELECT o.id, o.status, o.order_date, SUM(oi.quantity * oi.unit_price_cents), COUNT(*)
         FROM orders o JOIN order_items oi ON oi.order_id = o.id
         WHERE o.user_id = ?1 GROUP BY o.id ORDER BY o.id",
    )?;
    let (mut users_ok, mut orders_seen) = (0, 0);
    let mut sample = None;
    for user_id in 1..=USERS {
        let mut sql: Vec<OrderRow> = Vec::new();
        let rows = sql_user_orders.query_map(params![user_id], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, usize>(4)?,
            ))
        })?;
        for row in rows {
            let (id, status, date, total, n) = row?;
            sql.push((
                id,
                OrderStatus::from_sql(&status)?,
                parse_date("orders.order_date", &date)?,
                cents(total),
                n,
            ));
        }
        let part = UserOrders::query(user_id).all(store).await?;
        let mut dynamo: Vec<OrderRow> = Vec::new();
        let mut totals_match_lines = true;
        for o in &part.orders {
            let mine: Vec<&OrderItem> = part
                .items
                .iter()
                .filter(|i| i.order_id == o.order_id)
                .collect();
            let sum: Decimal = mine
                .iter()
                .map(|i| i.unit_price * Decimal::from(i.quantity))
                .sum();
            totals_match_lines &= sum == o.total;
            dynamo.push((o.order_id, o.status, o.order_date, o.total, mine.len()));
        }
        let same = sql == dynamo && totals_match_lines && part.user.is_some();
        if same {
            users_ok += 1;
        } else {
            checks.check(
                &format!("orders of user {user_id} (totals match lines: {totals_match_lines})"),
                &sql,
                &dynamo,
            );
        }
        orders_seen += dynamo.len();
        if sample.is_none() && part.orders.len() >= 3 {
            sample = Some(part);
        }
    }
    checks.check(
        &format!(
            "a user's orders with totals: {users_ok}/{USERS} users, {orders_seen} orders, \
             one query per user (profile + orders + lines)"
        ),
        &(USERS as usize),
        &users_ok,
    );
    if let Some(p) = sample {
        let u = p.user.as_ref().map_or("?", |u| u.name.as_str());
        println!(
            "  e.g. {u}: {} orders, {} lines",
            p.orders.len(),
            p.items.len()
        );
        for o in p.orders.iter().take(3) {
            println!(
                "    order {:>3}  {}  {:<9}  total {:>7}",
                o.order_id,
                o.order_date,
                o.status.sql(),
                o.total
            );
        }
    }

    // 2. Orders by status in a date range. SQL: the (status, order_date) index. DynamoDB: GSI1,
    //    `STATUS#<status>` between two dates. Orders of one day have no defined order in the
    //    index (equal sort keys), so both sides are sorted by (date, id) before comparing.
    let (from, to) = (date!(2024 - 04 - 01), date!(2024 - 06 - 30));
    let mut sql_by_status = conn.prepare(
        "SELECT o.id, o.order_date, u.name FROM orders o JOIN users u ON u.id = o.user_id
         WHERE o.status = ?1 AND o.order_date BETWEEN ?2 AND ?3 ORDER BY o.order_date, o.id",
    )?;
    for status in STATUSES {
        let mut sql: Vec<(Date, u32, String)> = Vec::new();
        let rows = sql_by_status.query_map(params![status.sql(), iso(from), iso(to)], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (id, date, name) = row?;
            sql.push((parse_date("orders.order_date", &date)?, id, name));
        }
        let mut dynamo: Vec<(Date, u32, String)> = Order::gsi1(status)
            .order_date()
            .between(from, to)
            .all(store)
            .await?
            .into_iter()
            .map(|o| (o.order_date, o.order_id, o.user_name))
            .collect();
        dynamo.sort();
        checks.check(
            &format!(
                "orders {:<9} between {from} and {to}: {:>2} orders",
                status.sql(),
                dynamo.len()
            ),
            &sql,
            &dynamo,
        );
    }

    // 3. Products in a category under a price. SQL: WHERE category AND price. DynamoDB: GSI1,
    //    `CATEGORY#<category>` with the price as sort key, so the result comes sorted by price.
    let limit = cents(PRICE_LIMIT_CENTS);
    let mut sql_products = conn.prepare(
        "SELECT id, price_cents FROM products WHERE category = ?1 AND price_cents < ?2
         ORDER BY price_cents, id",
    )?;
    for category in CATEGORIES {
        let sql: Vec<(Decimal, u32)> = sql_products
            .query_map(params![category, PRICE_LIMIT_CENTS], |r| {
                Ok((cents(r.get(1)?), r.get::<_, u32>(0)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let found = Product::gsi1(category).price().lt(limit).all(store).await?;
        let by_price = found.windows(2).all(|w| w[0].price <= w[1].price);
        let mut dynamo: Vec<(Decimal, u32)> =
            found.iter().map(|p| (p.price, p.product_id)).collect();
        dynamo.sort(); // ties on price: order by id, as SQL does
        checks.check(
            &format!(
                "products in {category:<8} under {limit}: {} (sorted by price: {by_price})",
                dynamo.len()
            ),
            &(sql, true),
            &(dynamo, by_price),
        );
    }
    Ok(checks)
}

// ---------------------------------------------------------------------------------------------

/// What a run did; every check has passed when it is returned.
#[derive(Debug)]
struct Outcome {
    copied: BTreeMap<&'static str, Copied>,
    items: usize,
    resumed_orders: usize,
    checks: usize,
}

async fn run(store: Arc<dyn Store>) -> Result<Outcome, BoxError> {
    let conn = source_database()?;
    println!("== Source: SQLite in memory ==");
    let mut rows = 0;
    for table in ["users", "products", "orders", "order_items"] {
        let n = count_rows(&conn, table)?;
        rows += n;
        println!("  {table:<12} {n:>4} rows");
    }

    println!("\n== Migrate onto one table (BatchWriter, {CONCURRENCY} requests in flight) ==");
    store.create_table(ECommerce::definition()).await?;
    let copied = migrate(&conn, &*store).await?;
    let mut items = 0;
    println!(
        "  {:<18} {:>5} {:>7} {:>8} {:>7} {:>11}",
        "entity", "rows", "written", "requests", "retried", "unprocessed"
    );
    for (entity, c) in &copied {
        items += c.written;
        println!(
            "  {entity:<18} {:>5} {:>7} {:>8} {:>7} {:>11}",
            c.rows, c.written, c.requests, c.retried, c.unprocessed
        );
    }
    println!("  {rows} rows -> {items} items, nothing dropped");
    if items != rows {
        return Err(format!("{rows} rows read but {items} items written").into());
    }

    // A crash after a chunk is written but before its checkpoint is saved: the checkpoint is
    // behind. Rewind it and run the migration again: it resumes there, rewrites those rows with
    // identical puts, and skips the tables that are done.
    println!("\n== Resume: rewind the orders checkpoint to id {CHUNK} and rerun ==");
    save_checkpoint(&*store, "orders", CHUNK).await?;
    let again = migrate(&conn, &*store).await?;
    let resumed_orders = again.get("Order + OrderItem").map_or(0, |c| c.written);
    println!(
        "  rewrote {resumed_orders} items; other tables skipped: {}",
        again.len() == 1
    );
    if again.len() != 1 {
        return Err(format!("the resumed run copied tables it had finished: {again:?}").into());
    }

    let checks = verify(&conn, &*store).await?;
    println!(
        "\n{} checks passed, {} failed",
        checks.passed, checks.failed
    );
    if checks.failed > 0 {
        return Err(format!("{} verification check(s) failed", checks.failed).into());
    }
    Ok(Outcome {
        copied,
        items,
        resumed_orders,
        checks: checks.passed,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    logging::init();
    let backend = Backend::from_env().await;
    println!("backend: {}", backend.describe());
    let result = run(Arc::clone(&backend.store)).await;
    backend.delete_tables_or_warn(&["ECommerce"]).await;
    match result {
        Ok(o) => {
            println!(
                "done: {} items migrated from {} tables, {} rewritten on resume, {} checks OK",
                o.items,
                o.copied.len(),
                o.resumed_orders,
                o.checks
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

    /// What a complete run must report, checked against the source database.
    async fn assert_complete(o: &Outcome, store: &dyn Store) {
        let conn = source_database().unwrap();
        let rows: usize = ["users", "products", "orders", "order_items"]
            .iter()
            .map(|t| count_rows(&conn, t).unwrap())
            .sum();
        assert_eq!(o.items, rows);
        assert!(o.copied.values().all(|c| c.unprocessed == 0), "{o:?}");
        // Orders 101..=300 and their lines were written again on resume, and nothing else.
        let lines_after_chunk: usize = conn
            .query_row(
                "SELECT COUNT(*) FROM order_items WHERE order_id > ?1",
                params![CHUNK],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            o.resumed_orders,
            (ORDERS - CHUNK) as usize + lines_after_chunk
        );
        // 4 counts, 1 for all users' orders, 5 statuses, 4 categories.
        assert_eq!(o.checks, 14);
        // Verifying again on the same table still passes: the resumed rewrite was idempotent.
        assert_eq!(verify(&conn, store).await.unwrap().failed, 0);
        // The data set is the size the example claims.
        assert_eq!(count_rows(&conn, "orders").unwrap(), 300);
        let lines = count_rows(&conn, "order_items").unwrap();
        assert!((800..=1000).contains(&lines), "{lines}");
    }

    /// A terminal that records what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            let mut screen = self.0.lock().unwrap();
            screen.push_str(s);
            screen.push('\n');
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn on_a_terminal_the_bar_shows_rows_rate_and_eta() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        // Resumed after a checkpoint covering 100 of 300 rows.
        let progress = Progress::with_target("products", 300, 100, target);
        assert!(!progress.bar.is_hidden());
        assert_eq!(progress.bar.position(), 100);
        progress.chunk(
            100,
            "  products     100 rows copied, checkpoint id 200".into(),
        );
        assert_eq!(progress.bar.position(), 200);
        progress.bar.tick();
        let drawn = screen.0.lock().unwrap().clone();
        assert!(
            drawn.contains("products     100 rows copied, checkpoint id 200"),
            "{drawn}"
        );
        assert!(drawn.contains("200/300"), "{drawn}");
        assert!(drawn.contains("/s"), "no rate in {drawn}");
        assert!(drawn.contains("ETA"), "no ETA in {drawn}");
        progress.finish();
        assert!(screen.0.lock().unwrap().contains("300/300"));
    }

    #[test]
    fn an_unfinished_copy_leaves_its_bar_where_it_stopped() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let progress = Progress::with_target("users", 300, 0, target);
        progress.chunk(
            100,
            "  users        100 rows copied, checkpoint id 100".into(),
        );
        let bar = progress.bar.clone();
        drop(progress);
        assert!(bar.is_finished());
        assert_eq!(
            bar.position(),
            100,
            "an error must not show the copy as complete"
        );
    }

    #[test]
    fn without_a_terminal_there_is_no_bar() {
        let progress = Progress::with_target("orders+lines", 1000, 0, draw_target(false));
        assert!(progress.bar.is_hidden());
        // Still counts, so the numbers stay right whatever the output.
        progress.chunk(250, "  orders       250 rows copied".into());
        assert_eq!(progress.bar.position(), 250);
    }

    #[tokio::test]
    async fn runs_on_memory_store() {
        let store: Arc<dyn Store> = Arc::new(dyno_core::MemoryStore::new());
        let o = run(Arc::clone(&store)).await.unwrap();
        assert_complete(&o, &*store).await;
    }

    /// On dynalite when `scripts/test` started one.
    #[tokio::test]
    async fn runs_on_dynalite() {
        let Some(backend) = Backend::from_test_env("DYNO_DYNALITE_ENDPOINT").await else {
            return;
        };
        let store = Arc::clone(&backend.store);
        let result = run(Arc::clone(&store)).await;
        if let Ok(o) = &result {
            assert_complete(o, &*store).await;
        }
        let _ = backend.delete_tables(&["ECommerce"]).await;
        result.unwrap();
    }
}
