//! The server role. The contract's server ([`Server::new`]): a delivered server-targeted
//! package is echoed to its sender, any other is forwarded to every other known peer, each as
//! a new package of the server's own (same mode, same payload, server-targeted bit 0), in
//! delivery order. An application's server ([`Server::application`]) echoes and forwards
//! nothing: it hands peers and packages up as [`ServerEvent`]s and sends what the
//! application gives it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Machine;
use hopnet_formats::semi_ordered::Reliability;

use super::Config;
use super::endpoint::{Delivered, Endpoint};
use super::outbound::SendError;
use crate::one_at_a_time::transmit_one_at_a_time;

/// What an application's [`Server`] tells its application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// A datagram came from an address the server did not know: a new peer.
    Connected {
        /// Its address.
        peer: SocketAddr,
    },
    /// A package from a peer, in delivery order.
    Delivered(Delivered),
    /// A peer was silent for the forgetting time, or the application forgot it: what was
    /// unconfirmed either way is dropped, and its next datagram makes it a new peer.
    Forgotten {
        /// Its address.
        peer: SocketAddr,
    },
}

/// What a [`Server`] counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Packages handed up.
    pub delivered: u64,
    /// Echoes queued.
    pub echoed: u64,
    /// Forwards queued (one per receiving peer).
    pub forwarded: u64,
    /// Echoes or forwards not queued: the peer's unreliable queue was full, or it had
    /// vanished.
    pub dropped: u64,
    /// Datagrams that were not Semi-ordered UDP.
    pub malformed: u64,
    /// Datagrams from new addresses beyond the peer limit.
    pub refused_peers: u64,
    /// Reliable packages not taken (not confirmed, so sent again).
    pub refused_packages: u64,
    /// Peers forgotten after their silence.
    pub forgotten: u64,
}

/// A Semi-ordered UDP server ([`Machine`]): the contract's, which echoes and forwards, or an
/// application's.
#[derive(Debug)]
pub struct Server {
    endpoint: Endpoint,
    stats: ServerStats,
    buf_targets: Vec<SocketAddr>,
    /// The contract's echo and forward server; otherwise packages are handed up as events.
    echo: bool,
    events: VecDeque<ServerEvent>,
    buf_forgotten: Vec<SocketAddr>,
}

impl Server {
    /// The contract's server, knowing no peer yet: echoes and forwards every package.
    pub fn new(config: Config) -> Server {
        Server {
            endpoint: Endpoint::new(config),
            stats: ServerStats::default(),
            buf_targets: Vec::new(),
            echo: true,
            events: VecDeque::new(),
            buf_forgotten: Vec::new(),
        }
    }

    /// An application's server, knowing no peer yet: new peers, packages and forgotten
    /// peers are read with [`poll_event`](Self::poll_event), and packages are sent with
    /// [`send`](Self::send); nothing is echoed or forwarded.
    pub fn application(config: Config) -> Server {
        Server {
            echo: false,
            ..Server::new(config)
        }
    }

    /// The next event (an application's server only; the contract's has none).
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.events.pop_front()
    }

    /// Queues a package to `peer` (server-targeted bit 0); returns its id.
    /// [`SendError::WouldBlock`]: too many reliable packages await `peer`'s confirmation, or
    /// too many unreliable ones are queued (poll, then retry); [`SendError::UnknownPeer`]:
    /// no such peer (never heard, or forgotten).
    pub fn send(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<u32, SendError> {
        self.endpoint.send(now, peer, reliability, false, payload)
    }

    /// Forgets `peer` now, as its silence would (the protocol has no close: nothing is sent,
    /// and its next datagram makes it a new peer). Whether it was known; an application's
    /// server reports [`ServerEvent::Forgotten`].
    pub fn forget(&mut self, peer: SocketAddr) -> bool {
        let known = self.endpoint.peers.remove(&peer).is_some();
        if known && !self.echo {
            self.events.push_back(ServerEvent::Forgotten { peer });
        }
        known
    }

    /// What it counted so far.
    pub fn stats(&self) -> ServerStats {
        let c = &self.endpoint.counters;
        ServerStats {
            malformed: c.malformed,
            refused_peers: c.refused_peers,
            refused_packages: c.refused_packages,
            forgotten: c.forgotten,
            ..self.stats.clone()
        }
    }

    /// Peers known now.
    pub fn peers(&self) -> usize {
        self.endpoint.peers.len()
    }

    /// Bytes held for all peers: the bound the limits of [`Config`] keep.
    pub fn memory(&self) -> usize {
        self.endpoint.bytes()
    }

    /// Reliable packages awaiting confirmation from `peer`.
    pub fn unconfirmed(&self, peer: SocketAddr) -> usize {
        self.endpoint.unconfirmed(peer)
    }
}

