//! The Snow Fight messages: the module `rabbit-msg codegen typescript` writes, against
//! `rabbit-msg` itself on the conformance vectors, random messages of every type, and bytes
//! mutated from them.

use super::cases::{Rng, decode_case, hex, mutations};
use super::common::run_ok;
use super::toolchain::{compile, conformance, fresh_dir, web_dir};
use hopnet_snow_fight::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[test]
fn generated_codecs_agree_with_run_ok() {
    let dir = fresh_dir("snow-fight");
    let module = dir.join("src/messages.ts");
    run_ok(
        &["codegen", "typescript", "--out", module.to_str().unwrap()],
        "",
    );
    std::fs::create_dir_all(dir.join("test")).unwrap();
    std::fs::copy(web_dir().join("test/typed.ts"), dir.join("test/typed.ts")).unwrap();
    compile(&dir);

    // Every byte string, by type: the vectors, random messages of every type, and damaged ones.
    let mut bytes: BTreeMap<&str, Vec<Vec<u8>>> = BTreeMap::new();
    let mut vectors = BTreeMap::new();
    for case in test_vectors::load("messages.json") {
        let (ty, hex) = (
            case["type"].as_str().unwrap(),
            case["hex"].as_str().unwrap(),
        );
        vectors.insert((ty.to_string(), hex.to_string()), case["json"].clone());
        bytes
            .entry(type_name(ty))
            .or_default()
            .push(test_vectors::unhex(hex));
    }
    let invalid = test_vectors::load("invalid.json");
    for case in &invalid {
        let ty = type_name(case["type"].as_str().unwrap());
        bytes
            .entry(ty)
            .or_default()
            .push(test_vectors::unhex(case["hex"].as_str().unwrap()));
    }
    let mut rng = Rng::new(31);
    for _ in 0..150 {
        for (ty, encoded) in random_messages(&mut rng) {
            let mut all = mutations(&encoded, &mut rng);
            all.push(encoded);
            bytes.entry(ty).or_default().extend(all);
        }
    }
    let world = sample::sample_event(1000, sample::DEFAULT_SEED);
    bytes
        .entry("ServerMessage")
        .or_default()
        .push(hopnet_codec::to_bytes(&world).unwrap());

    // What Rust makes of each: `rabbit-msg decode --batch`, one line a byte string.
    let mut decode = Vec::new();
    for (ty, all) in &bytes {
        let input: String = all.iter().map(|b| format!("{}\n", hex(b))).collect();
        let output = run_ok(&["decode", ty, "--batch"], &input);
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(lines.len(), all.len(), "one answer a line");
        for (b, line) in all.iter().zip(lines) {
            let rust = if line.starts_with("error: cannot decode") {
                None
            } else if line.starts_with("error: the message holds a NaN") {
                Some(None)
            } else {
                assert!(!line.starts_with("error"), "{ty} {}: {line}", hex(b));
                Some(Some(line.to_string()))
            };
            let mut case = decode_case(ty, b, rust);
            if let Some(json) = vectors.get(&(ty.to_string(), hex(b))) {
                case["vector"] = json.clone();
            }
            decode.push(case);
        }
    }
    // The vectors say which bytes must be rejected; Rust does reject them.
    for case in &invalid {
        let ty = type_name(case["type"].as_str().unwrap());
        let found = decode
            .iter()
            .find(|c| c["type"] == ty && c["hex"] == case["hex"])
            .unwrap();
        assert_eq!(found["valid"], false, "{case}");
    }

    let encode_errors = encode_errors();
    let summary = conformance(
        &dir,
        "messages",
        &json!({ "decode": decode, "encode_errors": encode_errors }),
    );
    println!("{summary}");
}

/// The name `rabbit-msg` and the module give the vectors' types.
fn type_name(ty: &str) -> &'static str {
    match ty {
        "ServerMessage" => "ServerMessage",
        "ClientMessage" => "ClientMessage",
        other => panic!("a vector of type {other}"),
    }
}

