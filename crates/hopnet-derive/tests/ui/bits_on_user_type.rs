// A type the derive cannot judge by its name is left to the trait bounds: the error names the
// missing `FixedBits` impl and points at the field's type.
use hopnet_codec::Rabbit;

#[derive(Rabbit)]
enum Kind {
    Rock,
    Tree,
}

#[derive(Rabbit)]
struct Object {
    #[bits(2)]
    kind: Kind,
}

fn main() {}
