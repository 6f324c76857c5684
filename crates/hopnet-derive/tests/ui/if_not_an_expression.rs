use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    breakable: bool,
    #[rabbit(if = "breakable ==")]
    health: Option<u8>,
}

fn main() {}
