use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[bits(65)]
    huge: u64,
}

fn main() {}
