//! Secure mode's receive path, both ends: a `SecureServer` (hopnet's server under netcode
//! 1.02) with a real netcode client connected to it, the fuzzer deciding what arrives where and
//! when. It sends arbitrary datagrams from four addresses (the client's among them) and to the
//! client from the server's address; copies of the real packets, replayed, truncated, with a
//! byte changed or their prefix rewritten, from any address; connection requests with valid
//! tokens from other addresses; authentic payloads of its own bytes through the real client
//! (which reach hopnet's endpoint under netcode); loss, and time passing:
//!
//! - nothing panics;
//! - every datagram each end reads is accepted or dropped and counted, never both, never
//!   neither (`datagrams_received == datagrams_accepted + dropped_total()`);
//! - everything the server holds stays within its bounds: handshakes under way
//!   (`max_handshakes`), tokens remembered (`token_history`), datagrams queued
//!   (`max_queued_datagrams`), clients (`max_clients`), and every hopnet connection's
//!   reassembly memory (the budget, one maximum payload, bookkeeping);
//! - nobody without the keys closes the connection: the client is disconnected only if the
//!   server really let it go (its slot is free); a forged disconnect from the server's address
//!   that the client believed would break this.
//!
//! The input is a program of operations read by hand (see `hopnet_fuzz::input::Input`).

#![no_main]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{
    ClientState, ConnectTokenBuilder, Key, NetcodeClient, NetcodeServerConfig, NetcodeStats,
    SecureServer,
};
use hopnet::{Config, MAX_PAYLOAD, Machine};
use hopnet_fuzz::input::Input;
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rand::rngs::StdRng;

const PROTOCOL_ID: u64 = 0x0102_0304_0506_0708;
const MAX_CLIENTS: usize = 4;
/// The smallest reassembly budget hopnet allows, so that the fuzzer reaches it quickly.
const BUDGET: usize = MAX_PAYLOAD;
const CEILING: u64 = (BUDGET + MAX_PAYLOAD + 4096) as u64;
/// Real packets kept of each direction, for the fuzzer to copy.
const SEEN: usize = 64;
/// Datagrams waiting between the real ends, at most (then the oldest are lost).
const IN_FLIGHT: usize = 4096;

const ADDRS: [&str; 4] = [
    "10.0.0.2:5000", // the real client
    "10.0.0.3:5000",
    "10.0.0.2:5001", // same host, another port
    "[2001:db8::7]:5000",
];

fn server_addr() -> SocketAddr {
    "10.0.0.1:7000".parse().expect("an address")
}

/// A fixed Unix time, so that every run judges expiry alike.
fn unix_time() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn config() -> Config {
    Config::builder()
        .max_reassembly_bytes(BUDGET)
        .max_connections(MAX_CLIENTS)
        .build()
        .expect("valid config")
}

struct World {
    start: Instant,
    now: Instant,
    key: Key,
    rng: StdRng,
    server: SecureServer,
    client: NetcodeClient,
    addrs: [SocketAddr; 4],
    /// The real client's datagrams on their way to the server, and the server's to it.
    up: VecDeque<Vec<u8>>,
    down: VecDeque<Vec<u8>>,
    seen_up: Vec<Vec<u8>>,
    seen_down: Vec<Vec<u8>>,
    buf: Vec<u8>,
}

fn keep(seen: &mut Vec<Vec<u8>>, datagram: &[u8]) {
    if seen.len() >= SEEN {
        seen.remove(0);
    }
    seen.push(datagram.to_vec());
}

fn push(queue: &mut VecDeque<Vec<u8>>, datagram: &[u8]) {
    if queue.len() >= IN_FLIGHT {
        queue.pop_front();
    }
    queue.push_back(datagram.to_vec());
}

