//! The simulated network: one server, any number of clients, a link each way, a virtual clock,
//! and the event loop that runs them. The server and the clients are any [`Machine`]s: hopnet's
//! plain ones by default, the secure ones ([`SimNetwork::secure`]), or a peer of your own.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::{Duration, Instant};

use super::link::{Link, LinkConfig, SimStats};
use crate::client::Client;
use crate::config::Config;
use crate::impairment::{DelayLine, LinkRng};
use crate::machine::Machine;
use crate::secure::{ConnectToken, Key, MAX_CLIENTS, NetcodeServerConfig};
use crate::secure::{SecureClient, SecureServer};
use crate::server::Server;
use crate::transmit::Transmit;

/// A datagram on its way.
#[derive(Debug)]
struct InTransit {
    from: SocketAddr,
    to: SocketAddr,
    bytes: Vec<u8>,
}

/// What a machine sent in one `poll_transmit`: a datagram, or a batch of them (see
/// [`Transmit`]), taken off the network by [`SimNetwork::take_outgoing`] or recorded by
/// [`SimNetwork::record_batches`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The sender's address.
    pub from: SocketAddr,
    /// Where it goes and its shape.
    pub transmit: Transmit,
    /// The datagrams, end to end.
    pub bytes: Vec<u8>,
}

impl Batch {
    /// The datagrams of the batch.
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> {
        self.transmit.split(&self.bytes)
    }
}

/// After this many rounds at one instant, time moves on by a millisecond: a timer that will
/// not move never hangs a test.
const MAX_SPINS: u32 = 10_000;

/// A server, clients, links between them and a virtual clock.
#[derive(Debug)]
pub struct SimNetwork<S = Server, C = Client> {
    rng: LinkRng,
    start: Instant,
    now: Instant,
    server: S,
    server_addr: SocketAddr,
    clients: Vec<(SocketAddr, C)>,
    by_addr: HashMap<SocketAddr, usize>,
    /// Client to server, server to client.
    links: [Link; 2],
    in_transit: DelayLine<InTransit>,
    stats: SimStats,
    /// Where the machines write what they send.
    buf: Vec<u8>,
    /// Datagrams per `poll_transmit` at most.
    max_batch: usize,
    /// Every batch sent, while recording.
    recorded: Option<Vec<Batch>>,
}

impl SimNetwork {
    /// A network whose server, an [`Server`], listens on `10.0.0.1:7000`, with the same link
    /// both ways.
    pub fn new(seed: u64, server_config: Config, link: LinkConfig) -> SimNetwork {
        let mut rng = LinkRng::new(seed);
        let server = Server::with_seed(server_config, rng.next_u64());
        SimNetwork::with_rng(rng, server, link)
    }
}

/// The address every network's server listens on.
const SERVER_ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 7000));

impl SimNetwork<SecureServer, SecureClient> {
    /// A network whose server is secure ([`SecureServer`]: hopnet over netcode 1.02,
    /// PROTOCOL.md "Secure mode"), listening on `10.0.0.1:7000` for clients with a connect
    /// token sealed under `private_key` for `protocol_id`; add them with
    /// [`add_secure_client`](Self::add_secure_client).
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use hopnet_proto::sim::{LinkConfig, SimNetwork};
    /// use hopnet_proto::secure::{ConnectTokenBuilder, Key};
    /// use hopnet_proto::{Config, Delivery};
    ///
    /// let key = Key::generate();
    /// let link = LinkConfig { loss: 0.1, ..LinkConfig::default() };
    /// let mut net = SimNetwork::secure(1, Config::default(), link, 7, &key);
    /// let token = ConnectTokenBuilder::new(7, 42, [net.server_addr()])
    ///     .issue(&key, SystemTime::now())
    ///     .unwrap();
    /// let bot = net.add_secure_client(Config::default(), token);
    /// net.client(bot).send(b"hello", Delivery::Reliable).unwrap(); // waits for the connection
    /// assert!(net.run_until(Duration::from_secs(30), |n| n.client(bot).is_connected()));
    /// ```
    ///
    /// # Panics
    ///
    /// If `server_config` does not suit a secure server (see [`SecureServer::new`]).
    pub fn secure(
        seed: u64,
        server_config: Config,
        link: LinkConfig,
        protocol_id: u64,
        private_key: &Key,
    ) -> SimNetwork<SecureServer, SecureClient> {
        let max_clients = server_config.max_connections.min(MAX_CLIENTS);
        let netcode =
            NetcodeServerConfig::new(protocol_id, private_key.clone(), SERVER_ADDR, max_clients);
        let server = SecureServer::new(
            server_config,
            netcode,
            Instant::now(),
            std::time::SystemTime::now(),
        )
        .expect("a configuration for a secure server");
        SimNetwork::with_machines(seed, server, link)
    }

    /// Adds a secure client that starts connecting now with `token`; returns its index.
    ///
    /// # Panics
    ///
    /// If `config` does not suit a secure client (see [`SecureClient::new`]).
    pub fn add_secure_client(&mut self, config: Config, token: ConnectToken) -> usize {
        let client = SecureClient::new(config, token, self.now)
            .expect("a configuration for a secure client");
        self.add_client_machine(client)
    }
}

