use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

#[derive(Rabbit)]
#[rabbit(endian = "middle")]
struct UnknownOrder {
    a: u16,
}

#[derive(Rabbit)]
struct Misplaced {
    #[rabbit(bytes = 3)]
    narrow: u16,
    #[rabbit(bytes = 2)]
    no_order: u32,
    #[rabbit(to_end)]
    not_last: Vec<u8>,
    #[rabbit(byte_len = "size")]
    framed_first: Vec<u8>,
    size: Computed<u16>,
    lonely: Computed<u32>,
    #[rabbit(computed = "1")]
    not_computed: u32,
    #[rabbit(transform = "Nothing")]
    unframed: Vec<u8>,
    #[rabbit(magic = "W")]
    last: u8,
}

#[derive(Rabbit)]
#[rabbit(bit_order = "msb", endian = "big")]
struct BothOrders {
    #[rabbit(endian = "big")]
    a: u16,
}

#[derive(Rabbit)]
#[rabbit(bit_order = "msb")]
#[rabbit(tag = "varint")]
enum VarintTag {
    A,
}

#[derive(Rabbit)]
struct ComputedUsesLater {
    #[rabbit(computed = "*b")]
    a: Computed<u8>,
    #[rabbit(computed = "1")]
    b: Computed<u8>,
}

fn main() {}
