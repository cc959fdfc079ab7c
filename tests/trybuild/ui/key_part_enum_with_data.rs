use dyno_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    Pending,
    Shipped { carrier: String },
    #[dyno(rename = "A#B")]
    Lost,
}

fn main() {}
