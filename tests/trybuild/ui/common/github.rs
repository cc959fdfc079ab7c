// The model the nested-path cases share (included by each case, not a case itself): a repo with
// a map of counters keyed by a KeyPart enum, a list, a set and a document.

#[allow(unused_imports)]
use dyno_core::prelude::*;
use dyno_core::{Document, Entity, KeyPart, Table};

#[derive(Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK")]
struct GitHub;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, KeyPart)]
enum Reaction {
    Heart,
    Rocket,
}

#[derive(Debug, Document)]
struct Owner {
    login: String,
    twitter: Option<String>,
}

#[derive(Debug, Document)]
struct Team {
    slug: String,
}

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{name}", sk = "REPO#{name}")]
struct Repo {
    name: String,
    stars: u32,
    reaction_counts: std::collections::HashMap<Reaction, u32>,
    topics: Vec<String>,
    labels: std::collections::BTreeSet<String>,
    owner: Owner,
}
