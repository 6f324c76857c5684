//! A round in which one bot asks for snapshot deltas: `rabbit-msg pcap` decodes every delta
//! against the snapshot its client was sent earlier in the capture, and each decoded snapshot
//! is the one the bot itself decoded; tshark shows every delta decoded as `rabbit-msg pcap`
//! prints it (its JSON, and its tree field by field), in one pass and in two, and every other
//! message of the server's with its fields.

use crate::{common, live, tree, tshark};
use hopnet_snow_fight::Snapshot;
use std::collections::BTreeMap;
use std::path::Path;

/// What a capture's messages from the server show: each other message's `(type, JSON)` and
/// each delta's value (header and snapshot) as `rabbit-msg pcap` prints it, counted.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    messages: BTreeMap<(String, String), usize>,
    deltas: BTreeMap<(String, String), usize>,
}

/// Every message the server sent in the capture at `pcap` (on `port`) is printed with its
/// value, the deltas among them decoded, each equal to the bot's own decoding of its tick.
fn every_delta_is_decoded(pcap: &Path, port: u16, round: &live::Round, source: &str) -> Shown {
    let text = common::run_ok(
        &[
            "pcap",
            &pcap.display().to_string(),
            "--port",
            &port.to_string(),
        ],
        "",
    );
    let (mut sent, mut deltas, mut compared) = (0u64, 0u64, 0u64);
    let mut shown = Shown::default();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v.get("error").is_none(), "{source}: not decoded: {line}");
        match v["type"].as_str().unwrap() {
            "ServerMessage" => {
                sent += 1;
                *shown
                    .messages
                    .entry(("ServerMessage".into(), printed_value(line)))
                    .or_default() += 1;
            }
            "SnapshotDelta" => {
                sent += 1;
                deltas += 1;
                *shown
                    .deltas
                    .entry(("SnapshotDelta".into(), printed_value(line)))
                    .or_default() += 1;
                let value = &v["value"];
                let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
                assert_eq!(keys, ["base", "channel", "snapshot", "time"], "{line}");
                let (time, base) = (value["time"].as_u64().unwrap(), value["base"].as_u64());
                assert!(base.unwrap() < time, "{line}");
                let snapshot: Snapshot = serde_json::from_value(value["snapshot"].clone())
                    .expect("the snapshot in decode's JSON form");
                if let Some(own) = round.decoded_by_the_delta_bot.get(&(time as u32)) {
                    assert_eq!(&snapshot, own, "{source}: the delta of tick {time}");
                    compared += 1;
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        sent, round.received,
        "every message the bots received is in the capture ({source})"
    );
    let (decoded_by_bot, missing) = round.deltas;
    assert!(decoded_by_bot > 0, "the bot decoded deltas");
    assert_eq!(missing, 0, "the bot held every baseline");
    assert!(
        deltas >= decoded_by_bot,
        "{deltas} deltas, {decoded_by_bot} decoded by the bot"
    );
    assert!(
        compared * 2 >= deltas,
        "{compared} of {deltas} deltas compared with the bot's own"
    );
    shown
}

/// A `rabbit-msg pcap` line's value, as its text was printed (as tshark's `hopnet.json` is
/// compared).
fn printed_value(line: &str) -> String {
    let at = line.find("\"value\":").unwrap() + "\"value\":".len();
    line[at..line.len() - 1].to_string()
}

/// What tshark with the generated dissector `lua` shows of the server's messages in `pcap`
/// (from its second pass when `two_pass`).
fn shown_by_tshark(lua: &Path, pcap: &Path, two_pass: bool) -> Shown {
    let names = [
        "hopnet.message.type",
        "hopnet.json",
        "hopnet.delta.channel",
        "hopnet.delta.time",
        "hopnet.delta.base",
        "hopnet.error",
    ];
    let mut shown = Shown::default();
    for frame in tshark::fields_in(pcap, lua, &names, two_pass) {
        let get = |i: usize| frame[i].1.clone();
        assert!(get(5).is_empty(), "an error: {frame:?}");
        let (types, jsons) = (get(0), get(1));
        assert_eq!(
            types.len(),
            jsons.len(),
            "a message without its JSON: {frame:?}"
        );
        let (channels, times, bases) = (get(2), get(3), get(4));
        let mut header = 0;
        for (t, j) in types.into_iter().zip(jsons) {
            match t.as_str() {
                "ServerMessage" => *shown.messages.entry((t, j)).or_default() += 1,
                "SnapshotDelta" => {
                    // The header's fields are the value's.
                    let value: serde_json::Value = serde_json::from_str(&j).unwrap();
                    let want = [&channels, &times, &bases].map(|f| f[header].clone());
                    let got = ["channel", "time", "base"].map(|k| value[k].to_string());
                    assert_eq!(got, want, "{frame:?}");
                    header += 1;
                    *shown.deltas.entry((t, j)).or_default() += 1;
                }
                _ => {}
            }
        }
        assert_eq!(header, channels.len(), "a delta's header alone: {frame:?}");
    }
    shown
}

/// The deltas' trees in tshark's PDML: every node shows its part of the value, checked field
/// by field (`tree::messages`); the values, as JSON, counted.
fn deltas_in_the_tree(lua: &Path, pcap: &Path) -> BTreeMap<(String, String), usize> {
    let pdml = tshark::run(
        pcap,
        lua,
        &[
            "-T",
            "pdml",
            "-Y",
            "hopnet.message.type == \"SnapshotDelta\"",
        ],
    );
    let mut out = BTreeMap::new();
    for json in tree::messages(&pdml) {
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        if value.get("snapshot").is_some() {
            *out.entry(("SnapshotDelta".into(), value.to_string()))
                .or_default() += 1;
        }
    }
    out
}

/// tshark shows what `rabbit-msg pcap` printed: every message with its JSON, every delta
/// decoded, in one pass and in two, and in its tree.
fn tshark_shows_the_same(dir: &Path, pcap: &Path, port: u16, by_pcap: &Shown, source: &str) {
    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(dir, &[port]);
    for two_pass in [false, true] {
        let by_tshark = shown_by_tshark(&lua, pcap, two_pass);
        let source = format!("{source} (two passes: {two_pass})");
        assert!(
            !by_tshark.deltas.is_empty(),
            "{source}: tshark shows deltas"
        );
        crate::assert_same(
            &by_tshark.deltas,
            &by_pcap.deltas,
            &format!("tshark's deltas on {source}"),
        );
        crate::assert_same(
            &by_tshark.messages,
            &by_pcap.messages,
            &format!("tshark on {source}"),
        );
    }
    let as_values: BTreeMap<(String, String), usize> = by_pcap
        .deltas
        .iter()
        .map(|((t, j), n)| {
            let v: serde_json::Value = serde_json::from_str(j).unwrap();
            ((t.clone(), v.to_string()), *n)
        })
        .collect();
    crate::assert_same(
        &deltas_in_the_tree(&lua, pcap),
        &as_values,
        &format!("the deltas' trees on {source}"),
    );
}

#[test]
fn a_recorded_round_with_a_delta_bot_shows_each_delta_decoded_as_the_bot_decoded_it() {
    let dir = tshark::scratch("recorded-deltas");
    let (recording, port, round) = live::record_a_round(&dir, true);
    let source = "hopnet's recording";
    let by_pcap = every_delta_is_decoded(&recording, port, &round, source);
    tshark_shows_the_same(&dir, &recording, port, &by_pcap, source);
}

#[test]
fn a_tcpdump_capture_with_a_delta_bot_shows_each_delta_decoded_as_the_bot_decoded_it() {
    let dir = tshark::scratch("live-deltas");
    let Some((pcap, port, round, summary)) = live::capture_a_round(&dir, true) else {
        return;
    };
    let source = format!("tcpdump: {summary}");
    let by_pcap = every_delta_is_decoded(&pcap, port, &round, &source);
    tshark_shows_the_same(&dir, &pcap, port, &by_pcap, &source);
}