/// Whether the server has room for the echo or the forwards of one more reliable package:
/// every peer they could go to can take one more reliable package. Otherwise the package is
/// not taken (nor confirmed), and comes again. The packages it releases, held back behind
/// it, are echoed beyond the limit ([`send_caused`](super::outbound::Outbound::send_caused)):
/// refusing the one they wait for would wait forever.
fn has_room(endpoint: &mut Endpoint) -> bool {
    endpoint.peers.values_mut().all(|p| p.outbound.room() > 0)
}

impl Server {
    /// An application's server takes a datagram: a new peer first, then its packages.
    fn handle_for_application(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let known = self.endpoint.peers.contains_key(&from);
        let mark = self.events.len();
        self.endpoint.handle_into(
            now,
            from,
            datagram,
            &mut self.events,
            ServerEvent::Delivered,
        );
        self.stats.delivered += (self.events.len() - mark) as u64;
        if !known && self.endpoint.peers.contains_key(&from) {
            self.events
                .insert(mark, ServerEvent::Connected { peer: from });
        }
    }
}

impl Machine for Server {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if !self.echo {
            return self.handle_for_application(now, from, datagram);
        }
        let stats = &mut self.stats;
        let targets = &mut self.buf_targets;
        self.endpoint.handle(
            now,
            from,
            datagram,
            has_room,
            |endpoint, package: Delivered| {
                stats.delivered += 1;
                targets.clear();
                if package.server_targeted {
                    targets.push(package.from);
                } else {
                    targets.extend(endpoint.peers.keys().filter(|&&a| a != package.from));
                }
                for to in targets.iter() {
                    let queued = endpoint.peers.get_mut(to).map(|peer| {
                        peer.outbound
                            .send_caused(package.reliability, &package.payload)
                    });
                    match queued {
                        Some(Ok(_)) if package.server_targeted => stats.echoed += 1,
                        Some(Ok(_)) => stats.forwarded += 1,
                        _ => stats.dropped += 1,
                    }
                }
            },
        );
    }

    transmit_one_at_a_time!(endpoint);

    fn poll_timeout(&self) -> Option<Instant> {
        self.endpoint.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let mut forgotten = std::mem::take(&mut self.buf_forgotten);
        self.endpoint.handle_timeout(now, &mut forgotten);
        if !self.echo {
            self.events.extend(
                forgotten
                    .iter()
                    .map(|&peer| ServerEvent::Forgotten { peer }),
            );
        }
        forgotten.clear();
        self.buf_forgotten = forgotten;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use hopnet_formats::semi_ordered::Datagram;

    use super::*;

    fn package(id: u32, payload: &[u8]) -> Vec<u8> {
        let datagram = Datagram::Package {
            reliability: Reliability::Unordered,
            server_targeted: true,
            id,
            payload: payload.to_vec(),
        };
        let mut buf = Vec::new();
        hopnet_codec::encode_into(&datagram, &mut buf).unwrap();
        buf
    }

    #[test]
    fn an_application_server_reports_peers_and_packages_and_echoes_nothing() {
        let t0 = Instant::now();
        let a: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let mut server = Server::application(Config::default());
        server.handle(t0, a, &[0xff]);
        assert_eq!(server.poll_event(), None, "garbage makes no peer");
        server.handle(t0, a, &package(0, b"hi"));
        assert_eq!(
            server.poll_event(),
            Some(ServerEvent::Connected { peer: a })
        );
        match server.poll_event() {
            Some(ServerEvent::Delivered(p)) => {
                assert_eq!((p.from, &p.payload[..]), (a, &b"hi"[..]))
            }
            other => panic!("{other:?}"),
        }
        // Only the confirmation goes out: no echo.
        let mut buf = Vec::new();
        let later = t0 + Duration::from_millis(50);
        let mut sent = Vec::new();
        while server.poll_transmit(later, &mut buf, 1).is_some() {
            sent.push(hopnet_codec::from_bytes::<Datagram>(&buf).unwrap());
        }
        assert!(
            matches!(&sent[..], [Datagram::Confirmation { .. }]),
            "{sent:?}"
        );
        server.handle_timeout(t0 + Duration::from_secs(15));
        assert_eq!(
            server.poll_event(),
            Some(ServerEvent::Forgotten { peer: a })
        );
        assert_eq!(server.peers(), 0);
    }
}
