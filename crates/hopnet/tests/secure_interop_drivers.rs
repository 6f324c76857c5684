//! Secure mode through the drivers against the real netcode: `netcode-official` (mas-bandwidth's
//! Rust port of the netcode 1.02 reference) at one end, our blocking driver's secure server or
//! client at the other, over loopback UDP, at 0 % loss and at 10 % each way (through hopnet's
//! lossy relay, so that both ends keep their own sockets untouched).
//!
//! netcode-official carries bytes, not hopnet; on its side the test speaks hopnet's spec wire
//! with the least a peer needs (a stand-in, [`SpecPeer`]: single-chunk messages, every `REL`
//! chunk acknowledged, reliable ones resent until acknowledged, each sequence handed up once).
//! The netcode layer on that side — tokens, handshake, encryption, keep-alives, disconnects —
//! is the reference's own. Reliable messages must all arrive both ways, at either loss; the
//! unreliable ones all at 0 %, most at 10 %.

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use hopnet::Impairment;
use hopnet::relay::Relay;
use hopnet::secure::{ConnectToken, Key};
use hopnet::{Client, Server};
use hopnet::{Config, Delivery, DisconnectReason, Event};
use hopnet_proto::fuzzing::packet::{Flags, Header};

// The test peers and helpers the machines' tests use, in hopnet-proto.
#[path = "../../hopnet-proto/tests/common/mod.rs"]
mod common;
use common::secure::{PROTOCOL_ID, message, token_builder};

const CLIENT_ID: u64 = 0x00c0_ffee;
/// Messages each way of each kind.
const MESSAGES: usize = 100;
const DEADLINE: Duration = Duration::from_secs(30);
const RESEND: Duration = Duration::from_millis(100);

/// Message `k` of a kind numbered from `base`: 1 to 504 bytes (one chunk, all the stand-in
/// peer reassembles).
fn one_chunk(base: usize, k: usize) -> Vec<u8> {
    message(base + k, [1, 2, 504, 37, 300, 503, 64][k % 7])
}

/// hopnet's spec wire, the least a peer needs (see the module docs).
#[derive(Default)]
struct SpecPeer {
    next_sequence: u16,
    unacked: BTreeMap<u16, (Instant, Vec<u8>)>,
    seen: HashSet<u16>,
    outgoing: Vec<Vec<u8>>,
}

impl SpecPeer {
    fn send(&mut self, now: Instant, payload: &[u8], reliable: bool) {
        let flags = if reliable {
            Flags::REL | Flags::FIN
        } else {
            Flags::FIN
        };
        let mut datagram = Header::new(flags, 0, self.next_sequence).encode().to_vec();
        datagram.extend_from_slice(payload);
        if reliable {
            self.unacked
                .insert(self.next_sequence, (now, datagram.clone()));
        }
        self.outgoing.push(datagram);
        self.next_sequence = self.next_sequence.wrapping_add(1);
    }

    /// Message `k` of the kind numbered from `base`, reliably, and of the kind numbered from
    /// `base + 1000`, unreliably.
    fn send_both(&mut self, now: Instant, base: usize, k: usize) {
        self.send(now, &one_chunk(base, k), true);
        self.send(now, &one_chunk(base + 1000, k), false);
    }

    /// A datagram from our side: a message goes into `arrivals` the first time it comes.
    fn receive(&mut self, datagram: &[u8], arrivals: &mut Arrivals) {
        let Some((header, chunk)) = Header::decode(datagram) else {
            return;
        };
        if header.flags.contains(Flags::ACK) {
            if header.chunk == 0 {
                self.unacked.remove(&header.sequence);
            }
            return;
        }
        let reliable = header.flags.contains(Flags::REL);
        if reliable {
            let ack = Header::new(Flags::ACK, header.chunk, header.sequence);
            self.outgoing.push(ack.encode().to_vec());
        }
        assert!(
            header.chunk == 0 && header.flags.contains(Flags::FIN),
            "a one-chunk message: {header:?}"
        );
        if self.seen.insert(header.sequence) {
            arrivals.push(chunk.to_vec(), reliable);
        }
    }

    /// What to send now: acknowledgements and messages, and the reliable messages whose
    /// acknowledgement is overdue, again.
    fn outgoing(&mut self, now: Instant) -> Vec<Vec<u8>> {
        for (sent, datagram) in self.unacked.values_mut() {
            if now.duration_since(*sent) >= RESEND {
                *sent = now;
                self.outgoing.push(datagram.clone());
            }
        }
        std::mem::take(&mut self.outgoing)
    }
}

/// What arrived of one kind from one side.
#[derive(Default)]
struct Arrivals {
    reliable: Vec<Vec<u8>>,
    unreliable: Vec<Vec<u8>>,
}

impl Arrivals {
    fn push(&mut self, bytes: Vec<u8>, reliable: bool) {
        if reliable {
            self.reliable.push(bytes);
        } else {
            self.unreliable.push(bytes);
        }
    }

    fn reliable_done(&self) -> bool {
        self.reliable.len() >= MESSAGES
    }