impl<S: Machine> SimNetwork<S> {
    /// A network around a server of your own, listening on `10.0.0.1:7000`, with the same link
    /// both ways.
    pub fn with_server(seed: u64, server: S, link: LinkConfig) -> SimNetwork<S> {
        SimNetwork::with_machines(seed, server, link)
    }

    /// Adds a client that starts connecting now; returns its index.
    pub fn add_client(&mut self, config: Config) -> usize {
        let addr = self.next_client_addr();
        self.add_client_at(addr, config)
    }

    /// Adds a client at a chosen address.
    pub fn add_client_at(&mut self, addr: SocketAddr, config: Config) -> usize {
        let seed = self.rng.next_u64();
        let conn = Client::with_seed(config, self.server_addr, self.now, seed);
        self.add_client_machine_at(addr, conn)
    }
}

impl<S: Machine, C: Machine> SimNetwork<S, C> {
    /// A network around a server of your own and clients of type `C` (added with
    /// [`add_client_machine`](Self::add_client_machine)), the server listening on
    /// `10.0.0.1:7000`, with the same link both ways.
    pub fn with_machines(seed: u64, server: S, link: LinkConfig) -> SimNetwork<S, C> {
        let mut rng = LinkRng::new(seed);
        // Draw as `new` does, so that a seed gives the clients the same salts either way.
        rng.next_u64();
        SimNetwork::with_rng(rng, server, link)
    }

    fn with_rng(rng: LinkRng, server: S, link: LinkConfig) -> SimNetwork<S, C> {
        // The only clock read: the origin of virtual time. Only differences matter.
        let start = Instant::now();
        SimNetwork {
            rng,
            start,
            now: start,
            server,
            server_addr: SERVER_ADDR,
            clients: Vec::new(),
            by_addr: HashMap::new(),
            links: [Link::new(link.clone(), start), Link::new(link, start)],
            in_transit: DelayLine::default(),
            stats: SimStats::default(),
            buf: Vec::new(),
            max_batch: 1,
            recorded: None,
        }
    }

    /// Changes the client-to-server link.
    pub fn set_uplink(&mut self, link: LinkConfig) {
        self.links[0].config = link;
    }

    /// Changes the server-to-client link.
    pub fn set_downlink(&mut self, link: LinkConfig) {
        self.links[1].config = link;
    }

    /// How many datagrams a machine may write per `poll_transmit` (1 by default): more
    /// exercises the GSO-shaped batches a driver sends.
    pub fn set_max_batch(&mut self, max_datagrams: usize) {
        self.max_batch = max_datagrams.max(1);
    }

    /// Keeps a copy of every batch sent from now on (or stops), for
    /// [`take_batches`](Self::take_batches).
    pub fn record_batches(&mut self, on: bool) {
        self.recorded = on.then(Vec::new);
    }

