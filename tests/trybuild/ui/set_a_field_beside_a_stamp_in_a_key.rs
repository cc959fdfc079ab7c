// `status` shares an index key with `username` and the created-at stamp: its setter takes them
// too, as values given to rebuild the key; the plain `set_status` names it.
use dyno_core::{Entity, KeyPart, Table};

#[derive(Table)]
#[dyno(name = "Forge", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Forge;

#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
enum PrStatus {
    Open,
    Closed,
}

#[derive(Debug, Entity)]
#[dyno(table = Forge, pk = "REPO#{repo}", sk = "PR#{number}")]
#[dyno(index(GSI1, pk = "AUTHORS#{repo}", sk = "{username}#{status}#{created_at}"))]
struct PullRequest {
    repo: String,
    number: u32,
    username: String,
    status: PrStatus,
    #[dyno(created_at)]
    created_at: Option<u64>,
}

fn main() {
    let _ = PullRequest::update(PullRequest::key("dyno", 1u32)).set_status(PrStatus::Closed);
}
