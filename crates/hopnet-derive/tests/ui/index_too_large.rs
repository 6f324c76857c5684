use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[bits(2)]
enum Small {
    A,
    #[rabbit(index = 4)]
    B,
}

#[derive(Rabbit)]
#[rabbit(tag = "varint")]
enum Request {
    Join,
    #[rabbit(index = 4294967296)]
    Leave,
}

fn main() {}
