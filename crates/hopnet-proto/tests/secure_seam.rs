//! hopnet over netcode: a `SecureServer` and `SecureClient`s, driven only through the
//! `Machine` trait on a seeded lossy in-memory network with a virtual clock. Every delivery
//! mode works unchanged above netcode; closes travel both ways; the spec's plaintext `END`
//! from a client's address, which closes a plain connection, does nothing here.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

use hopnet_proto::secure::{DropReason, Key, NetcodeServerConfig, SecureClient, SecureServer};
use hopnet_proto::{Config, ConnectionId, Delivery, DisconnectReason, Event, Machine, ServerEvent};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;
use common::secure::{EVERY_SIZE, PROTOCOL_ID, message, messages, token, token_builder};

const STEP: Duration = Duration::from_millis(5);

fn server_address() -> SocketAddr {
    "10.0.0.1:40000".parse().unwrap()
}

struct Net {
    rng: StdRng,
    loss: f64,
    now: Instant,
    server: SecureServer,
    clients: Vec<(SocketAddr, SecureClient)>,
    server_events: Vec<ServerEvent>,
    client_events: Vec<Vec<Event>>,
    buf: Vec<u8>,
}

/// One datagram through the trait, lost at the link's rate.
fn carry(
    net_rng: &mut StdRng,
    loss: f64,
    to: &mut impl Machine,
    now: Instant,
    from: SocketAddr,
    datagram: &[u8],
) {
    if !net_rng.random_bool(loss) {
        to.handle(now, from, datagram);
    }
}

impl Net {
    fn new(clients: usize, loss: f64, seed: u64) -> Net {
        Net::with_config(clients, loss, seed, Config::default())
    }

