//! Hostile input to R-TYPE's machines and host: random datagrams and streams, frames that lie
//! about their sizes or ids, floods of new addresses and connections. Nothing panics, nothing
//! hangs, and what is held stays within the stated bounds: an instance at most
//! `MAX_PLAYERS` players, `MAX_ENTITIES` entities and `MAX_OUTBOX` queued datagrams; a player
//! at most `MAX_KNOWN_ENTITIES` entities; a lobby connection at most `MAX_STREAM_FRAME`
//! buffered bytes; a host at most `MAX_INSTANCES` instances and `MAX_LOBBY_CONNECTIONS`
//! connections.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::{
    CreateError, Entry, FrameReader, Host, HostConfig, Instance, InstanceClient, Instances,
    Listing, LobbySession, MAX_ENTITIES, MAX_INSTANCES, MAX_KNOWN_ENTITIES, MAX_LOBBY_CONNECTIONS,
    MAX_OUTBOX, MAX_PLAYERS, MAX_STREAM_FRAME, Phase, SessionConfig, decode, moves, play, to_bytes,
};

/// A small deterministic generator for the test's random input (splitmix64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
    fn addr(&mut self) -> SocketAddr {
        let ip = self.next() as u32;
        SocketAddr::from((ip.to_be_bytes(), self.next() as u16))
    }
}

/// A frame's bytes with its sizes replaced by lies (the CRCs of the sizes updated to match
/// the lies, so that only the lie itself can refuse it).
fn lying(action: Action, message: &str, original: u32, compressed: u32) -> Vec<u8> {
    let mut b = to_bytes(action, message);
    b[1..5].copy_from_slice(&original.to_le_bytes());
    b[5..9].copy_from_slice(&compressed.to_le_bytes());
    let end = b.len();
    b[end - 12..end - 8].copy_from_slice(&crc32fast::hash(&compressed.to_le_bytes()).to_le_bytes());
    b[end - 8..end - 4].copy_from_slice(&crc32fast::hash(&original.to_le_bytes()).to_le_bytes());
    b
}

fn drain<M: Machine>(m: &mut M, now: Instant) -> Vec<(SocketAddr, Vec<u8>)> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while let Some(t) = m.poll_transmit(now, &mut buf, 1) {
        out.push((t.destination, buf[..t.size].to_vec()));
    }
    out
}

fn assert_instance_bounded(i: &Instance) {
    assert!(i.player_count() <= MAX_PLAYERS);
    assert!(i.world().entities().len() <= MAX_ENTITIES);
    assert!(i.queued().0 <= MAX_OUTBOX);
}

#[test]
fn random_datagrams_from_many_addresses_leave_no_state() {
    let mut g = Gen(1);
    let mut instance = Instance::new(3);
    let now = Instant::now();
    for _ in 0..50_000 {
        let len = g.below(120) as usize;
        let (from, bytes) = (g.addr(), g.bytes(len));
        instance.handle(now, from, &bytes);
    }
    assert_eq!(instance.stats().rejected, 50_000);
    assert_eq!(instance.player_count(), 0);
    assert_eq!(instance.queued(), (0, 0));
    assert_eq!(instance.poll_timeout(), None);
}

