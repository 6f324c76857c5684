use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(range = "10..=1")]
    level: u8,
}

fn main() {}
