use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    breakable: bool,
    #[rabbit(if = "*breakable")]
    health: u8,
}

fn main() {}
