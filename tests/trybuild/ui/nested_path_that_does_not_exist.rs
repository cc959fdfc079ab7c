include!("common/github.rs");

fn main() {
    // `Owner` has no `email` field.
    let _ = Repo::OWNER.field(Owner::EMAIL);
    // `Team`'s fields are not `Owner`'s.
    let _ = Repo::OWNER.field(Team::SLUG);
    // `stars` is a number: there is nothing inside it.
    let _ = Repo::STARS.entry("x");
    let _ = Repo::TOPICS.field(Owner::LOGIN);
}
