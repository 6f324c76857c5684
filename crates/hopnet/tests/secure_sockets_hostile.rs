//! Secure mode's hostile cases over real sockets (loopback UDP), through the blocking driver.
//!
//! **Forged disconnects.** The attacker is on the path: the client's traffic passes through a
//! forwarder (a [`Tap`]) that the server knows the client by, as a NAT or a Wi-Fi access point
//! would be. It sees every packet both ways and sends from the very address each end expects
//! (the client's, as the server knows it; the server's, as the client knows it) — no source
//! spoofing is needed, and it is a stronger position than an off-path spoofer's, who sees
//! nothing. What it cannot have is the keys. Its netcode disconnects (under fresh sequences,
//! and real packets retyped as disconnects), replays of everything it saw, damaged packets,
//! the captured connection request, and hopnet's plaintext `END` (which closes a plain
//! connection) all fail; so does the same from a third socket off the path. The connection
//! stays up and echoes as before, and each end counts what it dropped, by reason.
//!
//! **A request flood.** Sixty-four sockets send 1,920 datagrams: connection requests (with valid tokens, each
//! costing the server a decryption, a challenge and a handshake entry; with sealed parts that
//! do not open; and random bytes) while a connected client's messages are echoed: every echo
//! comes back intact, and the server's handshake table stays within its bound.

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{DropReason, Key, NetcodeClient};
use hopnet::{Client, Server};
use hopnet::{Config, ConnectionId, Delivery, Event};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// The test peers and helpers the machines' tests use, in hopnet-proto.
#[path = "../../hopnet-proto/tests/common/mod.rs"]
mod common;
use common::secure::{FORGERY_DROPS, PROTOCOL_ID, assert_dropped, message, token, token_builder};

const DEADLINE: Duration = Duration::from_secs(30);
/// Datagrams a tap keeps of each direction.
const CAPTURE: usize = 4096;

fn nonblocking_socket() -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_nonblocking(true).unwrap();
    socket
}

fn receive(socket: &UdpSocket, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
    match socket.recv_from(buf) {
        Ok(got) => Some(got),
        Err(e) if e.kind() == ErrorKind::WouldBlock => None,
        Err(e) if e.kind() == ErrorKind::ConnectionRefused => None,
        Err(e) => panic!("recv: {e}"),
    }
}

/// An on-path forwarder: the client sends to `front` (its token's public address), the tap
/// forwards from `back` to the server, which knows the client as `back`; answers go the other
/// way. It keeps what it sees, and sends what it likes from either socket.
struct Tap {
    front: UdpSocket,
    back: UdpSocket,
    server: SocketAddr,
    client: Option<SocketAddr>,
    up: Vec<Vec<u8>>,
    down: Vec<Vec<u8>>,
    buf: Vec<u8>,
}

impl Tap {
    fn new(server: SocketAddr) -> Tap {
        Tap {
            front: nonblocking_socket(),
            back: nonblocking_socket(),
            server,
            client: None,
            up: Vec::new(),
            down: Vec::new(),
            buf: vec![0; 65536],
        }
    }

    fn public_address(&self) -> SocketAddr {
        self.front.local_addr().unwrap()
    }

    /// Forwards what waits, both ways, keeping a copy.
    fn pump(&mut self) {
        while let Some((n, from)) = receive(&self.front, &mut self.buf) {
            self.client = Some(from);
            if self.up.len() < CAPTURE {
                self.up.push(self.buf[..n].to_vec());
            }
            self.back.send_to(&self.buf[..n], self.server).unwrap();
        }
        while let Some((n, from)) = receive(&self.back, &mut self.buf) {
            if from != self.server {
                continue;
            }
            if self.down.len() < CAPTURE {
                self.down.push(self.buf[..n].to_vec());
            }
            if let Some(client) = self.client {
                self.front.send_to(&self.buf[..n], client).unwrap();
            }
        }
    }

    /// Sends to the server from the client's address (as the server knows it).
    fn forge_up(&self, bytes: &[u8]) {
        self.back.send_to(bytes, self.server).unwrap();
    }

    /// Sends to the client from the server's address (as the client knows it).
    fn forge_down(&self, bytes: &[u8]) {
        self.front.send_to(bytes, self.client.unwrap()).unwrap();
    }
}

