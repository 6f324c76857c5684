//! The rule every carrier's peers share with the endpoint, whatever carries them (a
//! WebTransport session, a WebSocket): a peer is known by its synthetic address; its end is,
//! to the endpoint, its `END`; and the server closes a peer whose hopnet connection ended a
//! moment ago, or that has gone too long without one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Machine;

/// How long a peer stays open after its hopnet connection ended, so that the `END` (or the
/// last datagrams) queued for it leave before the carrier closes.
const CLOSE_GRACE: Duration = Duration::from_millis(250);

/// A header-only `END`: what the endpoint is handed, from a peer's address, when the carrier
/// ends under it. To hopnet that is the peer closing, which it did.
const END: [u8; 4] = [0x08, 0, 0, 0];

#[derive(Debug)]
struct Peer<H> {
    /// What the carrier sends through (a session, a socket's queue).
    handle: H,
    /// Whether the endpoint has had a connection for it.
    connected: bool,
    /// Since when it has had none (never had, or no longer has).
    unused_since: Instant,
}

/// The open peers of one carrier, by address.
#[derive(Debug)]
pub(crate) struct Peers<H> {
    peers: HashMap<SocketAddr, Peer<H>>,
    unused_timeout: Duration,
}

impl<H> Peers<H> {
    pub fn new(unused_timeout: Duration) -> Peers<H> {
        Peers {
            peers: HashMap::new(),
            unused_timeout,
        }
    }

    pub fn len(&self) -> usize {
        self.peers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.peers.is_empty()
    }

    pub fn contains(&self, addr: &SocketAddr) -> bool {
        self.peers.contains_key(addr)
    }

    pub fn get(&self, addr: &SocketAddr) -> Option<&H> {
        self.peers.get(addr).map(|p| &p.handle)
    }

    pub fn opened(&mut self, addr: SocketAddr, handle: H, now: Instant) {
        let peer = Peer {
            handle,
            connected: false,
            unused_since: now,
        };
        self.peers.insert(addr, peer);
    }

    /// The carrier ended: the endpoint hears the peer's `END`.
    pub fn closed(&mut self, addr: SocketAddr, hopnet: &mut hopnet::proto::Server, now: Instant) {
        self.peers.remove(&addr);
        if hopnet.connection_of(addr).is_some() {
            hopnet.handle(now, addr, &END);
        }
    }

    /// Hands one datagram from a known peer to the endpoint; `false` for an unknown peer.
    pub fn received(
        &mut self,
        from: SocketAddr,
        datagram: &[u8],
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) -> bool {
        let Some(peer) = self.peers.get_mut(&from) else {
            return false;
        };
        hopnet.handle(now, from, datagram);
        // The datagram that completes the handshake: noted at once, since the connection may
        // end before the next upkeep looks.
        if !peer.connected && hopnet.connection_of(from).is_some() {
            peer.connected = true;
            peer.unused_since = now;
        }
        true
    }

    /// Removes the peers whose hopnet connection ended a moment ago, or that have gone the
    /// unused timeout without one, handing each to `close`; returns how many.
    pub fn upkeep(
        &mut self,
        hopnet: &hopnet::proto::Server,
        now: Instant,
        mut close: impl FnMut(H),
    ) -> u64 {
        let unused_timeout = self.unused_timeout;
        let mut ended = Vec::new();
        for (addr, peer) in &mut self.peers {
            if hopnet.connection_of(*addr).is_some() {
                peer.connected = true;
                peer.unused_since = now;
                continue;
            }
            let limit = if peer.connected {
                CLOSE_GRACE
            } else {
                unused_timeout
            };
            if now.saturating_duration_since(peer.unused_since) >= limit {
                ended.push(*addr);
            }
        }
        for addr in &ended {
            if let Some(peer) = self.peers.remove(addr) {
                close(peer.handle);
            }
        }
        ended.len() as u64
    }

    /// Removes every peer, handing each to `close`.
    pub fn drain(&mut self, mut close: impl FnMut(H)) {
        for (_, peer) in self.peers.drain() {
            close(peer.handle);
        }
    }
}
