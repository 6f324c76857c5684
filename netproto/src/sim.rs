//! A seeded, simulated network: a virtual clock, one server [`Endpoint`] and any number of
//! client [`Connection`]s joined by lossy links. Fully deterministic for a seed, and fast: time
//! jumps from one event (a delivery or a timer) to the next, so a minute of virtual traffic
//! costs only the work of its datagrams.
//!
//! It is public so that applications can test themselves over it: run a game server and bots,
//! drain their events between [`step`](SimNetwork::step)s, and assert on what arrived.
//!
//! ```
//! use std::time::Duration;
//! use netproto::sim::{LinkConfig, SimNetwork};
//! use netproto::{Config, Delivery, EndpointEvent, Event};
//!
//! let link = LinkConfig { loss: 0.2, ..LinkConfig::default() };
//! let mut net = SimNetwork::new(7, Config::default(), link);
//! let bot = net.add_client(Config::default());
//! assert!(net.run_until(Duration::from_secs(30), |n| n.client(bot).is_connected()));
//! net.client(bot).send(b"hello", Delivery::Reliable).unwrap();
//! let mut got = None;
//! net.run_until(Duration::from_secs(30), |n| {
//!     while let Some(EndpointEvent { event, .. }) = n.server().poll_event() {
//!         if let Event::Message { bytes, .. } = event {
//!             got = Some(bytes);
//!         }
//!     }
//!     got.is_some()
//! });
//! assert_eq!(got.as_deref(), Some(&b"hello"[..]));
//! ```

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::connection::Connection;
use crate::endpoint::Endpoint;
use crate::transmit::Transmit;

/// xoshiro256** seeded through SplitMix64: a small, fast generator (the network's draws are
/// the hot path of long simulations, also in debug builds), fully determined by the seed.
#[derive(Debug, Clone)]
struct SimRng([u64; 4]);

impl SimRng {
    fn new(seed: u64) -> SimRng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        SimRng([next(), next(), next(), next()])
    }

    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize
    }
}

/// The behaviour of one direction of a link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkConfig {
    /// Probability that a datagram is lost.
    pub loss: f64,
    /// Probability that a datagram is delivered twice.
    pub duplicate: f64,
    /// Probability that a datagram is held back by up to `reorder_delay` more.
    pub reorder: f64,
    /// The largest extra delay of a reordered datagram.
    pub reorder_delay: Duration,
    /// One-way base delay.
    pub delay: Duration,
    /// Uniform extra delay in `0..=jitter`.
    pub jitter: Duration,
    /// Probability that one random bit of a datagram is flipped.
    pub corrupt: f64,
    /// Datagrams larger than this are dropped.
    pub mtu: usize,
    /// Bottleneck rate in bytes per second (0: unlimited). Datagrams leave one after another
    /// at this rate, so a sender faster than it builds a queue in front of the link.
    pub bandwidth: u64,
    /// Bytes the queue in front of a bottleneck holds (drop-tail: a datagram that does not fit
    /// is lost, counted in [`SimStats::queue_dropped`]). Only with a `bandwidth`.
    pub queue_bytes: usize,
}

impl Default for LinkConfig {
    /// A perfect link with 10 ms one-way delay.
    fn default() -> Self {
        LinkConfig {
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::from_millis(20),
            delay: Duration::from_millis(10),
            jitter: Duration::ZERO,
            corrupt: 0.0,
            mtu: 1500,
            bandwidth: 0,
            queue_bytes: 64 * 1024,
        }
    }
}

/// What the links did, in total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Datagrams handed to a link.
    pub sent: u64,
    /// Datagrams delivered to a node.
    pub delivered: u64,
    /// Datagrams lost.
    pub lost: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Datagrams with a flipped bit.
    pub corrupted: u64,
    /// Datagrams over the MTU.
    pub too_big: u64,
    /// Datagrams to an address with no node (answers to spoofed sources).
    pub undeliverable: u64,
    /// Datagrams dropped because a bottleneck's queue was full (congestion, not random loss).
    pub queue_dropped: u64,
    /// Datagrams that went through a bottleneck.
    pub queued: u64,
    /// Total time datagrams waited in bottleneck queues (divide by `queued` for the mean).
    pub queue_delay_total: Duration,
    /// The longest any datagram waited in a bottleneck queue.
    pub queue_delay_max: Duration,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct InTransit {
    at: Instant,
    order: u64,
    from: SocketAddr,
    to: SocketAddr,
    bytes: Vec<u8>,
}

