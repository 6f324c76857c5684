use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(leb128_signed)]
    unsigned: u32,
    #[rabbit(leb128_signed)]
    text: String,
    #[rabbit(leb128_signed, leb128)]
    both: i64,
}

fn main() {}
