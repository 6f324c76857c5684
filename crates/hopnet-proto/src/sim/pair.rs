//! A client [`Client`] and a server [`Server`] joined by a perfect, instant link, with a
//! virtual clock: the harness for tests of one connection (quinn-proto's `Pair` is the model).
//!
//! It is a [`SimNetwork`] with one client, so it runs the same event loop; what it adds is the
//! connected start and the short names a test of one connection wants.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::link::LinkConfig;
use super::network::{Batch, SimNetwork, World, run};
use crate::client::Client;
use crate::config::Config;
use crate::event::ConnectionId;
use crate::event::Event;
use crate::server::Server;

/// A connected client and server, driven in virtual time.
///
/// ```
/// use std::time::Duration;
/// use hopnet_proto::sim::Pair;
/// use hopnet_proto::{Config, Delivery};
///
/// let mut pair = Pair::new(Config::default());
/// pair.client().send(b"hello", Delivery::Reliable).unwrap();
/// pair.drive();
/// assert_eq!(pair.server_messages(), [b"hello".to_vec()]);
/// // Time passes: keepalives keep the connection up.
/// pair.step(Duration::from_secs(60));
/// assert!(pair.client().is_connected());
/// ```
#[derive(Debug)]
pub struct Pair {
    net: SimNetwork,
    id: ConnectionId,
}

impl Pair {
    /// A pair with `config` on both sides, connected, its `Connected` events consumed.
    pub fn new(config: Config) -> Pair {
        Pair::with_seed(0, config.clone(), config)
    }

    /// A pair with a seed of its own (the server's cookie key, the client's salt) and a
    /// configuration per side, connected, its `Connected` events consumed.
    ///
    /// # Panics
    ///
    /// If the handshake does not complete within a second of virtual time (it takes one
    /// round trip and a half over the instant link, unless a configuration forbids it).
    pub fn with_seed(seed: u64, server: Config, client: Config) -> Pair {
        let instant = LinkConfig {
            delay: Duration::ZERO,
            ..LinkConfig::default()
        };
        let mut net = SimNetwork::new(seed, server, instant);
        net.add_client(client);
        let connected = |n: &mut SimNetwork| n.client(0).is_connected();
        assert!(
            net.run_until(Duration::from_secs(1), connected),
            "the pair did not connect"
        );
        let addr = net.client_addr(0);
        let id = net.server().connection_of(addr).expect("the server's side");
        assert_eq!(net.client(0).poll_event(), Some(Event::Connected));
        assert_eq!(
            net.server().poll_event().map(|e| e.event),
            Some(Event::Connected)
        );
        Pair { net, id }
    }

    /// The client.
    pub fn client(&mut self) -> &mut Client {
        self.net.client(0)
    }

    /// The server.
    pub fn server(&mut self) -> &mut Server {
        self.net.server()
    }

    /// The client's connection on the server.
    pub fn id(&self) -> ConnectionId {
        self.id
    }

    /// The client's address.
    pub fn client_addr(&self) -> SocketAddr {
        self.net.client_addr(0)
    }

    /// The server's address.
    pub fn server_addr(&self) -> SocketAddr {
        self.net.server_addr()
    }

    /// The virtual time now.
    pub fn now(&self) -> Instant {
        self.net.now()
    }

    /// Delivers what both sides send, and what that makes them send, until nothing moves; no
    /// time passes.
    pub fn drive(&mut self) {
        self.net.step(Duration::ZERO);
    }

    /// Runs for `dt` of virtual time: every timer and delivery in order.
    pub fn step(&mut self, dt: Duration) {
        self.net.step(dt);
    }

    /// Runs until `done` returns true (checked after every event) or `limit` of virtual time
    /// has passed. Returns whether `done` returned true.
    pub fn run_until(&mut self, limit: Duration, done: impl FnMut(&mut Pair) -> bool) -> bool {
        let target = self.now() + limit;
        run(self, target, done)
    }

    /// What both sides would send now, taken instead of delivered: to look at, change, drop,
    /// or [`inject`](SimNetwork::inject) through [`network`](Self::network).
    pub fn take_outgoing(&mut self) -> Vec<Batch> {
        self.net.take_outgoing()
    }

    /// The payloads of the server's `Message` events (other events are dropped).
    pub fn server_messages(&mut self) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| self.net.server().poll_event())
            .filter_map(|e| message(e.event))
            .collect()
    }

    /// The payloads of the client's `Message` events (other events are dropped).
    pub fn client_messages(&mut self) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| self.net.client(0).poll_event())
            .filter_map(message)
            .collect()
    }

    /// The network underneath, for everything else: injecting datagrams, batches, link
    /// statistics.
    pub fn network(&mut self) -> &mut SimNetwork {
        &mut self.net
    }
}

impl World<Server, Client> for Pair {
    fn network(&mut self) -> &mut SimNetwork {
        &mut self.net
    }
}

fn message(event: Event) -> Option<Vec<u8>> {
    match event {
        Event::Message { bytes, .. } => Some(bytes),
        _ => None,
    }
}
