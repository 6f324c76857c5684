//! A server on worker threads (`ServerBuilder::workers`), over loopback UDP: many clients, every
//! one connects, every message both ways arrives exactly once and, where its delivery orders,
//! in order; closes reach the game; secure mode; bad datagrams on every worker counted. Both
//! ways of spreading datagrams: `SO_REUSEPORT` sockets and one socket sharded by address.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::net::UdpSocket;
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{ConnectTokenBuilder, Key};
use hopnet::{Client, Config, ConnectionId, Delivery, Event, ServerBuilder, Spread, WorkerServer};

const DEADLINE: Duration = Duration::from_secs(20);
const PROTOCOL_ID: u64 = 0x776f_726b_6572;
/// Messages each client sends per delivery mode.
const PER_MODE: u32 = 12;
const MODES: [Delivery; 2] = [Delivery::Reliable, Delivery::ReliableOrdered];

/// `client`'s message `k` in `mode`: who, which, and in which mode, so a duplicate or a stray
/// is seen.
fn message(client: u32, mode: usize, k: u32) -> Vec<u8> {
    let mut m = format!("c{client}-m{mode}-k{k}-").into_bytes();
    // Some bigger than a chunk, so reassembly runs on the workers too.
    m.resize(if k.is_multiple_of(4) { 1500 } else { 40 }, b'x');
    m
}

fn parse(bytes: &[u8]) -> (u32, usize, u32) {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut parts = text.split('-');
    let c = parts.next().unwrap()[1..].parse().unwrap();
    let m = parts.next().unwrap()[1..].parse().unwrap();
    let k = parts.next().unwrap()[1..].parse().unwrap();
    (c, m, k)
}

/// Polls the clients and lets the server's game side run `game` until `done`.
fn run(
    server: &mut WorkerServer,
    clients: &mut [Client],
    mut game: impl FnMut(&mut WorkerServer),
    mut done: impl FnMut(&mut [Client]) -> bool,
) {
    let start = Instant::now();
    while !done(clients) {
        assert!(start.elapsed() < DEADLINE, "not done in {DEADLINE:?}");
        server.poll(Duration::from_micros(200)).unwrap();
        game(server);
        server.flush().unwrap();
        for c in clients.iter_mut() {
            c.poll(Duration::ZERO).unwrap();
        }
    }
}

/// What the game side saw.
#[derive(Default)]
struct Seen {
    connected: BTreeSet<ConnectionId>,
    disconnected: BTreeSet<ConnectionId>,
    /// Per connection and mode, the message numbers in arrival order.
    messages: BTreeMap<(ConnectionId, usize), Vec<u32>>,
    /// The client number each connection said it was.
    client_of: BTreeMap<ConnectionId, u32>,
}

/// The game: counts events and echoes every message back on its own mode.
fn echo(server: &mut WorkerServer, seen: &mut Seen) {
    while let Some(ev) = server.poll_event() {
        match ev.event {
            Event::Connected => assert!(seen.connected.insert(ev.connection)),
            Event::Disconnected { .. } => assert!(seen.disconnected.insert(ev.connection)),
            Event::Message { bytes, .. } => {
                let (c, m, k) = parse(&bytes);
                assert_eq!(*seen.client_of.entry(ev.connection).or_insert(c), c);
                seen.messages.entry((ev.connection, m)).or_default().push(k);
                server.queue(ev.connection, &bytes, MODES[m]).unwrap();
            }
            _ => {}
        }
    }
}