#[test]
fn valid_frames_with_random_actions_and_bodies_stay_bounded() {
    let mut g = Gen(2);
    let mut instance = Instance::new(3);
    let mut now = Instant::now();
    let peers: Vec<SocketAddr> = (0..2_000).map(|_| g.addr()).collect();
    for round in 0..50_000 {
        let from = peers[g.below(peers.len() as u64) as usize];
        let action = hopnet_codec::from_bytes::<Action>(&[g.below(25) as u8]).unwrap();
        let message = match g.below(6) {
            0 => "3".to_owned(),
            1 => g.below(1 << 33).to_string(),
            2 => String::new(),
            3 => format!(
                "{} {} {}",
                g.next() as u32,
                g.next() as i32,
                g.next() as i32
            ),
            4 => "-1".to_owned(),
            _ => {
                let len = g.below(40) as usize;
                String::from_utf8_lossy(&g.bytes(len)).into_owned()
            }
        };
        instance.handle(now, from, &to_bytes(action, &message));
        assert_instance_bounded(&instance);
        if round % 1000 == 0 {
            now += Duration::from_millis(700);
            instance.handle_timeout(now);
        }
        if round % 250 == 0 {
            // The driver takes some, never all: the queue fills and stays bounded.
            let mut buf = Vec::new();
            instance.poll_transmit(now, &mut buf, 1);
        }
    }
    assert_eq!(instance.player_count(), MAX_PLAYERS);
    assert!(instance.queued().1 > 0, "the queue filled up and dropped");
    // Silent players go; the instance is empty again.
    instance.handle_timeout(now + Duration::from_secs(11));
    assert_eq!(instance.player_count(), 0);
    assert!(instance.world().entities().is_empty());
}

#[test]
fn frames_that_lie_about_their_sizes_are_refused_before_decompression() {
    let mut instance = Instance::new(3);
    let now = Instant::now();
    let peer: SocketAddr = "10.0.0.2:4000".parse().unwrap();
    let honest = to_bytes(Action::Connect, "3");
    let compressed = (honest.len() - 25) as u32;
    for lie in [
        lying(Action::Connect, "3", u32::MAX, compressed),
        lying(Action::Connect, "3", 1, u32::MAX),
        lying(Action::Connect, "3", 60_000, compressed),
        lying(Action::Connect, "3", 1 << 20, compressed),
        lying(Action::Connect, "3", 0, compressed),
        lying(Action::Connect, "3", 1, compressed + 1),
        lying(Action::Connect, "3", 1, 0),
    ] {
        assert!(decode(&lie).is_err());
        instance.handle(now, peer, &lie);
    }
    assert_eq!(instance.stats().rejected, 7);
    assert_eq!(instance.player_count(), 0);
    // The same peer, honest, is served.
    instance.handle(now, peer, &honest);
    assert_eq!(instance.player_count(), 1);
}

/// Where the instance's first entity (its only ship, in these tests) stands.
fn ship(instance: &Instance) -> (i32, i32) {
    let e = instance.world().entities().values().next().unwrap();
    (e.x, e.y)
}

#[test]
fn lying_ids_are_refused_or_ignored() {
    let mut instance = Instance::new(3);
    let now = Instant::now();
    let peer: SocketAddr = "10.0.0.2:4000".parse().unwrap();
    for id in ["4", "4294967299", "-3", "3 3", " 3", "", "0x3"] {
        instance.handle(now, peer, &to_bytes(Action::Connect, id));
        let out = drain(&mut instance, now);
        assert_eq!(out.len(), 1, "{id:?}");
        let answer = decode(&out[0].1).unwrap();
        assert_eq!(
            (answer.action, answer.message.as_str()),
            (Action::Ko, "unknown")
        );
    }
    assert_eq!(instance.player_count(), 0);
    instance.handle(now, peer, &to_bytes(Action::Connect, "3"));
    let spawn = ship(&instance);
    drain(&mut instance, now);
    // Numbers that are not moves' numbers, and a number below the last: not applied.
    for n in ["4294967296", "-1", "1 2", "x"] {
        instance.handle(now, peer, &to_bytes(Action::Right, n));
    }
    instance.handle(now, peer, &to_bytes(Action::Right, "10"));
    instance.handle(now, peer, &to_bytes(Action::Right, "10"));
    instance.handle(now, peer, &to_bytes(Action::Right, "9"));
    assert_eq!(ship(&instance), (spawn.0 + 1, spawn.1));
    // A SPRITE or a DEAD from a client means nothing to the instance.
    instance.handle(now, peer, &to_bytes(Action::Sprite, "0 100 100"));
    instance.handle(now, peer, &to_bytes(Action::Dead, "0"));
    assert_eq!(ship(&instance), (spawn.0 + 1, spawn.1));
}

