use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(max_len = 8)]
    id: u32,
    #[rabbit(max_len = 8)]
    maybe: Option<Vec<u8>>,
}

fn main() {}
