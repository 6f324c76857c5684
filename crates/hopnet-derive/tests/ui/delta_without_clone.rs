use hopnet_codec::Rabbit;

// A decoder copies what did not change from the baseline: deltas need `Clone`.
#[derive(Rabbit)]
#[rabbit(delta)]
struct NotClone {
    a: u8,
    b: u8,
}

fn main() {}
