// A type written as another one needs both directions, and nothing of its body is on the wire.
use hopnet_codec::Rabbit;

#[derive(Rabbit, Clone)]
#[rabbit(into = "u8")]
struct OneWay(u8);

#[derive(Rabbit, Clone)]
#[rabbit(from = "u8", try_from = "u8", into = "u8")]
struct BothWays(u8);

#[derive(Rabbit, Clone)]
#[rabbit(from = "u8", into = "u8")]
#[bits(3)]
enum Tagged {
    A(#[rabbit(varint)] u8),
}

fn main() {}
