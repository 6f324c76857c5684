//! The server role: a connection per client address, a non-zero client id for each, and one
//! packet per connection every tick. The contract's server ([`Server::new`]) echoes every
//! delivered command to its sender (same type, same data, reliable iff it was); an
//! application's server ([`Server::application`]) hands commands up as [`ServerEvent`]s and
//! sends what the application gives it instead.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Machine;
use hopnet_formats::woke::Packet;

use super::Config;
use super::connection::{CloseReason, Connection, Incoming};
use super::outgoing::SendError;
use super::ticker::{Ticker, poll_timeout_by_ticker};
use crate::one_at_a_time::{Outbox, transmit_one_at_a_time};

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

/// Events waiting for an application at most; beyond, a packet is not taken (nor
/// acknowledged), so its reliable commands come again.
const MAX_EVENTS: usize = 16_384;

/// What an application's [`Server`] tells its application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// A client's request was answered: its id, from now on its connection's name.
    Connected {
        /// The client's id.
        client_id: u16,
        /// Its address.
        peer: SocketAddr,
    },
    /// A command from a client.
    Command {
        /// The client's id.
        client_id: u16,
        /// Its address.
        peer: SocketAddr,
        /// The command.
        command: Incoming,
    },
    /// A connection ended; its id may be given to a later client.
    Closed {
        /// The client's id.
        client_id: u16,
        /// Its address.
        peer: SocketAddr,
        /// Why.
        reason: CloseReason,
    },
}

/// A WOKE server ([`Machine`]): the contract's, which echoes every command, or an
/// application's.
#[derive(Debug)]
pub struct Server {
    config: Config,
    /// The contract's echo server; otherwise commands are handed up as events.
    echo: bool,
    events: VecDeque<ServerEvent>,
    connections: HashMap<SocketAddr, Connection>,
    next_client_id: u16,
    ticker: Ticker,
    out: Outbox,
    incoming: Vec<Incoming>,
    stats: ServerStats,
}

impl Server {
    /// The contract's server, with no client yet: every command is echoed to its sender.
    pub fn new(config: Config) -> Server {
        Server {
            echo: true,
            events: VecDeque::new(),
            connections: HashMap::new(),
            next_client_id: 1,
            ticker: Ticker::new(config.tick, None),
            out: Outbox::default(),
            incoming: Vec::new(),
            stats: ServerStats::default(),
            config,
        }
    }

    /// An application's server, with no client yet: connections, commands and closes are
    /// read with [`poll_event`](Self::poll_event), and commands are sent with
    /// [`send`](Self::send); nothing is echoed.
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

    /// Queues a command to the client whose id is `client_id`, sent with its next packet.
    pub fn send(
        &mut self,
        client_id: u16,
        kind: u16,
        data: &[u8],
        reliable: bool,
    ) -> Result<(), SendError> {
        self.connections
            .values_mut()
            .find(|c| c.client_id == client_id)
            .ok_or(SendError::Closed)?
            .send(kind, data, reliable)
    }

    /// Reliable commands to `client_id` not yet acknowledged (more than 1,024 end the
    /// connection, as the seed says).
    pub fn pending(&self, client_id: u16) -> Option<usize> {
        self.connections
            .values()
            .find(|c| c.client_id == client_id)
            .map(Connection::pending)
    }

    /// Sends ConnectionClosed to `client_id` and ends its connection.
    pub fn close(&mut self, client_id: u16, now: Instant) -> Result<(), SendError> {
        let addr = self
            .connections
            .iter()
            .find(|(_, c)| c.client_id == client_id)
            .map(|(&a, _)| a)
            .ok_or(SendError::Closed)?;
        if let Some(mut c) = self.connections.remove(&addr) {
            self.stats.closed += 1;
            self.out.push(addr, c.close_packet(now));
            self.closed(client_id, addr, CloseReason::Local);
        }
        Ok(())
    }

    fn closed(&mut self, client_id: u16, peer: SocketAddr, reason: CloseReason) {
        if !self.echo {
            self.events.push_back(ServerEvent::Closed {
                client_id,
                peer,
                reason,
            });
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
            self.closed(c.client_id, addr, reason);
        }
    }
}

impl Machine for Server {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if self.events.len() >= MAX_EVENTS {
            return;
        }
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
                    if !self.echo {
                        self.events.push_back(ServerEvent::Connected {
                            client_id: id,
                            peer: from,
                        });
                    }
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
            if !self.echo {
                self.events.push_back(ServerEvent::Command {
                    client_id: header.client_id,
                    peer: from,
                    command,
                });
            } else if c
                .send(command.kind, &command.data, command.reliable)
                .is_err()
            {
                self.stats.echo_refused += 1;
            }
        }
        if let Some(reason) = c.limit_reached() {
            self.end(from, reason, now);
        }
    }

    transmit_one_at_a_time!(out);
    poll_timeout_by_ticker!();

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
