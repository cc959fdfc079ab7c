use dyno_core::Document;

// A document is a struct with named fields: it is stored as a map, one entry per field.
#[derive(Document)]
enum Visibility {
    Public,
    Private,
}

// Two fields stored under one map key.
#[derive(Document)]
struct Owner {
    login: String,
    #[dyno(rename = "login")]
    handle: String,
}

// Unknown field attribute.
#[derive(Document)]
struct Team {
    #[dyno(version)]
    slug: String,
}

fn main() {}
