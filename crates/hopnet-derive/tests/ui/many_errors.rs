// Every mistake in a type is reported in one build.
use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Player {
    #[bits(0)]
    id: u16,
    #[rabbit(range = "5..=1")]
    level: u8,
    #[bits(8)]
    speed: f32,
    #[rabbit(if = "*alive")]
    health: Option<u8>,
    alive: bool,
    #[rabbit(max_len = 4)]
    score: u32,
    #[rabbit(colour = "red")]
    team: u8,
}

fn main() {}
