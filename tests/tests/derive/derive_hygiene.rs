//! Generated code compiles next to user types that shadow the prelude and dyno's own names
//! (`Result`, `Option`, `Vec`, `String`, `Item`, `Store`, `Some`, `Ok`, ...): it only uses
//! absolute paths.
#![allow(dead_code, non_camel_case_types, clippy::upper_case_acronyms)]

mod shadowed {
    use dyno_core::{Collection, Entity, KeyPart, Projection, Table};

    pub struct Result;
    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Item;
    pub struct Store;
    pub struct Key;
    pub struct Box;
    pub struct Default;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub struct PhantomData;
    pub struct Query;
    pub struct Field;
    pub struct Cond;
    pub struct State;
    pub struct Kind;
    pub struct Out;
    pub trait FromItem {}
    pub trait ToAttribute {}
    pub trait KeyPartLike {}

    #[derive(Debug, Table)]
    #[dyno(name = "Hygiene", pk = "PK", sk = "SK", ttl = "ttl")]
    #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    pub struct HygieneTable;

    #[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
    pub enum Level {
        Low,
        High,
    }

    #[derive(Debug, Clone, PartialEq, KeyPart)]
    pub struct Tag(pub ::std::string::String);

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = HygieneTable, pk = "THING#{id}", sk = "V#{level}")]
    #[dyno(index(GSI1, pk = "TAG#{tag}", sk = "{n}"))]
    pub struct Thing {
        pub id: ::std::string::String,
        pub level: Level,
        pub tag: ::core::option::Option<Tag>,
        pub n: u32,
        pub tags: ::std::vec::Vec<::std::string::String>,
        pub note: ::core::option::Option<::std::string::String>,
        #[dyno(version)]
        pub version: u64,
        #[dyno(ttl)]
        pub expires: ::core::option::Option<u64>,
        #[dyno(skip)]
        pub cache: ::core::option::Option<u8>,
    }

    /// Raw identifiers: `{type}` names the field `r#type`, stored as attribute `type`.
    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = HygieneTable, pk = "THING#{id}", sk = "NOTE#{type}")]
    pub struct Note {
        pub id: ::std::string::String,
        pub r#type: ::std::string::String,
        pub r#match: ::std::string::String,
    }

    #[derive(Debug, Projection)]
    #[dyno(entity = Thing)]
    pub struct ThingSummary {
        pub id: ::std::string::String,
        pub n: u32,
    }

    #[derive(Debug, Collection)]
    pub enum ThingItem {
        Thing(Thing),
        Note(Note),
    }

    #[derive(Debug, Collection)]
    pub struct ThingWithNotes {
        pub note: ::core::option::Option<Note>,
        pub things: ::std::vec::Vec<Thing>,
    }
}

use dyno_core::ops::EntityExt;
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::Entity;
use shadowed::{HygieneTable, Level, Note, Tag, Thing, ThingItem, ThingSummary, ThingWithNotes};

#[tokio::test]
async fn derived_code_ignores_shadowing_names() {
    let thing = Thing {
        id: "t1".into(),
        level: Level::High,
        tag: Some(Tag("a#b".into())),
        n: 3,
        tags: vec!["x".into()],
        note: None,
        version: 0,
        expires: None,
        cache: Some(1),
    };
    let item = thing.to_item().unwrap();
    assert_eq!(item["SK"], dyno_core::AttributeValue::S("V#High".into()));
    assert_eq!(
        item["GSI1PK"],
        dyno_core::AttributeValue::S("TAG#a%23b".into())
    );
    let store = dyno_core::MemoryStore::new();
    dyno_core::Store::create_table(&store, <HygieneTable as dyno_core::Table>::definition())
        .await
        .unwrap();
    thing.put().send(&store).await.unwrap();
    let found = Thing::gsi1(Tag("a#b".into()))
        .n()
        .le(3u32)
        .all(&store)
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    let updated = Thing::update(Thing::key("t1", Level::High))
        .remove_tag()
        .append_tags(vec!["y".to_owned()])
        .send(&store)
        .await
        .unwrap();
    assert_eq!(updated.tag, None);
    assert_eq!(updated.cache, None);
    let summaries = Thing::query("t1")
        .project::<ThingSummary>()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(summaries.len(), 1);
    let items = ThingItem::query("t1").all(&store).await.unwrap();
    assert_eq!(items.len(), 1);
    let grouped = ThingWithNotes::query("t1").all(&store).await.unwrap();
    assert_eq!(grouped.things.len(), 1);

    let note = Note {
        id: "t1".into(),
        r#type: "memo".into(),
        r#match: "yes".into(),
    };
    let item = note.to_item().unwrap();
    assert_eq!(item["SK"], dyno_core::AttributeValue::S("NOTE#memo".into()));
    assert_eq!(item["type"], dyno_core::AttributeValue::S("memo".into()));
    assert_eq!(item["match"], dyno_core::AttributeValue::S("yes".into()));
    note.put().send(&store).await.unwrap();
    assert_eq!(
        Note::query("t1")
            .r#type()
            .eq("memo")
            .all(&store)
            .await
            .unwrap(),
        vec![note.clone()]
    );
    let updated = Note::update(Note::key("t1", "memo"))
        .set_match("no")
        .send(&store)
        .await
        .unwrap();
    assert_eq!(updated.r#match, "no");
    assert_eq!(Note::MATCH.name(), "match");
}
