//! The WebTransport side of the driver: the open sessions by address, what the endpoint sends
//! them, and when the server closes one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hopnet::Machine;
use tokio::sync::mpsc;
use wtransport::endpoint::endpoint_side::Server;
use wtransport::error::SendDatagramError;
use wtransport::{Connection, VarInt};

use crate::sessions::{CLOSE_HOPNET_ENDED, Control, Counters, Inbound};
use crate::stats::WebStats;

/// How long a session stays open after its hopnet connection ended, so that the `END` (or the
/// last datagrams) queued for it leave before QUIC closes.
const CLOSE_GRACE: Duration = Duration::from_millis(250);

/// A header-only `END`: what the endpoint is handed, from a session's address, when the
/// session ends under it. To hopnet that is the peer closing, which it did.
const END: [u8; 4] = [0x08, 0, 0, 0];

#[derive(Debug)]
struct Session {
    connection: Connection,
    /// Whether the endpoint has had a connection for it.
    connected: bool,
    /// Since when it has had none (never had, or no longer has).
    unused_since: Instant,
}

pub(crate) struct Web {
    pub endpoint: Arc<wtransport::Endpoint<Server>>,
    pub addr: SocketAddr,
    sessions: HashMap<SocketAddr, Session>,
    pub datagrams: mpsc::Receiver<Inbound>,
    pub control: mpsc::UnboundedReceiver<Control>,
    pub counters: Arc<Counters>,
    unused_timeout: Duration,
    received: u64,
    sent: u64,
    too_large: u64,
    unroutable: u64,
    closed_by_server: u64,
}

impl Web {
    pub fn new(
        endpoint: Arc<wtransport::Endpoint<Server>>,
        addr: SocketAddr,
        datagrams: mpsc::Receiver<Inbound>,
        control: mpsc::UnboundedReceiver<Control>,
        counters: Arc<Counters>,
        unused_timeout: Duration,
    ) -> Web {
        Web {
            endpoint,
            addr,
            sessions: HashMap::new(),
            datagrams,
            control,
            counters,
            unused_timeout,
            received: 0,
            sent: 0,
            too_large: 0,
            unroutable: 0,
            closed_by_server: 0,
        }
    }

    /// Whether any session is open.
    pub fn has_sessions(&self) -> bool {
        !self.sessions.is_empty()
    }

    /// Takes one session's opening or end.
    pub fn on_control(
        &mut self,
        control: Control,
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        match control {
            Control::Opened { addr, connection } => {
                self.sessions.insert(
                    addr,
                    Session {
                        connection,
                        connected: false,
                        unused_since: now,
                    },
                );
            }
            Control::Closed { addr } => {
                self.sessions.remove(&addr);
                if hopnet.connection_of(addr).is_some() {
                    hopnet.handle(now, addr, &END);
                }
            }
        }
    }

    /// Takes every opening and end waiting.
    pub fn drain_control(&mut self, hopnet: &mut hopnet::proto::Server, now: Instant) {
        while let Ok(control) = self.control.try_recv() {
            self.on_control(control, hopnet, now);
        }
    }

    /// Hands one session datagram to the endpoint.
    pub fn on_datagram(
        &mut self,
        inbound: Inbound,
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        if !self.sessions.contains_key(&inbound.from) {
            // Its opening may still wait in the other channel.
            self.drain_control(hopnet, now);
        }
        let Some(session) = self.sessions.get_mut(&inbound.from) else {
            return;
        };
        hopnet.handle(now, inbound.from, &inbound.datagram);
        self.received += 1;
        // The datagram that completes the handshake: noted at once, since the connection may
        // end before the next upkeep looks.
        if !session.connected && hopnet.connection_of(inbound.from).is_some() {
            session.connected = true;
            session.unused_since = now;
        }
    }

    /// Sends the datagrams of one transmit into its session.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(session) = self.sessions.get(&to) else {
            self.unroutable += datagrams.count() as u64;
            return;
        };
        for datagram in datagrams {
            match session.connection.send_datagram(datagram) {
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
        let unused_timeout = self.unused_timeout;
        let mut closed = 0;
        self.sessions.retain(|addr, session| {
            if hopnet.connection_of(*addr).is_some() {
                session.connected = true;
                session.unused_since = now;
                return true;
            }
            let limit = if session.connected {
                CLOSE_GRACE
            } else {
                unused_timeout
            };
            if now.saturating_duration_since(session.unused_since) < limit {
                return true;
            }
            session.connection.close(
                VarInt::from_u32(CLOSE_HOPNET_ENDED),
                b"hopnet connection ended",
            );
            closed += 1;
            false
        });
        self.closed_by_server += closed;
    }

    pub fn fill_stats(&self, stats: &mut WebStats) {
        let c = &self.counters;
        stats.sessions = self.sessions.len() as u64;
        stats.accepted = c.accepted.load(Ordering::Relaxed);
        stats.refused_full = c.refused_full.load(Ordering::Relaxed);
        stats.refused_small = c.refused_small.load(Ordering::Relaxed);
        stats.failed = c.failed.load(Ordering::Relaxed);
        stats.datagrams_received = self.received;
        stats.inbox_full = c.inbox_full.load(Ordering::Relaxed);
        stats.closed_by_server = self.closed_by_server;
        stats.datagrams_sent = self.sent;
        stats.too_large = self.too_large;
        stats.unroutable = self.unroutable;
    }
}
