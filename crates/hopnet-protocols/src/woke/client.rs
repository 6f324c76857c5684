//! The client role: a ConnectionRequest every tick until the server answers with the client's
//! id, then one packet per tick carrying that id.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Machine;
use hopnet_formats::woke::Packet;

use super::Config;
use super::connection::{CloseReason, Connection, Incoming};
use super::outgoing::SendError;
use super::ticker::{Ticker, poll_timeout_by_ticker};
use crate::one_at_a_time::{Outbox, transmit_one_at_a_time};

/// Events waiting for the application at most; beyond, a packet is not taken (nor
/// acknowledged), so its reliable commands come again.
const MAX_EVENTS: usize = 16_384;

/// What a [`Client`] tells its application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The server answered: the client's id.
    Connected(u16),
    /// A command from the server.
    Command(Incoming),
    /// The connection ended.
    Closed(CloseReason),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connecting,
    Connected,
    Closed,
}

/// A WOKE client ([`Machine`]).
#[derive(Debug)]
pub struct Client {
    server: SocketAddr,
    connection: Connection,
    state: State,
    ticker: Ticker,
    out: Outbox,
    events: VecDeque<Event>,
    incoming: Vec<Incoming>,
}

impl Client {
    /// A client of the server at `server`; its first request goes at `now`.
    pub fn new(server: SocketAddr, config: Config, now: Instant) -> Client {
        Client {
            server,
            connection: Connection::new(0, &config),
            state: State::Connecting,
            ticker: Ticker::new(config.tick, Some(now)),
            out: Outbox::default(),
            events: VecDeque::new(),
            incoming: Vec::new(),
        }
    }

    /// The id the server gave, once connected.
    pub fn client_id(&self) -> Option<u16> {
        (self.state != State::Connecting).then_some(self.connection.client_id)
    }

    /// Whether the connection ended.
    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }

    /// Queues a command (sent once connected). More than 1,024 reliable commands pending
    /// end the connection, as the seed says: keep [`pending`](Self::pending) below that.
    pub fn send(&mut self, kind: u16, data: &[u8], reliable: bool) -> Result<(), SendError> {
        if self.state == State::Closed {
            return Err(SendError::Closed);
        }
        self.connection.send(kind, data, reliable)
    }

    /// Reliable commands not yet acknowledged.
    pub fn pending(&self) -> usize {
        self.connection.pending()
    }

    /// Sends ConnectionClosed and ends the connection.
    pub fn close(&mut self, now: Instant) {
        if self.state != State::Closed {
            let packet = self.connection.close_packet(now);
            self.out.push(self.server, packet);
            self.finish(CloseReason::Local);
        }
    }

    fn finish(&mut self, reason: CloseReason) {
        self.state = State::Closed;
        self.ticker.stop();
        self.events.push_back(Event::Closed(reason));
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Bytes held.
    pub fn memory(&self) -> usize {
        self.connection.bytes() + self.events.capacity() * size_of::<Event>()
    }
}

impl Machine for Client {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if from != self.server || self.state == State::Closed || self.events.len() >= MAX_EVENTS {
            return;
        }
        let Ok(packet) = hopnet_codec::from_bytes::<Packet>(datagram) else {
            return;
        };
        let (header, commands) = match packet {
            Packet::ConnectionRequest { .. } => return,
            Packet::ConnectionClosed { header } => {
                if self.state == State::Connected && header.client_id == self.connection.client_id {
                    self.finish(CloseReason::ByPeer);
                }
                return;
            }
            Packet::KeepAlive { header } => (header, Vec::new()),
            Packet::Commands { header, commands } => (header, commands),
        };
        match self.state {
            State::Connecting if header.client_id != 0 => {
                self.connection.established(header.client_id);
                self.state = State::Connected;
                self.events.push_back(Event::Connected(header.client_id));
            }
            State::Connected if header.client_id == self.connection.client_id => {}
            _ => return,
        }
        self.connection
            .handle(now, header, commands, &mut self.incoming);
        self.events
            .extend(self.incoming.drain(..).map(Event::Command));
        if let Some(reason) = self.connection.limit_reached() {
            let packet = self.connection.close_packet(now);
            self.out.push(self.server, packet);
            self.finish(reason);
        }
    }

    transmit_one_at_a_time!(out);
    poll_timeout_by_ticker!();

    fn handle_timeout(&mut self, now: Instant) {
        if !self.ticker.take(now) {
            return;
        }
        let packet = match self.state {
            State::Connecting => self.connection.request(now),
            State::Connected => {
                if let Some(reason) = self.connection.limit_reached() {
                    let packet = self.connection.close_packet(now);
                    self.out.push(self.server, packet);
                    self.finish(reason);
                    return;
                }
                self.connection.tick(now)
            }
            State::Closed => return,
        };
        self.out.push(self.server, packet);
    }
}