    /// The batches sent since the last call, while recording.
    pub fn take_batches(&mut self) -> Vec<Batch> {
        self.recorded
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The address the next client added without one gets.
    fn next_client_addr(&self) -> SocketAddr {
        let n = self.clients.len() as u32 + 2;
        SocketAddr::V4(SocketAddrV4::new(
            Ipv4Addr::from(0x0a00_0000 + n),
            40000 + (n % 20000) as u16,
        ))
    }

    /// Adds a client machine of your own making (made at [`now`](Self::now), sending to
    /// [`server_addr`](Self::server_addr)) at the next free address; returns its index.
    pub fn add_client_machine(&mut self, client: C) -> usize {
        let addr = self.next_client_addr();
        self.add_client_machine_at(addr, client)
    }

    /// Adds a client machine of your own making at a chosen address; returns its index.
    pub fn add_client_machine_at(&mut self, addr: SocketAddr, client: C) -> usize {
        self.clients.push((addr, client));
        self.by_addr.insert(addr, self.clients.len() - 1);
        self.clients.len() - 1
    }

    /// The server.
    pub fn server(&mut self) -> &mut S {
        &mut self.server
    }

    /// The server's address.
    pub fn server_addr(&self) -> SocketAddr {
        self.server_addr
    }

    /// Client `i`'s machine.
    pub fn client(&mut self, i: usize) -> &mut C {
        &mut self.clients[i].1
    }

    /// Client `i`'s address.
    pub fn client_addr(&self, i: usize) -> SocketAddr {
        self.clients[i].0
    }

    /// Number of clients.
    pub fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// The virtual time now.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Virtual time since the network was created.
    pub fn elapsed(&self) -> Duration {
        self.now - self.start
    }

    /// What the links did.
    pub fn stats(&self) -> &SimStats {
        &self.stats
    }

    /// Datagrams in transit now.
    pub fn in_transit(&self) -> usize {
        self.in_transit.len()
    }

    /// Delivers a raw datagram from any (possibly spoofed) address, bypassing the links,
    /// at the current time on the next step.
    pub fn inject(&mut self, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        self.in_transit
            .push(self.now, InTransit { from, to, bytes });
    }

    /// What the machines would send now, taken instead of sent: to look at, change, drop, or
    /// [`inject`](Self::inject) again.
    pub fn take_outgoing(&mut self) -> Vec<Batch> {
        let mut taken = Vec::new();
        self.poll_all(|_, batch| taken.push(batch.clone()));
        taken
    }

    /// Polls every machine for what it sends now, server first, and hands each batch (with
    /// the network, for the links) to `sent`.
    fn poll_all(&mut self, mut sent: impl FnMut(&mut Self, &Batch)) {
        let now = self.now;
        let max = self.max_batch;
        let mut batch = Batch {
            from: self.server_addr,
            transmit: Transmit::single(self.server_addr, 0),
            bytes: std::mem::take(&mut self.buf),
        };
        while let Some(t) = self.server.poll_transmit(now, &mut batch.bytes, max) {
            batch.transmit = t;
            sent(self, &batch);
        }
        for i in 0..self.clients.len() {
            batch.from = self.clients[i].0;
            while let Some(t) = self.clients[i].1.poll_transmit(now, &mut batch.bytes, max) {
                batch.transmit = t;
                sent(self, &batch);
            }
        }
        self.buf = batch.bytes;
    }

    /// Sends what the machines have on the links.
    fn flush(&mut self) {
        self.poll_all(|net, batch| {
            if let Some(recorded) = &mut net.recorded {
                recorded.push(batch.clone());
            }
            let direction = usize::from(batch.from == net.server_addr);
            let (from, to) = (batch.from, batch.transmit.destination);
            for datagram in batch.datagrams() {
                let line = &mut net.in_transit;
                let deliver = |at, bytes| line.push(at, InTransit { from, to, bytes });
                let link = &mut net.links[direction];
                link.carry(
                    net.now,
                    datagram.to_vec(),
                    &mut net.rng,
                    &mut net.stats,
                    deliver,
                );
            }
        });
    }

    fn next_event(&mut self) -> Option<Instant> {
        let mut next = self.in_transit.next_due();
        let mut consider = |t: Option<Instant>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        consider(self.server.poll_timeout());
        for (_, c) in &mut self.clients {
            consider(c.poll_timeout());
        }
        next
    }

    fn process_now(&mut self) {
        let now = self.now;
        while let Some(d) = self.in_transit.pop_due(now) {
            if d.to == self.server_addr {
                self.stats.delivered += 1;
                self.server.handle(now, d.from, &d.bytes);
            } else if let Some(&i) = self.by_addr.get(&d.to) {
                self.stats.delivered += 1;
                self.clients[i].1.handle(now, d.from, &d.bytes);
            } else {
                self.stats.undeliverable += 1;
            }
        }
        if self.server.poll_timeout().is_some_and(|t| t <= now) {
            self.server.handle_timeout(now);
        }
        for (_, c) in &mut self.clients {
            if c.poll_timeout().is_some_and(|t| t <= now) {
                c.handle_timeout(now);
            }
        }
    }

    /// Runs the network for `dt` of virtual time: every delivery and timer in order. A `dt` of
    /// zero runs what is due now until nothing more happens.
    pub fn step(&mut self, dt: Duration) {
        let target = self.now + dt;
        run(self, target, |_| false);
    }

    /// Runs until `done` returns true (checked after every event) or `limit` of virtual time
    /// has passed. Returns whether `done` returned true.
    pub fn run_until(
        &mut self,
        limit: Duration,
        done: impl FnMut(&mut SimNetwork<S, C>) -> bool,
    ) -> bool {
        let target = self.now + limit;
        run(self, target, done)
    }
}

/// What the event loop runs: the network, or something built around one.
pub(super) trait World<S, C> {
    fn network(&mut self) -> &mut SimNetwork<S, C>;
}

impl<S, C> World<S, C> for SimNetwork<S, C> {
    fn network(&mut self) -> &mut SimNetwork<S, C> {
        self
    }
}

/// The event loop: sends what the machines have, asks `done`, then moves time to the next
/// delivery or timer and runs it, up to `target`. Returns whether `done` returned true.
pub(super) fn run<S: Machine, C: Machine, W: World<S, C>>(
    world: &mut W,
    target: Instant,
    mut done: impl FnMut(&mut W) -> bool,
) -> bool {
    let mut spins = 0u32;
    loop {
        world.network().flush();
        if done(world) {
            return true;
        }
        let net = world.network();
        match net.next_event() {
            Some(t) if t <= target => {
                if t > net.now {
                    net.now = t;
                    spins = 0;
                } else {
                    spins += 1;
                    if spins > MAX_SPINS {
                        net.now += Duration::from_millis(1);
                        spins = 0;
                    }
                }
                net.process_now();
            }
            _ => {
                net.now = net.now.max(target);
                net.process_now();
                net.flush();
                return done(world);
            }
        }
    }
}