/// Forgeries made from packets seen: each replayed, retyped as a disconnect (type 6, its
/// sequence length kept), and with its tag damaged; a connection request (type 0) only
/// replayed.
fn forgeries_of(seen: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut forged = Vec::new();
    for packet in seen {
        forged.push(packet.clone());
        if packet[0] == 0 {
            continue;
        }
        let mut retyped = packet.clone();
        retyped[0] = (retyped[0] & 0xf0) | 6;
        forged.push(retyped);
        let mut damaged = packet.clone();
        *damaged.last_mut().unwrap() ^= 0x80;
        forged.push(damaged);
    }
    forged
}

/// Disconnects under sequences not used yet (two bytes, 40,000 and up: past the replay window
/// of either end), with made-up tags; and hopnet's plaintext `END` under many sequences.
fn blind_forgeries() -> Vec<Vec<u8>> {
    let mut forged = Vec::new();
    for k in 0..64u16 {
        let [lo, hi] = (40_000 + k).to_le_bytes();
        let mut disconnect = vec![0x26, lo, hi];
        disconnect.extend((0..16u8).map(|j| j.wrapping_mul(lo)));
        forged.push(disconnect);
        forged.push(vec![0x08, 0, (k >> 8) as u8, k as u8]);
    }
    forged
}

/// A secure server on loopback that echoes every message with its delivery.
struct Echo {
    server: Server,
    connected: Vec<ConnectionId>,
}

impl Echo {
    fn new(key: &Key) -> Echo {
        Echo {
            server: Server::bind_secure("127.0.0.1:0", Config::default(), PROTOCOL_ID, key.clone())
                .unwrap(),
            connected: Vec::new(),
        }
    }

    fn turn(&mut self) {
        self.server.poll(Duration::ZERO).unwrap();
        while let Some(e) = self.server.poll_event() {
            match e.event {
                Event::Connected => self.connected.push(e.connection),
                Event::Message { bytes, reliable } => {
                    let delivery = if reliable {
                        Delivery::Reliable
                    } else {
                        Delivery::Unreliable
                    };
                    self.server.send(e.connection, &bytes, delivery).unwrap();
                }
                other => panic!("the server saw {other:?}"),
            }
        }
    }
}

/// Message `i` of the echo rounds: one byte, most of a chunk, a netcode payload, a few chunks.
fn echo_message(i: usize) -> Vec<u8> {
    message(i, [1, 500, 1200, 3000][i % 4])
}

/// Sends messages `range` reliably and waits for every echo, intact, running `between` on
/// each turn; panics on a disconnect.
fn echo_round(
    client: &mut Client,
    range: std::ops::Range<usize>,
    mut between: impl FnMut(&mut Client),
) {
    let start = Instant::now();
    for i in range.clone() {
        client.send(&echo_message(i), Delivery::Reliable).unwrap();
    }
    let mut echoed = Vec::new();
    while echoed.len() < range.len() {
        assert!(start.elapsed() < DEADLINE, "{} echoes", echoed.len());
        between(client);
        client.poll(Duration::from_micros(200)).unwrap();
        while let Some(e) = client.poll_event() {
            match e {
                Event::Message { bytes, .. } => echoed.push(bytes),
                Event::Connected => {}
                other => panic!("the client saw {other:?}"),
            }
        }
    }
    echoed.sort();
    let mut want: Vec<Vec<u8>> = range.map(echo_message).collect();
    want.sort();
    assert_eq!(echoed, want);
}

