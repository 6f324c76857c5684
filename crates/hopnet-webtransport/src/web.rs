//! The WebTransport side of the driver: the open sessions by address, what the endpoint sends
//! them, and when the server closes one.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use wtransport::datagram::Datagram;
use wtransport::endpoint::endpoint_side::Server;
use wtransport::error::SendDatagramError;
use wtransport::{Connection, VarInt};

use crate::inlet::Inlet;
use crate::sessions::{CLOSE_HOPNET_ENDED, Counters};
use crate::stats::WebStats;

pub(crate) struct Web {
    pub endpoint: Arc<wtransport::Endpoint<Server>>,
    pub addr: SocketAddr,
    /// The sessions, and what their tasks send the loop.
    pub inlet: Inlet<Connection, Datagram>,
    pub counters: Arc<Counters>,
    sent: u64,
    too_large: u64,
    unroutable: u64,
    closed_by_server: u64,
}

impl Web {
    pub fn new(
        endpoint: Arc<wtransport::Endpoint<Server>>,
        addr: SocketAddr,
        inlet: Inlet<Connection, Datagram>,
        counters: Arc<Counters>,
    ) -> Web {
        Web {
            endpoint,
            addr,
            inlet,
            counters,
            sent: 0,
            too_large: 0,
            unroutable: 0,
            closed_by_server: 0,
        }
    }

    /// Sends the datagrams of one transmit into its session.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(session) = self.inlet.peers.get(&to) else {
            self.unroutable += datagrams.count() as u64;
            return;
        };
        for datagram in datagrams {
            match session.send_datagram(datagram) {
                Ok(()) => self.sent += 1,
                Err(SendDatagramError::TooLarge) => self.too_large += 1,
                Err(SendDatagramError::NotConnected | SendDatagramError::UnsupportedByPeer) => {
                    self.unroutable += 1
                }
            }
        }
    }

    /// Closes the sessions whose hopnet connection ended a moment ago, or that have gone
    /// `unused_timeout` without one.
    pub fn upkeep(&mut self, hopnet: &hopnet::proto::Server, now: Instant) {
        self.closed_by_server += self.inlet.peers.upkeep(hopnet, now, |session| {
            session.close(
                VarInt::from_u32(CLOSE_HOPNET_ENDED),
                b"hopnet connection ended",
            )
        });
    }

    pub fn fill_stats(&self, stats: &mut WebStats) {
        let c = &self.counters;
        stats.sessions = self.inlet.peers.len() as u64;
        stats.accepted = c.accepted.load(Ordering::Relaxed);
        stats.refused_full = c.refused_full.load(Ordering::Relaxed);
        stats.refused_small = c.refused_small.load(Ordering::Relaxed);
        stats.failed = c.failed.load(Ordering::Relaxed);
        stats.datagrams_received = self.inlet.received;
        stats.inbox_full = c.inbox_full.load(Ordering::Relaxed);
        stats.closed_by_server = self.closed_by_server;
        stats.datagrams_sent = self.sent;
        stats.too_large = self.too_large;
        stats.unroutable = self.unroutable;
    }
}
