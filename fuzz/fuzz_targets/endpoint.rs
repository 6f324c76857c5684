//! A server `Server` fed arbitrary sequences of datagrams from four addresses, with time
//! advancing, next to a real client `Client` that the fuzzer can drive too, both in
//! hopnet's simulated network (its clock and timers), the fuzzer deciding what arrives:
//!
//! - nothing panics;
//! - memory stays within the configured bounds, as far as hopnet exposes it: every
//!   connection's `Stats::reassembly_bytes` (partial payloads and delivered payloads not yet
//!   polled) stays at most the budget plus one maximum payload plus bookkeeping (the
//!   documented ceiling), reliable messages pending stay within `max_pending_reliable`, the
//!   endpoint's queued challenges within `max_queued_datagrams`, connections within
//!   `max_connections`;
//! - no `Connected` without a valid handshake: the fuzzer cannot see what the server sends, so
//!   the only way it can answer a challenge is through the harness, which plays a legitimate
//!   client. The harness learns a seasoning only as `salt XOR pepper` from a challenge that the
//!   server sent to an address in answer to a 4-byte `Init` from that address; a `Connected`
//!   for an address is accepted only if a datagram carrying a seasoning learned for that
//!   address (but perhaps its high nibble, see `same_secret`) came from it before. (The client side cannot be checked this way: the spec's
//!   handshake gives the client no proof at all, see PROTOCOL.md, "Security".)
//!
//! The input is a little program of operations, read by hand rather than with `arbitrary`, so
//! that `gen_corpus.py` can write seeds from the conformance vectors.

#![no_main]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use hopnet_fuzz::input::Input;
use hopnet_proto::fuzzing::packet::is_handshake_shaped;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, ServerEvent, Event, Machine, MAX_PAYLOAD};

/// The smallest reassembly budget hopnet allows, so that the fuzzer reaches it quickly.
const BUDGET: usize = MAX_PAYLOAD;
/// The documented ceiling: the budget, one maximum payload for the oldest reliable partial,
/// and bookkeeping.
const CEILING: u64 = (BUDGET + MAX_PAYLOAD + 4096) as u64;
const QUEUE: usize = 256;
const MAX_CONNECTIONS: usize = 3;
const MAX_PENDING: usize = 8;
/// What the simulated network holds in each direction before it drops (loss).
const NETWORK: usize = 4096;

fn config() -> Config {
    Config::builder()
        .max_reassembly_bytes(BUDGET)
        .max_queued_datagrams(QUEUE)
        .max_connections(MAX_CONNECTIONS)
        .max_pending_reliable(MAX_PENDING)
        .build()
        .expect("valid config")
}

const ADDRS: [&str; 4] = [
    "10.0.0.2:5000", // the real client
    "10.0.0.3:5000",
    "10.0.0.2:5001", // same host, another port
    "[2001:db8::7]:5000",
];

fn trace(f: impl FnOnce() -> String) {
    if std::env::var_os("FUZZ_TRACE").is_some() {
        eprintln!("{}", f());
    }
}

static FIRST_CONNECTED: AtomicBool = AtomicBool::new(false);

/// The harness: hopnet's simulated network with the server and the real client, whose links
/// lose everything. The harness carries every datagram itself, from what the network records,
/// so that the fuzzer decides what arrives and when, and sees what the server answers.
struct World {
    net: SimNetwork,
    addrs: [SocketAddr; 4],
    server_addr: SocketAddr,
    /// Datagrams the server sent the real client, until the fuzzer delivers or loses them.
    to_client: VecDeque<Vec<u8>>,
    /// Datagrams the real client sent, until the fuzzer delivers them.
    to_server: VecDeque<Vec<u8>>,
    /// Seasonings the harness (a legitimate client at that address) has learned.
    known: [Vec<[u8; 4]>; 4],
    /// Whether a learned seasoning was sent from that address.
    answered: [bool; 4],
    connected: usize,
}

impl World {
    fn new(seed: u64) -> World {
        let dead = LinkConfig {
            loss: 1.0,
            delay: Duration::ZERO,
            ..LinkConfig::default()
        };
        let mut net = SimNetwork::new(seed, config(), dead);
        net.record_batches(true);
        let addrs = ADDRS.map(|a| a.parse().unwrap());
        net.add_client_at(addrs[0], config());
        World {
            server_addr: net.server_addr(),
            net,
            addrs,
            to_client: VecDeque::new(),
            to_server: VecDeque::new(),
            known: Default::default(),
            answered: [false; 4],
            connected: 0,
        }
    }

    fn index(&self, addr: SocketAddr) -> Option<usize> {
        self.addrs.iter().position(|&a| a == addr)
    }

