use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[bits(1)]
enum Direction {
    North,
    East,
    South,
    West,
}

fn main() {}