/// A server the simulated network can run: our [`Endpoint`], or a peer of the test's own (for
/// example one that speaks only the spec, to check a client against it).
///
/// The methods are [`Endpoint`]'s sans-I/O interface.
pub trait SimServer {
    /// Takes a datagram received from `from`.
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]);
    /// Writes the next datagram (or batch of up to `max_datagrams`) into `buf`, cleared first.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit>;
    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&mut self) -> Option<Instant>;
    /// Runs the timers that have expired at `now`.
    fn handle_timeout(&mut self, now: Instant);
}

impl SimServer for Endpoint {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        Endpoint::handle(self, now, from, datagram);
    }
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        Endpoint::poll_transmit(self, now, buf, max_datagrams)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        Endpoint::poll_timeout(self)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Endpoint::handle_timeout(self, now);
    }
}

/// A server, clients, links between them and a virtual clock.
#[derive(Debug)]
pub struct SimNetwork<S = Endpoint> {
    rng: SimRng,
    start: Instant,
    now: Instant,
    server: S,
    server_addr: SocketAddr,
    clients: Vec<(SocketAddr, Connection)>,
    by_addr: HashMap<SocketAddr, usize>,
    uplink: LinkConfig,
    downlink: LinkConfig,
    /// When each direction's bottleneck finishes sending what it holds (up, down).
    busy_until: [Instant; 2],
    queue: BinaryHeap<Reverse<InTransit>>,
    order: u64,
    stats: SimStats,
    /// Where the nodes write what they send.
    buf: Vec<u8>,
}

impl SimNetwork {
    /// A network whose server, an [`Endpoint`], listens on `10.0.0.1:7000`, with the same link
    /// both ways.
    pub fn new(seed: u64, server_config: Config, link: LinkConfig) -> SimNetwork {
        let mut rng = SimRng::new(seed);
        let server = Endpoint::with_seed(server_config, rng.next_u64());
        SimNetwork::with_rng(rng, server, link)
    }
}

impl<S: SimServer> SimNetwork<S> {
    /// A network around a server of your own, listening on `10.0.0.1:7000`, with the same link
    /// both ways.
    pub fn with_server(seed: u64, server: S, link: LinkConfig) -> SimNetwork<S> {
        let mut rng = SimRng::new(seed);
        // Draw as `new` does, so that a seed gives the clients the same salts either way.
        rng.next_u64();
        SimNetwork::with_rng(rng, server, link)
    }