    /// Every reliable message, each once (in any order); unreliable ones each once, all of
    /// them without loss and most with it.
    fn check(&self, direction: &str, base: usize, loss: f64) {
        let mut reliable = self.reliable.clone();
        reliable.sort();
        let mut want: Vec<Vec<u8>> = (0..MESSAGES).map(|k| one_chunk(base, k)).collect();
        want.sort();
        assert_eq!(reliable, want, "{direction}: reliable");
        let unreliable_sent: Vec<Vec<u8>> =
            (0..MESSAGES).map(|k| one_chunk(base + 1000, k)).collect();
        let mut seen = HashSet::new();
        for bytes in &self.unreliable {
            assert!(
                unreliable_sent.contains(bytes),
                "{direction}: an unreliable message never sent"
            );
            assert!(seen.insert(bytes.clone()), "{direction}: a duplicate");
        }
        if loss == 0.0 {
            assert_eq!(
                seen.len(),
                MESSAGES,
                "{direction}: unreliable lost on loopback"
            );
        } else {
            assert!(
                seen.len() >= MESSAGES * 3 / 4,
                "{direction}: {} unreliable",
                seen.len()
            );
        }
    }
}

/// One run's state: the stand-in peer, what arrived at each side, how many messages of each
/// kind went up and down, and when every reliable one had arrived.
#[derive(Default)]
struct Exchange {
    peer: SpecPeer,
    at_server: Arrivals,
    at_client: Arrivals,
    sent_up: usize,
    sent_down: usize,
    finished: Option<Instant>,
}

impl Exchange {
    /// Whether both sides have every reliable message, and the last unreliable ones had a
    /// moment more (counted from the first call that found the reliable ones done).
    fn all_arrived(&mut self, now: Instant) -> bool {
        if !(self.at_server.reliable_done() && self.at_client.reliable_done()) {
            return false;
        }
        let at = *self.finished.get_or_insert(now);
        now.duration_since(at) > Duration::from_millis(200)
    }

    /// What arrived each way (see [`Arrivals::check`]): the kinds numbered from 0 and 1000
    /// went up, from 5000 and 6000 down.
    fn check(&self, up: &str, down: &str, loss: f64) {
        self.at_server.check(up, 0, loss);
        self.at_client.check(down, 5000, loss);
    }
}

/// Now, failing the test if the run that began at `start` is past its deadline.
fn before_deadline(start: Instant) -> Instant {
    assert!(start.elapsed() < DEADLINE, "not done in {DEADLINE:?}");
    Instant::now()
}

fn delivery(reliable: bool) -> Delivery {
    if reliable {
        Delivery::Reliable
    } else {
        Delivery::Unreliable
    }
}

/// A relay between clients and `server` losing `loss` of the datagrams each way, or none.
fn relay(server: SocketAddr, loss: f64) -> Option<Relay> {
    (loss > 0.0).then(|| {
        let lossy = Impairment {
            loss,
            delay: Duration::from_millis(2),
            seed: 27,
            ..Impairment::default()
        };
        Relay::spawn("127.0.0.1:0", server, lossy).unwrap()
    })
}

/// The relay, when there is one, lost datagrams (so the loss was real).
fn assert_lossy(relay: Option<&Relay>) {
    if let Some(relay) = relay {
        let dropped = relay
            .stats()
            .dropped
            .load(std::sync::atomic::Ordering::Relaxed);
        let forwarded = relay
            .stats()
            .forwarded
            .load(std::sync::atomic::Ordering::Relaxed);
        assert!(dropped > forwarded / 20, "{dropped} of {forwarded} dropped");
    }
}

