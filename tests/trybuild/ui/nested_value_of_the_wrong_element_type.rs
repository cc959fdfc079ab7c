include!("common/github.rs");

fn main() {
    // A map entry of `u32` takes a `u32`, a document's `String` field a string.
    let _ = Repo::update(Repo::key("dyno"))
        .at(Repo::REACTION_COUNTS.entry(Reaction::Heart)).add("one");
    let _ = Repo::update(Repo::key("dyno")).at(Repo::OWNER.field(Owner::LOGIN)).set(7u32);
    // A map keyed by `Reaction` takes a `Reaction` key.
    let _ = Repo::REACTION_COUNTS.entry("heart");
    // A list of strings takes strings.
    let _ = Repo::update(Repo::key("dyno")).at(Repo::TOPICS).append([1u8]);
}
