include!("common/github.rs");

fn main() {
    // Top-level fields have the builder's own setters (`set_stars`, `add_stars`).
    let _ = Repo::update(Repo::key("dyno")).at(Repo::STARS).add(1u32);
}
