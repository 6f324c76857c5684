use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[bits(8)]
#[rabbit(skip, tag = "varint")]
struct Message {
    #[rabbit(index = 3, crate = "hopnet_codec")]
    id: u32,
}

#[derive(Rabbit)]
enum Event {
    #[bits(4)]
    #[rabbit(varint)]
    Joined,
}

fn main() {}
