//! Snapshot deltas made by the test, one per datagram: deltas against a full snapshot and
//! against a decoded delta, entities gone, new and changed; a delta whose baseline is not in the
//! capture and one whose bytes do not decode against theirs. tshark shows each as
//! `rabbit-msg pcap` prints it, its error included, in one pass and in two (`-2`).

use crate::capture::Datagram;
use crate::tshark;
use hopnet_snow_fight::delta::DeltaHeader;
use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_snapshot};
use hopnet_snow_fight::{
    ChannelId, Direction, Entity, EntityId, EntityKind, ObjectKind, ServerMessage, Snapshot,
};
use std::net::SocketAddr;
use std::time::Duration;

const CLIENT: u16 = 50_000;
const OTHER_CLIENT: u16 = 50_001;

/// A datagram of the spec's wire from the server carrying one whole message (`FIN`, chunk 0).
fn from_server(to: u16, sequence: u16, message: &[u8]) -> Datagram {
    let mut bytes = vec![0x04, 0];
    bytes.extend_from_slice(&sequence.to_be_bytes());
    bytes.extend_from_slice(message);
    assert!(bytes.len() <= 508, "one datagram of the spec");
    Datagram {
        time: Duration::from_millis(u64::from(sequence) * 10),
        src: SocketAddr::from(([127, 0, 0, 1], tshark::PORT)),
        dst: SocketAddr::from(([127, 0, 0, 1], to)),
        bytes,
    }
}

fn delta(time: u32, base: u32, now: &Snapshot, was: &Snapshot) -> Vec<u8> {
    let header = DeltaHeader {
        channel: ChannelId(9),
        time,
        base,
    };
    let mut bytes = Vec::new();
    header.encode(now, was, &mut bytes).unwrap();
    bytes
}

/// `was` with its first entity gone, its second dead, every player moved a little, and a new
/// entity at the end.
fn changed(was: &Snapshot, seed: u64) -> Snapshot {
    let mut entities: Vec<Entity> = was.entities[1..].to_vec();
    entities[0].kind = EntityKind::Dead;
    for e in &mut entities {
        match &mut e.kind {
            EntityKind::Player(p) => {
                p.position.x += 0.25;
                p.position.y = -p.position.y;
                p.health = p.health.saturating_sub(3);
                p.movement = Direction::from_bits_retain(p.movement.bits() ^ 0x81);
                p.holding = p.holding.map_or(Some(EntityId(4)), |_| None);
            }
            EntityKind::Object(o) => {
                // Options of floats: gone, new, and changed in their low bits.
                o.durability = match o.durability {
                    None => Some(3.5),
                    Some(d) if o.health % 2 == 0 => Some(d + 0.001),
                    Some(_) => None,
                };
                o.kind = match o.kind {
                    ObjectKind::Tree => ObjectKind::Mushroom,
                    ObjectKind::Mushroom => ObjectKind::Tree,
                };
                o.position.z = f32::MIN_POSITIVE / 8.0;
            }
            EntityKind::Dead => {}
        }
    }
    let fresh = sample_snapshot(3, seed).entities[2].clone();
    entities.push(Entity {
        id: EntityId(1000),
        ..fresh
    });
    Snapshot::new(entities)
}

