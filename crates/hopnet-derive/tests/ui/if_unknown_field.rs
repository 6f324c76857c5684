use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    breakable: bool,
    #[rabbit(if = "*breakabel")]
    health: Option<u8>,
    #[rabbit(if = "*armoured")]
    armour: Option<u8>,
    armoured: bool,
    #[rabbit(if = "self.breakable")]
    shield: Option<u8>,
    #[rabbit(if = "recursive.is_some()")]
    recursive: Option<u8>,
}

fn main() {}
