//! The WebTransport side of the driver: the open sessions by address, what the endpoint sends
//! them, and when the server closes one.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use wtransport::endpoint::endpoint_side::Server;
use wtransport::error::SendDatagramError;
use wtransport::{Connection, VarInt};

use crate::peers::Peers;
use crate::sessions::{CLOSE_HOPNET_ENDED, Control, Counters, Inbound};
use crate::stats::WebStats;

pub(crate) struct Web {
    pub endpoint: Arc<wtransport::Endpoint<Server>>,
    pub addr: SocketAddr,
    sessions: Peers<Connection>,
    pub datagrams: mpsc::Receiver<Inbound>,
    pub control: mpsc::UnboundedReceiver<Control>,
    pub counters: Arc<Counters>,
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
            sessions: Peers::new(unused_timeout),
            datagrams,
            control,
            counters,
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
            Control::Opened { addr, connection } => self.sessions.opened(addr, connection, now),
            Control::Closed { addr } => self.sessions.closed(addr, hopnet, now),
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
        if !self.sessions.contains(&inbound.from) {
            // Its opening may still wait in the other channel.
            self.drain_control(hopnet, now);
        }
        if self
            .sessions
            .received(inbound.from, &inbound.datagram, hopnet, now)
        {
            self.received += 1;
        }
    }

    /// Sends the datagrams of one transmit into its session.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(session) = self.sessions.get(&to) else {
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
        self.closed_by_server += self.sessions.upkeep(hopnet, now, |session| {
            session.close(
                VarInt::from_u32(CLOSE_HOPNET_ENDED),
                b"hopnet connection ended",
            )
        });
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
