//! Named access patterns: an index mapping (template or multi-attribute) and a collection can
//! name the query they serve (`query = "by_status"`), which becomes the constructor's name. A
//! model of several entities sharing `GSI1` (each under its own name, one unnamed) and a
//! multi-attribute index, on MemoryStore and every server that has the indexes.

use std::sync::Arc;

use dyno_core::prelude::*;
use dyno_core::store::TableNames;
use dyno_core::{Collection, Entity, KeyPart, Store, Table};
use dyno_tests::backend::{backends, create_multi_attribute_table, unique_table_name};

#[derive(Table)]
#[dyno(name = "NamedShop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "ByTenant", pk = ["tenant", "state"], sk = ["rank:N"]))]
pub struct NamedShop;

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
pub enum Status {
    Pending,
    Shipped,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = NamedShop, pk = "CUSTOMER#{customer}", sk = "ORDER#{id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{day}", query = "by_status"))]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: Status,
    pub day: String,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = NamedShop, pk = "PRODUCT#{sku}", sk = "PRODUCT")]
#[dyno(index(
    GSI1,
    pk = "CATEGORY#{category}",
    sk = "{price}",
    query = "by_category"
))]
pub struct Product {
    pub sku: String,
    pub category: String,
    pub price: u32,
}

/// In `GSI1` too, unnamed: its query keeps the index's name.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = NamedShop, pk = "CUSTOMER#{customer}", sk = "PROFILE")]
#[dyno(index(GSI1, pk = "EMAIL#{email}", sk = "PROFILE"))]
pub struct Customer {
    pub customer: String,
    pub email: String,
}

/// On the multi-attribute index, named.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = NamedShop, pk = "TENANT#{tenant}", sk = "TICKET#{id}")]
#[dyno(index(ByTenant, pk = [tenant, state], sk = [rank], query = "open_tickets"))]
pub struct Ticket {
    pub tenant: String,
    pub id: String,
    pub state: String,
    pub rank: u32,
}

/// A customer's profile and orders, under the access pattern's name.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(query = "customer_with_orders")]
pub enum CustomerItem {
    Customer(Customer),
    Order(Order),
}

async fn loaded() -> Vec<(&'static str, Arc<dyn Store>)> {
    let mut out = Vec::new();
    for backend in backends().await {
        let store: Arc<dyn Store> = Arc::new(
            TableNames::new(backend.store.clone()).map("NamedShop", unique_table_name("named")),
        );
        if !create_multi_attribute_table(&backend, &*store, NamedShop::definition()).await {
            continue;
        }
        let order = |id: &str, status, day: &str| Order {
            customer: "c1".into(),
            id: id.into(),
            status,
            day: day.into(),
        };
        for o in [
            order("1", Status::Pending, "2025-01-01"),
            order("2", Status::Shipped, "2025-01-02"),
            order("3", Status::Pending, "2025-01-03"),
        ] {
            o.create().send(&*store).await.unwrap();
        }
        for (sku, category, price) in [("p1", "books", 10), ("p2", "books", 5), ("p3", "toys", 7)] {
            Product {
                sku: sku.into(),
                category: category.into(),
                price,
            }
            .create()
            .send(&*store)
            .await
            .unwrap();
        }
        Customer {
            customer: "c1".into(),
            email: "ann@example.com".into(),
        }
        .create()
        .send(&*store)
        .await
        .unwrap();
        for (id, state, rank) in [("t1", "open", 2), ("t2", "open", 1), ("t3", "closed", 1)] {
            Ticket {
                tenant: "acme".into(),
                id: id.into(),
                state: state.into(),
                rank,
            }
            .create()
            .send(&*store)
            .await
            .unwrap();
        }
        out.push((backend.name, store));
    }
    out
}

#[tokio::test]
async fn named_queries_read_their_index_with_the_typed_builder() {
    for (name, store) in loaded().await {
        let pending = Order::by_status(Status::Pending)
            .all(&*store)
            .await
            .unwrap();
        let ids: Vec<&str> = pending.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["1", "3"], "{name}");
        // The same sort-key conditions as the physical name's builder had.
        let late = Order::by_status(Status::Pending)
            .day()
            .ge("2025-01-02")
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(late.len(), 1, "{name}");
        assert_eq!(
            Order::by_status(Status::Pending)
                .into_query()
                .unwrap()
                .request()
                .index
                .as_deref(),
            Some("GSI1")
        );
        // Products share GSI1 under their own name; orders are never decoded as products.
        let books = Product::by_category("books").all(&*store).await.unwrap();
        let prices: Vec<u32> = books.iter().map(|p| p.price).collect();
        assert_eq!(prices, [5, 10], "{name}");
        // Unnamed: the physical name.
        let by_email = Customer::gsi1("ann@example.com")
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(by_email.len(), 1, "{name}");
        // A named multi-attribute index.
        let open = Ticket::open_tickets("acme", "open")
            .all(&*store)
            .await
            .unwrap();
        let ids: Vec<&str> = open.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["t2", "t1"], "{name}");
        let top = Ticket::open_tickets("acme", "open")
            .rank()
            .ge(2u32)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(top.len(), 1, "{name}");
        // A named collection.
        let items = CustomerItem::customer_with_orders("c1")
            .all(&*store)
            .await
            .unwrap();
        let customers = items
            .iter()
            .filter(|i| matches!(i, CustomerItem::Customer(_)))
            .count();
        let orders = items
            .iter()
            .filter(|i| matches!(i, CustomerItem::Order(_)))
            .count();
        assert_eq!((customers, orders), (1, 3), "{name}");
    }
}

/// The metering wrapper reports a named index query under the access pattern's name, with no
/// naming hook: `Order query by_status`, `Product query by_category`; the unnamed mapping keeps
/// the index's name and the named multi-attribute one its own.
#[tokio::test]
async fn the_meter_reports_named_queries_under_their_names() {
    use dyno_core::cost::Metered;
    let memory: Arc<dyn Store> = Arc::new(dyno_core::MemoryStore::new());
    memory.create_table(NamedShop::definition()).await.unwrap();
    let store = Metered::new(memory)
        .entity::<Order>()
        .entity::<Product>()
        .entity::<Customer>()
        .entity::<Ticket>();
    Order::by_status(Status::Pending).all(&store).await.unwrap();
    Product::by_category("books").all(&store).await.unwrap();
    Customer::gsi1("ann@example.com").all(&store).await.unwrap();
    Ticket::open_tickets("acme", "open")
        .all(&store)
        .await
        .unwrap();
    let report = store.report();
    let mut names: Vec<&str> = report.patterns.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Customer query GSI1",
            "Order query by_status",
            "Product query by_category",
            "Ticket query open_tickets",
        ],
        "{report}"
    );
}
