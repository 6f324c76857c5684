use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[rabbit(tag = varint)]
enum Kind {
    #[rabbit(index = "one")]
    A,
    B,
}

#[derive(Rabbit)]
struct Message {
    #[rabbit(range = 5)]
    level: u8,
    #[rabbit(range = "1..10")]
    score: u8,
    #[rabbit(max_len = "many")]
    items: Vec<u8>,
    #[rabbit(with = "not a path!")]
    custom: u16,
    #[bits(x)]
    flags: u8,
    #[rabbit(varint = true)]
    id: u32,
}

fn main() {}
