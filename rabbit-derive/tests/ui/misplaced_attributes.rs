use rabbit::Rabbit;

#[derive(Rabbit)]
#[bits(8)]
#[rabbit(skip, tag = "varint")]
struct Message {
    #[rabbit(index = 3, crate = "rabbit")]
    id: u32,
}

#[derive(Rabbit)]
enum Event {
    #[bits(4)]
    #[rabbit(varint)]
    Joined,
}

fn main() {}
