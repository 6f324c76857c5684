// A type the derive cannot judge by its name is left to the codec's trait bound: the error
// names the encoding and points at the field's type.
use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Level(u8);

#[derive(Rabbit)]
struct Player {
    #[rabbit(zigzag)]
    level: Level,
}

fn main() {}
