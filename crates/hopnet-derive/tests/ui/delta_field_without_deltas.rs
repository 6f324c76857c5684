use hopnet_codec::Rabbit;

// Derives `Rabbit` but not its deltas.
#[derive(Rabbit, Clone)]
struct Plain {
    a: u8,
}

#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct Outer {
    plain: Plain,
    b: u8,
}

fn main() {}