    fn with_config(clients: usize, loss: f64, seed: u64, config: Config) -> Net {
        let key = Key::generate();
        let now = Instant::now();
        let unix = SystemTime::now();
        let netcode = NetcodeServerConfig::new(PROTOCOL_ID, key.clone(), server_address(), 8);
        let server = SecureServer::new(config.clone(), netcode, now, unix).unwrap();
        let clients = (0..clients)
            .map(|i| {
                let token = token_builder(i as u64, server_address())
                    .issue(&key, unix)
                    .unwrap();
                let address = SocketAddr::from(([10, 0, 1, i as u8], 5000));
                (
                    address,
                    SecureClient::new(config.clone(), token, now).unwrap(),
                )
            })
            .collect::<Vec<_>>();
        Net {
            rng: StdRng::seed_from_u64(seed),
            loss,
            now,
            server,
            client_events: vec![Vec::new(); clients.len()],
            clients,
            server_events: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn step(&mut self) {
        self.now += STEP;
        let now = self.now;
        for (address, client) in &mut self.clients {
            Machine::handle_timeout(client, now);
            while let Some(t) = Machine::poll_transmit(client, now, &mut self.buf, 1) {
                assert_eq!(t.destination, server_address());
                carry(
                    &mut self.rng,
                    self.loss,
                    &mut self.server,
                    now,
                    *address,
                    &self.buf[..t.size],
                );
            }
        }
        Machine::handle_timeout(&mut self.server, now);
        // Batches of up to 8 datagrams, as a driver with GSO asks for; each datagram is
        // carried (and lost) on its own.
        while let Some(t) = Machine::poll_transmit(&mut self.server, now, &mut self.buf, 8) {
            if let Some((_, client)) = self.clients.iter_mut().find(|(a, _)| *a == t.destination) {
                for datagram in t.split(&self.buf) {
                    carry(
                        &mut self.rng,
                        self.loss,
                        client,
                        now,
                        server_address(),
                        datagram,
                    );
                }
            }
        }
        while let Some(event) = self.server.poll_event() {
            self.server_events.push(event);
        }
        for (i, (_, client)) in self.clients.iter_mut().enumerate() {
            while let Some(event) = client.poll_event() {
                self.client_events[i].push(event);
            }
        }
    }

    fn run_until(&mut self, limit: Duration, mut done: impl FnMut(&Net) -> bool) {
        let end = self.now + limit;
        while !done(self) {
            assert!(self.now < end, "not done after {limit:?}");
            self.step();
        }
    }

    fn run_for(&mut self, duration: Duration) {
        let end = self.now + duration;
        while self.now < end {
            self.step();
        }
    }

    /// One client over a lossless link, connected; its connection's id.
    fn one_connected(seed: u64) -> (Net, ConnectionId) {
        let mut net = Net::new(1, 0.0, seed);
        net.connect_all();
        let id = net.connection_of(0);
        (net, id)
    }

    /// Whether the server reported connection `id` closed.
    fn server_disconnected(&self, id: ConnectionId) -> bool {
        self.server_events
            .iter()
            .any(|e| e.connection == id && matches!(e.event, Event::Disconnected { .. }))
    }

    /// Whether client `client` reported its connection closed.
    fn client_disconnected(&self, client: usize) -> bool {
        self.client_events[client]
            .iter()
            .any(|e| matches!(e, Event::Disconnected { .. }))
    }

    /// Client 0's connection is gone on both layers of both sides.
    fn assert_closed(&self) {
        assert_eq!(self.server.netcode().connected_clients(), 0);
        assert!(self.clients[0].1.is_closed());
    }

    fn connection_of(&self, client: usize) -> ConnectionId {
        let address = self.clients[client].0;
        self.server_events
            .iter()
            .find(|e| e.peer == address && e.event == Event::Connected)
            .map(|e| e.connection)
            .expect("connected")
    }

    fn messages_at_server(&self, client: usize) -> Vec<Vec<u8>> {
        let address = self.clients[client].0;
        self.server_events
            .iter()
            .filter(|e| e.peer == address)
            .filter_map(|e| match &e.event {
                Event::Message { bytes, .. } => Some(bytes.clone()),
                _ => None,
            })
            .collect()
    }

    /// How many messages have arrived each way, without copying them.
    fn counts(&self, client: usize) -> (usize, usize) {
        let address = self.clients[client].0;
        let is_message = |e: &Event| matches!(e, Event::Message { .. });
        let up = self
            .server_events
            .iter()
            .filter(|e| e.peer == address && is_message(&e.event))
            .count();
        let down = self.client_events[client]
            .iter()
            .filter(|e| is_message(e))
            .count();
        (up, down)
    }

    fn messages_at_client(&self, client: usize) -> Vec<Vec<u8>> {
        self.client_events[client]
            .iter()
            .filter_map(|e| match e {
                Event::Message { bytes, .. } => Some(bytes.clone()),
                _ => None,
            })
            .collect()
    }

    fn connect_all(&mut self) {
        let n = self.clients.len();
        self.run_until(Duration::from_secs(10), |net| {
            net.clients.iter().all(|(_, c)| c.is_connected())
                && net
                    .server_events
                    .iter()
                    .filter(|e| e.event == Event::Connected)
                    .count()
                    == n
        });
    }
}

fn reliable_both_ways(loss: f64, seed: u64, config: Config) {
    let config_wants_extensions = config.extensions().is_some();
    let mut net = Net::with_config(2, loss, seed, config);
    net.connect_all();
    assert_eq!(net.client_events[0][0], Event::Connected);
    let sizes = EVERY_SIZE;
    let ids = [net.connection_of(0), net.connection_of(1)];
    for (i, &len) in sizes.iter().enumerate() {
        for (c, &id) in ids.iter().enumerate() {
            net.clients[c]
                .1
                .send(&message(i + c, len), Delivery::ReliableOrdered)
                .unwrap();
            net.server
                .machine()
                .send(id, &message(i + 10 + c, len), Delivery::ReliableOrdered)
                .unwrap();
        }
    }
    net.run_until(Duration::from_secs(120), |net| {
        (0..2).all(|c| net.counts(c) == (sizes.len(), sizes.len()))
    });
    for c in 0..2 {
        assert_eq!(
            net.messages_at_server(c),
            messages(c, &sizes),
            "client {c} up"
        );
        assert_eq!(
            net.messages_at_client(c),
            messages(10 + c, &sizes),
            "client {c} down"
        );
    }
    if config_wants_extensions {
        for id in ids {
            let agreed = net
                .server
                .machine()
                .extensions(id)
                .expect("the extensions were agreed");
            assert_eq!(agreed.datagram_size(), 1200);
        }
    }
    let stats = net.server.netcode_stats();
    assert_eq!(stats.dropped(DropReason::Unauthentic), 0);
    assert_eq!(net.server.unsealable(), 0);
}

#[test]
fn every_size_of_reliable_message_passes_both_ways() {
    reliable_both_ways(0.0, 1, Config::default());
}

#[test]
fn every_size_of_reliable_message_passes_both_ways_at_10_percent_loss() {
    reliable_both_ways(0.1, 2, Config::default());
}

/// hopnet's extensions, agreed over netcode: batching, ACK ranges, CRC-32, LZ4, and
/// datagrams of 1,200 bytes, the most a payload packet carries.
fn extended() -> Config {
    Config::builder()
        .extensions(true)
        .batching(true)
        .ack_ranges(true)
        .crc(true)
        .compression(true)
        .max_datagram_size(1200)
        .build()
        .unwrap()
}

#[test]
fn the_extensions_work_over_netcode_at_10_percent_loss() {
    reliable_both_ways(0.1, 8, extended());
}

#[test]
fn unreliable_messages_pass_without_loss() {
    let (mut net, id) = Net::one_connected(3);
    for i in 0..50 {
        net.clients[0]
            .1
            .send(&message(i, 100), Delivery::Unreliable)
            .unwrap();
        net.server
            .machine()
            .send(id, &message(i, 300), Delivery::Unreliable)
            .unwrap();
        net.step();
    }
    net.run_for(Duration::from_millis(500));
    assert_eq!(
        net.messages_at_server(0),
        (0..50).map(|i| message(i, 100)).collect::<Vec<_>>()
    );
    assert_eq!(
        net.messages_at_client(0),
        (0..50).map(|i| message(i, 300)).collect::<Vec<_>>()
    );
}

#[test]
fn a_plaintext_end_from_the_clients_address_does_not_close_it() {
    let mut net = Net::new(1, 0.0, 4);
    net.connect_all();
    let address = net.clients[0].0;
    let now = net.now;
    // The spec's header-only END, which closes a plain connection from this address.
    net.server.handle(now, address, &[0x08, 0, 0, 0]);
    net.server.handle(now, address, &[0x08, 0, 0, 1]);
    assert_eq!(net.server.netcode_stats().dropped(DropReason::TooSmall), 2);
    net.run_for(Duration::from_millis(500));
    let id = net.connection_of(0);
    net.clients[0]
        .1
        .send(b"still here", Delivery::Reliable)
        .unwrap();
    net.run_until(Duration::from_secs(5), |net| {
        net.messages_at_server(0).len() == 1
    });
    assert!(
        net.server_events
            .iter()
            .all(|e| !matches!(e.event, Event::Disconnected { .. }))
    );
    assert_eq!(net.server.machine().peer(id), Some(address));
}

#[test]
fn a_client_close_reaches_the_server_and_frees_the_slot() {
    let (mut net, id) = Net::one_connected(5);
    let now = net.now;
    net.clients[0].1.close(now);
    net.run_until(Duration::from_secs(2), |net| net.server_disconnected(id));
    net.assert_closed();
}

#[test]
fn a_server_close_reaches_the_client() {
    let (mut net, id) = Net::one_connected(6);
    net.server.close(id).unwrap();
    net.run_until(Duration::from_secs(2), |net| net.client_disconnected(0));
    net.assert_closed();
}

#[test]
fn a_silent_client_times_out_on_both_layers() {
    let (mut net, id) = Net::one_connected(7);
    // The link goes down entirely.
    net.loss = 1.0;
    net.run_until(Duration::from_secs(20), |net| {
        net.server_disconnected(id) && net.client_disconnected(0)
    });
    let reason = |e: &Event| match e {
        Event::Disconnected { reason } => Some(*reason),
        _ => None,
    };
    // netcode's 5 s timeout comes before hopnet's 15 s idle timeout.
    assert!(
        net.server_events
            .iter()
            .filter_map(|e| reason(&e.event))
            .all(|r| r == DisconnectReason::TimedOut)
    );
    assert!(
        net.client_events[0]
            .iter()
            .filter_map(reason)
            .all(|r| r == DisconnectReason::TimedOut)
    );
    assert_eq!(net.server.netcode().connected_clients(), 0);
}

#[test]
fn a_client_that_cannot_connect_reports_it() {
    let key = Key::generate();
    let now = Instant::now();
    let token = token_builder(1, server_address())
        .timeout_seconds(1)
        .issue(&key, SystemTime::now())
        .unwrap();
    let mut client = SecureClient::new(Config::default(), token, now).unwrap();
    // Before netcode connects, as in a plain handshake: reliable messages wait, unreliable
    // ones are dropped.
    client.send(b"x", Delivery::Reliable).unwrap();
    client.send(b"y", Delivery::Unreliable).unwrap();
    assert_eq!(client.machine().stats().messages_sent, 2);
    let mut buf = Vec::new();
    let mut t = now;
    while !client.is_closed() {
        t += STEP;
        client.handle_timeout(t);
        while client.poll_transmit(t, &mut buf, 1).is_some() {}
        assert!(t < now + Duration::from_secs(5));
    }
    assert_eq!(
        client.poll_event(),
        Some(Event::Disconnected {
            reason: DisconnectReason::ConnectTimeout
        })
    );
    client.handle_timeout(t + STEP);
    assert_eq!(client.poll_event(), None, "reported once");
    assert!(matches!(
        client.send(b"z", Delivery::Reliable),
        Err(hopnet_proto::Error::Closed)
    ));
}

#[test]
fn datagrams_larger_than_a_netcode_payload_are_refused_at_construction() {
    let config = Config::builder()
        .extensions(true)
        .max_datagram_size(1201)
        .build()
        .unwrap();
    let token = token(&Key::generate(), 1, server_address());
    assert!(SecureClient::new(config.clone(), token, Instant::now()).is_err());
    let netcode = NetcodeServerConfig::new(PROTOCOL_ID, Key::generate(), server_address(), 8);
    assert!(SecureServer::new(config, netcode, Instant::now(), SystemTime::now()).is_err());
}