#[test]
fn forged_disconnects_replays_and_plaintext_end_over_real_sockets_close_nothing() {
    let key = Key::generate();
    let mut echo = Echo::new(&key);
    let server_address = echo.server.local_addr().unwrap();
    let mut tap = Tap::new(server_address);
    let token = token_builder(9, tap.public_address())
        .internal_addresses([server_address])
        .issue(&key, SystemTime::now())
        .unwrap();
    let mut client = Client::connect_secure(token, Config::default()).unwrap();

    // Traffic for the tap to see.
    echo_round(&mut client, 0..40, |_| {
        tap.pump();
        echo.turn();
    });
    assert_eq!(echo.connected.len(), 1);
    assert!(tap.up.iter().any(|p| p[0] == 0), "the request was seen");

    // The attack, from the path and from off it.
    let third = nonblocking_socket();
    let mut up = forgeries_of(&tap.up);
    up.extend(blind_forgeries());
    let mut down = forgeries_of(&tap.down);
    down.extend(blind_forgeries());
    let (sent_up, sent_down) = (up.len(), down.len());
    for (i, bytes) in up.iter().enumerate() {
        tap.forge_up(bytes);
        third.send_to(bytes, server_address).unwrap();
        if i % 32 == 0 {
            tap.pump();
            echo.turn();
            client.poll(Duration::ZERO).unwrap();
        }
    }
    for (i, bytes) in down.iter().enumerate() {
        tap.forge_down(bytes);
        if i % 32 == 0 {
            tap.pump();
            echo.turn();
            client.poll(Duration::ZERO).unwrap();
        }
    }
    // Let everything arrive and be read, then echo as before.
    let settle = Instant::now() + Duration::from_millis(300);
    while Instant::now() < settle {
        tap.pump();
        echo.turn();
        client.poll(Duration::from_millis(1)).unwrap();
    }
    echo_round(&mut client, 40..80, |_| {
        tap.pump();
        echo.turn();
    });
    assert!(client.machine().is_connected());
    assert_eq!(echo.connected.len(), 1, "nobody else connected");
    let secure = echo.server.secure().unwrap();
    assert_eq!(secure.netcode().connected_clients(), 1);

    let server = secure.netcode_stats().clone();
    eprintln!("{sent_up} forged up (twice: tap and third socket), {sent_down} down");
    eprintln!("server: {server:?}");
    assert_dropped("server", &server, &FORGERY_DROPS);
    assert_dropped(
        "server",
        &server,
        &[
            // The captured request: from the client's address (connected), and from the third
            // socket (its client id is connected).
            DropReason::AddressConnected,
            DropReason::ClientConnected,
            // Everything from the third socket but the request: no key for that address.
            DropReason::NoKey,
        ],
    );
    let client_stats = client.secure().unwrap().netcode_stats().clone();
    eprintln!("client: {client_stats:?}");
    assert_dropped("client", &client_stats, &FORGERY_DROPS);
}

#[test]
fn a_request_flood_from_many_sockets_leaves_a_connected_clients_echo_intact() {
    let key = Key::generate();
    let mut echo = Echo::new(&key);
    let address = echo.server.local_addr().unwrap();
    let token_of = |client_id: u64| token(&key, client_id, address);
    let mut client = Client::connect_secure(token_of(1), Config::default()).unwrap();
    echo_round(&mut client, 0..8, |_| echo.turn());

    // Rounds of the flood, each 192 datagrams, one per echo turn at first. (Unoptimized test
    // builds spend about a millisecond on each request's decryption, so the flood is kept to
    // what they get through in a few seconds.)
    const ROUNDS: usize = 10;
    // The flood's datagrams: per socket a request with a valid token of its own (made by a
    // netcode client, as any would), one whose sealed part does not open, and random bytes.
    let mut rng = SmallRng::seed_from_u64(64);
    let floods: Vec<(UdpSocket, Vec<Vec<u8>>)> = (0..64u64)
        .map(|i| {
            let now = Instant::now();
            let mut netcode = NetcodeClient::new(token_of(1000 + i), now);
            let mut request = Vec::new();
            netcode.poll_transmit(now, &mut request).unwrap();
            assert_eq!(request.len(), 1078);
            let mut unopenable = request.clone();
            let last = unopenable.len() - 1;
            unopenable[last] ^= 1;
            let junk: Vec<u8> = (0..rng.random_range(1..1400))
                .map(|_| rng.random())
                .collect();
            (nonblocking_socket(), vec![request, unopenable, junk])
        })
        .collect();

    let mut round = 0;
    echo_round(&mut client, 8..208, |_| {
        if round < ROUNDS {
            for (socket, datagrams) in &floods {
                for datagram in datagrams {
                    // A full socket buffer drops some: a flood does not wait.
                    let _ = socket.send_to(datagram, address);
                }
            }
            round += 1;
        }
        echo.turn();
    });
    assert_eq!(round, ROUNDS, "the flood ran during the echoes");
    assert!(client.machine().is_connected());
    assert_eq!(echo.connected.len(), 1, "no flooder connected");

    let secure = echo.server.secure().unwrap();
    let stats = secure.netcode_stats().clone();
    eprintln!("server under the flood: {stats:?}");
    assert!(stats.challenges_sent >= 64, "valid requests were answered");
    assert_dropped("server", &stats, &[DropReason::RequestToken]);
    assert!(
        stats.dropped_total() > 128,
        "the flood's junk and unopenable requests"
    );
    let bound = secure.netcode().config().max_handshakes;
    assert!(secure.netcode().handshakes_in_progress() <= bound);
    assert_eq!(secure.netcode().connected_clients(), 1);
}
