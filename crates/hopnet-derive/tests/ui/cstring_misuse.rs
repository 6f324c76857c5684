use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Message {
    #[rabbit(cstring)]
    id: u32,
    #[rabbit(cstring, max_len = 8)]
    name: String,
    #[rabbit(cstring = "utf8")]
    map: String,
}

fn main() {}
