use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Object {
    #[rabbit(skip)]
    local_only: bool,
    #[rabbit(if = "*local_only")]
    health: Option<u8>,
}

fn main() {}
