//! A game's own `#[rabbit(delta)]` types get their delta readers in the dissector the library
//! generates for them (`Wireshark::new`): every layout the derive writes (per struct, per field,
//! one field, enums, options, lists plain and keyed, arrays, tuples, floats as XOR, a field
//! with an encoding attribute, an `if` field), decoded by the generated Lua in tshark through
//! `hopnet_delta_json` as serde_json writes the value Rust decodes.

use crate::{capture, tshark};
use hopnet_codec::Rabbit;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[serde(deny_unknown_fields)]
pub struct World {
    tick: u64,
    #[rabbit(key = "id")]
    units: Vec<Unit>,
    scores: Vec<i32>,
    #[rabbit(max_len = 4)]
    tags: Vec<u8>,
    weather: Weather,
    mode: Mode,
    #[bits(5)]
    level: u8,
    wind: (f64, Option<f32>),
    corners: [i16; 2],
    name: String,
    flag: bool,
    #[rabbit(if = "*flag")]
    note: Option<u8>,
    big: i64,
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(delta = "per_field")]
#[serde(deny_unknown_fields)]
pub struct Unit {
    id: u32,
    hp: Option<u16>,
    at: Spot,
}

/// One field: its changed bit is the whole's.
#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[serde(deny_unknown_fields)]
pub struct Spot {
    x: f32,
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[bits(2)]
pub enum Weather {
    Clear,
    Rain { mm: f32, heavy: bool },
    Snow(u8),
}

#[derive(Rabbit, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rabbit(delta = "per_field")]
#[bits(1)]
pub enum Mode {
    Calm(u16),
    Storm { gusts: Vec<u8>, eye: Option<Spot> },
}

fn unit(id: u32, hp: Option<u16>, x: f32) -> Unit {
    Unit {
        id,
        hp,
        at: Spot { x },
    }
}

/// Worlds one after another, each changing the one before in its own ways.
fn worlds() -> Vec<World> {
    let first = World {
        tick: 1,
        units: vec![
            unit(1, Some(10), 1.5),
            unit(2, None, -3.0),
            unit(5, Some(7), 0.0),
        ],
        scores: vec![3, -4, 5],
        tags: vec![1, 2],
        weather: Weather::Clear,
        mode: Mode::Calm(9),
        level: 3,
        wind: (2.5, Some(1.25)),
        corners: [-7, 7],
        name: "nord".into(),
        flag: true,
        note: Some(4),
        big: i64::MIN,
    };
    let second = World {
        tick: (1 << 53) + 3,
        // 1 gone, 3 new, 2 changed, 5 unchanged.
        units: vec![
            unit(2, Some(3), -3.5),
            unit(3, None, 8.0),
            unit(5, Some(7), 0.0),
        ],
        scores: vec![3, 40],
        tags: vec![1, 2, 3],
        weather: Weather::Rain {
            mm: 0.5,
            heavy: false,
        },
        mode: Mode::Storm {
            gusts: vec![1],
            eye: None,
        },
        wind: (2.5000001, None),
        name: "nörd".into(),
        flag: false,
        note: None,
        big: -1,
        ..first.clone()
    };
    let third = World {
        units: vec![
            unit(3, Some(1), 8.0),
            unit(2, Some(3), -3.5),
            unit(9, None, 1e-40),
        ],
        scores: vec![3, 40, -7, 8],
        tags: vec![],
        weather: Weather::Rain {
            mm: -0.5,
            heavy: true,
        },
        mode: Mode::Storm {
            gusts: vec![1, 2],
            eye: Some(Spot { x: 4.0 }),
        },
        level: 31,
        wind: (-0.0, Some(f32::MAX)),
        corners: [-7, 300],
        flag: true,
        note: Some(255),
        big: i64::MAX,
        ..second.clone()
    };
    let fourth = World {
        weather: Weather::Snow(4),
        mode: Mode::Calm(10),
        units: vec![],
        ..third.clone()
    };
    vec![first, second, third.clone(), third, fourth]
}

/// `bytes` as a Lua string literal.
fn lua_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for b in bytes {
        let _ = write!(out, "\\{b}");
    }
    out.push('"');
    out
}

#[test]
fn a_games_own_delta_types_get_their_delta_readers() {
    use hopnet_msg::dissector::Wireshark;
    let worlds = worlds();
    let mut script = String::new();
    let mut want = Vec::new();
    // Every world against every other (itself included).
    for base in &worlds {
        for now in &worlds {
            let delta = hopnet_codec::delta::to_bytes(now, base).unwrap();
            assert_eq!(&hopnet_codec::delta::from_bytes(base, &delta).unwrap(), now);
            let _ = writeln!(
                script,
                "print(hopnet_delta_json(\"World\", {}, {}))",
                lua_bytes(&hopnet_codec::to_bytes(base).unwrap()),
                lua_bytes(&delta)
            );
            want.push(serde_json::to_string(now).unwrap());
        }
    }
    // Hostile bytes: the error, not a Lua error escaping.
    let base = hopnet_codec::to_bytes(&worlds[0]).unwrap();
    let _ = writeln!(
        script,
        "print(hopnet_delta_json(\"World\", {}, {}))",
        lua_bytes(&base),
        lua_bytes(&[0xff; 40])
    );
    let lua = Wireshark::new::<World, World>("World", "World")
        .port(7000)
        .generate()
        .unwrap();
    assert!(lua.contains("D[\"Unit\"]") && lua.contains("C[\"Weather\"]"));
    if !tshark::available() {
        return;
    }
    let one = capture::Datagram {
        time: std::time::Duration::ZERO,
        src: "10.0.0.2:40002".parse().unwrap(),
        dst: "10.0.0.1:7000".parse().unwrap(),
        bytes: vec![0x05, 0, 0, 0],
    };
    let (dir, pcap) = tshark::written("own-deltas", &[one]);
    let (path, test) = (dir.join("own.lua"), dir.join("deltas.lua"));
    std::fs::write(&path, lua).unwrap();
    std::fs::write(&test, script).unwrap();
    let out = std::process::Command::new("tshark")
        .arg("-r")
        .arg(&pcap)
        .arg("-q")
        .arg("-X")
        .arg(format!("lua_script:{}", path.display()))
        .arg("-X")
        .arg(format!("lua_script:{}", test.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !stderr.contains("Lua"), "{stderr}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), want.len() + 1, "{printed}");
    for (i, (got, want)) in lines.iter().zip(&want).enumerate() {
        let got: serde_json::Value = serde_json::from_str(got)
            .unwrap_or_else(|e| panic!("delta {i}: {got:?} is not JSON: {e}"));
        let want: serde_json::Value = serde_json::from_str(want).unwrap();
        assert_eq!(got, want, "delta {i}");
    }
    assert!(
        lines[want.len()].starts_with("nil\tthe delta: "),
        "{}",
        lines[want.len()]
    );
}
