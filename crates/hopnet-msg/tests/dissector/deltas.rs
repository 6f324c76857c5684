//! A round in which one bot asks for snapshot deltas: `rabbit-msg pcap` decodes every delta
//! against the snapshot its client was sent earlier in the capture, and each decoded snapshot
//! is the one the bot itself decoded; tshark shows every delta's header as `rabbit-msg pcap`
//! prints it, and every other message of the server's with its fields.

use crate::{common, live, tshark};
use hopnet_snow_fight::Snapshot;
use std::collections::BTreeMap;
use std::path::Path;

/// What a capture's messages from the server show: each other message's `(type, JSON)` and
/// each delta's `(channel, time, base)`, counted.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    messages: BTreeMap<(String, String), usize>,
    deltas: BTreeMap<(String, String, String), usize>,
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
                // The value's text as printed, as tshark's `hopnet.json` is compared.
                let at = line.find("\"value\":").unwrap() + "\"value\":".len();
                let value = line[at..line.len() - 1].to_string();
                *shown
                    .messages
                    .entry(("ServerMessage".into(), value))
                    .or_default() += 1;
            }
            "SnapshotDelta" => {
                sent += 1;
                deltas += 1;
                let value = &v["value"];
                let header = ["channel", "time", "base"].map(|k| value[k].to_string());
                let [channel, time, base] = header;
                *shown.deltas.entry((channel, time, base)).or_default() += 1;
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

/// What tshark with the generated dissector shows of the server's messages in `pcap`.
fn shown_by_tshark(dir: &Path, pcap: &Path, port: u16) -> Shown {
    let lua = tshark::dissector(dir, &[port]);
    let names = [
        "hopnet.message.type",
        "hopnet.json",
        "hopnet.delta.channel",
        "hopnet.delta.time",
        "hopnet.delta.base",
    ];
    let mut shown = Shown::default();
    for frame in tshark::fields(pcap, &lua, &names) {
        let get = |i: usize| frame[i].1.clone();
        // A delta has no JSON here: the other messages' JSON are theirs, in order.
        let others: Vec<String> = get(0)
            .into_iter()
            .filter(|t| t != "SnapshotDelta")
            .collect();
        let jsons = get(1);
        assert_eq!(
            others.len(),
            jsons.len(),
            "a message without its JSON: {frame:?}"
        );
        for (t, j) in others.into_iter().zip(jsons) {
            if t == "ServerMessage" {
                *shown.messages.entry((t, j)).or_default() += 1;
            }
        }
        let (channels, times, bases) = (get(2), get(3), get(4));
        assert!(channels.len() == times.len() && times.len() == bases.len());
        for ((c, t), b) in channels.into_iter().zip(times).zip(bases) {
            *shown.deltas.entry((c, t, b)).or_default() += 1;
        }
    }
    shown
}

/// tshark shows what `rabbit-msg pcap` printed: every message with its JSON, every delta with
/// its header.
fn tshark_shows_the_same(dir: &Path, pcap: &Path, port: u16, by_pcap: &Shown, source: &str) {
    if !tshark::available() {
        return;
    }
    let by_tshark = shown_by_tshark(dir, pcap, port);
    assert!(
        !by_tshark.deltas.is_empty(),
        "{source}: tshark shows deltas"
    );
    assert_eq!(
        by_tshark.deltas, by_pcap.deltas,
        "{source}: the deltas' headers"
    );
    crate::assert_same(
        &by_tshark.messages,
        &by_pcap.messages,
        &format!("tshark on {source}"),
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
