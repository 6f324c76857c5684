//! Recording on real sockets: what a driver records in both directions, read back, and read by
//! tshark as UDP between the peers; the files' rotation; a failing file that never stops play.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use hopnet::record::{Direction, RecordConfig, Recorder, Recording};
use hopnet::{Client, Config, Delivery, Event, Server, ServerEvent};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hopnet-record-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Connects a client, sends `n` messages, and has the server echo them, both drivers
/// recording; returns the two recordings.
fn echo_session(dir: &Path, n: usize) -> (Recording, Recording) {
    let mut server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    assert!(server.recorder().is_none(), "off by default");
    server
        .record(RecordConfig::new(dir.join("server.pcapng")))
        .unwrap();
    let record = RecordConfig::new(dir.join("client.pcapng"));
    let mut client =
        Client::connect_recorded(server.local_addr().unwrap(), Config::default(), record).unwrap();
    for i in 0..n {
        client
            .send(format!("message {i}").as_bytes(), Delivery::Reliable)
            .unwrap();
    }
    let mut echoed = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    while echoed < n && Instant::now() < deadline {
        server.poll(Duration::ZERO).unwrap();
        while let Some(ServerEvent {
            connection, event, ..
        }) = server.poll_event()
        {
            if let Event::Message { bytes, .. } = event {
                server.send(connection, &bytes, Delivery::Reliable).unwrap();
            }
        }
        client.poll(Duration::from_millis(2)).unwrap();
        while let Some(event) = client.poll_event() {
            echoed += usize::from(matches!(event, Event::Message { .. }));
        }
    }
    assert_eq!(echoed, n);
    // A last round each, so that the final acknowledgements cross too.
    server.poll(Duration::from_millis(20)).unwrap();
    client.poll(Duration::from_millis(20)).unwrap();
    let server_rec = server.stop_recording().unwrap();
    let client_rec = client.stop_recording().unwrap();
    assert!(server_rec.error().is_none() && client_rec.error().is_none());
    assert!(server.recorder().is_none());
    let server_rec = Recording::read(dir.join("server.pcapng")).unwrap();
    let client_rec = Recording::read(dir.join("client.pcapng")).unwrap();
    (server_rec, client_rec)
}