impl World {
    fn new() -> World {
        let start = Instant::now();
        let key = Key::from_bytes([0x42; 32]);
        let netcode = NetcodeServerConfig::new(PROTOCOL_ID, key.clone(), server_addr(), MAX_CLIENTS);
        let server = SecureServer::new(config(), netcode, start, unix_time()).expect("a server");
        let mut rng = StdRng::seed_from_u64(27);
        let token = ConnectTokenBuilder::new(PROTOCOL_ID, 1, [server_addr()])
            .timeout_seconds(10)
            .issue_with(&key, unix_time(), &mut rng)
            .expect("a token");
        World {
            start,
            now: start,
            key,
            rng,
            server,
            client: NetcodeClient::new(token, start),
            addrs: ADDRS.map(|a| a.parse().expect("an address")),
            up: VecDeque::new(),
            down: VecDeque::new(),
            seen_up: Vec::new(),
            seen_down: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// What both ends send now, onto their ways (and kept for the fuzzer to copy).
    fn collect(&mut self) {
        let now = self.now;
        while let Some(to) = self.client.poll_transmit(now, &mut self.buf) {
            assert_eq!(to, server_addr());
            keep(&mut self.seen_up, &self.buf);
            push(&mut self.up, &self.buf);
        }
        while let Some(t) = Machine::poll_transmit(&mut self.server, now, &mut self.buf, 8) {
            for datagram in t.split(&self.buf) {
                if t.destination == self.addrs[0] {
                    keep(&mut self.seen_down, datagram);
                    push(&mut self.down, datagram);
                }
            }
        }
        while self.server.poll_event().is_some() {}
    }

    fn to_server(&mut self, from: SocketAddr, datagram: &[u8]) {
        Machine::handle(&mut self.server, self.now, from, datagram);
    }

    fn to_client(&mut self, from: SocketAddr, datagram: &[u8]) {
        let _ = self.client.handle(self.now, from, datagram);
    }

    fn advance(&mut self, dt: Duration) {
        self.now += dt;
        let now = self.now;
        if Machine::poll_timeout(&mut self.server).is_some_and(|t| t <= now) {
            Machine::handle_timeout(&mut self.server, now);
        }
        if self.client.poll_timeout().is_some_and(|t| t <= now) {
            self.client.handle_timeout(now);
        }
    }

    fn check(&mut self) {
        for stats in [self.server.netcode_stats(), self.client.stats()] {
            assert_counted(stats);
        }
        let netcode = self.server.netcode();
        let config = netcode.config();
        assert!(netcode.handshakes_in_progress() <= config.max_handshakes);
        assert!(netcode.tokens_remembered() <= config.token_history);
        assert!(netcode.queued_datagrams() <= config.max_queued_datagrams);
        assert!(netcode.connected_clients() <= MAX_CLIENTS);
        let client_slot = netcode.client_at(self.addrs[0]);
        if self.client.state() == ClientState::Disconnected {
            assert_eq!(client_slot, None, "the client believed a disconnect the server never sent");
        }
        let endpoint = self.server.machine();
        let ids: Vec<_> = endpoint.connections().collect();
        for id in ids {
            if let Some(stats) = endpoint.stats(id) {
                assert!(
                    stats.reassembly_bytes <= CEILING,
                    "reassembly {} > {CEILING}",
                    stats.reassembly_bytes
                );
            }
        }
    }
}

fn assert_counted(stats: &NetcodeStats) {
    assert_eq!(
        stats.datagrams_received,
        stats.datagrams_accepted + stats.dropped_total(),
        "{stats:?}"
    );
}

/// A real packet, changed as the fuzzer says.
fn mutate(packet: &[u8], input: &mut Input<'_>) -> Vec<u8> {
    let mut packet = packet.to_vec();
    match input.byte() % 4 {
        0 => {
            let at = usize::from(input.u16()) % packet.len().max(1);
            if let Some(b) = packet.get_mut(at) {
                *b ^= input.byte() | 1;
            }
        }
        1 => packet.truncate(usize::from(input.u16()) % (packet.len() + 1)),
        2 => {
            // A new prefix: another type, another sequence length.
            if let Some(b) = packet.first_mut() {
                *b = input.byte();
            }
        }
        _ => {
            let n = usize::from(input.byte());
            packet.extend(input.bytes(n));
        }
    }
    packet
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut world = World::new();
    // The real client connects first, over a perfect link, so that the fuzzer starts from a
    // live connection.
    for _ in 0..50 {
        world.collect();
        while let Some(d) = world.up.pop_front() {
            let from = world.addrs[0];
            world.to_server(from, &d);
        }
        while let Some(d) = world.down.pop_front() {
            world.to_client(server_addr(), &d);
        }
        if world.client.state() == ClientState::Connected {
            break;
        }
        world.advance(Duration::from_millis(10));
    }
    assert_eq!(world.client.state(), ClientState::Connected);
    let mut ops = 0;
    while !input.is_empty() && ops < 1000 {
        ops += 1;
        let addr = world.addrs[usize::from(input.byte() % 4)];
        match input.byte() % 10 {
            0 => {
                let n = usize::from(input.u16() % 1400);
                let d = input.bytes(n);
                world.to_server(addr, &d);
            }
            1 => {
                for _ in 0..=input.byte() % 8 {
                    let Some(d) = world.up.pop_front() else { break };
                    let from = world.addrs[0];
                    world.to_server(from, &d);
                }
            }
            2 => {
                for _ in 0..=input.byte() % 8 {
                    let Some(d) = world.down.pop_front() else { break };
                    world.to_client(server_addr(), &d);
                }
            }
            3 => {
                if input.byte() & 1 == 0 {
                    world.up.pop_front();
                } else {
                    world.down.pop_front();
                }
            }
            4 => world.advance(Duration::from_millis(u64::from(input.u16() % 3000))),
            5 => {
                // The client's own payload: authentic, so it reaches hopnet's endpoint.
                let n = usize::from(input.u16() % 1201);
                let payload = input.bytes(n);
                let _ = world.client.send(world.now, &payload);
            }
            6 => {
                if !world.seen_up.is_empty() {
                    let i = usize::from(input.byte()) % world.seen_up.len();
                    let packet = world.seen_up[i].clone();
                    let forged = mutate(&packet, &mut input);
                    world.to_server(addr, &forged);
                }
            }
            7 => {
                let i = usize::from(input.byte());
                if input.byte() & 1 == 0 {
                    if let Some(packet) = world.seen_up.get(i % world.seen_up.len().max(1)) {
                        let packet = packet.clone();
                        world.to_server(addr, &packet);
                    }
                } else if let Some(packet) = world.seen_down.get(i % world.seen_down.len().max(1))
                {
                    let packet = packet.clone();
                    world.to_client(server_addr(), &packet);
                }
            }
            8 => {
                // To the client: raw bytes, or a real packet changed, from the server's
                // address or another.
                let from = if input.byte() & 1 == 0 { server_addr() } else { addr };
                let d = if input.byte() & 1 == 0 || world.seen_down.is_empty() {
                    let n = usize::from(input.u16() % 1400);
                    input.bytes(n)
                } else {
                    let i = usize::from(input.byte()) % world.seen_down.len();
                    let packet = world.seen_down[i].clone();
                    mutate(&packet, &mut input)
                };
                world.to_client(from, &d);
            }
            _ => {
                // A request with a valid token of its own, from another address.
                let client_id = u64::from(input.byte()) + 2;
                let expire = u64::from(input.byte() % 4) * 10;
                let token = ConnectTokenBuilder::new(PROTOCOL_ID, client_id, [server_addr()])
                    .expire_seconds(expire)
                    .timeout_seconds(i32::from(input.byte() % 8) - 1)
                    .issue_with(&world.key, unix_time() + (world.now - world.start), &mut world.rng);
                if let Ok(token) = token {
                    let mut requester = NetcodeClient::new(token, world.now);
                    let mut request = Vec::new();
                    if requester.poll_transmit(world.now, &mut request).is_some() {
                        world.to_server(addr, &request);
                    }
                }
            }
        }
        world.collect();
        world.check();
    }
});
