use rabbit::Rabbit;

#[derive(Rabbit)]
enum Event {
    Joined,
    Left,
    #[rabbit(index = 1)]
    Kicked,
}

fn main() {}