#[test]
fn a_player_fed_floods_and_lies_stays_bounded() {
    let mut g = Gen(3);
    let server: SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let now = Instant::now();
    let mut client = InstanceClient::new(server, 3, moves(10), now);
    client.handle_timeout(now);
    client.handle(now, server, &to_bytes(Action::Connect, "5"));
    assert_eq!(*client.phase(), Phase::Playing);
    for i in 0..20_000u32 {
        let message = format!("{} {} {}", 1000 + i, g.next() as i32, g.next() as i32);
        client.handle(now, server, &to_bytes(Action::Sprite, &message));
        let len = g.below(80) as usize;
        client.handle(now, server, &g.bytes(len));
        // From elsewhere: ignored whatever it says.
        client.handle(now, g.addr(), &to_bytes(Action::Dead, "5"));
        if i % 500 == 0 {
            client.handle(now, server, &to_bytes(Action::Check, &g.next().to_string()));
            drain(&mut client, now);
        }
    }
    assert!(client.entities().len() <= MAX_KNOWN_ENTITIES);
    assert_eq!(*client.phase(), Phase::Playing);
    // Its own DEAD from the instance ends it.
    client.handle(now, server, &to_bytes(Action::Dead, "5"));
    assert!(matches!(client.phase(), Phase::Failed(_)));
}

/// A lobby's instances without sockets.
#[derive(Default)]
struct Fake(Vec<Listing>);

impl Instances for Fake {
    fn list(&self) -> Vec<Listing> {
        self.0.clone()
    }
    fn create(&mut self, name: &str) -> Result<Listing, CreateError> {
        if self.0.len() >= 2 {
            return Err(CreateError::Full);
        }
        let l = Listing {
            name: name.into(),
            game: "RTYPE".into(),
            players: 0,
            max_players: 4,
            port: 5000 + self.0.len() as u16,
            id: self.0.len() as u32,
        };
        self.0.push(l.clone());
        Ok(l)
    }
}

fn answers(bytes: &[u8]) -> Vec<(Action, String)> {
    let mut r = FrameReader::new();
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let took = r.push(rest);
        rest = &rest[took..];
        while let Some(f) = r.next_frame() {
            out.push((f.action, f.message));
        }
    }
    assert_eq!(r.buffered(), 0);
    out
}

#[test]
fn random_streams_do_not_stop_the_lobby() {
    let mut g = Gen(4);
    for round in 0..200 {
        let mut session = LobbySession::new();
        let mut fake = Fake::default();
        let mut out = Vec::new();
        let len = g.below(5000) as usize;
        let garbage = g.bytes(len);
        for piece in garbage.chunks(1 + g.below(700) as usize) {
            let took = session.handle(piece, &mut fake, &mut out);
            assert_eq!(took, piece.len());
            assert!(session.reader().buffered() <= MAX_STREAM_FRAME);
        }
        // Then a client that speaks the protocol: every frame answered, in order.
        out.clear();
        let mut honest = Vec::new();
        for _ in 0..100 {
            honest.extend(to_bytes(Action::Connect, ""));
        }
        honest.extend(to_bytes(Action::Ping, "last"));
        session.handle(&honest, &mut fake, &mut out);
        let got = answers(&out);
        assert_eq!(got.len(), 101, "round {round}");
        assert!(
            got[..100]
                .iter()
                .all(|(a, m)| *a == Action::Connect && m.is_empty())
        );
        assert_eq!(got[100], (Action::Pong, "last".into()));
    }
}

