//! The server role: a delivered server-targeted package is echoed to its sender, any other is
//! forwarded to every other known peer, each as a new package of the server's own (same mode,
//! same payload, server-targeted bit 0), in delivery order.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet::{Machine, Transmit};

use super::Config;
use super::endpoint::{Delivered, Endpoint, endpoint_transmit};

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

/// A Semi-ordered UDP server ([`Machine`]): echoes and forwards, per the contract.
#[derive(Debug)]
pub struct Server {
    endpoint: Endpoint,
    stats: ServerStats,
    buf_targets: Vec<SocketAddr>,
}

impl Server {
    /// A server that knows no peer yet.
    pub fn new(config: Config) -> Server {
        Server {
            endpoint: Endpoint::new(config),
            stats: ServerStats::default(),
            buf_targets: Vec::new(),
        }
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
        self.endpoint
            .peers
            .get(&peer)
            .map_or(0, |p| p.outbound.unconfirmed())
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

impl Machine for Server {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
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

    endpoint_transmit!();

    fn handle_timeout(&mut self, now: Instant) {
        self.endpoint.handle_timeout(now);
    }
}
