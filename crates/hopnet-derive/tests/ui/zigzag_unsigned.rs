use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(zigzag)]
    id: u32,
    #[rabbit(varint)]
    ratio: f64,
}

fn main() {}
