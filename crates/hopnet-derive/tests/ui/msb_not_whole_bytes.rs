use hopnet_codec::Rabbit;

// Three flag bits, then a list: the list would not start on a byte boundary.
#[derive(Rabbit)]
#[rabbit(bit_order = "msb")]
struct Flags {
    a: bool,
    #[bits(2)]
    b: u8,
    items: Vec<u8>,
}

fn main() {
    let _ = hopnet_codec::to_bytes(&Flags { a: true, b: 1, items: vec![] });
}
