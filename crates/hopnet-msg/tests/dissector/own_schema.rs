//! A game's own messages, declared with `#[derive(Rabbit)]`, get their own dissector from the
//! library (`Wireshark::new`): every encoding the Lua readers take, conditions included, shown
//! by tshark as serde_json writes the value Rust decodes (which is what `rabbit-msg decode`
//! prints for its own types).

use hopnet_codec::Rabbit;
use serde::{Deserialize, Serialize};

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    f: i8,
    g: i16,
    h: i32,
    i: i64,
    #[bits(12)]
    l: i16,
    #[bits(40)]
    n: u64,
    #[bits(64)]
    p: u64,
    #[rabbit(range = "-5..=300")]
    q: i32,
    s: f32,
    t: f64,
    u: bool,
    maybe: Option<i64>,
    list: Vec<Option<u16>>,
    #[rabbit(max_len = 5)]
    name: String,
    array: [i8; 3],
    pair: (u8, String),
    breakable: bool,
    #[rabbit(if = "*breakable")]
    health: Option<u8>,
    distance: u16,
    #[rabbit(if = "*distance >= 100 && health.is_some()")]
    #[bits(4)]
    warning: Option<u8>,
    sign: Sign,
    span: Span,
}

/// A sign on the road: a 4-bit tag with a gap, a condition on a float and one on a tuple's field.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[bits(4)]
pub enum Sign {
    Stop,
    Go {
        speed: f32,
        #[rabbit(if = "*speed > 2.5")]
        boost: Option<u8>,
    },
    Turn(i16, bool),
    #[rabbit(index = 9)]
    Lanes(u8, #[rabbit(if = "*_0 > 1")] Option<u8>),
}

/// A distance by a varint tag far past one byte.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
pub enum Span {
    Here,
    #[rabbit(index = 500)]
    Far(u64),
    #[rabbit(index = 100_000)]
    Back {
        by: i32,
    },
}

/// Values at the edges of every encoding: wide integers past 2^53, negative zig-zags, two's
/// complement, subnormal floats, conditions both ways.
pub fn probes() -> Vec<Probe> {
    let base = Probe {
        a: 255,
        b: 65535,
        c: u32::MAX,
        d: u64::MAX,
        f: i8::MIN,
        g: -1,
        h: i32::MIN,
        i: i64::MIN,
        l: -2048,
        n: (1 << 40) - 1,
        p: u64::MAX - 1,
        q: -5,
        s: f32::MIN_POSITIVE,
        t: -2.5e-310,
        u: true,
        maybe: Some(i64::MAX),
        list: vec![Some(7), None, Some(65535)],
        name: "snö".into(),
        array: [-128, 0, 127],
        pair: (9, "tab\there \"quoted\"".into()),
        breakable: true,
        health: Some(3),
        distance: 100,
        warning: Some(15),
        sign: Sign::Lanes(2, Some(200)),
        span: Span::Back { by: -70000 },
    };
    let second = Probe {
        d: (1 << 53) + 1,
        i: -(1 << 60),
        p: 1 << 63,
        t: 1e300,
        s: -0.0,
        maybe: None,
        list: vec![],
        name: String::new(),
        breakable: false,
        health: None,
        distance: 7,
        warning: None,
        sign: Sign::Lanes(1, None),
        span: Span::Far(u64::MAX),
        ..base.clone()
    };
    let third = Probe {
        d: 0,
        i: 0,
        p: 0,
        q: 300,
        t: 0.1,
        s: 3.4028235e38,
        distance: 99,
        health: Some(1),
        warning: None,
        sign: Sign::Go {
            speed: 3.0,
            boost: Some(9),
        },
        span: Span::Here,
        ..base.clone()
    };
    vec![base, second, third]
}

/// The server's side: every variant of `Sign`.
pub fn signs() -> Vec<Sign> {
    vec![
        Sign::Stop,
        Sign::Go {
            speed: -0.1,
            boost: None,
        },
        Sign::Turn(-300, true),
        Sign::Lanes(0, None),
    ]
}
