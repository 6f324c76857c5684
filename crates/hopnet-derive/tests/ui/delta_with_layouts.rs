use hopnet_codec::Rabbit;

#[derive(Rabbit, Clone)]
#[rabbit(delta, magic = b"RB")]
struct Framed {
    len: u8,
    #[rabbit(pad_before = 4)]
    flag: bool,
}

#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct Rest {
    head: u8,
    #[rabbit(to_end)]
    tail: Vec<u8>,
}

fn main() {}
