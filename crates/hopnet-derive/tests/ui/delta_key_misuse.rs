use hopnet_codec::Rabbit;

#[derive(Rabbit, Clone)]
struct Item {
    id: u32,
}

// `key` without `#[rabbit(delta)]` on the container.
#[derive(Rabbit, Clone)]
struct NoDelta {
    #[rabbit(key = "id")]
    items: Vec<Item>,
}

#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct Misplaced {
    // Not a list.
    #[rabbit(key = "id")]
    one: Option<Item>,
    // Beside an encoding.
    #[rabbit(key = "id", max_len = 4)]
    bounded: Vec<Item>,
    // Not a field path.
    #[rabbit(key = "id()")]
    call: Vec<Item>,
}

fn main() {}