fn exchange(workers: usize, spread: Spread, n: u32) {
    let mut server = ServerBuilder::new(Config::default())
        .workers(workers)
        .spread(spread)
        .bind("127.0.0.1:0")
        .unwrap();
    assert_eq!(server.workers(), workers);
    let addr = server.local_addr();
    let mut clients: Vec<Client> = (0..n)
        .map(|_| Client::connect(addr, Config::default()).unwrap())
        .collect();
    // Queued before the handshake ends: reliable messages wait for it.
    for (i, c) in clients.iter_mut().enumerate() {
        for (m, &mode) in MODES.iter().enumerate() {
            for k in 0..PER_MODE {
                c.queue(&message(i as u32, m, k), mode).unwrap();
            }
        }
    }
    let mut seen = Seen::default();
    let mut echoes: Vec<BTreeMap<usize, Vec<u32>>> = vec![BTreeMap::new(); n as usize];
    let expected = (PER_MODE as usize) * MODES.len();
    run(
        &mut server,
        &mut clients,
        |s| echo(s, &mut seen),
        |clients| {
            for (i, c) in clients.iter_mut().enumerate() {
                while let Some(ev) = c.poll_event() {
                    if let Event::Message { bytes, .. } = ev {
                        let (who, m, k) = parse(&bytes);
                        assert_eq!(who, i as u32, "an echo reached the wrong client");
                        echoes[i].entry(m).or_default().push(k);
                    }
                }
            }
            echoes
                .iter()
                .all(|e| e.values().map(Vec::len).sum::<usize>() >= expected)
        },
    );
    // Every client connected, on one connection each, spread over every worker.
    assert_eq!(seen.connected.len(), n as usize);
    let per_worker: BTreeSet<usize> = seen
        .connected
        .iter()
        .map(|&id| server.worker_of(id))
        .collect();
    assert_eq!(
        per_worker.len(),
        workers,
        "connections on workers {per_worker:?}"
    );
    // Every message exactly once each way; ordered ones in order.
    let all: Vec<u32> = (0..PER_MODE).collect();
    for ((_, m), ks) in &seen.messages {
        let mut sorted = ks.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, all, "the server's copy of mode {m}");
        if MODES[*m] == Delivery::ReliableOrdered {
            assert_eq!(ks, &all, "out of order on the server");
        }
    }
    assert_eq!(seen.messages.len(), n as usize * MODES.len());
    for e in &echoes {
        for (m, ks) in e {
            let mut sorted = ks.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, all, "a client's echoes of mode {m}");
            if MODES[*m] == Delivery::ReliableOrdered {
                assert_eq!(ks, &all, "echoes out of order");
            }
        }
    }
    // Closes reach the game, each once.
    for c in &mut clients {
        c.machine().close();
    }
    let start = Instant::now();
    while seen.disconnected.len() < n as usize {
        assert!(
            start.elapsed() < DEADLINE,
            "{} closes seen",
            seen.disconnected.len()
        );
        for c in &mut clients {
            c.poll(Duration::ZERO).unwrap();
        }
        server.poll(Duration::from_millis(1)).unwrap();
        echo(&mut server, &mut seen);
    }
    assert_eq!(seen.disconnected, seen.connected);
    let stats = server.worker_stats().unwrap();
    assert_eq!(stats.len(), workers);
    let accepted: u64 = stats.iter().map(|s| s.server.connections_accepted).sum();
    assert_eq!(accepted, u64::from(n));
    assert!(
        stats
            .iter()
            .all(|s| s.send_failures == 0 && s.io_errors == 0)
    );
}

#[test]
fn two_reuseport_workers_carry_64_clients_both_ways() {
    exchange(2, Spread::ReusePort, 64);
}

#[test]
fn four_reuseport_workers_carry_64_clients_both_ways() {
    exchange(4, Spread::ReusePort, 64);
}

#[test]
fn two_workers_sharded_by_address_carry_64_clients_both_ways() {
    exchange(2, Spread::ByAddress, 64);
}

#[test]
fn four_workers_sharded_by_address_carry_64_clients_both_ways() {
    exchange(4, Spread::ByAddress, 64);
}

#[test]
fn one_worker_is_the_plain_server() {
    exchange(1, Spread::ReusePort, 8);
}

fn secure(spread: Spread) {
    let key = Key::generate();
    let mut server = ServerBuilder::new(Config::default())
        .workers(2)
        .spread(spread)
        .bind_secure("127.0.0.1:0", PROTOCOL_ID, key.clone())
        .unwrap();
    let addr = server.local_addr();
    let n = 16u32;
    let mut clients: Vec<Client> = (0..n)
        .map(|i| {
            let token = ConnectTokenBuilder::new(PROTOCOL_ID, u64::from(i) + 1, [addr])
                .issue(&key, SystemTime::now())
                .unwrap();
            Client::connect_secure(token, Config::default()).unwrap()
        })
        .collect();
    for (i, c) in clients.iter_mut().enumerate() {
        for k in 0..PER_MODE {
            c.queue(&message(i as u32, 1, k), Delivery::ReliableOrdered)
                .unwrap();
        }
    }
    let mut seen = Seen::default();
    let mut echoes = vec![Vec::new(); n as usize];
    run(
        &mut server,
        &mut clients,
        |s| echo(s, &mut seen),
        |clients| {
            for (i, c) in clients.iter_mut().enumerate() {
                while let Some(ev) = c.poll_event() {
                    if let Event::Message { bytes, .. } = ev {
                        let (who, _, k) = parse(&bytes);
                        assert_eq!(who, i as u32);
                        echoes[i].push(k);
                    }
                }
            }
            echoes.iter().all(|e| e.len() >= PER_MODE as usize)
        },
    );
    let all: Vec<u32> = (0..PER_MODE).collect();
    assert!(echoes.iter().all(|e| e == &all));
    assert!(seen.messages.values().all(|ks| ks == &all));
    assert_eq!(seen.connected.len(), n as usize);
    let stats = server.worker_stats().unwrap();
    let netcode_connected: Vec<u64> = stats
        .iter()
        .map(|s| s.netcode.as_ref().unwrap().datagrams_accepted)
        .collect();
    assert!(
        netcode_connected.iter().all(|&a| a > 0),
        "every worker's netcode server took datagrams: {netcode_connected:?}"
    );
}

