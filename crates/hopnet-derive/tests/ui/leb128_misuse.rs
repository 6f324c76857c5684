use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(leb128_zigzag)]
    id: u32,
    #[rabbit(leb128)]
    ratio: f64,
    #[rabbit(leb128 = 3)]
    count: u16,
    #[rabbit(leb128, varint)]
    both: u64,
}

fn main() {}
