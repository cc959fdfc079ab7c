//! The shortest complete dyno program: one table, two entities sharing it, every basic operation,
//! on `MemoryStore` (the embedded engine: no AWS account, no server). `cargo run --example quickstart`
//!
//! What `#[derive(Entity)]` generates is listed in the derive's documentation (`dyno_core::Entity`).

use dyno_core::prelude::*;
use dyno_core::{Entity, Table};

#[derive(Debug, Table)]
#[dyno(name = "App", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct App;

/// `PK = USER#<id>`, `SK = PROFILE`; found by email through GSI1.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = App, pk = "USER#{id}", sk = "PROFILE")]
#[dyno(index(GSI1, pk = "EMAIL#{email}", sk = "USER"))]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
}

/// `PK = USER#<user>`, `SK = NOTE#<n>`: a user's notes live in the user's partition.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = App, pk = "USER#{user}", sk = "NOTE#{n}")]
pub struct Note {
    pub user: String,
    pub n: u32,
    pub text: String,
}

async fn run(store: &impl Store) -> dyno_core::Result<()> {
    store.create_table(App::definition()).await?;
    let (id, email, name) = (
        "1".to_owned(),
        "ann@example.com".to_owned(),
        "Ann".to_owned(),
    );
    let ann = User { id, email, name };
    ann.create().send(store).await?; // fails if user 1 exists
    for n in 1..=3 {
        let text = format!("note {n}");
        Note {
            user: "1".into(),
            n,
            text,
        }
        .put()
        .send(store)
        .await?;
    }

    let got = User::get(User::key("1")).send(store).await?;
    assert_eq!(got.as_ref(), Some(&ann));
    let by_email = User::gsi1("ann@example.com").first(store).await?;
    assert_eq!(by_email.map(|u| u.id), Some("1".to_owned()));
    // The user's partition holds the profile and the notes: the query returns notes only.
    let notes = Note::query("1").n().ge(2u32).all(store).await?;
    assert_eq!(notes.len(), 2);

    let renamed = User::update(User::key("1"))
        .set_name("Ann B.")
        .send(store)
        .await?;
    assert_eq!(renamed.name, "Ann B.");
    let deleted = Note::delete(Note::key("1", 1u32)).send(store).await?;
    assert_eq!(deleted.map(|n| n.text), Some("note 1".to_owned()));
    println!(
        "ok: {} has {} notes left",
        renamed.name,
        Note::query("1").count(store).await?
    );
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> dyno_core::Result<()> {
    run(&MemoryStore::new()).await
}

#[cfg(test)]
#[tokio::test]
async fn quickstart_runs() {
    run(&MemoryStore::new()).await.unwrap();
}