    /// Runs the network for `dt` (every timer in order) and takes what the machines sent.
    /// `answering` is the 4-byte datagram from an address that the server's answers, if any,
    /// answer: a challenge to it teaches the harness a seasoning.
    fn run(&mut self, dt: Duration, answering: Option<(usize, [u8; 4])>) {
        self.net.step(dt);
        for batch in self.net.take_batches() {
            let to = batch.transmit.destination;
            for d in batch.datagrams() {
                if batch.from != self.server_addr {
                    if self.to_server.len() < NETWORK {
                        self.to_server.push_back(d.to_vec());
                    }
                    continue;
                }
                trace(|| format!("  server -> {to}: {:02x?}", &d[..d.len().min(8)]));
                let Some(j) = self.index(to) else {
                    panic!("the server sent to an address nobody used: {to}");
                };
                if let (Some((i, salt)), Ok(pepper)) = (answering, <[u8; 4]>::try_from(d))
                    && j == i
                    && is_handshake_shaped(pepper)
                    && self.known[i].len() < 64
                {
                    let seasoning = [0, 1, 2, 3].map(|k| salt[k] ^ pepper[k]);
                    self.known[i].push(seasoning);
                }
                if j == 0 && self.to_client.len() < NETWORK {
                    self.to_client.push_back(d.to_vec());
                }
            }
        }
    }

    /// A datagram from address `i` reaches the server.
    fn deliver_to_server(&mut self, i: usize, datagram: &[u8]) {
        let four: Option<[u8; 4]> = datagram.try_into().ok();
        if let Some(v) = four
            && self.known[i].iter().any(|&s| same_secret(s, v))
        {
            self.answered[i] = true;
        }
        trace(|| {
            format!(
                "to server from {i}: {} bytes {:02x?}",
                datagram.len(),
                &datagram[..datagram.len().min(8)]
            )
        });
        let now = self.net.now();
        self.net.server().handle(now, self.addrs[i], datagram);
        self.run(Duration::ZERO, four.map(|v| (i, v)));
    }

    fn check_event(&mut self, e: &ServerEvent) {
        trace(|| format!("event {e:?}"));
        if e.event == Event::Connected {
            let i = self
                .index(e.peer)
                .expect("a connection for an address nobody used");
            assert!(
                self.answered[i],
                "Connected for {} without a valid ChallengeResponse from it",
                e.peer
            );
            self.connected += 1;
            if !FIRST_CONNECTED.swap(true, Ordering::Relaxed) {
                eprintln!("harness: first Connected reached (peer {})", e.peer);
            }
        }
    }

    fn poll_events(&mut self) {
        while let Some(e) = self.net.server().poll_event() {
            self.check_event(&e);
        }
        while self.net.client(0).poll_event().is_some() {}
    }

    /// The network delivers what is on its way between the real client and the server.
    fn pump(&mut self, rounds: usize) {
        for _ in 0..rounds {
            for d in std::mem::take(&mut self.to_server) {
                self.deliver_to_server(0, &d);
            }
            let now = self.net.now();
            for d in std::mem::take(&mut self.to_client) {
                self.net.client(0).handle(now, self.server_addr, &d);
            }
            self.run(Duration::ZERO, None);
        }
    }

    fn check_bounds(&mut self) {
        let es = self.net.server().server_stats();
        assert!(es.connections <= MAX_CONNECTIONS as u64, "{es:?}");
        assert!(self.net.server().queued_challenges() <= QUEUE);
        for i in 0..4 {
            let Some(id) = self.net.server().connection_of(self.addrs[i]) else {
                continue;
            };
            let Some(s) = self.net.server().stats(id) else {
                continue;
            };
            assert!(s.reassembly_bytes <= CEILING, "server side {i}: {s:?}");
            assert!(s.pending_reliable <= MAX_PENDING as u64, "{s:?}");
        }
        let cs = self.net.client(0).stats();
        assert!(cs.reassembly_bytes <= CEILING, "client: {cs:?}");
        assert!(cs.pending_reliable <= MAX_PENDING as u64, "{cs:?}");
    }
}

/// Whether two seasonings share what a challenge reveals: all but the high nibble of the first
/// byte. Our server accepts two seasonings per address and time bucket that differ only there
/// (so that one of them always gives a handshake-shaped pepper), and a client that answers a
/// challenge with another of its salts than the one the challenge answered (it may, after a
/// second challenge) sends the other one: still knowledge only the pepper gives.
fn same_secret(a: [u8; 4], b: [u8; 4]) -> bool {
    a[0] & 0x0f == b[0] & 0x0f && a[1..] == b[1..]
}

