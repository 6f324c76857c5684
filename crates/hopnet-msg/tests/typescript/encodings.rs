//! Every encoding the generator writes, beyond what the Snow Fight messages use: all the
//! integer widths (bigints past 53 bits), plain bits, ranges, floats, options, bounded lists
//! and strings, arrays, tuples, newtypes, unit structs, conditional fields, enums of every
//! shape with plain-bit and varint tags, boxes. Rust encodes and decodes
//! (in-process, with serde's JSON), the generated module must agree.

use super::cases::{Rng, decode_case, mutations};
use super::toolchain::{compile, conformance, fresh_dir};
use hopnet_codec::Rabbit;
use hopnet_msg::codegen::TypeScript;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Numbers {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: u128,
    f: i8,
    g: i16,
    h: i32,
    i: i64,
    j: i128,
    k: usize,
    #[bits(12)]
    l: i16,
    #[bits(5)]
    m: u8,
    #[bits(40)]
    n: u64,
    #[bits(60)]
    o: i64,
    #[bits(64)]
    p: u64,
    #[rabbit(range = "-5..=300")]
    q: i32,
    #[rabbit(range = "-9000000000000000000..=9000000000000000000")]
    r: i64,
    s: f32,
    t: f64,
    u: bool,
    #[bits(1)]
    v: bool,
}

/// A newtype: its JSON form is its field's.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Meters(u32);

/// A tuple struct: an array.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Pair(i16, bool);

