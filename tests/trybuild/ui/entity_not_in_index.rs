use dyno_core::prelude::*;
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI4", pk = "GSI4PK", sk = "GSI4SK"))]
struct GitHub;

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{repo}", sk = "ISSUE#{number}")]
#[dyno(index(GSI4, pk = "REPO#{repo}", sk = "ISSUE#{status}#{number}"))]
struct Issue {
    repo: String,
    number: u32,
    status: String,
}

async fn open_issues(store: &MemoryStore) -> dyno_core::Result<Vec<Issue>> {
    // Issues are in GSI4, not GSI1: one error, here, naming the indexes `Issue` is in.
    Issue::gsi1("octo/cat").status().eq("open").all(store).await
}

fn main() {
    let _ = open_issues;
}
