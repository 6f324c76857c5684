use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    #[rabbit(skip)]
    cached: Option<u8>,
    #[rabbit(if = "matches!(kind, Some(1)) || matches!(cached, None)")]
    health: Option<u8>,
    kind: Option<u8>,
}

fn main() {}
