use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[bits(12)]
    #[rabbit(varint)]
    id: u32,
    #[rabbit(zigzag, range = "-5..=5")]
    delta: i32,
}

fn main() {}