/// A unit struct: `null`.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Nothing;

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Containers {
    maybe: Option<i64>,
    list: Vec<Option<u16>>,
    #[rabbit(max_len = 3)]
    short: Vec<u8>,
    #[rabbit(max_len = 5)]
    name: String,
    text: String,
    array: [i8; 3],
    pair: (u8, String),
    nested: Vec<Vec<(bool, u32)>>,
    meters: Meters,
    tuple: Pair,
    nothing: Nothing,
    empties: Vec<()>,
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Conditional {
    breakable: bool,
    #[rabbit(if = "*breakable")]
    health: Option<u8>,
    distance: u16,
    #[rabbit(if = "*distance >= 100 && health.is_some()")]
    #[bits(4)]
    warning: Option<u8>,
    big: u64,
    #[rabbit(if = "*big > 5_000_000_000_000_000_000 || !*breakable && *distance == 7")]
    huge: Option<String>,
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[bits(3)]
enum Shape {
    Circle {
        radius: f32,
    },
    Square(u16),
    Segment(i8, i8),
    Marked(u8, #[rabbit(if = "*_0 > 1")] Option<u8>),
    #[rabbit(index = 6)]
    Empty,
    Boxed(Box<Pair>),
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
enum Wide {
    A,
    #[rabbit(index = 300)]
    B(u64),
    #[rabbit(index = 70000)]
    C {
        at: i32,
    },
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Everything {
    numbers: Numbers,
    containers: Containers,
    conditional: Conditional,
    shapes: Vec<Shape>,
    wide: Wide,
}

fn numbers(rng: &mut Rng) -> Numbers {
    let signed = |rng: &mut Rng, bits: u32| -> i128 {
        let v = rng.magnitude(bits - 1) as i128;
        if rng.one_in(2) { -v - 1 } else { v }
    };
    Numbers {
        a: rng.magnitude(8) as u8,
        b: rng.magnitude(16) as u16,
        c: rng.magnitude(32) as u32,
        d: rng.magnitude(64) as u64,
        e: rng.magnitude(128),
        f: signed(rng, 8) as i8,
        g: signed(rng, 16) as i16,
        h: signed(rng, 32) as i32,
        i: signed(rng, 64) as i64,
        j: signed(rng, 128),
        k: rng.magnitude(64) as usize,
        l: signed(rng, 12) as i16,
        m: rng.magnitude(5) as u8,
        n: rng.magnitude(40) as u64,
        o: signed(rng, 60) as i64,
        p: rng.magnitude(64) as u64,
        q: -5 + rng.below(306) as i32,
        r: {
            let base =
                [-9_000_000_000_000_000_000, 0, 9_000_000_000_000_000_000][rng.below(3) as usize];
            let offset = rng.below(1000) as i64;
            if base > 0 {
                base - offset
            } else {
                base + offset
            }
        },
        s: rng.f32(),
        t: rng.f64(),
        u: rng.one_in(2),
        v: rng.one_in(2),
    }
}

fn containers(rng: &mut Rng) -> Containers {
    let n = |rng: &mut Rng, max: u64| rng.below(max + 1) as usize;
    Containers {
        maybe: rng
            .one_in(2)
            .then(|| rng.magnitude(63) as i64 * if rng.one_in(2) { -1 } else { 1 }),
        list: (0..n(rng, 4))
            .map(|_| rng.one_in(2).then(|| rng.magnitude(16) as u16))
            .collect(),
        short: (0..n(rng, 3)).map(|_| rng.next() as u8).collect(),
        name: ["", "ab", "❄é", "12345", "🐇"][rng.below(5) as usize].to_string(),
        text: rng.text(20),
        array: [rng.next() as i8, rng.next() as i8, rng.next() as i8],
        pair: (rng.next() as u8, rng.text(5)),
        nested: (0..n(rng, 3))
            .map(|_| {
                (0..n(rng, 2))
                    .map(|_| (rng.one_in(2), rng.magnitude(32) as u32))
                    .collect()
            })
            .collect(),
        meters: Meters(rng.magnitude(32) as u32),
        tuple: Pair(rng.next() as i16, rng.one_in(2)),
        nothing: Nothing,
        empties: vec![(); n(rng, 3)],
    }
}

fn conditional(rng: &mut Rng) -> Conditional {
    let breakable = rng.one_in(2);
    let health = breakable.then(|| rng.next() as u8);
    let distance = [0, 7, 99, 100, 65535][rng.below(5) as usize];
    let warning = (distance >= 100 && health.is_some()).then(|| rng.below(16) as u8);
    let big = [
        0,
        5_000_000_000_000_000_000,
        5_000_000_000_000_000_001,
        u64::MAX,
    ][rng.below(4) as usize];
    let huge =
        (big > 5_000_000_000_000_000_000 || !breakable && distance == 7).then(|| rng.text(3));
    Conditional {
        breakable,
        health,
        distance,
        warning,
        big,
        huge,
    }
}

fn shape(rng: &mut Rng) -> Shape {
    match rng.below(6) {
        0 => Shape::Circle { radius: rng.f32() },
        1 => Shape::Square(rng.next() as u16),
        2 => Shape::Segment(rng.next() as i8, rng.next() as i8),
        3 => {
            let first = rng.below(4) as u8;
            Shape::Marked(first, (first > 1).then(|| rng.next() as u8))
        }
        4 => Shape::Empty,
        _ => Shape::Boxed(Box::new(Pair(rng.next() as i16, rng.one_in(2)))),
    }
}

fn wide(rng: &mut Rng) -> Wide {
    match rng.below(3) {
        0 => Wide::A,
        1 => Wide::B(rng.magnitude(64) as u64),
        _ => Wide::C {
            at: rng.next() as i32,
        },
    }
}

fn everything(rng: &mut Rng) -> Everything {
    Everything {
        numbers: numbers(rng),
        containers: containers(rng),
        conditional: conditional(rng),
        shapes: (0..rng.below(4)).map(|_| shape(rng)).collect(),
        wide: wide(rng),
    }
}

/// What Rust makes of `bytes` as a `T`: rejected, or decoded to JSON (`None` where JSON cannot
/// hold the value), as `rabbit-msg` decides.
fn rust_decode<T>(bytes: &[u8]) -> Option<Option<String>>
where
    T: hopnet_codec::Decode + Serialize + DeserializeOwned + PartialEq,
{
    let value: T = hopnet_codec::from_bytes(bytes).ok()?;
    let json = serde_json::to_string(&value).unwrap();
    let back = serde_json::from_str::<T>(&json).ok();
    Some((back.as_ref() == Some(&value)).then_some(json))
}

/// Byte strings of `T`: each value's encoding and its mutations, with what Rust makes of them.
fn cases_of<T>(ty: &str, values: &[T], rng: &mut Rng, out: &mut Vec<Value>)
where
    T: hopnet_codec::Encode + hopnet_codec::Decode + Serialize + DeserializeOwned + PartialEq,
{
    for value in values {
        let bytes = hopnet_codec::to_bytes(value).unwrap();
        let rust = rust_decode::<T>(&bytes);
        assert!(rust.is_some(), "Rust decodes what it encodes");
        out.push(decode_case(ty, &bytes, rust));
        for damaged in mutations(&bytes, rng) {
            out.push(decode_case(ty, &damaged, rust_decode::<T>(&damaged)));
        }
    }
}

/// A value Rust refuses to encode (its JSON reads, its encoding fails, or neither).
/// `base` (a JSON object) with each field's value replaced by the raw JSON text given, so that
/// numbers beyond what `serde_json` holds (past `u64`, below `i64`) stay exactly as written.
fn with(base: &Value, fields: &[(&str, &str)]) -> String {
    let mut object = base.clone();
    for (i, (field, _)) in fields.iter().enumerate() {
        assert!(object.get(*field).is_some(), "no field {field} in {base}");
        object[*field] = Value::String(format!("\u{0}{i}"));
    }
    let mut text = object.to_string();
    for (i, (_, raw)) in fields.iter().enumerate() {
        text = text.replace(&format!("\"\\u0000{i}\""), raw);
    }
    // A case must be refused for its value, not for being no JSON at all.
    assert!(
        serde_json::from_str::<Value>(&text).is_ok(),
        "not JSON: {text}"
    );
    text
}

fn refused<T: hopnet_codec::Encode + DeserializeOwned>(ty: &str, json: &str) -> Value {
    let encodes = serde_json::from_str::<T>(json)
        .ok()
        .is_some_and(|v| hopnet_codec::to_bytes(&v).is_ok());
    assert!(!encodes, "Rust encodes {ty} {json}");
    json!({ "type": ty, "json": json })
}

#[test]
fn generated_codecs_cover_every_encoding() {
    let module = TypeScript::new()
        .message::<Everything>("Everything")
        .message::<Numbers>("Numbers")
        .message::<Containers>("Containers")
        .message::<Conditional>("Conditional")
        .message::<Shape>("Shape")
        .message::<Wide>("Wide")
        .message::<u64>("u64")
        .message::<(i8, Option<String>)>("pair")
        .message::<Vec<()>>("empties")
        .generate()
        .unwrap();
    let dir = fresh_dir("encodings");
    std::fs::write(dir.join("src/encodings.ts"), module).unwrap();
    compile(&dir);

    let mut rng = Rng::new(2024);
    let mut decode = Vec::new();
    let all: Vec<Everything> = (0..150).map(|_| everything(&mut rng)).collect();
    cases_of("Everything", &all, &mut rng, &mut decode);
    let numbers: Vec<Numbers> = all.iter().map(|e| e.numbers.clone()).collect();
    cases_of("Numbers", &numbers, &mut rng, &mut decode);
    let containers: Vec<Containers> = all.iter().map(|e| e.containers.clone()).collect();
    cases_of("Containers", &containers, &mut rng, &mut decode);
    let conditional: Vec<Conditional> = all.iter().map(|e| e.conditional.clone()).collect();
    cases_of("Conditional", &conditional, &mut rng, &mut decode);
    let shapes: Vec<Shape> = (0..100).map(|_| shape(&mut rng)).collect();
    cases_of("Shape", &shapes, &mut rng, &mut decode);
    let wides: Vec<Wide> = (0..50).map(|_| wide(&mut rng)).collect();
    cases_of("Wide", &wides, &mut rng, &mut decode);
    let u64s: Vec<u64> = (0..100).map(|_| rng.magnitude(64) as u64).collect();
    cases_of("u64", &u64s, &mut rng, &mut decode);
    let pairs: Vec<(i8, Option<String>)> = (0..30)
        .map(|_| (rng.next() as i8, rng.one_in(2).then(|| rng.text(4))))
        .collect();
    cases_of("pair", &pairs, &mut rng, &mut decode);
    // A list of zero-bit items may claim at most 65,536 of them.
    let mut empties = vec![(); 65_536];
    let mut many = containers[0].clone();
    many.empties = empties.clone();
    empties.push(());
    cases_of("Containers", &[many], &mut rng, &mut decode);
    let too_many: Vec<u8> = {
        let mut bytes = Vec::new();
        let mut w = hopnet_codec::BitWriter::new(&mut bytes);
        w.write_varint(65_537, 4);
        w.finish();
        bytes
    };
    decode.push(decode_case(
        "empties",
        &too_many,
        rust_decode::<Vec<()>>(&too_many),
    ));

    let n = json!({"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0,"k":0,"l":0,
                   "m":0,"n":0,"o":0,"p":0,"q":0,"r":0,"s":0,"t":0,"u":false,"v":false});
    let c = json!({"maybe":null,"list":[],"short":[],"name":"","text":"","array":[1,2,3],
                   "pair":[1,""],"nested":[],"meters":1,"tuple":[1,true],"nothing":null,
                   "empties":[]});
    let conditional =
        json!({"breakable":true,"health":1,"distance":0,"warning":null,"big":0,"huge":null});
    let encode_errors = vec![
        refused::<Numbers>("Numbers", &with(&n, &[("a", "256")])),
        refused::<Numbers>("Numbers", &with(&n, &[("d", "18446744073709551616")])),
        refused::<Numbers>("Numbers", &with(&n, &[("e", "-1")])),
        refused::<Numbers>("Numbers", &with(&n, &[("f", "128")])),
        refused::<Numbers>("Numbers", &with(&n, &[("i", "-9223372036854775809")])),
        refused::<Numbers>("Numbers", &with(&n, &[("l", "2048")])),
        refused::<Numbers>("Numbers", &with(&n, &[("m", "32")])),
        refused::<Numbers>("Numbers", &with(&n, &[("n", "1099511627776")])),
        refused::<Numbers>("Numbers", &with(&n, &[("o", "-576460752303423489")])),
        refused::<Numbers>("Numbers", &with(&n, &[("q", "-6")])),
        refused::<Numbers>("Numbers", &with(&n, &[("q", "301")])),
        refused::<Numbers>("Numbers", &with(&n, &[("r", "9000000000000000001")])),
        refused::<Numbers>("Numbers", &with(&n, &[("u", "1")])),
        refused::<Containers>("Containers", &with(&c, &[("short", "[1,2,3,4]")])),
        refused::<Containers>("Containers", &with(&c, &[("name", r#""123456""#)])),
        refused::<Containers>("Containers", &with(&c, &[("array", "[1,2]")])),
        refused::<Containers>("Containers", &with(&c, &[("pair", "[1]")])),
        refused::<Conditional>(
            "Conditional",
            &with(&conditional, &[("breakable", "false"), ("health", "3")]),
        ),
        refused::<Conditional>("Conditional", &with(&conditional, &[("health", "null")])),
        refused::<Conditional>("Conditional", &with(&conditional, &[("distance", "100")])),
        refused::<Conditional>(
            "Conditional",
            &with(&conditional, &[("distance", "100"), ("warning", "16")]),
        ),
        refused::<Conditional>(
            "Conditional",
            &with(
                &conditional,
                &[("health", "null"), ("big", "5000000000000000001")],
            ),
        ),
        refused::<Shape>("Shape", r#"{"Marked":[0,5]}"#),
        refused::<Shape>("Shape", r#"{"Marked":[2,null]}"#),
        refused::<Shape>("Shape", r#"{"Square":[1]}"#),
        refused::<Wide>("Wide", r#"{"B":-1}"#),
        refused::<Wide>("Wide", r#"{"A":1}"#),
    ];

    let summary = conformance(
        &dir,
        "encodings",
        &json!({ "decode": decode, "encode_errors": encode_errors }),
    );
    println!("{summary}");
}
