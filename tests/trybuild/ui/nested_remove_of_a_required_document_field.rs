include!("common/github.rs");

fn main() {
    // `login` is required: the item would no longer decode. `twitter` is an `Option`.
    let _ = Repo::update(Repo::key("dyno")).at(Repo::OWNER.field(Owner::TWITTER)).remove();
    let _ = Repo::update(Repo::key("dyno")).at(Repo::OWNER.field(Owner::LOGIN)).remove();
}
