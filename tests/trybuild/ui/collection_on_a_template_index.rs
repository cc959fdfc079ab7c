use dyno_core::prelude::*;
use dyno_core::{Collection, Entity, Table};

#[derive(Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct GitHub;

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{name}", sk = "REPO")]
#[dyno(index(GSI1, pk = "REPO#{owner}#{name}", sk = "#REPO"))]
struct Repo {
    owner: String,
    name: String,
}

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "PR#{owner}#{repo}#{number}", sk = "PR")]
#[dyno(index(GSI1, pk = "REPO#{owner}#{repo}", sk = "PR#{number}"))]
struct PullRequest {
    owner: String,
    repo: String,
    number: u32,
}

#[derive(Debug, Collection)]
#[dyno(index = GSI1, partition = Repo)]
enum RepoItem {
    Repo(Repo),
    PullRequest(PullRequest),
}

fn main() {
    // GSI1 is keyed by templates: the collection is read with `RepoItem::query(..)`.
    let _ = PullRequest::gsi1("octo", "cat").collection::<RepoItem>();
}
