use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[bits(16)]
    speed: f32,
    #[bits(8)]
    name: String,
    #[bits(4)]
    maybe: Option<u8>,
}

fn main() {}
