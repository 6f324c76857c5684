// The conversions are the user's: a missing one is the compiler's error at the type named.
use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Raw(u8);

#[derive(Rabbit, Clone)]
#[rabbit(from = "Raw", into = "Raw")]
struct Level(u8);

fn main() {}
