use hopnet_codec::Rabbit;

#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct Wire {
    v: u8,
}

#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct Other {
    v: u8,
}

// Deltas go through the wire type, one way and back: one type.
#[derive(Rabbit, Clone)]
#[rabbit(delta, from = "Other", into = "Wire")]
struct Converted(u8);

impl From<Converted> for Wire {
    fn from(c: Converted) -> Wire {
        Wire { v: c.0 }
    }
}

impl From<Other> for Converted {
    fn from(o: Other) -> Converted {
        Converted(o.v)
    }
}

fn main() {}
