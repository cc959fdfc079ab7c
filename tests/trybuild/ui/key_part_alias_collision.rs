use dyno_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    #[dyno(alias = "shipped")]
    Pending,
    #[dyno(alias = "shipped")]
    Shipped,
}

#[derive(KeyPart)]
#[dyno(case_insensitive)]
enum Carrier {
    Ups,
    #[dyno(alias = "UPS")]
    UnitedParcel,
    #[dyno(alias = "A#B")]
    Other,
}

fn main() {}
