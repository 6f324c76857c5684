use hopnet_codec::Rabbit;

#[derive(Rabbit)]
#[bits(4)]
#[rabbit(tag = "varint")]
enum Kind {
    A,
    B,
}

#[derive(Rabbit)]
#[rabbit(tag = "bits")]
enum Other {
    A,
}

fn main() {}
