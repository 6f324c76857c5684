//! The server role: a connection per client address, a non-zero client id for each, every
//! delivered command echoed to its sender (same type, same data, reliable iff it was), and one
//! packet per connection every tick.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::{Machine, Transmit};
use hopnet_formats::woke::Packet;

use super::Config;
use super::connection::{CloseReason, Connection, Incoming};
use super::outbox::Outbox;
use super::ticker::{Ticker, outbox_transmit};

/// What a [`Server`] counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Connections made.
    pub connected: u64,
    /// Connections ended: by the client, or by a limit.
    pub closed: u64,
    /// Connections dropped by a limit (32 packets unacknowledged, 1,024 pending).
    pub dropped: u64,
    /// Commands handed up.
    pub delivered: u64,
    /// Echoes not queued (the connection's unreliable queue was full).
    pub echo_refused: u64,
    /// Datagrams that were not WOKE packets, or carried another client's id.
    pub malformed: u64,
    /// Requests not answered: the connection limit.
    pub refused: u64,
}

/// A WOKE server ([`Machine`]): echoes every command, per the contract.
#[derive(Debug)]
pub struct Server {
    config: Config,
    connections: HashMap<SocketAddr, Connection>,
    next_client_id: u16,
    ticker: Ticker,
    out: Outbox,
    incoming: Vec<Incoming>,
    stats: ServerStats,
}

impl Server {
    /// A server with no client yet.
    pub fn new(config: Config) -> Server {
        Server {
            connections: HashMap::new(),
            next_client_id: 1,
            ticker: Ticker::new(config.tick, None),
            out: Outbox::default(),
            incoming: Vec::new(),
            stats: ServerStats::default(),
            config,
        }
    }

    /// What it counted.
    pub fn stats(&self) -> ServerStats {
        self.stats.clone()
    }

    /// Connections open.
    pub fn connections(&self) -> usize {
        self.connections.len()
    }

    /// Bytes held for all connections.
    pub fn memory(&self) -> usize {
        self.connections
            .values()
            .map(Connection::bytes)
            .sum::<usize>()
            + self.out.bytes()
    }

    /// A client id not in use (never 0).
    fn fresh_id(&mut self) -> u16 {
        loop {
            let id = self.next_client_id;
            self.next_client_id = id.wrapping_add(1).max(1);
            if !self.connections.values().any(|c| c.client_id == id) {
                return id;
            }
        }
    }

    fn end(&mut self, addr: SocketAddr, reason: CloseReason, now: Instant) {
        if let Some(mut c) = self.connections.remove(&addr) {
            self.stats.closed += 1;
            if reason != CloseReason::ByPeer {
                self.stats.dropped += 1;
                self.out.push(addr, c.close_packet(now));
            }
        }
    }
}

impl Machine for Server {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let Ok(packet) = hopnet_codec::from_bytes::<Packet>(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        let (header, commands) = match packet {
            Packet::ConnectionRequest { header, .. } => {
                if !self.connections.contains_key(&from) {
                    if self.connections.len() >= self.config.max_connections {
                        self.stats.refused += 1;
                        return;
                    }
                    let id = self.fresh_id();
                    let mut c = Connection::new(id, &self.config);
                    c.established(id);
                    self.connections.insert(from, c);
                    self.stats.connected += 1;
                    self.ticker.start(now);
                }
                // Acknowledged like any packet, so that the answer's `ack` is one received.
                if let Some(c) = self.connections.get_mut(&from) {
                    c.heard(header.sequence);
                }
                return;
            }
            Packet::ConnectionClosed { header } => {
                if self
                    .connections
                    .get(&from)
                    .is_some_and(|c| c.client_id == header.client_id)
                {
                    self.end(from, CloseReason::ByPeer, now);
                }
                return;
            }
            Packet::KeepAlive { header } => (header, Vec::new()),
            Packet::Commands { header, commands } => (header, commands),
        };
        let Some(c) = self
            .connections
            .get_mut(&from)
            .filter(|c| c.client_id == header.client_id)
        else {
            self.stats.malformed += 1;
            return;
        };
        c.handle(now, header, commands, &mut self.incoming);
        for command in self.incoming.drain(..) {
            self.stats.delivered += 1;
            if c.send(command.kind, &command.data, command.reliable)
                .is_err()
            {
                self.stats.echo_refused += 1;
            }
        }
        if let Some(reason) = c.limit_reached() {
            self.end(from, reason, now);
        }
    }

    outbox_transmit!();

    fn handle_timeout(&mut self, now: Instant) {
        if !self.ticker.take(now) {
            return;
        }
        let ended: Vec<_> = self
            .connections
            .iter()
            .filter_map(|(&a, c)| c.limit_reached().map(|r| (a, r)))
            .collect();
        for (addr, reason) in ended {
            self.end(addr, reason, now);
        }
        for (&addr, c) in self.connections.iter_mut() {
            self.out.push(addr, c.tick(now));
        }
        if self.connections.is_empty() {
            self.ticker.stop();
        }
    }
}
