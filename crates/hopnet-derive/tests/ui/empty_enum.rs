use hopnet_codec::Rabbit;

#[derive(Rabbit)]
enum Never {}

fn main() {}
