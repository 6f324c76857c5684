use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[bits(0)]
    nothing: u8,
}

fn main() {}
