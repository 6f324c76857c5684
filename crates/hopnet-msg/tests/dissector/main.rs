//! The Wireshark dissector that `rabbit-msg dissector wireshark` generates, run by the real
//! tshark on captures of the real hopnet machines, and `rabbit-msg pcap` on the same captures:
//! every message both show is what `rabbit-msg decode` gives for the same bytes.

#[path = "../common/mod.rs"]
mod common;

mod capture;
mod session;
mod tree;
mod tshark;

use session::Sent;
use std::collections::BTreeMap;
use std::path::Path;

/// `rabbit-msg decode`'s JSON of each message, by `(type, JSON)`, counted.
fn expected(messages: &[Sent]) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for m in messages {
        let json = common::run_ok(&["decode", m.ty, &test_vectors::hex(&m.bytes)], "");
        *out.entry((m.ty.to_string(), json.trim().to_string()))
            .or_default() += 1;
    }
    out
}

/// What tshark shows: each message's type and `hopnet.json`, counted.
fn shown_by_tshark(capture: &Path, lua: &Path) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for frame in tshark::fields(capture, lua, &["hopnet.message.type", "hopnet.json"]) {
        let (types, jsons) = (&frame[0].1, &frame[1].1);
        assert_eq!(types.len(), jsons.len(), "a message without its JSON: {frame:?}");
        for (t, j) in types.iter().zip(jsons) {
            *out.entry((t.clone(), j.clone())).or_default() += 1;
        }
    }
    out
}

/// What `rabbit-msg pcap` prints: each line's type and value, counted.
fn shown_by_pcap(capture: &Path) -> BTreeMap<(String, String), usize> {
    let text = common::run_ok(
        &["pcap", &capture.display().to_string(), "--port", &tshark::PORT.to_string()],
        "",
    );
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert!(v.get("value").is_some(), "a message that failed: {line}");
        // The value's text as printed (a parsed one would lose its key order and float text).
        let at = line.find("\"value\":").unwrap() + "\"value\":".len();
        let value = &line[at..line.len() - 1];
        *out.entry((v["type"].as_str().unwrap().to_string(), value.to_string()))
            .or_default() += 1;
    }
    out
}

/// Fails with the messages one side has and the other not (shortened), if any.
fn assert_same(got: &BTreeMap<(String, String), usize>, want: &BTreeMap<(String, String), usize>, who: &str) {
    let short = |k: &(String, String)| format!("{} {}", k.0, k.1.chars().take(300).collect::<String>());
    let missing: Vec<String> = want.iter().filter(|(k, n)| got.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {}", short(k))).collect();
    let extra: Vec<String> = got.iter().filter(|(k, n)| want.get(*k) != Some(n)).map(|(k, n)| format!("{n} x {}", short(k))).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{who}: expected but not shown as such:\n{}\nshown but not expected:\n{}",
        missing.join("\n"),
        extra.join("\n")
    );
}

#[test]
fn every_snow_fight_message_on_the_spec_wire_shows_as_rabbit_msg_decodes_it() {
    let mut messages = session::vectors();
    // Split over several chunks, reliable and unreliable.
    for delivery in [hopnet_proto::Delivery::Reliable, hopnet_proto::Delivery::Unreliable] {
        messages.push(Sent {
            ty: "ServerMessage",
            bytes: session::big_snapshot(150),
            delivery,
        });
    }
    let (datagrams, received) = session::plain_session(hopnet_proto::Config::default(), &messages);
    assert_eq!(
        received.by_server.len() + received.by_client.len(),
        messages.len(),
        "the machines delivered every message"
    );
    let want = expected(&messages);
    let dir = tshark::scratch("spec");
    let pcap = dir.join("spec.pcap");
    capture::write_pcap(&pcap, &datagrams);
    assert_same(&shown_by_pcap(&pcap), &want, "rabbit-msg pcap");
    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(&dir, &[tshark::PORT]);
    assert_same(&shown_by_tshark(&pcap, &lua), &want, "tshark");
    assert_tree(&pcap, &lua, &want);
}

/// Every message's tree in tshark's PDML shows every field as its JSON says, and the messages
/// are those expected (compared as JSON values: the tree's order is checked field by field).
fn assert_tree(capture: &Path, lua: &Path, want: &BTreeMap<(String, String), usize>) {
    let pdml = tshark::run(capture, lua, &["-T", "pdml", "-Y", "hopnet.message"]);
    let mut shown: Vec<String> = tree::messages(&pdml)
        .iter()
        .map(|j| serde_json::from_str::<serde_json::Value>(j).unwrap().to_string())
        .collect();
    let mut expected: Vec<String> = want
        .iter()
        .flat_map(|((_, j), n)| {
            std::iter::repeat_n(serde_json::from_str::<serde_json::Value>(j).unwrap().to_string(), *n)
        })
        .collect();
    shown.sort();
    expected.sort();
    assert_eq!(shown.len(), expected.len(), "messages in the tree");
    assert!(shown == expected, "the trees' values differ from decode's");
}
