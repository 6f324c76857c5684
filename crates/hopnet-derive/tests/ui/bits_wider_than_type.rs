use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[bits(9)]
    small: u8,
    #[bits(2)]
    flag: bool,
}

fn main() {}