#[test]
fn secure_mode_on_two_reuseport_workers() {
    secure(Spread::ReusePort);
}

#[test]
fn secure_mode_on_two_workers_sharded_by_address() {
    secure(Spread::ByAddress);
}

/// Garbage from many source ports (so it lands on every worker), then a real client.
fn hostile(spread: Spread, secure: bool) {
    let key = Key::generate();
    let builder = ServerBuilder::new(Config::default())
        .workers(2)
        .spread(spread);
    let mut server = if secure {
        builder.bind_secure("127.0.0.1:0", PROTOCOL_ID, key.clone())
    } else {
        builder.bind("127.0.0.1:0")
    }
    .unwrap();
    let addr = server.local_addr();
    let senders: Vec<UdpSocket> = (0..32)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    let garbage: [&[u8]; 5] = [
        b"",
        b"\x00",
        b"\xff\xff\xff\xff\xff",
        &[0x41; 1200],
        b"\x80\x00",
    ];
    let mut sent = 0u64;
    for s in &senders {
        for g in garbage {
            s.send_to(g, addr).unwrap();
            sent += 1;
        }
    }
    let dropped = |server: &mut WorkerServer| -> (u64, usize) {
        let stats = server.worker_stats().unwrap();
        let workers_hit = stats.iter().filter(|s| s.socket.received > 0).count();
        let d = stats
            .iter()
            .map(|s| match &s.netcode {
                Some(n) => n.datagrams_received - n.datagrams_accepted,
                None => s.server.malformed,
            })
            .sum();
        (d, workers_hit)
    };
    let start = Instant::now();
    loop {
        let (d, hit) = dropped(&mut server);
        if d >= sent {
            assert_eq!(hit, 2, "garbage reached every worker");
            break;
        }
        assert!(start.elapsed() < DEADLINE, "{d}/{sent} counted");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(server.poll_event().is_none());
    // The server still serves.
    let client = if secure {
        let token = ConnectTokenBuilder::new(PROTOCOL_ID, 9, [addr])
            .issue(&key, SystemTime::now())
            .unwrap();
        Client::connect_secure(token, Config::default()).unwrap()
    } else {
        Client::connect(addr, Config::default()).unwrap()
    };
    let mut clients = [client];
    run(
        &mut server,
        &mut clients,
        |_| {},
        |c| c[0].machine().is_connected(),
    );
}

#[test]
fn bad_datagrams_on_every_worker_are_counted() {
    hostile(Spread::ReusePort, false);
    hostile(Spread::ByAddress, false);
}

#[test]
fn bad_datagrams_on_every_secure_worker_are_counted() {
    hostile(Spread::ReusePort, true);
    hostile(Spread::ByAddress, true);
}

#[test]
fn sends_to_a_worker_that_does_not_exist_fail() {
    let mut server = ServerBuilder::new(Config::default())
        .workers(2)
        .bind("127.0.0.1:0")
        .unwrap();
    let bogus = ConnectionId(5 << 56);
    assert!(server.queue(bogus, b"x", Delivery::Reliable).is_err());
    // One that names a worker but no connection fails there, and is counted.
    server
        .send(ConnectionId(1 << 56 | 7), b"x", Delivery::Reliable)
        .unwrap();
    let start = Instant::now();
    while server.worker_stats().unwrap()[1].send_failures == 0 {
        assert!(start.elapsed() < DEADLINE);
    }
    assert!(
        ServerBuilder::new(Config::default())
            .workers(0)
            .bind("127.0.0.1:0")
            .is_err()
    );
    assert!(
        ServerBuilder::new(Config::default())
            .workers(257)
            .bind("127.0.0.1:0")
            .is_err()
    );
}
