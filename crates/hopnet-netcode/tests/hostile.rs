//! The netcode server and client under attack, without sockets: an attacker who knows the
//! addresses but not the keys, who can record and replay what passes, and who can send anything
//! from anywhere. Every hostile datagram is dropped and counted under its reason, changes
//! nothing, and never panics or grows memory.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use hopnet_netcode::{
    ClientState, ConnectTokenBuilder, DropReason, Key, MAX_PACKET_BYTES, NetcodeClient,
    NetcodeServer, NetcodeServerConfig, NetcodeServerEvent, NetcodeStats, REQUEST_PACKET_BYTES,
    ServerDisconnectReason,
};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

const PROTOCOL_ID: u64 = 0x1234_5678;
const STEP: Duration = Duration::from_millis(10);

fn server_address() -> SocketAddr {
    "10.0.0.1:40000".parse().unwrap()
}

fn client_address(n: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 1, (n % 250) as u8], 50000 + n))
}

/// A server and its clients on a perfect in-memory network, with every datagram recorded.
struct World {
    rng: StdRng,
    key: Key,
    unix: SystemTime,
    now: Instant,
    server: NetcodeServer,
    clients: Vec<(SocketAddr, NetcodeClient)>,
    /// Every datagram from client `i` to the server, in order.
    sent_by_client: Vec<Vec<Vec<u8>>>,
    /// Every datagram from the server to client `i`, in order.
    sent_to_client: Vec<Vec<Vec<u8>>>,
    at_server: Vec<(usize, Vec<u8>)>,
    at_client: Vec<Vec<Vec<u8>>>,
    buf: Vec<u8>,
}

impl World {
    fn new(max_clients: usize) -> World {
        World::with_config(|c| c.max_clients = max_clients)
    }

