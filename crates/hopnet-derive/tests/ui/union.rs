use hopnet_codec::Rabbit;

#[derive(Rabbit)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