#[test]
fn a_damaged_frame_is_skipped_and_the_stream_goes_on() {
    let first = to_bytes(Action::Ping, "one");
    let second = to_bytes(Action::Ping, "two");
    // A damaged message: its sizes are intact, so exactly that frame is dropped.
    let mut damaged = first.clone();
    damaged[10] ^= 0x40;
    let mut r = FrameReader::new();
    r.push(&[damaged.as_slice(), second.as_slice()].concat());
    assert_eq!(r.next_frame().map(|f| f.message), Some("two".into()));
    assert_eq!((r.corrupt_frames, r.skipped_bytes), (1, 0));
    // A damaged compressed size (CRC2 disagrees): the length is not believed; bytes are
    // skipped until the next frame's header.
    let mut damaged = first.clone();
    damaged[5] ^= 0x01;
    let mut r = FrameReader::new();
    r.push(&[damaged.as_slice(), second.as_slice()].concat());
    assert_eq!(r.next_frame().map(|f| f.message), Some("two".into()));
    assert_eq!(r.skipped_bytes, first.len() as u64);
    // Sizes that lie, their CRCs agreeing: a compressed size of 4 GB, an original size far
    // beyond what the bytes hold. Not waited for: the next frame comes at once.
    let compressed = (first.len() - 25) as u32;
    for lie in [
        lying(Action::Ping, "one", 3, u32::MAX),
        lying(Action::Ping, "one", u32::MAX, compressed),
        lying(Action::Ping, "one", 100_000, compressed),
    ] {
        let mut r = FrameReader::new();
        r.push(&[lie.as_slice(), second.as_slice()].concat());
        assert_eq!(r.next_frame().map(|f| f.message), Some("two".into()));
        assert_eq!(r.buffered(), 0);
    }
    // A frame cut anywhere arrives whole once the rest comes.
    for cut in 0..second.len() {
        let mut r = FrameReader::new();
        r.push(&second[..cut]);
        assert!(r.next_frame().is_none());
        r.push(&second[cut..]);
        assert_eq!(r.next_frame().map(|f| f.message), Some("two".into()));
    }
}

