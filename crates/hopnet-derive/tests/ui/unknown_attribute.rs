use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(compress)]
    payload: Vec<u8>,
    #[rabbit(varint, bitz = 3)]
    id: u32,
}

fn main() {}
