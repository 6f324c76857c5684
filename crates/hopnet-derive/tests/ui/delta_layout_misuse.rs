use hopnet_codec::Rabbit;

#[derive(Rabbit, Clone)]
#[rabbit(delta = "per_bit")]
struct Unknown {
    a: u8,
}

#[derive(Rabbit, Clone)]
#[rabbit(delta(per_field))]
struct Parenthesised {
    a: u8,
}

// On a field: it is a container attribute.
#[derive(Rabbit, Clone)]
struct OnField {
    #[rabbit(delta)]
    a: u8,
}

fn main() {}
