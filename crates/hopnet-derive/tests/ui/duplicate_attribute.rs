use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[rabbit(tag = "varint", tag = "varint")]
enum Kind {
    #[rabbit(index = 1, index = 2)]
    A,
}

#[derive(Rabbit)]
struct Message {
    #[bits(3)]
    #[bits(4)]
    level: u8,
    #[rabbit(varint)]
    #[rabbit(varint)]
    id: u32,
}

fn main() {}
