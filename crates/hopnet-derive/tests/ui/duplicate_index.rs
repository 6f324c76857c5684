use hopnet_codec::Rabbit;

#[derive(Rabbit)]
enum Event {
    Joined,
    Left,
    #[rabbit(index = 1)]
    Kicked,
}

fn main() {}
