//! The `rabbit-msg` binary, run as a user would: the contract of `vectors/README.md`.

mod common;

use common::{run, stderr, stdout};
use hopnet_snow_fight::{ClientMessage, ServerMessage};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Debug;
use std::process::Output;

const MESSAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/messages.json");
const INVALID: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/invalid.json");

/// A failure as the contract says: exit status 1, nothing on standard output, and exactly one
/// line on standard error, starting with `error: `.
fn assert_fails(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
    let err = stderr(out);
    assert!(err.starts_with("error: "), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(!err.contains("panicked"), "stderr: {err}");
    err
}

fn cases(path: &str, ty: &str) -> Vec<Value> {
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all.into_iter().filter(|c| c["type"] == ty).collect()
}

/// Encodes every vector in one batch run per type.
#[test]
fn batch_encode_matches_vectors() {
    for ty in ["ServerMessage", "ClientMessage"] {
        let cases = cases(MESSAGES, ty);
        let input: String = cases.iter().map(|c| format!("{}\n", c["json"])).collect();
        let out = run(&["encode", ty, "--batch"], &input);
        assert!(out.status.success(), "{}", stderr(&out));
        let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
        assert_eq!(lines.len(), cases.len());
        for (line, case) in lines.iter().zip(&cases) {
            assert_eq!(line, case["hex"].as_str().unwrap(), "{}", case["json"]);
        }
    }
}

/// Decodes every vector of type `T` (named `ty`) in one batch run; each output line reads
/// back as the value, and writes as the vector's value does.
fn batch_decode<T: DeserializeOwned + Serialize + PartialEq + Debug>(ty: &str) {
    let cases = cases(MESSAGES, ty);
    let input: String = cases
        .iter()
        .map(|c| format!("{}\n", c["hex"].as_str().unwrap()))
        .collect();
    let out = run(&["decode", ty, "--batch"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), cases.len());
    for (line, case) in lines.iter().zip(&cases) {
        let got: T = serde_json::from_str(line).expect(line);
        let want: T = serde_json::from_value(case["json"].clone()).unwrap();
        assert_eq!(got, want);
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
    }
}

#[test]
fn batch_decode_matches_vectors() {
    batch_decode::<ServerMessage>("ServerMessage");
    batch_decode::<ClientMessage>("ClientMessage");
}

#[test]
fn batch_goes_on_after_a_bad_line() {
    let out = run(
        &["decode", "ClientMessage", "--batch"],
        "000000\nnot hex\n080000\n\n040800\r\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[0], r#"{"Request":{"channel":0,"kind":"Ping"}}"#);
    assert!(lines[1].starts_with("error: invalid hex"), "{}", lines[1]);
    assert!(lines[2].starts_with("error: cannot decode"), "{}", lines[2]);
    assert!(lines[3].starts_with("error: "), "{}", lines[3]);
    assert_eq!(lines[4], r#"{"Action":{"Move":{"direction":0}}}"#);

    let out = run(
        &["encode", "ServerMessage", "--batch"],
        "{\"Event\": {\"time\": 0, \"kind\": {\"GameOver\": \"Lost\"}}}\n\
         {\"Event\": {\"time\": -1, \"kind\": {\"GameOver\": \"Lost\"}}}\n\
         {\"Nope\": 1}\n\
         {\"Response\": {\"channel\": 1, \"kind\": \"Pong\"}}\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], "0008");
    assert!(lines[1].starts_with("error: invalid JSON"), "{}", lines[1]);
    assert!(lines[2].starts_with("error: invalid JSON"), "{}", lines[2]);
    assert!(!lines[3].starts_with("error"), "{}", lines[3]);
}

#[test]
fn single_encode_and_decode() {
    let json = r#"{"Action": {"Move": {"direction": 255}}}"#;
    let out = run(&["encode", "ClientMessage"], json);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "04f80f\n");

    let out = run(&["decode", "ClientMessage", "04f80f"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"Action\":{\"Move\":{\"direction\":255}}}\n"
    );

    // Hex from standard input, upper case accepted.
    let out = run(&["decode", "ClientMessage"], "04F80F\n");
    assert_eq!(
        stdout(&out),
        "{\"Action\":{\"Move\":{\"direction\":255}}}\n"
    );
}

#[test]
fn every_spec_type_is_accepted() {
    let examples = [
        ("Point", r#"{"x": 1.5, "y": -2.0, "z": 0.0}"#),
        ("Direction", "5"),
        ("GameOver", r#""Won""#),
        ("Error", r#""no such player""#),
        ("ErrorMessage", r#""no""#),
        ("Dead", "null"),
        ("Pong", "null"),
        ("Break", r#"{"entity": 7}"#),
        ("Throw", r#"{"target": {"x": 0.0, "y": 0.0, "z": 0.0}}"#),
        ("Move", r#"{"direction": 1}"#),
        ("Request", r#"{"channel": 3, "kind": "Init"}"#),
        ("RequestKind", r#""Ping""#),
        ("Action", r#"{"Move": {"direction": 1}}"#),
        ("Snapshot", r#"{"entities": [{"id": 1, "kind": "Dead"}]}"#),
        ("Entity", r#"{"id": 1, "kind": "Dead"}"#),
        ("EntityKind", r#""Dead""#),
        ("ObjectKind", r#""Mushroom""#),
        (
            "Object",
            r#"{"position": {"x": 0.0, "y": 0.0, "z": 0.0}, "kind": "Tree", "durability": null, "health": 1, "max_health": 2}"#,
        ),
        (
            "Player",
            r#"{"position": {"x": 0.0, "y": 0.0, "z": 0.0}, "movement": 0, "holding": null, "breaking": 3, "owner": 1, "health": 1, "max_health": 2}"#,
        ),
        ("Event", r#"{"time": 3, "kind": {"GameOver": "Lost"}}"#),
        ("EventKind", r#"{"GameOver": "Won"}"#),
        ("Response", r#"{"channel": 3, "kind": "Pong"}"#),
        ("ResponseKind", r#"{"Error": "bad"}"#),
        ("Connect", r#"{"player": 2, "snapshot": {"entities": []}}"#),
        (
            "ServerMessage",
            r#"{"Event": {"time": 1, "kind": {"GameOver": "Won"}}}"#,
        ),
        (
            "ClientMessage",
            r#"{"Request": {"channel": 1, "kind": "Ping"}}"#,
        ),
    ];
    for (ty, json) in examples {
        let out = run(&["encode", ty], json);
        assert!(out.status.success(), "{ty}: {}", stderr(&out));
        let hex = stdout(&out).trim().to_string();
        let out = run(&["decode", ty, &hex], "");
        assert!(out.status.success(), "{ty} {hex}: {}", stderr(&out));
        let back: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let want: Value = serde_json::from_str(json).unwrap();
        assert_eq!(back, want, "{ty}");
    }
}

#[test]
fn invalid_vectors_fail_cleanly() {
    for case in cases(INVALID, "ServerMessage")
        .into_iter()
        .chain(cases(INVALID, "ClientMessage"))
    {
        let ty = case["type"].as_str().unwrap();
        let hex = case["hex"].as_str().unwrap();
        let out = run(&["decode", ty], hex);
        let err = assert_fails(&out);
        assert!(err.starts_with("error: cannot decode"), "{ty} {hex}: {err}");
    }
}

#[test]
fn bad_input_is_one_line_and_status_1() {
    for (args, stdin) in [
        (&["encode", "ServerMessage"][..], "{"),
        (&["encode", "ServerMessage"][..], ""),
        (
            &["encode", "ServerMessage"][..],
            r#"{"Event": {"time": 1}}"#,
        ),
        (&["encode", "Direction"][..], "256"),
        (&["decode", "ServerMessage", "0"][..], ""),
        (&["decode", "ServerMessage", "zz"][..], ""),
        (&["decode", "ServerMessage", "010800"][..], ""),
        (&["decode", "NoSuchType", "00"][..], ""),
        (&["encode", "NoSuchType"][..], "{}"),
        (&["schema", "NoSuchType"][..], ""),
        (&["frobnicate"][..], ""),
        (&[][..], ""),
        (&["decode"][..], ""),
        (&["decode", "ServerMessage", "00", "--batch"][..], ""),
    ] {
        let out = run(args, stdin);
        assert_fails(&out);
    }
}

#[test]
fn not_a_number_float_is_refused() {
    // Throw at (NaN, 0, 0): decodes, but JSON cannot hold NaN.
    let bytes = hopnet_codec::to_bytes(&ClientMessage::Action(hopnet_snow_fight::Action::Throw(
        hopnet_snow_fight::Throw {
            target: hopnet_snow_fight::Point::new(f32::NAN, 0.0, 0.0),
        },
    )))
    .unwrap();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let err = assert_fails(&run(&["decode", "ClientMessage", &hex], ""));
    assert!(err.contains("NaN"), "{err}");
}

#[test]
fn schema_prints_the_spec_notation() {
    let out = run(&["schema"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in hopnet_snow_fight::notation::MESSAGES {
        assert!(
            text.contains(&format!("## {name}\n")) || *name == "Error",
            "{name}"
        );
    }
    assert!(text.contains("- `time` (u32): The tick index at which the event happened."));

    let out = run(&["schema", "Player"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("## Player\n"), "{text}");
    assert!(text.contains(
        "- `is_holding` (u1): 1 if `holding` follows\n- `holding` (if `is_holding` = 1 then u32)"
    ));

    let out = run(&["schema", "Dead"], "");
    assert!(stdout(&out).contains("Empty"));
}

#[test]
fn help_works() {
    let out = run(&["--help"], "");
    assert!(out.status.success());
    assert!(stdout(&out).contains("encode"));
}

// ---------------------------------------------------------------------------------------------
// `--dialect`: the original implementation's 1-bit `ClientMessage` tag (`hopnet_snow_fight::Dialect`).

use hopnet_snow_fight::Dialect;

/// Every `ClientMessage` vector, encoded with `--dialect original`: the library's original
/// encoding of the same message, and it decodes back to the vector's JSON with the flag (and
/// not without it, where the bytes differ).
#[test]
fn dialect_original_encodes_and_decodes_client_messages() {
    let cases = cases(MESSAGES, "ClientMessage");
    assert!(!cases.is_empty());
    let input: String = cases.iter().map(|c| format!("{}\n", c["json"])).collect();
    let out = run(
        &[
            "encode",
            "ClientMessage",
            "--batch",
            "--dialect",
            "original",
        ],
        &input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let hexes: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(hexes.len(), cases.len());
    for (hex, case) in hexes.iter().zip(&cases) {
        let message: ClientMessage = serde_json::from_value(case["json"].clone()).unwrap();
        let want: String = Dialect::Original
            .to_bytes(&message)
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(*hex, want, "{}", case["json"]);
        assert_ne!(hex, case["hex"].as_str().unwrap(), "the tags differ");
    }

    let input: String = hexes.iter().map(|h| format!("{h}\n")).collect();
    let out = run(
        &[
            "decode",
            "ClientMessage",
            "--dialect",
            "original",
            "--batch",
        ],
        &input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    for (line, case) in stdout(&out).lines().zip(&cases) {
        let got: ClientMessage = serde_json::from_str(line).expect(line);
        let want: ClientMessage = serde_json::from_value(case["json"].clone()).unwrap();
        assert_eq!(got, want);
    }

    // The original client's Init on channel 0, both ways, and refused by the spec dialect.
    let out = run(
        &["encode", "ClientMessage", "--dialect", "original"],
        r#"{"Request": {"channel": 0, "kind": "Init"}}"#,
    );
    assert_eq!(stdout(&out), "0008\n", "{}", stderr(&out));
    let out = run(
        &["decode", "ClientMessage", "--dialect", "original", "0008"],
        "",
    );
    assert_eq!(
        stdout(&out),
        "{\"Request\":{\"channel\":0,\"kind\":\"Init\"}}\n",
        "{}",
        stderr(&out)
    );
    let err = assert_fails(&run(&["decode", "ClientMessage", "0008"], ""));
    assert!(err.starts_with("error: cannot decode"), "{err}");
    // ... and the other way round: the spec's encoding is no original message.
    let err = assert_fails(&run(
        &["decode", "ClientMessage", "--dialect", "original", "04f80f"],
        "",
    ));
    assert!(err.starts_with("error: cannot decode"), "{err}");
}

/// Every type but `ClientMessage` is the same in both dialects, and `--dialect spec` is the
/// default: the vectors come out unchanged either way.
#[test]
fn dialect_changes_nothing_else() {
    let server = cases(MESSAGES, "ServerMessage");
    let json: String = server.iter().map(|c| format!("{}\n", c["json"])).collect();
    let hex: String = server
        .iter()
        .map(|c| format!("{}\n", c["hex"].as_str().unwrap()))
        .collect();
    for dialect in ["original", "spec"] {
        let out = run(
            &["encode", "ServerMessage", "--batch", "--dialect", dialect],
            &json,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), hex, "{dialect}");
        let out = run(
            &["decode", "ServerMessage", "--batch", "--dialect", dialect],
            &hex,
        );
        let plain = run(&["decode", "ServerMessage", "--batch"], &hex);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&plain), "{dialect}");
    }
    for (ty, json) in [
        ("Request", r#"{"channel": 3, "kind": "Init"}"#),
        ("Action", r#"{"Move": {"direction": 1}}"#),
        ("Point", r#"{"x": 1.5, "y": -2.0, "z": 0.0}"#),
    ] {
        let plain = run(&["encode", ty], json);
        let out = run(&["encode", ty, "--dialect", "original"], json);
        assert!(out.status.success(), "{ty}: {}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&plain), "{ty}");
    }

    let clients = cases(MESSAGES, "ClientMessage");
    let json: String = clients.iter().map(|c| format!("{}\n", c["json"])).collect();
    let out = run(
        &["encode", "ClientMessage", "--batch", "--dialect", "spec"],
        &json,
    );
    let want: String = clients
        .iter()
        .map(|c| format!("{}\n", c["hex"].as_str().unwrap()))
        .collect();
    assert_eq!(stdout(&out), want);
}

#[test]
fn an_unknown_dialect_is_one_line_and_status_1() {
    for args in [
        &["decode", "ClientMessage", "--dialect", "Original", "0008"][..],
        &["encode", "ClientMessage", "--dialect", ""][..],
        &["schema", "--dialect", "original"][..],
    ] {
        let err = assert_fails(&run(args, "{}"));
        assert!(err.contains("dialect"), "{args:?}: {err}");
    }
}
