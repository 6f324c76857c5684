use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    count: u8,
    #[rabbit(if = "*count")]
    health: Option<u8>,
}

fn main() {}
