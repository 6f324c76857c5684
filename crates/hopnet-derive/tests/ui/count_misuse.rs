use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    n: u8,
    #[rabbit(skip)]
    hidden: u8,
    #[rabbit(count = "later")]
    a: Vec<u8>,
    #[rabbit(count = "a_field_that_is_not_here")]
    b: Vec<u8>,
    #[rabbit(count = "hidden")]
    c: Vec<u8>,
    #[rabbit(count = "n")]
    not_a_list: u32,
    #[rabbit(count = "n", varint)]
    with_encoding: Vec<u8>,
    #[rabbit(count = "n", to_end)]
    two_ends: Vec<u8>,
    #[rabbit(count = "n +")]
    broken: Vec<u8>,
    #[rabbit(count = 3)]
    not_a_string: Vec<u8>,
    #[rabbit(count = "n", if = "*n > 0")]
    optional: Option<Vec<u8>>,
    later: u8,
}

#[derive(Rabbit)]
#[rabbit(delta)]
#[derive(Clone)]
struct Delta {
    n: u8,
    #[rabbit(count = "n")]
    items: Vec<u8>,
}

#[derive(Rabbit)]
struct NotAnInteger {
    name: String,
    #[rabbit(count = "name")]
    items: Vec<u8>,
}

fn main() {}