#[test]
fn a_driver_records_both_directions_with_both_addresses() {
    let dir = scratch("drivers");
    let (server, client) = echo_session(&dir, 5);
    let (server_addr, client_addr) = (server.local, client.local);
    // The client is bound to 0.0.0.0: the server sees it at 127.0.0.1.
    assert!(client_addr.ip().is_unspecified());
    let client_seen = SocketAddr::new([127, 0, 0, 1].into(), client_addr.port());
    assert!(server.datagrams.iter().all(|d| d.peer == client_seen));
    assert!(client.datagrams.iter().all(|d| d.peer == server_addr));
    let bytes = |r: &Recording, dir: Direction| -> Vec<Vec<u8>> {
        let d = r.datagrams.iter().filter(|d| d.direction == dir);
        d.map(|d| d.bytes.clone()).collect()
    };
    // On loopback nothing is lost: what one side wrote is what the other was handed. The
    // server's last datagrams may leave after the client stopped recording.
    let client_out = bytes(&client, Direction::Outbound);
    let server_in = bytes(&server, Direction::Inbound);
    assert!(client_out.len() >= 6, "the handshake and five messages");
    assert_eq!(server_in, client_out);
    let server_out = bytes(&server, Direction::Outbound);
    let client_in = bytes(&client, Direction::Inbound);
    assert!(
        server_out.starts_with(&client_in),
        "{} {}",
        server_out.len(),
        client_in.len()
    );
    // Times are in order and within the session.
    let times: Vec<Duration> = server.datagrams.iter().map(|d| d.at).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert!(*times.last().unwrap() < Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether tshark runs here; under CI (`CI=true`) its absence fails the test.
fn tshark() -> bool {
    if Command::new("tshark").arg("--version").output().is_ok() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("tshark is missing (Debian's package tshark)");
    }
    eprintln!("skipped: tshark is not installed (Debian's package tshark)");
    false
}

#[test]
fn tshark_reads_a_recording_as_udp_between_the_peers() {
    if !tshark() {
        return;
    }
    let dir = scratch("tshark");
    let (server, client) = echo_session(&dir, 3);
    let out = Command::new("tshark")
        .arg("-r")
        .arg(dir.join("server.pcapng"))
        .args(["-T", "fields", "-E", "separator=,"])
        .args([
            "-e",
            "ip.src",
            "-e",
            "udp.srcport",
            "-e",
            "ip.dst",
            "-e",
            "udp.dstport",
        ])
        .args(["-e", "udp.length", "-e", "frame.p2p_dir"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The client is bound to 0.0.0.0; on the wire it is 127.0.0.1, as in the recording.
    let client_seen = SocketAddr::new([127, 0, 0, 1].into(), client.local.port());
    assert_eq!(lines.len(), server.datagrams.len());
    for (line, d) in lines.iter().zip(&server.datagrams) {
        let (from, to, dir) = match d.direction {
            Direction::Inbound => (client_seen, server.local, 1),
            Direction::Outbound => (server.local, client_seen, 0),
        };
        let want = format!(
            "{},{},{},{},{},{dir}",
            from.ip(),
            from.port(),
            to.ip(),
            to.port(),
            d.bytes.len() + 8
        );
        assert_eq!(*line, want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_rotate_at_the_cap_and_only_the_newest_are_kept() {
    let dir = scratch("rotation");
    let base = dir.join("game.pcapng");
    let config = RecordConfig::new(&base).max_file_bytes(4_000).max_files(2);
    let local: SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let peer: SocketAddr = "10.0.0.2:40000".parse().unwrap();
    let start = Instant::now();
    let mut recorder = Recorder::create(config, local, start).unwrap();
    for i in 0..100u32 {
        let at = start + Duration::from_millis(u64::from(i));
        recorder.record(Direction::Outbound, at, peer, &[i as u8; 200]);
    }
    let stats = recorder.stats();
    drop(recorder);
    assert_eq!(stats.datagrams, 100);
    assert!(stats.files >= 6, "{stats:?}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let last = stats.files - 1;
    let want = [
        format!("game.{}.pcapng", last - 1),
        format!("game.{last}.pcapng"),
    ];
    assert_eq!(names, want);
    let mut kept = Vec::new();
    for name in &want {
        let size = std::fs::metadata(dir.join(name)).unwrap().len();
        assert!(size <= 4_000, "{name}: {size} bytes");
        kept.extend(Recording::read(dir.join(name)).unwrap().datagrams);
    }
    // The newest datagrams, in order, each file a whole recording with the same origin.
    let firsts: Vec<u8> = kept.iter().map(|d| d.bytes[0]).collect();
    let newest: Vec<u8> = (100 - firsts.len() as u32..100).map(|i| i as u8).collect();
    assert_eq!(firsts, newest);
    assert_eq!(kept.last().unwrap().at, Duration::from_millis(99));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recording_that_cannot_be_created_is_refused_with_its_error() {
    let mut server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let missing = std::env::temp_dir().join("hopnet-no-such-dir/x/server.pcapng");
    assert!(server.record(RecordConfig::new(missing)).is_err());
    assert!(server.recorder().is_none());
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_file_stops_the_recording_not_the_game() {
    // Every write to /dev/full fails (no space left on the device).
    let local: SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let peer: SocketAddr = "10.0.0.2:40000".parse().unwrap();
    let start = Instant::now();
    let Ok(mut recorder) = Recorder::create(RecordConfig::new("/dev/full"), local, start) else {
        // The headers fit the buffer, so creating succeeds; should it not, it says so.
        return;
    };
    for i in 0..200u32 {
        let at = start + Duration::from_millis(u64::from(i) * 10);
        recorder.record(Direction::Inbound, at, peer, &[0; 1_000]);
    }
    let error = recorder.error().expect("the failed write is kept");
    assert_eq!(error.raw_os_error(), Some(28), "{error}");
    assert!(recorder.stats().skipped > 0);
    assert!(recorder.stats().datagrams < 200);
}

/// Whether `needle` is anywhere in the datagrams.
fn holds(recording: &Recording, needle: &[u8]) -> bool {
    recording
        .datagrams
        .iter()
        .any(|d| d.bytes.windows(needle.len()).any(|w| w == needle))
}

#[test]
fn secure_mode_records_the_socket_unless_the_decrypted_datagrams_are_asked_for() {
    use hopnet::secure::{ConnectTokenBuilder, Key};
    let dir = scratch("secure");
    let key = Key::generate();
    let mut server = Server::bind_secure("127.0.0.1:0", Config::default(), 7, key.clone()).unwrap();
    let decrypted = RecordConfig::new(dir.join("server.pcapng")).decrypted(true);
    server.record(decrypted).unwrap();
    let token = ConnectTokenBuilder::new(7, 42, [server.local_addr().unwrap()])
        .issue(&key, std::time::SystemTime::now())
        .unwrap();
    let socket = RecordConfig::new(dir.join("client.pcapng"));
    let mut client = Client::connect_secure_recorded(token, Config::default(), socket).unwrap();
    let secret = b"the players' secret plan";
    client.send(secret, Delivery::Reliable).unwrap();
    let mut got = false;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !got && Instant::now() < deadline {
        server.poll(Duration::ZERO).unwrap();
        client.poll(Duration::from_millis(2)).unwrap();
        while let Some(ServerEvent { event, .. }) = server.poll_event() {
            got |= matches!(event, Event::Message { bytes, .. } if bytes == secret);
        }
    }
    assert!(got);
    server.poll(Duration::from_millis(20)).unwrap();
    drop(server.stop_recording());
    drop(client.stop_recording());
    let server_rec = Recording::read(dir.join("server.pcapng")).unwrap();
    let client_rec = Recording::read(dir.join("client.pcapng")).unwrap();
    assert!(server_rec.decrypted && !client_rec.decrypted);
    // The socket's datagrams are sealed: the message is nowhere in them.
    assert!(!holds(&client_rec, secret));
    assert!(
        client_rec.datagrams.len() > 2,
        "netcode's handshake and the message"
    );
    // The decrypted ones are hopnet's: the message's chunk, behind its 4-byte header.
    let inbound = server_rec
        .datagrams
        .iter()
        .filter(|d| d.direction == Direction::Inbound);
    assert!(
        inbound
            .clone()
            .any(|d| d.bytes.get(4..) == Some(&secret[..]))
    );
    assert!(
        server_rec
            .datagrams
            .iter()
            .any(|d| d.direction == Direction::Outbound)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