/// Each server message's `(type, value, error)` as `rabbit-msg pcap` prints it, in order.
fn printed_by_pcap(pcap: &std::path::Path) -> Vec<(String, String, Option<String>)> {
    crate::pcap_lines(pcap)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            // The value's text as printed, as tshark's `hopnet.json` is compared.
            let value = line.find("\"value\":").map_or(String::new(), |at| {
                let rest = &line[at + "\"value\":".len()..];
                let end = rest.find(",\"error\":").unwrap_or(rest.len() - 1);
                rest[..end].to_string()
            });
            (
                v["type"].as_str().unwrap().to_string(),
                value,
                v["error"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn crafted_deltas_show_decoded_or_with_the_error_rabbit_msg_pcap_gives() {
    let a = sample_snapshot(8, DEFAULT_SEED);
    let b = changed(&a, DEFAULT_SEED + 1);
    let c = changed(&b, DEFAULT_SEED + 2);
    let full = hopnet_codec::to_bytes(&ServerMessage::snapshot(10, a.clone())).unwrap();
    let mut garbled = delta(14, 12, &a, &c);
    garbled.truncate(garbled.len() / 2);
    let datagrams = [
        from_server(CLIENT, 1, &full),
        from_server(CLIENT, 2, &delta(11, 10, &b, &a)),
        from_server(CLIENT, 3, &delta(12, 11, &c, &b)),
        // Unchanged: one bit of snapshot.
        from_server(CLIENT, 4, &delta(13, 12, &c, &c)),
        from_server(CLIENT, 5, &delta(15, 5, &a, &a)),
        from_server(CLIENT, 6, &garbled),
        // Another client's flow never lends its snapshots.
        from_server(OTHER_CLIENT, 1, &delta(11, 10, &b, &a)),
    ];
    let (dir, pcap) = tshark::written("crafted-deltas", &datagrams);
    let printed = printed_by_pcap(&pcap);
    assert_eq!(printed.len(), datagrams.len(), "{printed:?}");
    assert!(printed[1..].iter().all(|(t, ..)| t == "SnapshotDelta"));
    let decoded: Vec<bool> = printed.iter().map(|(_, _, e)| e.is_none()).collect();
    assert_eq!(decoded, [true, true, true, true, false, false, false]);
    // The decoded snapshots are the ones encoded.
    for (i, want) in [(1, &b), (2, &c), (3, &c)] {
        let value: serde_json::Value = serde_json::from_str(&printed[i].1).unwrap();
        let got: Snapshot = serde_json::from_value(value["snapshot"].clone()).unwrap();
        assert_eq!(&got, want, "delta {i}");
    }
    assert!(
        printed[4]
            .2
            .as_ref()
            .unwrap()
            .contains("tick 5 sent to 127.0.0.1:50000")
    );

    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(&dir, &[tshark::PORT]);
    let names = ["hopnet.message.type", "hopnet.json", "hopnet.error"];
    for two_pass in [false, true] {
        let frames = tshark::fields_in(&pcap, &lua, &names, two_pass);
        assert_eq!(frames.len(), datagrams.len());
        for (i, (frame, (ty, value, error))) in frames.iter().zip(&printed).enumerate() {
            let (types, jsons, errors) = (&frame[0].1, &frame[1].1, &frame[2].1);
            let what = format!("frame {} (two passes: {two_pass})", i + 1);
            assert_eq!(types, std::slice::from_ref(ty), "{what}");
            match error {
                None => {
                    assert_eq!(jsons, std::slice::from_ref(value), "{what}");
                    assert!(errors.is_empty(), "{what}: {errors:?}");
                }
                Some(e) => {
                    assert!(jsons.is_empty(), "{what}: {jsons:?}");
                    assert_eq!(errors.len(), 1, "{what}: {errors:?}");
                    if e.contains("is not in the capture") {
                        assert_eq!(&errors[0], e, "{what}: the missing baseline named");
                    } else {
                        assert!(
                            errors[0].starts_with("cannot decode: "),
                            "{what}: {errors:?}"
                        );
                    }
                }
            }
        }
    }
}

/// The baselines kept are bounded as `rabbit-msg pcap` bounds them: the last 256 ticks of a
/// flow, and 1,024 flows (the one used longest ago gives way). A delta against a tick or a
/// flow that gave way shows the same error in both.
#[test]
fn the_baselines_kept_are_bounded_as_rabbit_msg_pcap_bounds_them() {
    let empty = Snapshot::default();
    let full = |tick: u32| hopnet_codec::to_bytes(&ServerMessage::snapshot(tick, empty.clone()));
    let mut datagrams = Vec::new();
    let late_at = |time: u32, to: u16, sequence: u16, base: u32| {
        let mut d = from_server(to, sequence, &delta(time, base, &empty, &empty));
        d.time = Duration::from_secs(100);
        d
    };
    // 300 ticks to one client: the first 44 give way.
    for tick in 0..300u32 {
        datagrams.push(from_server(CLIENT, tick as u16, &full(tick).unwrap()));
    }
    let late = |to: u16, sequence: u16, base: u32| late_at(400, to, sequence, base);
    datagrams.push(late(CLIENT, 300, 43));
    datagrams.push(late(CLIENT, 301, 44));
    // 1,024 more flows: the first client's, used longest ago, gives way to the last.
    for port in 0..1024u16 {
        datagrams.push(from_server(40_000 + port, 0, &full(7).unwrap()));
    }
    // Against the snapshot the delta of tick 400 decoded to (a delta's own tick as its
    // baseline would be a scoped update's header).
    datagrams.push(late_at(401, CLIENT, 302, 400));
    datagrams.push(late(40_000, 1, 7));
    datagrams.push(late(41_023, 1, 7));
    let (dir, pcap) = tshark::written("bounded-deltas", &datagrams);
    let printed = printed_by_pcap(&pcap);
    let deltas: Vec<_> = printed
        .iter()
        .filter(|(t, ..)| t == "SnapshotDelta")
        .cloned()
        .collect();
    let decoded: Vec<bool> = deltas.iter().map(|(_, _, e)| e.is_none()).collect();
    // Tick 43 gave way, 44 did not; then the first client's whole flow gave way, and the
    // first of the new ones is still kept.
    assert_eq!(decoded, [false, true, false, true, true], "{deltas:?}");
    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(&dir, &[tshark::PORT]);
    let names = ["hopnet.message.type", "hopnet.json", "hopnet.error"];
    let shown: Vec<(String, Option<String>, Option<String>)> = tshark::fields(&pcap, &lua, &names)
        .into_iter()
        .filter(|f| f[0].1 == ["SnapshotDelta"])
        .map(|f| {
            (
                f[0].1[0].clone(),
                f[1].1.first().cloned(),
                f[2].1.first().cloned(),
            )
        })
        .collect();
    assert_eq!(shown.len(), deltas.len());
    for ((_, json, error), (_, value, want)) in shown.iter().zip(&deltas) {
        match want {
            None => assert_eq!(json.as_ref(), Some(value)),
            Some(e) => assert_eq!(error.as_ref(), Some(e)),
        }
    }
}

/// Scoped updates (`hopnet_snow_fight::scoped`) wear a delta's header with their own tick as
/// the baseline: both tools show them as `ScopedUpdate`, their envelope (channel, tick, the
/// update's length) and no missing baseline; a cut one with the error `rabbit-msg pcap` gives.
#[test]
fn scoped_updates_show_their_envelope_not_a_missing_baseline() {
    use hopnet_snow_fight::scoped::ScopedHeader;
    let a = sample_snapshot(4, DEFAULT_SEED);
    let b = changed(&a, DEFAULT_SEED + 1);
    let full = hopnet_codec::to_bytes(&ServerMessage::snapshot(10, a.clone())).unwrap();
    let scoped = |time: u32, update: &[u8]| {
        let mut bytes = Vec::new();
        ScopedHeader {
            channel: ChannelId(7),
            time,
        }
        .encode(update, &mut bytes)
        .unwrap();
        bytes
    };
    let mut cut = scoped(12, &[9; 40]);
    cut.truncate(cut.len() - 10);
    let datagrams = [
        from_server(CLIENT, 1, &full),
        from_server(CLIENT, 2, &scoped(11, &[1, 2, 3])),
        from_server(CLIENT, 3, &delta(12, 10, &b, &a)),
        from_server(CLIENT, 4, &scoped(13, &[])),
        from_server(CLIENT, 5, &cut),
    ];
    let (dir, pcap) = tshark::written("scoped-updates", &datagrams);
    let printed = printed_by_pcap(&pcap);
    let types: Vec<&str> = printed.iter().map(|(t, ..)| t.as_str()).collect();
    assert_eq!(
        types[1..],
        [
            "ScopedUpdate",
            "SnapshotDelta",
            "ScopedUpdate",
            "ScopedUpdate"
        ]
    );
    assert_eq!(printed[1].1, r#"{"channel":7,"time":11,"update_bytes":3}"#);
    assert_eq!(printed[3].1, r#"{"channel":7,"time":13,"update_bytes":0}"#);
    assert!(printed[1].2.is_none() && printed[3].2.is_none());
    // The delta after a scoped update still decodes against the full snapshot.
    assert!(printed[2].2.is_none(), "{:?}", printed[2]);
    assert!(
        printed[4]
            .2
            .as_deref()
            .is_some_and(|e| e.starts_with("cannot decode: ")),
        "{:?}",
        printed[4]
    );

    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(&dir, &[tshark::PORT]);
    let names = ["hopnet.message.type", "hopnet.json", "hopnet.error"];
    let frames = tshark::fields_in(&pcap, &lua, &names, false);
    assert_eq!(frames.len(), datagrams.len());
    for (i, (frame, (ty, value, error))) in frames.iter().zip(&printed).enumerate().skip(1) {
        let (types, jsons, errors) = (&frame[0].1, &frame[1].1, &frame[2].1);
        assert_eq!(types, std::slice::from_ref(ty), "frame {}", i + 1);
        match error {
            None => assert_eq!(jsons, std::slice::from_ref(value), "frame {}", i + 1),
            Some(_) => {
                assert!(jsons.is_empty(), "frame {}: {jsons:?}", i + 1);
                assert!(
                    errors.len() == 1 && errors[0].starts_with("cannot decode: "),
                    "frame {}: {errors:?}",
                    i + 1
                );
            }
        }
    }
}
