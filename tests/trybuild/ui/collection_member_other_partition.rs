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

// Keyed by the user: never in a repo's partition.
#[derive(Debug, Entity)]
#[dyno(table = GitHub, pk = "USER#{user}", sk = "STAR#{owner}#{repo}")]
struct Star {
    owner: String,
    repo: String,
    user: String,
}

#[derive(Debug, Collection)]
#[dyno(partition = Repo)]
enum RepoItem {
    Repo(Repo),
    Star(Star),
}

fn main() {}
