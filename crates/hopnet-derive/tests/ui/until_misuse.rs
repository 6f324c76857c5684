use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    n: u8,
    #[rabbit(until = 256)]
    too_big: String,
    #[rabbit(until = 0)]
    not_bytes: Vec<u16>,
    #[rabbit(until = "|s: &u8| *s == 0")]
    text: String,
    #[rabbit(until = "|x: &u8| *x == *n")]
    uses_a_field: Vec<u8>,
    #[rabbit(until = 0)]
    number: u32,
    #[rabbit(until)]
    no_value: Vec<u8>,
    #[rabbit(until = 0, byte_len = "n")]
    two_ends: Vec<u8>,
    #[rabbit(until = 0.5)]
    float: Vec<u8>,
}

#[derive(Rabbit)]
struct NoDefault {
    #[rabbit(until = "|i: &Item| i.0 == 0")]
    items: Vec<Item>,
}

#[derive(Rabbit)]
struct Item(u8);

fn main() {}
