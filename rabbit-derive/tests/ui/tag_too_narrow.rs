use rabbit::Rabbit;

#[derive(Rabbit)]
#[bits(1)]
enum Direction {
    North,
    East,
    South,
    West,
}

fn main() {}
