// A created-at stamp is read-only after the write that sets it: no update sets or removes it,
// even where it is in an index key (its setters take it as a value given to rebuild the key).
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
#[dyno(index(GSI1, pk = "PRS#{repo}", sk = "{status}#{created_at}"))]
struct PullRequest {
    repo: String,
    number: u32,
    status: PrStatus,
    #[dyno(created_at)]
    created_at: Option<u64>,
}

fn main() {
    let _ = PullRequest::update(PullRequest::key("dyno", 1u32)).set_created_at(None::<u64>);
}
