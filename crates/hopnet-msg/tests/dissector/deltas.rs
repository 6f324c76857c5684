//! A round in which one bot asks for snapshot deltas: `rabbit-msg pcap` decodes every delta
//! against the snapshot its client was sent earlier in the capture, and each decoded snapshot
//! is the one the bot itself decoded.

use crate::{common, live, tshark};
use hopnet_snow_fight::Snapshot;
use std::path::Path;

/// Every message the server sent in the capture at `pcap` (on `port`) is printed with its
/// value, the deltas among them decoded, each equal to the bot's own decoding of its tick.
fn every_delta_is_decoded(pcap: &Path, port: u16, round: &live::Round, source: &str) {
    let text = common::run_ok(
        &["pcap", &pcap.display().to_string(), "--port", &port.to_string()],
        "",
    );
    let (mut sent, mut deltas, mut compared) = (0u64, 0u64, 0u64);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v.get("error").is_none(), "{source}: not decoded: {line}");
        match v["type"].as_str().unwrap() {
            "ServerMessage" => sent += 1,
            "SnapshotDelta" => {
                sent += 1;
                deltas += 1;
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
    assert!(deltas >= decoded_by_bot, "{deltas} deltas, {decoded_by_bot} decoded by the bot");
    assert!(
        compared * 2 >= deltas,
        "{compared} of {deltas} deltas compared with the bot's own"
    );
}

#[test]
fn a_recorded_round_with_a_delta_bot_shows_each_delta_decoded_as_the_bot_decoded_it() {
    let dir = tshark::scratch("recorded-deltas");
    let (recording, port, round) = live::record_a_round(&dir, true);
    every_delta_is_decoded(&recording, port, &round, "hopnet's recording");
}

#[test]
fn a_tcpdump_capture_with_a_delta_bot_shows_each_delta_decoded_as_the_bot_decoded_it() {
    let dir = tshark::scratch("live-deltas");
    let Some((pcap, port, round, summary)) = live::capture_a_round(&dir, true) else {
        return;
    };
    every_delta_is_decoded(&pcap, port, &round, &format!("tcpdump: {summary}"));
}