/// Values Rust refuses to encode, in the JSON form: each must be refused by the module too.
fn encode_errors() -> Vec<Value> {
    let won = r#""kind":{"GameOver":"Won"}"#;
    let cases: &[(&str, String)] = &[
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":4294967296,{won}}}}}"#),
        ),
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":-1,{won}}}}}"#),
        ),
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":1.5,{won}}}}}"#),
        ),
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":"1",{won}}}}}"#),
        ),
        ("ServerMessage", format!(r#"{{"Event":{{{won}}}}}"#)),
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":1,{won},"extra":0}}}}"#),
        ),
        (
            "ServerMessage",
            r#"{"Event":{"time":1,"kind":{"GameOver":"Drawn"}}}"#.into(),
        ),
        (
            "ServerMessage",
            r#"{"Event":{"time":1,"kind":"Snapshot"}}"#.into(),
        ),
        (
            "ServerMessage",
            format!(r#"{{"Event":{{"time":1,{won}}},"Response":{{}}}}"#),
        ),
        (
            "ServerMessage",
            r#"{"Response":{"channel":1,"kind":{"Pong":1}}}"#.into(),
        ),
        (
            "ServerMessage",
            r#"{"Response":{"channel":1,"kind":{"Error":5}}}"#.into(),
        ),
        (
            "ServerMessage",
            r#"{"Response":{"channel":1,"kind":{"Error":"\ud800"}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Action":{"Move":{"direction":256}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Action":{"Move":{"direction":-1}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Action":{"Throw":{"target":{"x":"1","y":0,"z":0}}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Action":{"Throw":{"target":{"x":1,"y":0}}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Action":{"Break":{"entity":-5}}}"#.into(),
        ),
        (
            "ClientMessage",
            r#"{"Request":{"channel":1,"kind":"Pong"}}"#.into(),
        ),
        ("ClientMessage", r#"["Request"]"#.into()),
        ("ClientMessage", "null".into()),
        ("ClientMessage", r#"{"Deltas":{}}"#.into()),
        ("Snapshot", r#"{"entities":{}}"#.into()),
        (
            "Snapshot",
            r#"{"entities":[{"id":1,"kind":"Dead"},5]}"#.into(),
        ),
        ("Dead", "0".into()),
        ("Pong", "{}".into()),
        ("Error", "[1]".into()),
        ("Direction", "1.5".into()),
        ("Point", r#"{"x":0,"y":0,"z":null}"#.into()),
    ];
    // Rust does refuse each of them.
    for (ty, json) in cases {
        let line = run_ok(&["encode", ty, "--batch"], &format!("{json}\n"));
        assert!(
            line.starts_with("error:"),
            "rabbit-msg encodes {ty} {json}: {line}"
        );
    }
    cases
        .iter()
        .map(|(ty, json)| json!({ "type": ty, "json": json }))
        .collect()
}

/// One random message of every type `rabbit-msg` takes, encoded, with its type's name.
fn random_messages(rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    fn bytes<T: hopnet_codec::Encode>(value: &T) -> Vec<u8> {
        hopnet_codec::to_bytes(value).unwrap()
    }
    let server = server_message(rng);
    let client = client_message(rng);
    let snapshot = snapshot(rng);
    let entity = entity(rng);
    let player = player(rng);
    let object = object(rng);
    let error = ErrorMessage::new(rng.text(30));
    let action = action(rng);
    vec![
        ("ServerMessage", bytes(&server)),
        ("ClientMessage", bytes(&client)),
        ("Event", bytes(&event(rng))),
        ("EventKind", bytes(&event(rng).kind)),
        ("GameOver", bytes(&game_over(rng))),
        ("Snapshot", bytes(&snapshot)),
        ("Entity", bytes(&entity)),
        ("EntityKind", bytes(&entity.kind)),
        ("Object", bytes(&object)),
        ("ObjectKind", bytes(&object.kind)),
        ("Player", bytes(&player)),
        ("Dead", Vec::new()),
        ("Direction", bytes(&player.movement)),
        ("Point", bytes(&point(rng))),
        ("Response", bytes(&response(rng))),
        ("ResponseKind", bytes(&response(rng).kind)),
        ("Error", bytes(&error)),
        ("ErrorMessage", bytes(&error)),
        ("Pong", Vec::new()),
        ("Connect", bytes(&connect(rng))),
        ("Request", bytes(&request(rng))),
        ("RequestKind", bytes(&request(rng).kind)),
        ("Action", bytes(&action)),
        (
            "Break",
            bytes(&Break {
                entity: option_id(rng),
            }),
        ),
        ("Throw", bytes(&Throw { target: point(rng) })),
        (
            "Move",
            bytes(&Move {
                direction: direction(rng),
            }),
        ),
    ]
}

fn u32_(rng: &mut Rng) -> u32 {
    rng.magnitude(32) as u32
}

fn option_id(rng: &mut Rng) -> Option<EntityId> {
    rng.one_in(2).then(|| EntityId(u32_(rng)))
}

fn point(rng: &mut Rng) -> Point {
    Point::new(rng.f32(), rng.f32(), rng.f32())
}

fn direction(rng: &mut Rng) -> Direction {
    Direction::from_bits_retain(rng.next() as u8)
}

fn object(rng: &mut Rng) -> Object {
    Object {
        position: point(rng),
        kind: if rng.one_in(2) {
            ObjectKind::Tree
        } else {
            ObjectKind::Mushroom
        },
        durability: rng.one_in(2).then(|| rng.f32()),
        health: u32_(rng),
        max_health: u32_(rng),
    }
}

fn player(rng: &mut Rng) -> Player {
    Player {
        position: point(rng),
        movement: direction(rng),
        holding: option_id(rng),
        breaking: option_id(rng),
        owner: PlayerId(u32_(rng)),
        health: u32_(rng),
        max_health: u32_(rng),
    }
}

fn entity(rng: &mut Rng) -> Entity {
    let kind = match rng.below(3) {
        0 => EntityKind::Object(object(rng)),
        1 => EntityKind::Player(player(rng)),
        _ => EntityKind::Dead,
    };
    Entity::new(u32_(rng), kind)
}

fn snapshot(rng: &mut Rng) -> Snapshot {
    (0..rng.below(6)).map(|_| entity(rng)).collect()
}

fn game_over(rng: &mut Rng) -> GameOver {
    if rng.one_in(2) {
        GameOver::Won
    } else {
        GameOver::Lost
    }
}

fn event(rng: &mut Rng) -> Event {
    let kind = if rng.one_in(3) {
        EventKind::GameOver(game_over(rng))
    } else {
        EventKind::Snapshot(snapshot(rng))
    };
    Event {
        time: u32_(rng),
        kind,
    }
}

fn connect(rng: &mut Rng) -> Connect {
    Connect {
        player: PlayerId(u32_(rng)),
        snapshot: snapshot(rng),
    }
}

fn response(rng: &mut Rng) -> Response {
    let kind = match rng.below(3) {
        0 => ResponseKind::Error(ErrorMessage::new(rng.text(40))),
        1 => ResponseKind::Pong,
        _ => ResponseKind::Connect(connect(rng)),
    };
    Response {
        channel: ChannelId(u32_(rng)),
        kind,
    }
}

fn server_message(rng: &mut Rng) -> ServerMessage {
    if rng.one_in(2) {
        ServerMessage::Event(event(rng))
    } else {
        ServerMessage::Response(response(rng))
    }
}

fn request(rng: &mut Rng) -> Request {
    Request {
        channel: ChannelId(u32_(rng)),
        kind: if rng.one_in(2) {
            RequestKind::Ping
        } else {
            RequestKind::Init
        },
    }
}

fn action(rng: &mut Rng) -> Action {
    match rng.below(3) {
        0 => Action::Break(Break {
            entity: option_id(rng),
        }),
        1 => Action::Throw(Throw { target: point(rng) }),
        _ => Action::Move(Move {
            direction: direction(rng),
        }),
    }
}

fn client_message(rng: &mut Rng) -> ClientMessage {
    match rng.below(3) {
        0 => ClientMessage::Request(request(rng)),
        1 => ClientMessage::Action(action(rng)),
        _ => ClientMessage::deltas(u32_(rng)),
    }
}
