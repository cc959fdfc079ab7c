// `set_if_absent_note` would be both `note`'s set-if-absent setter and `if_absent_note`'s
// setter: the second field is refused, spanned on it.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "NOTE#{id}", sk = "NOTE")]
struct Note {
    id: String,
    note: String,
    if_absent_note: String,
}

fn main() {}
