use rabbit::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(with = "codecs::angle")]
    angle: f32,
}

fn main() {}
