use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(range = "0..=300")]
    level: u8,
    #[rabbit(range = "-1..=10")]
    count: u32,
    #[rabbit(range = "0..=1")]
    ratio: f32,
}

fn main() {}
