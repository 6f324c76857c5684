use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(with = "codecs::angle")]
    angle: f32,
}

fn main() {}