/// netcode-official's client, with our token, to our driver's secure server.
fn their_client_our_server(loss: f64) {
    let key = Key::generate();
    let mut server =
        Server::bind_secure("127.0.0.1:0", Config::default(), PROTOCOL_ID, key.clone()).unwrap();
    let address = server.local_addr().unwrap();
    let relay = relay(address, loss);
    let public = relay.as_ref().map_or(address, Relay::local_addr);
    let token = token_builder(CLIENT_ID, public)
        .internal_addresses([address])
        .issue(&key, SystemTime::now())
        .unwrap()
        .to_bytes()
        .unwrap();
    let start = Instant::now();
    let mut client = netcode::Client::new("127.0.0.1:0".parse().unwrap(), 0.0).unwrap();
    client
        .connect(&token)
        .expect("netcode-official reads our token");

    let mut exchange = Exchange::default();
    let mut id = None;
    loop {
        let now = before_deadline(start);
        client.update(start.elapsed().as_secs_f64());
        assert!(
            !client.state().is_error(),
            "their client: {}",
            client.state()
        );
        server.poll(Duration::ZERO).unwrap();
        while let Some(e) = server.poll_event() {
            match e.event {
                Event::Connected => id = Some(e.connection),
                Event::Message { bytes, reliable } => exchange.at_server.push(bytes, reliable),
                other => panic!("our server: {other:?}"),
            }
        }
        if client.state() == netcode::ClientState::Connected && exchange.sent_up < MESSAGES {
            exchange.peer.send_both(now, 0, exchange.sent_up);
            exchange.sent_up += 1;
        }
        if let Some(id) = id
            && exchange.sent_down < MESSAGES
        {
            for (base, reliable) in [(5000, true), (6000, false)] {
                server
                    .send(id, &one_chunk(base, exchange.sent_down), delivery(reliable))
                    .unwrap();
            }
            exchange.sent_down += 1;
        }
        while let Some((payload, _)) = client.receive_packet() {
            exchange.peer.receive(&payload, &mut exchange.at_client);
        }
        for datagram in exchange.peer.outgoing(now) {
            client.send_packet(&datagram).unwrap();
        }
        if exchange.all_arrived(now) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let id = id.unwrap();
    assert_eq!(server.secure().unwrap().client_id(id), Some(CLIENT_ID));
    exchange.check(
        "their client to our server",
        "our server to their client",
        loss,
    );

    // Their disconnect closes our connection.
    client.disconnect();
    let mut reason = None;
    while reason.is_none() {
        assert!(start.elapsed() < DEADLINE + Duration::from_secs(5));
        server.poll(Duration::from_millis(1)).unwrap();
        while let Some(e) = server.poll_event() {
            if let Event::Disconnected { reason: r } = e.event {
                reason = Some(r);
            }
        }
    }
    assert_eq!(reason, Some(DisconnectReason::PeerClosed));
    assert_lossy(relay.as_ref());
}

/// Our driver's secure client, with netcode-official's token, to its server.
fn our_client_their_server(loss: f64) {
    let key = netcode::generate_key();
    let mut server =
        netcode::Server::new("127.0.0.1:0".parse().unwrap(), PROTOCOL_ID, &key, 0.0).unwrap();
    server.start(4).unwrap();
    let address = server.address();
    let relay = relay(address, loss);
    let public = relay.as_ref().map_or(address, Relay::local_addr);
    let token = netcode::generate_connect_token(
        &[public],
        &[address],
        30,
        5,
        CLIENT_ID,
        PROTOCOL_ID,
        &key,
        &[0; 256],
    )
    .unwrap();
    let start = Instant::now();
    let token = ConnectToken::from_bytes(&token).unwrap();
    let mut client = Client::connect_secure(token, Config::default()).unwrap();

    let mut exchange = Exchange::default();
    let mut slot = None;
    loop {
        let now = before_deadline(start);
        server.update(start.elapsed().as_secs_f64());
        while let Some(event) = server.next_event() {
            match event {
                netcode::ServerEvent::ClientConnected { client_index } => slot = Some(client_index),
                other => panic!("their server: {other:?}"),
            }
        }
        client.poll(Duration::ZERO).unwrap();
        while let Some(e) = client.poll_event() {
            match e {
                Event::Connected => {}
                Event::Message { bytes, reliable } => exchange.at_client.push(bytes, reliable),
                other => panic!("our client: {other:?}"),
            }
        }
        if client.machine().is_connected() && exchange.sent_up < MESSAGES {
            for (base, reliable) in [(0, true), (1000, false)] {
                client
                    .send(&one_chunk(base, exchange.sent_up), delivery(reliable))
                    .unwrap();
            }
            exchange.sent_up += 1;
        }
        if let Some(i) = slot {
            if exchange.sent_down < MESSAGES {
                exchange.peer.send_both(now, 5000, exchange.sent_down);
                exchange.sent_down += 1;
            }
            while let Some((payload, _)) = server.receive_packet(i) {
                exchange.peer.receive(&payload, &mut exchange.at_server);
            }
            for datagram in exchange.peer.outgoing(now) {
                server.send_packet(i, &datagram).unwrap();
            }
        }
        if exchange.all_arrived(now) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let slot = slot.unwrap();
    assert_eq!(server.client_id(slot), CLIENT_ID);
    exchange.check(
        "our client to their server",
        "their server to our client",
        loss,
    );

    // Our close reaches their server.
    client.close().unwrap();
    let mut disconnected = false;
    while !disconnected {
        assert!(start.elapsed() < DEADLINE + Duration::from_secs(5));
        client.poll(Duration::ZERO).unwrap();
        server.update(start.elapsed().as_secs_f64());
        while let Some(event) = server.next_event() {
            if let netcode::ServerEvent::ClientDisconnected { reason, .. } = event {
                assert_eq!(reason, netcode::DisconnectReason::ClientDisconnect);
                disconnected = true;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_lossy(relay.as_ref());
}

#[test]
fn their_client_exchanges_messages_with_our_secure_server() {
    their_client_our_server(0.0);
}

#[test]
fn their_client_exchanges_messages_with_our_secure_server_at_10_percent_loss() {
    their_client_our_server(0.1);
}

#[test]
fn our_secure_client_exchanges_messages_with_their_server() {
    our_client_their_server(0.0);
}

#[test]
fn our_secure_client_exchanges_messages_with_their_server_at_10_percent_loss() {
    our_client_their_server(0.1);
}
