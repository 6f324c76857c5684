use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(skip, varint)]
    cached: u32,
}

fn main() {}