    fn with_config(edit: impl FnOnce(&mut NetcodeServerConfig)) -> World {
        let mut rng = StdRng::seed_from_u64(7);
        let key = Key::generate_with(&mut rng);
        let mut config = NetcodeServerConfig::new(PROTOCOL_ID, key.clone(), server_address(), 4);
        edit(&mut config);
        let now = Instant::now();
        let unix = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let server = NetcodeServer::with_rng(config, now, unix, &mut rng).unwrap();
        World {
            rng,
            key,
            unix,
            now,
            server,
            clients: Vec::new(),
            sent_by_client: Vec::new(),
            sent_to_client: Vec::new(),
            at_server: Vec::new(),
            at_client: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn token(&mut self, client_id: u64) -> ConnectTokenBuilder {
        ConnectTokenBuilder::new(PROTOCOL_ID, client_id, [server_address()])
    }

    /// Adds a client with a default token for `client_id`, issued now, and returns its index.
    fn add_client_with_id(&mut self, client_id: u64) -> usize {
        let token = self.token(client_id);
        self.add_client(token)
    }

    /// Adds a client with `token`, issued now, and returns its index.
    fn add_client(&mut self, token: ConnectTokenBuilder) -> usize {
        let token = token
            .issue_with(&self.key, self.unix, &mut self.rng)
            .unwrap();
        let i = self.clients.len();
        self.clients.push((
            client_address(i as u16),
            NetcodeClient::new(token, self.now),
        ));
        self.sent_by_client.push(Vec::new());
        self.sent_to_client.push(Vec::new());
        self.at_client.push(Vec::new());
        i
    }

    fn client(&self, i: usize) -> &NetcodeClient {
        &self.clients[i].1
    }

    /// Delivers everything waiting, both ways, until quiet (time does not move).
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            for i in 0..self.clients.len() {
                let (address, client) = &mut self.clients[i];
                while let Some(to) = client.poll_transmit(self.now, &mut self.buf) {
                    moved = true;
                    if to != server_address() {
                        continue; // a server that never answers
                    }
                    self.sent_by_client[i].push(self.buf.clone());
                    if let Some((slot, payload)) = self.server.handle(self.now, *address, &self.buf)
                    {
                        self.at_server.push((slot, payload.to_vec()));
                    }
                }
            }
            while let Some(to) = self.server.poll_transmit(self.now, &mut self.buf) {
                moved = true;
                if let Some(i) = self.clients.iter().position(|(a, _)| *a == to) {
                    self.sent_to_client[i].push(self.buf.clone());
                    if let Some(p) = self.clients[i]
                        .1
                        .handle(self.now, server_address(), &self.buf)
                    {
                        self.at_client[i].push(p.to_vec());
                    }
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// Moves time on by `by`, in steps, running timers and delivering.
    fn advance(&mut self, by: Duration) {
        let end = self.now + by;
        while self.now < end {
            self.now += STEP;
            self.server.handle_timeout(self.now);
            for (_, client) in &mut self.clients {
                client.handle_timeout(self.now);
            }
            self.pump();
        }
    }

    fn connect(&mut self, i: usize) {
        for _ in 0..100 {
            self.pump();
            if self.client(i).state() == ClientState::Connected {
                // Let the client confirm its slot.
                self.advance(Duration::from_millis(200));
                return;
            }
            self.advance(STEP);
        }
        panic!("client {i} never connected: {:?}", self.client(i).state());
    }

    /// Hands the server a datagram as if from `from`; returns a payload it handed up.
    fn deliver_to_server(&mut self, from: SocketAddr, datagram: &[u8]) -> Option<Vec<u8>> {
        self.server
            .handle(self.now, from, datagram)
            .map(|(_, p)| p.to_vec())
    }

    fn events(&mut self) -> Vec<NetcodeServerEvent> {
        std::iter::from_fn(|| self.server.poll_event()).collect()
    }
}

/// Every datagram handed in is accounted for exactly once.
fn assert_accounted(stats: &NetcodeStats) {
    assert_eq!(
        stats.datagrams_received,
        stats.datagrams_accepted + stats.dropped_total(),
        "{stats:?}"
    );
}

/// A connected pair, with events drained.
fn connected_pair() -> World {
    let mut world = World::new(4);
    let token = world.token(1).timeout_seconds(5);
    world.add_client(token);
    world.connect(0);
    let events = world.events();
    assert!(matches!(
        events[..],
        [NetcodeServerEvent::Connected {
            client: 0,
            client_id: 1,
            ..
        }]
    ));
    world
}

/// A packet of `packet_type` with a sequence of `sequence_bytes` bytes (taken from `sequence`)
/// and `content` random bytes plus a random 16-byte tag: what an attacker without keys sends.
fn forged(
    rng: &mut StdRng,
    packet_type: u8,
    sequence: u64,
    sequence_bytes: u8,
    content: usize,
) -> Vec<u8> {
    let mut datagram = vec![(sequence_bytes << 4) | packet_type];
    datagram.extend_from_slice(&sequence.to_le_bytes()[..usize::from(sequence_bytes)]);
    let mut rest = vec![0u8; content + 16];
    rng.fill_bytes(&mut rest);
    datagram.extend_from_slice(&rest);
    datagram
}

#[test]
fn forged_disconnect_payload_and_keep_alive_from_the_clients_address_change_nothing() {
    let mut w = connected_pair();
    let client = client_address(0);
    let before = w.server.stats().clone();
    let mut rng = StdRng::seed_from_u64(1);
    let mut forgeries = 0;
    // Disconnect (6), keep-alive (4), payload (5); every sequence length; sequences the
    // attacker saw on the wire (the next ones) and others.
    for (packet_type, content) in [(6u8, 0usize), (4, 8), (5, 1), (5, 100), (5, 1200)] {
        for sequence_bytes in 1..=8u8 {
            for sequence in [0u64, 1, 5, 6, 7, 255, u64::MAX] {
                let datagram = forged(&mut rng, packet_type, sequence, sequence_bytes, content);
                assert_eq!(w.deliver_to_server(client, &datagram), None);
                forgeries += 1;
            }
        }
    }
    // Each is refused as unauthentic, or before decryption as a replay when it reuses a
    // sequence the client already used.
    let stats = w.server.stats();
    let refused =
        |s: &NetcodeStats| s.dropped(DropReason::Unauthentic) + s.dropped(DropReason::Replayed);
    assert_eq!(refused(stats) - refused(&before), forgeries);
    assert!(
        stats.dropped(DropReason::Unauthentic) - before.dropped(DropReason::Unauthentic)
            > forgeries / 2
    );
    assert_eq!(stats.dropped_total() - before.dropped_total(), forgeries);
    assert!(w.server.is_connected(0));
    assert!(w.events().is_empty());

    // The same toward the client, from the server's address.
    let before = w.client(0).stats().clone();
    for packet_type in [6u8, 4, 5, 1] {
        for sequence_bytes in 1..=8u8 {
            let content = if packet_type == 4 {
                8
            } else if packet_type == 5 {
                64
            } else {
                0
            };
            let datagram = forged(&mut rng, packet_type, 3, sequence_bytes, content);
            assert_eq!(
                w.clients[0].1.handle(w.now, server_address(), &datagram),
                None
            );
        }
    }
    let after = w.client(0).stats();
    assert_eq!(refused(after) - refused(&before), 32);
    assert_eq!(w.client(0).state(), ClientState::Connected);

    // The connection goes on: both ends still exchange payloads, and nothing timed out.
    w.clients[0].1.send(w.now, b"still here").unwrap();
    w.server.send(w.now, 0, b"and so am I").unwrap();
    w.pump();
    assert_eq!(w.at_server, [(0, b"still here".to_vec())]);
    assert_eq!(w.at_client[0], [b"and so am I".to_vec()]);
    w.advance(Duration::from_secs(6));
    assert!(w.server.is_connected(0));
    assert_eq!(w.client(0).state(), ClientState::Connected);
    assert_accounted(w.server.stats());
    assert_accounted(w.client(0).stats());
}

#[test]
fn a_forged_header_does_not_move_the_replay_window() {
    let mut w = connected_pair();
    let mut rng = StdRng::seed_from_u64(2);
    // A forgery far ahead: if it were recorded, real packets would look stale.
    let ahead = forged(&mut rng, 5, 1 << 40, 8, 50);
    assert_eq!(w.deliver_to_server(client_address(0), &ahead), None);
    w.clients[0].1.send(w.now, b"after").unwrap();
    w.pump();
    assert_eq!(w.at_server, [(0, b"after".to_vec())]);
    assert_eq!(w.server.stats().dropped(DropReason::Replayed), 0);
}

#[test]
fn replayed_packets_are_dropped_both_ways() {
    let mut w = connected_pair();
    w.clients[0].1.send(w.now, b"once").unwrap();
    w.server.send(w.now, 0, b"only once").unwrap();
    w.pump();
    let up = w.sent_by_client[0].last().unwrap().clone();
    let down = w.sent_to_client[0].last().unwrap().clone();

    assert_eq!(w.deliver_to_server(client_address(0), &up), None);
    assert_eq!(w.server.stats().dropped(DropReason::Replayed), 1);
    assert_eq!(w.clients[0].1.handle(w.now, server_address(), &down), None);
    assert_eq!(w.client(0).stats().dropped(DropReason::Replayed), 1);
    assert_eq!(w.at_server.len(), 1);
    assert_eq!(w.at_client[0].len(), 1);

    // Every earlier keep-alive and disconnect-free packet, replayed later: all refused, the
    // old ones as older than the window.
    w.advance(Duration::from_secs(30));
    let recorded = w.sent_by_client[0].clone();
    let before = w.server.stats().clone();
    let mut encrypted = 0;
    for datagram in &recorded {
        if datagram[0] != 0 {
            assert_eq!(w.deliver_to_server(client_address(0), datagram), None);
            encrypted += 1;
        }
    }
    let after = w.server.stats();
    // Responses are not replay-protected by the window; they are refused as coming from a
    // connected address.
    assert_eq!(after.datagrams_accepted, before.datagrams_accepted);
    assert_eq!(after.dropped_total() - before.dropped_total(), encrypted);
    assert!(w.server.is_connected(0));
    assert_accounted(after);
}

#[test]
fn a_request_is_bound_to_the_first_address_that_used_its_token() {
    let mut w = World::new(4);
    w.add_client_with_id(1);
    w.clients[0].1.poll_transmit(w.now, &mut w.buf).unwrap();
    let request = w.buf.clone();
    assert_eq!(request.len(), REQUEST_PACKET_BYTES);
    assert_eq!(w.deliver_to_server(client_address(0), &request), None);
    // Read off the wire and sent from another address before the client even connected.
    let thief = client_address(77);
    assert_eq!(w.deliver_to_server(thief, &request), None);
    assert_eq!(w.server.stats().dropped(DropReason::TokenUsedElsewhere), 1);
    assert_eq!(w.server.stats().challenges_sent, 1);
    w.connect(0);
    assert_eq!(w.server.client_address(0), Some(client_address(0)));
    // Once connected, the same request from the same address is ignored too.
    assert_eq!(w.deliver_to_server(client_address(0), &request), None);
    assert_eq!(w.server.stats().dropped(DropReason::AddressConnected), 1);
}

#[test]
fn expired_tokens_other_protocols_and_tampered_requests_are_dropped() {
    let mut w = World::new(4);
    let cases: [(ConnectTokenBuilder, DropReason); 4] = [
        (w.token(1).expire_seconds(0), DropReason::RequestExpired),
        (
            ConnectTokenBuilder::new(PROTOCOL_ID + 1, 2, [server_address()]),
            DropReason::RequestProtocol,
        ),
        (
            // Sent to this server, but the private part names another.
            w.token(3)
                .internal_addresses(["10.0.0.2:40000".parse().unwrap()]),
            DropReason::NotInToken,
        ),
        (w.token(4), DropReason::RequestToken),
    ];
    for (i, (token, reason)) in cases.into_iter().enumerate() {
        let c = w.add_client(token);
        if reason == DropReason::RequestToken {
            // Sealed with another private key.
            let other = Key::generate_with(&mut w.rng);
            let token = w.token(4).issue_with(&other, w.unix, &mut w.rng).unwrap();
            w.clients[c].1 = NetcodeClient::new(token, w.now);
        }
        w.pump();
        assert_eq!(
            w.server.stats().dropped(reason),
            1,
            "case {i}: {:?}",
            w.server.stats()
        );
    }
    // A valid request, tampered: version, expiry (bound by the associated data), private part.
    let c = w.add_client_with_id(9);
    w.pump();
    let request = w.sent_by_client[c][0].clone();
    let from = client_address(c as u16);
    for (at, reason) in [
        (1, DropReason::RequestVersion),
        (22, DropReason::RequestToken),
        (600, DropReason::RequestToken),
    ] {
        let mut tampered = request.clone();
        tampered[at] ^= 1;
        let before = w.server.stats().dropped(reason);
        assert_eq!(w.deliver_to_server(from, &tampered), None);
        assert_eq!(w.server.stats().dropped(reason), before + 1, "byte {at}");
    }
    // Only the untampered request connected.
    assert_eq!(w.server.connected_clients(), 1);
    assert_accounted(w.server.stats());
}

#[test]
fn truncated_and_oversized_requests_are_dropped() {
    let mut w = World::new(4);
    w.add_client_with_id(1);
    w.pump();
    let request = w.sent_by_client[0][0].clone();
    let from = client_address(5);
    for len in [1, 2, 100, REQUEST_PACKET_BYTES - 1] {
        assert_eq!(w.deliver_to_server(from, &request[..len]), None);
    }
    assert_eq!(w.server.stats().dropped(DropReason::RequestLength), 4);
    let mut longer = request.clone();
    longer.push(0);
    assert_eq!(w.deliver_to_server(from, &longer), None);
    assert_eq!(w.server.stats().dropped(DropReason::RequestLength), 5);
    longer.resize(MAX_PACKET_BYTES + 1, 0);
    assert_eq!(w.deliver_to_server(from, &longer), None);
    longer.resize(65_507, 0);
    assert_eq!(w.deliver_to_server(from, &longer), None);
    assert_eq!(w.server.stats().dropped(DropReason::Oversized), 2);
    assert_eq!(w.server.stats().challenges_sent, 1);
    assert_eq!(w.deliver_to_server(from, &[]), None);
    assert_eq!(w.server.stats().dropped(DropReason::TooSmall), 1);
    assert_accounted(w.server.stats());
}

#[test]
fn sequence_length_nibbles_outside_1_to_8_and_unknown_types_are_dropped() {
    let mut w = connected_pair();
    let mut rng = StdRng::seed_from_u64(3);
    for nibble in [0u8, 9, 10, 15] {
        for packet_type in 1..=6u8 {
            let mut datagram = forged(&mut rng, packet_type, 1, 8, 40);
            datagram[0] = (nibble << 4) | packet_type;
            let server_reason = if matches!(packet_type, 1 | 2) {
                DropReason::WrongDirection
            } else {
                DropReason::SequenceLength
            };
            let before = w.server.stats().dropped(server_reason);
            assert_eq!(w.deliver_to_server(client_address(0), &datagram), None);
            assert_eq!(w.server.stats().dropped(server_reason), before + 1);
            let client_reason = if packet_type == 3 {
                DropReason::WrongDirection
            } else {
                DropReason::SequenceLength
            };
            let before = w.client(0).stats().dropped(client_reason);
            assert_eq!(
                w.clients[0].1.handle(w.now, server_address(), &datagram),
                None
            );
            assert_eq!(w.client(0).stats().dropped(client_reason), before + 1);
        }
    }
    for packet_type in 7..=15u8 {
        let datagram = forged(&mut rng, packet_type, 1, 1, 40);
        assert_eq!(w.deliver_to_server(client_address(0), &datagram), None);
        assert_eq!(
            w.clients[0].1.handle(w.now, server_address(), &datagram),
            None
        );
    }
    assert_eq!(w.server.stats().dropped(DropReason::UnknownType), 9);
    assert_eq!(w.client(0).stats().dropped(DropReason::UnknownType), 9);
    assert!(w.server.is_connected(0));
    assert_eq!(w.client(0).state(), ClientState::Connected);
}

#[test]
fn random_and_mutated_datagrams_from_anywhere_are_dropped_and_counted() {
    let mut w = connected_pair();
    let mut rng = StdRng::seed_from_u64(4);
    let recorded: Vec<Vec<u8>> = w.sent_by_client[0]
        .iter()
        .chain(&w.sent_to_client[0])
        .cloned()
        .collect();
    let server_before = w.server.stats().clone();
    let client_before = w.client(0).stats().clone();
    let n = 20_000;
    for i in 0..n {
        let datagram = if i % 2 == 0 {
            let len = rng.random_range(0..1400);
            let mut bytes = vec![0u8; len];
            rng.fill_bytes(&mut bytes);
            if i % 10 == 0 && len > 0 {
                bytes[0] = 0; // a request's prefix
            }
            bytes
        } else {
            let mut bytes = recorded[rng.random_range(0..recorded.len())].clone();
            for _ in 0..rng.random_range(1..4) {
                let at = rng.random_range(0..bytes.len());
                bytes[at] ^= 1 << rng.random_range(0..8);
            }
            bytes
        };
        let from = if i % 3 == 0 {
            client_address(0)
        } else {
            client_address(rng.random_range(1..500))
        };
        assert_eq!(w.deliver_to_server(from, &datagram), None);
        assert_eq!(
            w.clients[0].1.handle(w.now, server_address(), &datagram),
            None
        );
    }
    for (stats, before) in [
        (w.server.stats(), &server_before),
        (w.client(0).stats(), &client_before),
    ] {
        assert_eq!(stats.datagrams_received - before.datagrams_received, n);
        assert_eq!(
            stats.datagrams_accepted, before.datagrams_accepted,
            "{stats:?}"
        );
        assert_accounted(stats);
    }
    // Nothing was admitted, so nothing grew.
    assert_eq!(w.server.handshakes_in_progress(), 0);
    assert_eq!(w.server.tokens_remembered(), 1);
    assert_eq!(w.server.queued_datagrams(), 0);
    assert!(w.server.is_connected(0));
    assert_eq!(w.client(0).state(), ClientState::Connected);
    assert!(w.events().is_empty());
}

/// A server of `max_clients` slots with client id 1 connected (client 0), after a second
/// client (1) with `client_id` asked for `wait`.
fn after_a_second_request(max_clients: usize, client_id: u64, wait: Duration) -> World {
    let mut w = World::new(max_clients);
    w.add_client_with_id(1);
    w.connect(0);
    w.add_client_with_id(client_id);
    w.advance(wait);
    w
}

#[test]
fn a_full_server_denies_and_the_client_says_so() {
    let w = after_a_second_request(1, 2, Duration::from_millis(100));
    assert_eq!(w.client(1).state(), ClientState::ConnectionDenied);
    assert_eq!(w.server.stats().denials_sent, 1);
    assert_eq!(w.server.stats().challenges_sent, 1);
    // The denial is sealed under the second client's key, from the server-wide sequence.
    let denial = &w.sent_to_client[1][0];
    assert_eq!(denial[0], 0x81, "type 1 with an 8-byte sequence");
    assert_eq!(denial[8] & 0x80, 0x80, "the global sequence's top bit");
    assert!(w.server.is_connected(0));
}

#[test]
fn challenges_come_from_the_server_wide_sequence() {
    let mut w = World::new(4);
    for id in 1..=3 {
        w.add_client_with_id(id);
    }
    w.pump();
    let sequences: Vec<u64> = (0..3)
        .map(|i| {
            let challenge = &w.sent_to_client[i][0];
            assert_eq!(challenge[0], 0x82, "type 2 with an 8-byte sequence");
            u64::from_le_bytes(challenge[1..9].try_into().unwrap())
        })
        .collect();
    assert_eq!(sequences, [1 << 63, (1 << 63) + 1, (1 << 63) + 2]);
}

#[test]
fn the_same_client_id_cannot_connect_twice() {
    let w = after_a_second_request(4, 1, Duration::from_millis(300));
    assert!(w.server.stats().dropped(DropReason::ClientConnected) >= 1);
    assert_eq!(w.server.connected_clients(), 1);
    assert_eq!(w.client(1).state(), ClientState::SendingConnectionRequest);
}

#[test]
fn the_handshake_table_is_bounded_and_frees_as_tokens_time_out() {
    let mut w = World::with_config(|c| {
        c.max_handshakes = 4;
        c.max_clients = 16;
    });
    for id in 0..10 {
        let token = w.token(id).timeout_seconds(2);
        let c = w.add_client(token);
        // Requests only: the client never answers (its responses are withheld).
        w.clients[c].1.poll_transmit(w.now, &mut w.buf).unwrap();
        let request = w.buf.clone();
        let from = client_address(c as u16);
        assert_eq!(w.deliver_to_server(from, &request), None);
    }
    assert_eq!(w.server.handshakes_in_progress(), 4);
    assert_eq!(w.server.stats().dropped(DropReason::HandshakesFull), 6);
    assert_eq!(w.server.stats().challenges_sent, 4);
    // After the tokens' timeout, a new request finds room.
    w.now += Duration::from_secs(2);
    let c = w.add_client_with_id(100);
    w.clients[c].1.poll_transmit(w.now, &mut w.buf).unwrap();
    let request = w.buf.clone();
    assert_eq!(
        w.deliver_to_server(client_address(c as u16), &request),
        None
    );
    assert_eq!(w.server.stats().challenges_sent, 5);
    assert_eq!(w.server.handshakes_in_progress(), 1);
}

#[test]
fn silence_times_out_both_ends_by_the_tokens_timeout() {
    let mut w = connected_pair();
    let slot_address = client_address(0);
    // Cut the link: advance both ends' clocks without delivering anything.
    let start = w.now;
    while w.now < start + Duration::from_secs(6) {
        w.now += STEP;
        w.server.handle_timeout(w.now);
        let now = w.now;
        w.clients[0].1.handle_timeout(now);
        while w.server.poll_transmit(now, &mut w.buf).is_some() {}
        while w.clients[0].1.poll_transmit(now, &mut w.buf).is_some() {}
    }
    assert_eq!(w.client(0).state(), ClientState::ConnectionTimedOut);
    assert_eq!(
        w.events(),
        [NetcodeServerEvent::Disconnected {
            client: 0,
            client_id: 1,
            address: slot_address,
            reason: ServerDisconnectReason::TimedOut
        }]
    );
    assert_eq!(w.server.connected_clients(), 0);
}

#[test]
fn a_client_tries_the_next_server_then_times_out_or_expires() {
    let mut w = World::new(4);
    let silent: SocketAddr = "10.0.0.9:1".parse().unwrap();
    // The first server never answers; the second is ours.
    let token =
        ConnectTokenBuilder::new(PROTOCOL_ID, 1, [silent, server_address()]).timeout_seconds(1);
    w.add_client(token);
    assert_eq!(w.client(0).server_address(), silent);
    w.advance(Duration::from_millis(1100));
    assert_eq!(w.client(0).server_address(), server_address());
    w.connect(0);

    // Nobody answers at all: request timed out.
    let mut lone = NetcodeClient::new(
        ConnectTokenBuilder::new(PROTOCOL_ID, 2, [silent])
            .timeout_seconds(1)
            .issue(&w.key, w.unix)
            .unwrap(),
        w.now,
    );
    let t0 = w.now;
    let mut t = t0;
    while !lone.state().is_closed() && t < t0 + Duration::from_secs(5) {
        while lone.poll_transmit(t, &mut w.buf).is_some() {}
        t += STEP;
        lone.handle_timeout(t);
    }
    assert_eq!(lone.state(), ClientState::ConnectionRequestTimedOut);

    // With timeouts disabled, the token's lifetime ends the attempt.
    let mut patient = NetcodeClient::new(
        ConnectTokenBuilder::new(PROTOCOL_ID, 3, [silent])
            .timeout_seconds(-1)
            .expire_seconds(3)
            .issue(&w.key, w.unix)
            .unwrap(),
        t0,
    );
    let deadline = patient.poll_timeout().unwrap();
    assert!(deadline <= t0 + Duration::from_millis(100));
    patient.handle_timeout(t0 + Duration::from_millis(2999));
    assert!(patient.state().is_connecting());
    patient.handle_timeout(t0 + Duration::from_secs(3));
    assert_eq!(patient.state(), ClientState::ConnectTokenExpired);
}

#[test]
fn a_request_flood_from_many_addresses_leaves_a_connected_client_intact() {
    let mut w = connected_pair();
    let mut rng = StdRng::seed_from_u64(5);
    // Requests shaped right (size, version, protocol, expiry) with garbage private parts,
    // from thousands of addresses, interleaved with the real client's traffic.
    let mut valid_shape = w.sent_by_client[0][0].clone();
    for round in 0..50u32 {
        for k in 0..100u32 {
            rng.fill_bytes(&mut valid_shape[54..]);
            let from = SocketAddr::from((
                [192, 0, 2, (k % 250) as u8],
                1000 + (round * 100 + k) as u16,
            ));
            assert_eq!(w.deliver_to_server(from, &valid_shape), None);
        }
        w.clients[0].1.send(w.now, &round.to_le_bytes()).unwrap();
        w.advance(STEP);
    }
    assert_eq!(w.server.stats().dropped(DropReason::RequestToken), 5000);
    let delivered: Vec<u32> = w
        .at_server
        .iter()
        .map(|(_, p)| u32::from_le_bytes(p[..].try_into().unwrap()))
        .collect();
    assert_eq!(delivered, (0..50).collect::<Vec<_>>());
    assert_eq!(w.server.handshakes_in_progress(), 0);
    assert!(w.server.is_connected(0));
}
