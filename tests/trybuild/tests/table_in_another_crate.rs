//! Entities declared in another crate than their table (issue 10, item 3): a table kept in a
//! shared crate (`dyno_ui_shared_table`), named by path or imported, compiles and its index
//! methods work. Before, `#[derive(Table)]`'s macro (which each entity's expansion calls, for
//! the methods of the indexes it has no key in) was `pub(crate)`, so this file did not compile:
//! "macro `Shared` is private" / "cannot find macro `Shared`".

use dyno_core::{AttributeValue, Entity};
use dyno_ui_shared_table::{tables, Shared};

// Imported with `use`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Shared, pk = "USER#{id}", sk = "PROFILE")]
#[dyno(index(GSI1, pk = "EMAIL#{email}", sk = "USER"))]
struct User {
    id: String,
    email: String,
}

// Named by its path in the other crate, through its module.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = tables::Shared, pk = "ORG#{name}", sk = "ORG")]
#[dyno(index(GSI2, pk = "ORGS", sk = "{name}"))]
struct Org {
    name: String,
}

// By absolute path, a table at the other crate's root.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ::dyno_ui_shared_table::RootTable, pk = "NOTE#{id}", sk = "NOTE")]
struct Note {
    id: u32,
}

fn s(item: &dyno_core::Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn entities_on_a_table_of_another_crate() {
    let user = User {
        id: "u1".into(),
        email: "a@example.com".into(),
    };
    let item = user.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "USER#u1");
    assert_eq!(s(&item, "GSI1PK"), "EMAIL#a@example.com");
    assert_eq!(User::from_item(&item).unwrap(), user);
    let org = Org {
        name: "acme".into(),
    };
    assert_eq!(s(&org.to_item().unwrap(), "GSI2SK"), "acme");
    let note = Note { id: 7 };
    assert_eq!(Note::from_item(&note.to_item().unwrap()).unwrap(), note);
    // The index queries of each entity, and of the other crate's own entity.
    let _ = User::gsi1("a@example.com");
    let _ = Org::gsi2();
    let _ = dyno_ui_shared_table::Team::gsi2();
}
