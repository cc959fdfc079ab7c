use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Shop;

#[derive(Debug, Clone, PartialEq)]
struct Email(String);

impl dyno_core::ToAttribute for Email {
    fn to_attribute(&self) -> dyno_core::Result<Option<dyno_core::AttributeValue>> {
        self.0.to_attribute()
    }
}

impl dyno_core::FromAttribute for Email {
    fn from_attribute(v: &dyno_core::AttributeValue) -> dyno_core::Result<Self> {
        String::from_attribute(v).map(Email)
    }
}

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{email}", sk = "PROFILE")]
struct User {
    email: Email,
}

fn main() {}