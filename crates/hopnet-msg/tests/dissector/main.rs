//! The Wireshark dissector that `rabbit-msg dissector wireshark` generates, run by the real
//! tshark on captures of the real hopnet machines, and `rabbit-msg pcap` on the same captures:
//! every message both show is what `rabbit-msg decode` gives for the same bytes.

#[path = "../common/mod.rs"]
mod common;

mod capture;
mod crafted_deltas;
mod deltas;
mod live;
mod own_deltas;
mod own_schema;
mod session;
mod tree;
mod tshark;

use session::Sent;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
        assert_eq!(
            types.len(),
            jsons.len(),
            "a message without its JSON: {frame:?}"
        );
        for (t, j) in types.iter().zip(jsons) {
            *out.entry((t.clone(), j.clone())).or_default() += 1;
        }
    }
    out
}

/// `rabbit-msg pcap CAPTURE --port PORT`'s lines (the game's port in the tests' captures).
fn pcap_lines(capture: &Path) -> String {
    common::run_ok(
        &[
            "pcap",
            &capture.display().to_string(),
            "--port",
            &tshark::PORT.to_string(),
        ],
        "",
    )
}

/// What `rabbit-msg pcap` prints: each line's type and value, counted.
fn shown_by_pcap(capture: &Path) -> BTreeMap<(String, String), usize> {
    let text = pcap_lines(capture);
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
fn assert_same(
    got: &BTreeMap<(String, String), usize>,
    want: &BTreeMap<(String, String), usize>,
    who: &str,
) {
    let short =
        |k: &(String, String)| format!("{} {}", k.0, k.1.chars().take(300).collect::<String>());
    let missing: Vec<String> = want
        .iter()
        .filter(|(k, n)| got.get(*k) != Some(n))
        .map(|(k, n)| format!("{n} x {}", short(k)))
        .collect();
    let extra: Vec<String> = got
        .iter()
        .filter(|(k, n)| want.get(*k) != Some(n))
        .map(|(k, n)| format!("{n} x {}", short(k)))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{who}: expected but not shown as such:\n{}\nshown but not expected:\n{}",
        missing.join("\n"),
        extra.join("\n")
    );
}

/// The capture `name` of `datagrams`, whose messages `rabbit-msg pcap` shows as `want` says
/// and, where tshark runs, the dissector too: the capture's directory, file and dissector.
fn shown_as_expected(
    name: &str,
    datagrams: &[capture::Datagram],
    want: &BTreeMap<(String, String), usize>,
) -> (tshark::Scratch, PathBuf, Option<PathBuf>) {
    let (dir, pcap) = tshark::written(name, datagrams);
    assert_same(&shown_by_pcap(&pcap), want, "rabbit-msg pcap");
    let lua = tshark::game_dissector(&dir);
    if let Some(lua) = &lua {
        assert_same(&shown_by_tshark(&pcap, lua), want, "tshark");
    }
    (dir, pcap, lua)
}