/// A request to the lobby (action, message) and the frames it is answered with.
type Exchange = (Action, &'static str, &'static [(Action, &'static str)]);

#[test]
fn the_lobby_answers_per_the_contract() {
    let mut session = LobbySession::new();
    let mut fake = Fake::default();
    let mut out = Vec::new();
    // Each request in turn, with the frames it is answered with.
    let exchanges: &[Exchange] = &[
        (Action::Connect, "", &[(Action::Connect, "")]),
        (Action::List, "", &[(Action::List, "")]),
        (Action::Create, "a", &[(Action::Joined, "5000 0")]),
        (Action::Create, "b", &[(Action::Joined, "5001 1")]),
        (Action::Create, "c", &[(Action::Ko, "full")]),
        (Action::Create, "two words", &[(Action::Ko, "name")]),
        (Action::Create, "", &[(Action::Ko, "name")]),
        (
            Action::List,
            "",
            &[
                (Action::List, "a RTYPE 0 4 5000 0"),
                (Action::List, "b RTYPE 0 4 5001 1"),
                (Action::List, ""),
            ],
        ),
        (Action::Join, "5001", &[(Action::Joined, "5001 1")]),
        (Action::Join, "5002", &[(Action::Ko, "unknown")]),
        (Action::Join, "70000", &[(Action::Ko, "unknown")]),
        (Action::Join, "", &[(Action::Ko, "unknown")]),
    ];
    for &(action, message, expected) in exchanges {
        out.clear();
        session.handle(&to_bytes(action, message), &mut fake, &mut out);
        let expected: Vec<(Action, String)> =
            expected.iter().map(|&(a, m)| (a, m.to_owned())).collect();
        assert_eq!(answers(&out), expected, "{action:?} {message:?}");
    }
    fake.0[0].players = 4;
    out.clear();
    session.handle(&to_bytes(Action::Join, "5000"), &mut fake, &mut out);
    assert_eq!(answers(&out), [(Action::Ko, "full".to_owned())]);
}

/// Reads frames from `stream` until `done` says so or 5 s passed.
fn read_frames(
    stream: &mut TcpStream,
    mut done: impl FnMut(&[(Action, String)]) -> bool,
) -> Vec<(Action, String)> {
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut r = FrameReader::new();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !done(&got) && Instant::now() < deadline {
        if let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            r.push(&buf[..n]);
        }
        while let Some(f) = r.next_frame() {
            got.push((f.action, f.message));
        }
    }
    got
}

/// Waits until the host has seen every lobby connection close.
fn wait_until_closed(host: &Host) {
    let start = Instant::now();
    while host.lobby_connections() > 0 {
        assert!(start.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn the_host_survives_garbage_floods_of_connections_and_creates() {
    let host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let lobby = host.local_addr();
    // Random bytes, then an honest frame on the same connection: answered.
    let mut g = Gen(5);
    let mut s = TcpStream::connect(lobby).unwrap();
    s.write_all(&g.bytes(64 * 1024)).unwrap();
    s.write_all(&to_bytes(Action::Ping, "still there")).unwrap();
    let pong = (Action::Pong, "still there".to_owned());
    let got = read_frames(&mut s, |got| got.last() == Some(&pong));
    assert_eq!(got.last(), Some(&pong));
    drop(s);
    wait_until_closed(&host);
    // More connections than it takes: the extra ones are closed at once.
    let mut held = Vec::new();
    for _ in 0..MAX_LOBBY_CONNECTIONS + 16 {
        held.push(TcpStream::connect(lobby).unwrap());
    }
    let start = Instant::now();
    while host.lobby_connections() < MAX_LOBBY_CONNECTIONS {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{} open, {:?}",
            host.lobby_connections(),
            host.summary()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(host.lobby_connections(), MAX_LOBBY_CONNECTIONS);
    // The connections are accepted in the order they were made: the first ones are served
    // (a read waits), the last 16 were closed (a read ends).
    for (i, s) in held.iter_mut().enumerate() {
        let served = i < MAX_LOBBY_CONNECTIONS;
        let wait = if served { 20 } else { 5000 };
        s.set_read_timeout(Some(Duration::from_millis(wait)))
            .unwrap();
        match s.read(&mut [0u8; 1]) {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                assert!(served, "connection {i} was not closed")
            }
            Ok(0) => assert!(!served, "connection {i} was closed"),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => assert!(!served, "{i}: {e}"),
            other => panic!("connection {i}: {other:?}"),
        }
    }
    drop(held);
    // A flood of CREATEs on one connection: MAX_INSTANCES made, then KO "full".
    wait_until_closed(&host);
    let mut s = TcpStream::connect(lobby).unwrap();
    for i in 0..MAX_INSTANCES + 4 {
        s.write_all(&to_bytes(Action::Create, &format!("i{i}")))
            .unwrap();
    }
    let got = read_frames(&mut s, |got| got.len() == MAX_INSTANCES + 4);
    assert_eq!(got.len(), MAX_INSTANCES + 4);
    let joined = got.iter().filter(|(a, _)| *a == Action::Joined).count();
    assert_eq!(joined, MAX_INSTANCES);
    assert!(
        got[MAX_INSTANCES..]
            .iter()
            .all(|f| *f == (Action::Ko, "full".into()))
    );
    assert_eq!(host.instance_count(), MAX_INSTANCES);
    drop(s);
    // Still serving: a player joins one of them and plays.
    let summary = play(&SessionConfig {
        lobby,
        entry: Entry::Join,
        moves: 5,
        deadline: Instant::now() + Duration::from_secs(20),
        impairment: None,
        extrapolation: Default::default(),
    })
    .unwrap();
    assert_eq!(summary.moves, 5);
    assert_eq!(summary.listed.len(), MAX_INSTANCES);
    let start = Instant::now();
    host.shutdown();
    assert!(start.elapsed() < Duration::from_secs(5));
}
