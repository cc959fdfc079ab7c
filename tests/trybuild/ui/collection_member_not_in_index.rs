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
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "STAR#{user}")]
struct Star {
    owner: String,
    repo: String,
    user: String,
}

// Stars have no key in GSI1.
#[derive(Debug, Collection)]
#[dyno(index = GSI1, partition = Repo)]
enum RepoItem {
    Repo(Repo),
    Star(Star),
}

fn main() {}