#[test]
fn every_snow_fight_message_on_the_spec_wire_shows_as_rabbit_msg_decodes_it() {
    let mut messages = session::vectors();
    // Split over several chunks, reliable and unreliable.
    for delivery in [
        hopnet_proto::Delivery::Reliable,
        hopnet_proto::Delivery::Unreliable,
    ] {
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
    let (_dir, pcap, lua) = shown_as_expected("spec", &datagrams, &want);
    if let Some(lua) = lua {
        assert_tree(&pcap, &lua, &want);
    }
}

/// Every message's tree in tshark's PDML shows every field as its JSON says, and the messages
/// are those expected (compared as JSON values: the tree's order is checked field by field).
fn assert_tree(capture: &Path, lua: &Path, want: &BTreeMap<(String, String), usize>) {
    let pdml = tshark::run(capture, lua, &["-T", "pdml", "-Y", "hopnet.message"]);
    let mut shown: Vec<String> = tree::messages(&pdml)
        .iter()
        .map(|j| {
            serde_json::from_str::<serde_json::Value>(j)
                .unwrap()
                .to_string()
        })
        .collect();
    let mut expected: Vec<String> = want
        .iter()
        .flat_map(|((_, j), n)| {
            std::iter::repeat_n(
                serde_json::from_str::<serde_json::Value>(j)
                    .unwrap()
                    .to_string(),
                *n,
            )
        })
        .collect();
    shown.sort();
    expected.sort();
    assert_eq!(shown.len(), expected.len(), "messages in the tree");
    assert!(shown == expected, "the trees' values differ from decode's");
}

/// Every value tshark shows of `field` over the whole capture.
fn all_values(capture: &Path, lua: &Path, field: &str) -> Vec<String> {
    tshark::fields(capture, lua, &[field])
        .into_iter()
        .flat_map(|f| f[0].1.clone())
        .collect()
}

#[test]
fn the_handshake_and_acknowledgements_are_shown_by_type() {
    let messages = &session::vectors()[..4];
    let (datagrams, _) = session::plain_session(hopnet_proto::Config::default(), messages);
    let (dir, pcap) = tshark::written("handshake", &datagrams);
    let Some(lua) = tshark::game_dissector(&dir) else {
        return;
    };
    let handshake = all_values(&pcap, &lua, "hopnet.handshake");
    assert_eq!(
        handshake[..4],
        [
            "Init (salt)",
            "Challenge (pepper)",
            "ChallengeResponse (seasoning)",
            "probe (salt)"
        ],
        "{handshake:?}"
    );
    // The 4-byte datagrams' values are their bytes, big-endian.
    let values = all_values(&pcap, &lua, "hopnet.handshake.value");
    let first = u32::from_be_bytes(datagrams[0].bytes[..4].try_into().unwrap());
    assert_eq!(values[0], format!("0x{first:08x}"));
    // Reliable chunks are acknowledged: header-only ACKs, shown with their flags.
    let flags = all_values(&pcap, &lua, "hopnet.flags");
    assert!(flags.iter().any(|f| f == "0x02"), "{flags:?}");
    let kinds = all_values(&pcap, &lua, "hopnet.kind");
    assert_eq!(kinds.len(), datagrams.len(), "every datagram is shown");
}

#[test]
fn the_extended_wire_shows_its_frames_and_each_message_with_its_delivery() {
    use hopnet_proto::Delivery;
    let config = hopnet_proto::Config::builder()
        .extensions(true)
        .crc(true)
        .compression(false)
        .build()
        .unwrap();
    let modes = [
        (Delivery::Reliable, "reliable"),
        (Delivery::Unreliable, "unreliable"),
        (Delivery::Sequenced, "sequenced"),
        (Delivery::ReliableOrdered, "reliable ordered"),
        (Delivery::SemiOrdered, "semi-ordered"),
        (Delivery::Tracked, "tracked"),
    ];
    let mut messages = session::vectors();
    for (i, m) in messages.iter_mut().enumerate() {
        m.delivery = modes[i % modes.len()].0;
    }
    messages.push(Sent {
        ty: "ServerMessage",
        bytes: session::big_snapshot(150),
        delivery: Delivery::ReliableOrdered,
    });
    let (datagrams, received) = session::plain_session(config, &messages);
    assert_eq!(
        received.by_server.len() + received.by_client.len(),
        messages.len()
    );
    assert!(
        datagrams.iter().any(|d| d.bytes[0] == 0xe2),
        "the wire is the extended one"
    );
    let want = expected(&messages);
    let (_dir, pcap, lua) = shown_as_expected("extended", &datagrams, &want);
    // The delivery of each message, as it was sent.
    let text = common::run_ok(&["pcap", &pcap.display().to_string(), "--port", "7000"], "");
    let mut deliveries = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        *deliveries
            .entry(v["delivery"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    let mut sent = BTreeMap::new();
    for m in &messages {
        let name = modes.iter().find(|(d, _)| *d == m.delivery).unwrap().1;
        *sent.entry(name.to_string()).or_insert(0) += 1;
    }
    assert_eq!(deliveries, sent, "rabbit-msg pcap's deliveries");
    let Some(lua) = lua else {
        return;
    };
    assert_tree(&pcap, &lua, &want);
    let mut shown = BTreeMap::new();
    for d in all_values(&pcap, &lua, "hopnet.message.delivery") {
        *shown.entry(d).or_insert(0) += 1;
    }
    assert_eq!(shown, sent, "tshark's deliveries");
    let negotiation = all_values(&pcap, &lua, "hopnet.negotiation.kind");
    assert!(
        negotiation.contains(&"offer".to_string()) && negotiation.contains(&"accept".to_string())
    );
    let frames = all_values(&pcap, &lua, "hopnet.frame");
    for name in ["data", "ACK", "ping"] {
        assert!(
            frames.iter().any(|f| f == name),
            "no {name} frame: {frames:?}"
        );
    }
    assert!(
        !all_values(&pcap, &lua, "hopnet.crc").is_empty(),
        "the CRC is shown"
    );
}

#[test]
fn compressed_messages_are_decompressed_by_pcap_and_shown_as_compressed_by_tshark() {
    let config = hopnet_proto::Config::builder()
        .extensions(true)
        .compression(true)
        .build()
        .unwrap();
    let messages = vec![Sent {
        ty: "ServerMessage",
        bytes: session::big_snapshot(200),
        delivery: hopnet_proto::Delivery::Reliable,
    }];
    let (datagrams, received) = session::plain_session(config, &messages);
    assert_eq!(received.by_client, [messages[0].bytes.clone()]);
    let (dir, pcap) = tshark::written("compressed", &datagrams);
    // On the wire, with every header and acknowledgement, it is shorter than the message.
    let on_wire: usize = datagrams.iter().map(|d| d.bytes.len()).sum();
    assert!(
        on_wire < messages[0].bytes.len(),
        "{on_wire} bytes on the wire"
    );
    assert_same(
        &shown_by_pcap(&pcap),
        &expected(&messages),
        "rabbit-msg pcap",
    );
    let Some(lua) = tshark::game_dissector(&dir) else {
        return;
    };
    let errors = all_values(&pcap, &lua, "hopnet.error");
    assert!(
        errors.iter().any(|e| e.contains("LZ4-compressed")),
        "{errors:?}"
    );
}

#[test]
fn netcode_packets_are_shown_by_type_and_their_bodies_as_encrypted() {
    use hopnet_proto::secure::{ConnectTokenBuilder, Key};
    let key = Key::generate();
    let link = hopnet_proto::sim::LinkConfig {
        delay: std::time::Duration::from_millis(5),
        ..Default::default()
    };
    let config = hopnet_proto::Config::default();
    let mut net = hopnet_proto::sim::SimNetwork::secure(1, config.clone(), link, 7, &key);
    net.record_batches(true);
    let token = ConnectTokenBuilder::new(7, 42, [net.server_addr()])
        .issue(&key, std::time::SystemTime::now())
        .unwrap();
    let bot = net.add_secure_client(config, token);
    net.client(bot)
        .send(b"\x00\x10\x10", hopnet_proto::Delivery::Reliable)
        .unwrap();
    let mut datagrams = Vec::new();
    session::run(
        &mut net,
        std::time::Duration::from_millis(500),
        &mut datagrams,
    );
    assert!(net.client(bot).is_connected());
    let (dir, pcap) = tshark::written("netcode", &datagrams);
    let out = common::run(&["pcap", &pcap.display().to_string(), "--port", "7000"], "");
    assert!(out.status.success());
    assert_eq!(common::stdout(&out), "", "no message can be read");
    assert!(
        common::stderr(&out).contains("netcode packets are sealed"),
        "{}",
        common::stderr(&out)
    );
    let Some(lua) = tshark::game_dissector(&dir) else {
        return;
    };
    let types = all_values(&pcap, &lua, "hopnet.netcode.type");
    assert_eq!(types.len(), datagrams.len(), "every datagram is netcode's");
    for t in [
        "connection request",
        "connection challenge",
        "connection response",
        "payload",
        "keep-alive",
    ] {
        assert!(types.iter().any(|x| x == t), "no {t}: {types:?}");
    }
    assert_eq!(
        all_values(&pcap, &lua, "hopnet.netcode.encrypted").len(),
        datagrams.len()
    );
    assert!(all_values(&pcap, &lua, "hopnet.json").is_empty());
}

/// `rabbit-msg pcap FILE --port 7000`'s lines, standard error and whether it succeeded.
fn pcap_run(file: &Path) -> (Vec<String>, String, bool) {
    let out = common::run(&["pcap", &file.display().to_string(), "--port", "7000"], "");
    let lines = common::stdout(&out).lines().map(str::to_string).collect();
    (lines, common::stderr(&out), out.status.success())
}

#[test]
fn a_pcapng_recording_of_raw_ip_reads_as_the_pcap_does() {
    let messages = session::vectors();
    let (datagrams, _) = session::plain_session(hopnet_proto::Config::default(), &messages);
    let dir = tshark::scratch("pcapng");
    let (pcap, pcapng) = (dir.join("a.pcap"), dir.join("a.pcapng"));
    capture::write_pcap(&pcap, &datagrams);
    capture::write_pcapng(&pcapng, &datagrams);
    let (from_pcap, _, ok) = pcap_run(&pcap);
    assert!(ok);
    let (from_pcapng, _, ok) = pcap_run(&pcapng);
    assert!(ok);
    assert_eq!(from_pcap.len(), messages.len());
    assert_eq!(from_pcapng, from_pcap, "the same lines, times included");
    // The time of the datagram that completed each message, from the nanosecond timestamps.
    let first: serde_json::Value = serde_json::from_str(&from_pcapng[0]).unwrap();
    let first_data = datagrams
        .iter()
        .find(|d| d.bytes.len() > 4 && d.src.port() == 7000);
    let want = (capture::EPOCH + first_data.unwrap().time).as_secs_f64();
    assert!(
        (first["time"].as_f64().unwrap() - want).abs() < 1e-6,
        "{first}"
    );
    assert_eq!(first["src"], "10.0.0.1:7000");
    assert_eq!(first["delivery"], "reliable");
    let Some(lua) = tshark::game_dissector(&dir) else {
        return;
    };
    assert_same(
        &shown_by_tshark(&pcapng, &lua),
        &expected(&messages),
        "tshark on the pcapng",
    );
}

#[test]
fn a_truncated_capture_prints_what_it_could_and_says_where_it_stopped() {
    let messages = session::vectors();
    let (datagrams, _) = session::plain_session(hopnet_proto::Config::default(), &messages);
    let dir = tshark::scratch("truncated");
    let whole = dir.join("whole.pcap");
    capture::write_pcap(&whole, &datagrams);
    let (all, _, ok) = pcap_run(&whole);
    assert!(ok);
    let bytes = std::fs::read(&whole).unwrap();
    let cut = dir.join("cut.pcap");
    // Into the middle of the last frame.
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let (lines, stderr, ok) = pcap_run(&cut);
    assert!(!ok, "a truncated capture is an error");
    assert!(
        stderr.contains(&format!("stops after frame {}", datagrams.len() - 1)),
        "{stderr}"
    );
    assert!(
        !lines.is_empty() && all.starts_with(&lines),
        "what it could read, as the whole file gives it"
    );
}

#[test]
fn files_that_are_not_captures_are_clear_errors() {
    let dir = tshark::scratch("bad");
    let cases: [(&str, &[u8], &str); 3] = [
        ("empty", b"", "not a pcap or pcapng file"),
        (
            "text",
            b"hello, this is not a capture at all",
            "not a pcap or pcapng file",
        ),
        (
            "ng",
            b"\x0a\x0d\x0d\x0a\x01\x00\x00\x00",
            "not a pcapng file",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (lines, stderr, ok) = pcap_run(&path);
        assert!(!ok && lines.is_empty(), "{name}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says),
            "{name}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{name}: one line: {stderr}");
    }
    let (_, stderr, ok) = pcap_run(&dir.join("absent"));
    assert!(!ok && stderr.contains("cannot open"), "{stderr}");
}

#[test]
fn a_round_of_the_game_server_with_bots_captured_by_tcpdump_shows_every_message() {
    let dir = tshark::scratch("live");
    let Some((pcap, port, round, summary)) = live::capture_a_round(&dir, false) else {
        return;
    };
    let source = format!("tcpdump: {summary}");
    every_server_message_is_shown(&dir, &pcap, port, round.received, &source);
}

#[test]
fn a_round_recorded_by_the_servers_driver_shows_every_message() {
    let dir = tshark::scratch("recorded");
    let (recording, port, round) = live::record_a_round(&dir, false);
    every_server_message_is_shown(&dir, &recording, port, round.received, "hopnet's recording");
}

/// Every message the bots received is in `pcap` (a capture of the round on `port`), printed
/// by `rabbit-msg pcap`, and tshark with the generated dissector shows each the same, field by
/// field.
fn every_server_message_is_shown(dir: &Path, pcap: &Path, port: u16, received: u64, source: &str) {
    let port = port.to_string();
    let text = common::run_ok(&["pcap", &pcap.display().to_string(), "--port", &port], "");
    let mut by_pcap: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            v.get("value").is_some(),
            "a message that does not decode: {line}"
        );
        if v["type"] == "ServerMessage" {
            let at = line.find("\"value\":").unwrap() + "\"value\":".len();
            *by_pcap
                .entry(("ServerMessage".into(), line[at..line.len() - 1].to_string()))
                .or_default() += 1;
            let value = &v["value"];
            let (outer, inner) = value.as_object().unwrap().iter().next().unwrap();
            let kind = &inner["kind"];
            let name = kind
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| kind.as_object().unwrap().keys().next().unwrap().clone());
            kinds.insert(format!("{outer}.{name}"));
        }
    }
    let sent: usize = by_pcap.values().sum();
    assert_eq!(
        sent as u64, received,
        "every message the bots received is in the capture ({source})"
    );
    for kind in [
        "Response.Connect",
        "Response.Pong",
        "Event.Snapshot",
        "Event.GameOver",
    ] {
        assert!(kinds.contains(kind), "no {kind} in {kinds:?}");
    }
    if !tshark::available() {
        return;
    }
    let lua = tshark::dissector(dir, &[port.parse().unwrap()]);
    let by_tshark: BTreeMap<_, _> = shown_by_tshark(pcap, &lua)
        .into_iter()
        .filter(|((t, _), _)| t == "ServerMessage")
        .collect();
    assert_same(&by_tshark, &by_pcap, &format!("tshark on {source}"));
    let all: BTreeMap<_, _> = shown_by_tshark(pcap, &lua);
    assert_tree(pcap, &lua, &all);
}

#[test]
fn gso_batches_captured_whole_are_split_back_into_their_datagrams() {
    let messages = session::vectors();
    let (datagrams, _) = session::plain_session(hopnet_proto::Config::default(), &messages);
    // As a capture on the sender's loopback shows a GSO batch: datagrams of one size sent
    // together, the last one possibly shorter, as one datagram.
    let mut merged: Vec<capture::Datagram> = Vec::new();
    let mut batches = 0;
    for d in datagrams {
        if let Some(last) = merged.last_mut() {
            let same_way = (last.src, last.dst) == (d.src, d.dst);
            if same_way && last.bytes.len() == d.bytes.len() && d.bytes.len() > 4 && batches < 10 {
                last.bytes.extend_from_slice(&d.bytes);
                batches += 1;
                continue;
            }
        }
        merged.push(d);
    }
    assert!(batches >= 5, "{batches} batches");
    let (_dir, pcap, lua) = shown_as_expected("gso", &merged, &expected(&messages));
    let Some(lua) = lua else {
        return;
    };
    assert_eq!(all_values(&pcap, &lua, "hopnet.gso_batch").len(), batches);
}

#[test]
fn a_games_own_schema_gets_its_own_dissector() {
    use hopnet_msg::dissector::Wireshark;
    use own_schema::{Probe, Sign};
    let client: std::net::SocketAddr = "10.0.0.2:40002".parse().unwrap();
    let server: std::net::SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let mut datagrams = Vec::new();
    let mut want = BTreeMap::new();
    let mut send = |ty: &str, bytes: Vec<u8>, json: String, to_server: bool| {
        let sequence = datagrams.len() as u16;
        let mut d = vec![0x05, 0];
        d.extend_from_slice(&sequence.to_be_bytes());
        d.extend_from_slice(&bytes);
        let (src, dst) = if to_server {
            (client, server)
        } else {
            (server, client)
        };
        datagrams.push(capture::Datagram {
            time: std::time::Duration::from_millis(datagrams.len() as u64),
            src,
            dst,
            bytes: d,
        });
        *want.entry((ty.to_string(), json)).or_insert(0) += 1;
    };
    for p in own_schema::probes() {
        let bytes = hopnet_codec::to_bytes(&p).unwrap();
        send("Probe", bytes, serde_json::to_string(&p).unwrap(), true);
    }
    for s in own_schema::signs() {
        let bytes = hopnet_codec::to_bytes(&s).unwrap();
        send("Sign", bytes, serde_json::to_string(&s).unwrap(), false);
    }
    let lua = Wireshark::new::<Probe, Sign>("Probe", "Sign")
        .port(7000)
        .generate()
        .unwrap();
    // What the readers cannot read is refused by name.
    let refused = Wireshark::new::<u128, Sign>("Big", "Sign")
        .generate()
        .unwrap_err();
    assert!(refused.reason.contains("128-bit"), "{refused}");
    if !tshark::available() {
        return;
    }
    let (dir, pcap) = tshark::written("own", &datagrams);
    let path = dir.join("own.lua");
    std::fs::write(&path, lua).unwrap();
    assert_same(&shown_by_tshark(&pcap, &path), &want, "tshark");
    assert_tree(&pcap, &path, &want);
}