fn delivery(input: &mut Input<'_>) -> Delivery {
    if input.byte() & 1 == 0 {
        Delivery::Reliable
    } else {
        Delivery::Unreliable
    }
}

fn payload(input: &mut Input<'_>) -> Vec<u8> {
    let len = match input.byte() % 4 {
        0 => usize::from(input.byte()),
        1 => 504,
        2 => usize::from(input.u16()) % 4000,
        _ => MAX_PAYLOAD,
    };
    let fill = input.byte();
    vec![fill; len]
}

/// The server's cookie key is derived from the whole input. With a fixed key, libFuzzer's
/// comparison tracing (it records the operands of every compare, such as the server checking
/// a `ChallengeResponse` against the expected seasoning) handed the fuzzer the secret seasoning
/// of an address it never sent an `Init` from: a side channel no real attacker has. Now any
/// change to the input changes the key, so a value learned from one run is useless in the
/// next, and runs stay reproducible.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut w = World::new(fnv1a(data));
    let mut ops = 0;
    while !input.is_empty() && ops < 2000 {
        ops += 1;
        let op = input.0.first().copied().unwrap_or(0) % 13;
        trace(|| format!("op {op} at {:?}", w.net.elapsed()));
        match input.byte() % 13 {
            // Raw bytes from an address.
            0 => {
                let i = usize::from(input.byte() % 4);
                let len = usize::from(input.u16()) % 1200;
                let d = input.bytes(len);
                w.deliver_to_server(i, &d);
            }
            // A header and a chunk of a plausible size.
            1 => {
                let i = usize::from(input.byte() % 4);
                let header = input.bytes(4);
                let len = match input.byte() % 4 {
                    0 => 0,
                    1 => 504,
                    2 => usize::from(input.byte()),
                    _ => 505,
                };
                let fill = input.byte();
                let mut d = header;
                d.resize(4 + len, fill);
                w.deliver_to_server(i, &d);
            }
            // A big datagram, up to the largest UDP payload over IPv4.
            2 => {
                let i = usize::from(input.byte() % 4);
                let len = usize::from(input.u16()).min(65_507);
                let header = input.bytes(4);
                let mut d = header;
                d.resize(len, 0xa5);
                w.deliver_to_server(i, &d);
            }
            // An Init (or anything of 4 bytes).
            3 => {
                let i = usize::from(input.byte() % 4);
                let d = input.bytes(4);
                w.deliver_to_server(i, &d);
            }
            // A legitimate ChallengeResponse, if the harness learned a seasoning there.
            4 => {
                let i = usize::from(input.byte() % 4);
                let k = usize::from(input.byte());
                if !w.known[i].is_empty() {
                    let s = w.known[i][k % w.known[i].len()];
                    w.deliver_to_server(i, &s);
                }
            }
            // Time passes.
            5 => {
                let ms = u64::from(input.u16());
                // Timers fire on the way; what they send enters the network.
                w.run(Duration::from_millis(ms), None);
            }
            // The network delivers between the real client and the server.
            6 => {
                let rounds = usize::from(input.byte() % 4) + 1;
                w.pump(rounds);
            }
            // The client sends.
            7 => {
                let delivery = delivery(&mut input);
                let p = payload(&mut input);
                let _ = w.net.client(0).send(&p, delivery);
            }
            // The server sends to one of its connections.
            8 => {
                let i = usize::from(input.byte() % 4);
                let delivery = delivery(&mut input);
                let p = payload(&mut input);
                if let Some(id) = w.net.server().connection_of(w.addrs[i]) {
                    let _ = w.net.server().send(id, &p, delivery);
                }
            }
            // Raw bytes to the client, from the server's address (spoofed) or another one.
            9 => {
                let from = if input.byte() & 1 == 0 {
                    w.server_addr
                } else {
                    w.addrs[1]
                };
                let len = usize::from(input.u16()) % 1200;
                let d = input.bytes(len);
                let now = w.net.now();
                w.net.client(0).handle(now, from, &d);
            }
            // The application polls its events.
            10 => w.poll_events(),
            // Someone closes.
            11 => {
                let i = usize::from(input.byte() % 5);
                if i == 4 {
                    w.net.client(0).close();
                } else if let Some(id) = w.net.server().connection_of(w.addrs[i]) {
                    let _ = w.net.server().close(id);
                }
            }
            // The network loses what is in flight to the client.
            _ => {
                let n = usize::from(input.byte());
                for _ in 0..n {
                    w.to_client.pop_front();
                }
            }
        }
        w.check_bounds();
    }
    w.poll_events();
    w.check_bounds();
});