    fn with_rng(rng: SimRng, server: S, link: LinkConfig) -> SimNetwork<S> {
        // The only clock read: the origin of virtual time. Only differences matter.
        let start = Instant::now();
        SimNetwork {
            rng,
            start,
            now: start,
            server,
            server_addr: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 7000)),
            clients: Vec::new(),
            by_addr: HashMap::new(),
            uplink: link.clone(),
            downlink: link,
            busy_until: [start; 2],
            queue: BinaryHeap::new(),
            order: 0,
            stats: SimStats::default(),
            buf: Vec::new(),
        }
    }

    /// Changes the client-to-server link.
    pub fn set_uplink(&mut self, link: LinkConfig) {
        self.uplink = link;
    }

    /// Changes the server-to-client link.
    pub fn set_downlink(&mut self, link: LinkConfig) {
        self.downlink = link;
    }

    /// Adds a client that starts connecting now; returns its index.
    pub fn add_client(&mut self, config: Config) -> usize {
        let n = self.clients.len() as u32 + 2;
        let addr = SocketAddr::V4(SocketAddrV4::new(
            Ipv4Addr::from(0x0a00_0000 + n),
            40000 + (n % 20000) as u16,
        ));
        self.add_client_at(addr, config)
    }

    /// Adds a client at a chosen address.
    pub fn add_client_at(&mut self, addr: SocketAddr, config: Config) -> usize {
        let seed = self.rng.next_u64();
        let conn = Connection::with_seed(config, self.server_addr, self.now, seed);
        self.clients.push((addr, conn));
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

    /// Client `i`'s connection.
    pub fn client(&mut self, i: usize) -> &mut Connection {
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
        self.queue.len()
    }

    /// Delivers a raw datagram from any (possibly spoofed) address, bypassing the links,
    /// at the current time on the next step.
    pub fn inject(&mut self, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        self.push(self.now, from, to, bytes);
    }

    fn push(&mut self, at: Instant, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        self.order += 1;
        self.queue.push(Reverse(InTransit {
            at,
            order: self.order,
            from,
            to,
            bytes,
        }));
    }

    fn transmit(&mut self, from: SocketAddr, to: SocketAddr, contents: Vec<u8>) {
        self.stats.sent += 1;
        let direction = usize::from(from == self.server_addr);
        let link = if direction == 1 {
            &self.downlink
        } else {
            &self.uplink
        };
        let link = link.clone();
        if contents.len() > link.mtu {
            self.stats.too_big += 1;
            return;
        }
        // The bottleneck: a drop-tail queue drained at `bandwidth`, before the lossy wire.
        let mut queued = Duration::ZERO;
        if link.bandwidth > 0 {
            let busy = self.busy_until[direction].max(self.now);
            let backlog = busy - self.now;
            let backlog_bytes = backlog.as_secs_f64() * link.bandwidth as f64;
            if backlog_bytes + contents.len() as f64 > link.queue_bytes as f64 {
                self.stats.queue_dropped += 1;
                return;
            }
            let serialise = Duration::from_secs_f64(contents.len() as f64 / link.bandwidth as f64);
            self.busy_until[direction] = busy + serialise;
            queued = self.busy_until[direction] - self.now;
            self.stats.queued += 1;
            self.stats.queue_delay_total += backlog;
            self.stats.queue_delay_max = self.stats.queue_delay_max.max(backlog);
        }
        if self.rng.chance(link.loss) {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.rng.chance(link.duplicate) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        let mut contents = Some(contents);
        for copy in 0..copies {
            let mut bytes = if copy + 1 == copies {
                contents.take().unwrap_or_default()
            } else {
                contents.clone().unwrap_or_default()
            };
            let mut delay = link.delay + queued;
            if !link.jitter.is_zero() {
                delay += link.jitter.mul_f64(self.rng.unit());
            }
            if self.rng.chance(link.reorder) {
                delay += link.reorder_delay.mul_f64(self.rng.unit());
            }
            if !bytes.is_empty() && self.rng.chance(link.corrupt) {
                let bit = self.rng.below(bytes.len() * 8);
                bytes[bit / 8] ^= 1 << (bit % 8);
                self.stats.corrupted += 1;
            }
            self.push(self.now + delay, from, to, bytes);
        }
    }

    fn flush(&mut self) {
        let now = self.now;
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(t) = self.server.poll_transmit(now, &mut buf, 1) {
            self.transmit(self.server_addr, t.destination, buf.clone());
        }
        for i in 0..self.clients.len() {
            while let Some(t) = self.clients[i].1.poll_transmit(now, &mut buf, 1) {
                let from = self.clients[i].0;
                self.transmit(from, t.destination, buf.clone());
            }
        }
        self.buf = buf;
    }

    fn next_event(&mut self) -> Option<Instant> {
        let mut next = self.queue.peek().map(|Reverse(d)| d.at);
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
        while self.queue.peek().is_some_and(|Reverse(d)| d.at <= now) {
            let Some(Reverse(d)) = self.queue.pop() else {
                break;
            };
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

    /// Runs the network for `dt` of virtual time: every delivery and timer in order.
    pub fn step(&mut self, dt: Duration) {
        let target = self.now + dt;
        self.advance(target, &mut |_| false);
    }

    /// Runs until `done` returns true (checked after every event) or `limit` of virtual time
    /// has passed. Returns whether `done` returned true.
    pub fn run_until(
        &mut self,
        limit: Duration,
        mut done: impl FnMut(&mut SimNetwork<S>) -> bool,
    ) -> bool {
        let target = self.now + limit;
        self.advance(target, &mut done)
    }

    fn advance(
        &mut self,
        target: Instant,
        done: &mut dyn FnMut(&mut SimNetwork<S>) -> bool,
    ) -> bool {
        let mut spins = 0u32;
        loop {
            self.flush();
            if done(self) {
                return true;
            }
            match self.next_event() {
                Some(t) if t <= target => {
                    if t > self.now {
                        self.now = t;
                        spins = 0;
                    } else {
                        spins += 1;
                        if spins > 10_000 {
                            // A timer that will not move: never hang a test on it.
                            self.now += Duration::from_millis(1);
                            spins = 0;
                        }
                    }
                    self.process_now();
                }
                _ => {
                    self.now = target;
                    self.process_now();
                    self.flush();
                    return done(self);
                }
            }
        }
    }
}
