//! The four kinds of echo server a client must connect to, as one [`Machine`]: the model of
//! the spec author's implementation, our own [`Server`], the strict reader of the spec, and the
//! strict reader that re-challenges with the same pepper.
//! The tests run the same client code against each, in the simulator and on real sockets.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet_proto::{Config, Delivery, Event, Machine, Server, Transmit};

use super::original_server::OriginalServer;
use super::same_pepper_server::SamePepperServer;
use super::strict_server::StrictServer;

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The model of the spec author's server (`original_server.rs`): never confirms, parses
    /// every datagram after verification as a packet, acknowledges `REL | ACK`.
    Original,
    /// Our [`Server`], echoing.
    Ours,
    /// The strict reader of the spec (`strict_server.rs`): never confirms, never answers an
    /// `ACK`, drops reserved bits and chunk 255 without `FIN`, forgets a connection after 15 s
    /// without a valid packet.
    Strict,
    /// The strict reader with one pepper per address (`same_pepper_server.rs`): every `Init`
    /// before verification, a probe included, is challenged again with the same pepper.
    SamePepper,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Original, Kind::Ours, Kind::Strict, Kind::SamePepper];
}

/// Our [`Server`] as an echo server: sends every message back with the reliability it came
/// with; records every datagram it receives while `record` is set.
pub struct EchoEndpoint {
    pub endpoint: Server,
    pub record: bool,
    pub received: Vec<Vec<u8>>,
}

impl EchoEndpoint {
    pub fn new(config: Config, seed: u64) -> EchoEndpoint {
        EchoEndpoint {
            endpoint: Server::with_seed(config, seed),
            record: false,
            received: Vec::new(),
        }
    }

    fn echo(&mut self) {
        while let Some(e) = self.endpoint.poll_event() {
            if let Event::Message { bytes, reliable } = e.event {
                let delivery = if reliable {
                    Delivery::Reliable
                } else {
                    Delivery::Unreliable
                };
                let sent = self.endpoint.send(e.connection, &bytes, delivery);
                sent.expect("room to echo");
            }
        }
    }
}

impl Machine for EchoEndpoint {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if self.record {
            self.received.push(datagram.to_vec());
        }
        self.endpoint.handle(now, from, datagram);
        self.echo();
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<Transmit> {
        self.endpoint.poll_transmit(now, buf, max)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.endpoint.poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.endpoint.handle_timeout(now);
        self.echo();
    }
}

/// One server of any [`Kind`].
pub enum TestServer {
    Original(OriginalServer),
    Ours(Box<EchoEndpoint>),
    Strict(StrictServer),
    SamePepper(Box<SamePepperServer>),
}

impl TestServer {
    pub fn new(kind: Kind, seed: u64) -> TestServer {
        match kind {
            Kind::Original => TestServer::Original(OriginalServer::new(seed)),
            Kind::Ours => TestServer::Ours(Box::new(EchoEndpoint::new(Config::default(), seed))),
            Kind::Strict => TestServer::Strict(StrictServer::new(seed)),
            Kind::SamePepper => TestServer::SamePepper(Box::new(SamePepperServer::new(seed))),
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            TestServer::Original(_) => Kind::Original,
            TestServer::Ours(_) => Kind::Ours,
            TestServer::Strict(_) => Kind::Strict,
            TestServer::SamePepper(_) => Kind::SamePepper,
        }
    }

    /// What the server objects to in what our client sent, if anything: for the original, a
    /// `ChallengeResponse` after acceptance, or a datagram that broke or closed its connection;
    /// for the strict server, any violation of its reading, a connection it forgot for silence
    /// or that was closed; for ours, a malformed datagram.
    pub fn objection(&self) -> Option<String> {
        let fine = match self {
            TestServer::Original(s) => {
                s.stats.late_responses + s.stats.broken + s.stats.closed_by_end == 0
            }
            TestServer::Ours(s) => {
                let es = s.endpoint.server_stats();
                let malformed: u64 = s
                    .endpoint
                    .connections()
                    .filter_map(|id| s.endpoint.stats(id))
                    .map(|st| st.malformed)
                    .sum();
                es.malformed + malformed == 0
            }
            TestServer::Strict(s) => {
                s.stats.violations() + s.stats.timed_out + s.stats.closed_by_end == 0
            }
            TestServer::SamePepper(s) => s.objections() == 0,
        };
        (!fine).then(|| self.summary())
    }

    /// The server's own statistics, for messages.
    pub fn summary(&self) -> String {
        match self {
            TestServer::Original(s) => format!("{:?}", s.stats),
            TestServer::Ours(s) => format!("{:?}", s.endpoint.server_stats()),
            TestServer::Strict(s) => format!("{:?}", s.stats),
            TestServer::SamePepper(s) => format!("{:?} {:?}", s.stats, s.inner.stats),
        }
    }

    /// Handshakes the server accepted, and failed (for ours: accepted, and none can fail
    /// visibly, since a wrong response is an `Init`).
    pub fn handshakes(&self) -> (u64, u64) {
        match self {
            TestServer::Original(s) => (s.stats.accepted, s.stats.failed_handshakes),
            TestServer::Ours(s) => (s.endpoint.server_stats().connections_accepted, 0),
            TestServer::Strict(s) => (s.stats.accepted, s.stats.failed_handshakes),
            TestServer::SamePepper(s) => (s.inner.stats.accepted, 0),
        }
    }
}

impl Machine for TestServer {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        match self {
            TestServer::Original(s) => s.handle(now, from, datagram),
            TestServer::Ours(s) => s.handle(now, from, datagram),
            TestServer::Strict(s) => s.handle(now, from, datagram),
            TestServer::SamePepper(s) => s.handle(now, from, datagram),
        }
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<Transmit> {
        match self {
            TestServer::Original(s) => s.poll_transmit(now, buf, max),
            TestServer::Ours(s) => s.poll_transmit(now, buf, max),
            TestServer::Strict(s) => s.poll_transmit(now, buf, max),
            TestServer::SamePepper(s) => s.poll_transmit(now, buf, max),
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        match self {
            TestServer::Original(s) => s.poll_timeout(),
            TestServer::Ours(s) => s.poll_timeout(),
            TestServer::Strict(s) => s.poll_timeout(),
            TestServer::SamePepper(s) => s.poll_timeout(),
        }
    }
    fn handle_timeout(&mut self, now: Instant) {
        match self {
            TestServer::Original(s) => s.handle_timeout(now),
            TestServer::Ours(s) => s.handle_timeout(now),
            TestServer::Strict(s) => s.handle_timeout(now),
            TestServer::SamePepper(s) => s.handle_timeout(now),
        }
    }
}
