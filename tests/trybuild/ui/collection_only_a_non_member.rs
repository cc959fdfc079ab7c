use dyno_core::{Collection, Entity, Table};

#[derive(Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK")]
struct GitHub;

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{name}", sk = "REPO")]
struct Repo {
    owner: String,
    name: String,
}

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "ISSUE#{number}")]
struct Issue {
    owner: String,
    repo: String,
    number: u32,
}

#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "STAR#{user}")]
struct Star {
    owner: String,
    repo: String,
    user: String,
}

#[derive(Debug, Collection)]
#[dyno(partition = Repo)]
struct RepoAndIssues {
    repo: Option<Repo>,
    issues: Vec<Issue>,
}

fn main() {
    // Stars are not members of this collection.
    let _ = RepoAndIssues::query(("octo", "cat")).only::<Star>();
}
