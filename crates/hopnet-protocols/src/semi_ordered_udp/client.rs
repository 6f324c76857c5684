//! The client role: one server, the packages it hands up as events for the application.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Machine;
use hopnet_formats::semi_ordered::Reliability;

use super::Config;
use super::endpoint::Endpoint;
use super::outbound::SendError;
use crate::one_at_a_time::transmit_one_at_a_time;

/// What a [`Client`] tells its application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A package from the server, in delivery order.
    Delivered {
        /// How it was sent.
        reliability: Reliability,
        /// Its server-targeted bit.
        server_targeted: bool,
        /// Its id in the server's numbering toward this client.
        id: u32,
        /// Its payload.
        payload: Vec<u8>,
    },
    /// The server was silent for the forgetting time: what was unconfirmed is dropped, and
    /// the next package starts afresh.
    Forgotten,
}

/// A Semi-ordered UDP client ([`Machine`]): talks to one server.
#[derive(Debug)]
pub struct Client {
    endpoint: Endpoint,
    server: SocketAddr,
    events: VecDeque<Event>,
    /// Whether a Semi-ordered UDP datagram came from the server since the client was made
    /// or last forgot it.
    heard: bool,
}

impl Client {
    /// A client of the server at `server`; the silence that forgets it counts from `now`.
    pub fn new(server: SocketAddr, config: Config, now: Instant) -> Client {
        let mut endpoint = Endpoint::new(config);
        endpoint.now = Some(now);
        endpoint.peer(server, now);
        Client {
            endpoint,
            server,
            events: VecDeque::new(),
            heard: false,
        }
    }

    /// The server's address.
    pub fn server(&self) -> SocketAddr {
        self.server
    }

    /// Queues a package to the server; returns its id. [`SendError::WouldBlock`]: too many
    /// reliable packages await confirmation (poll, then retry).
    pub fn send(
        &mut self,
        now: Instant,
        reliability: Reliability,
        server_targeted: bool,
        payload: &[u8],
    ) -> Result<u32, SendError> {
        // The server's peer is made again if its silence forgot it.
        self.endpoint.now = Some(now);
        self.endpoint
            .peer(self.server, now)
            .ok_or(SendError::UnknownPeer)?;
        self.endpoint
            .send(now, self.server, reliability, server_targeted, payload)
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Whether a Semi-ordered UDP datagram (a package, a confirmation, a keepalive) came
    /// from the server since the client was made or last forgot the server.
    pub fn has_heard(&self) -> bool {
        self.heard
    }

    /// Reliable packages awaiting the server's confirmation.
    pub fn unconfirmed(&self) -> usize {
        self.endpoint.unconfirmed(self.server)
    }

    /// Whether anything is still to be sent or confirmed, either way.
    pub fn is_idle(&self) -> bool {
        self.endpoint.peers.get(&self.server).is_none_or(|p| {
            p.outbound.unconfirmed() == 0
                && !p.outbound.has_ready()
                && p.confirmations
                    .deadline(self.endpoint.config.confirm_delay)
                    .is_none()
        })
    }

    /// Bytes held, as the memory bound counts them.
    pub fn memory(&self) -> usize {
        self.endpoint.bytes() + self.events.capacity() * size_of::<Event>()
    }
}

impl Machine for Client {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if from != self.server {
            return;
        }
        let malformed = self.endpoint.counters.malformed;
        self.endpoint
            .handle_into(now, from, datagram, &mut self.events, |package| {
                Event::Delivered {
                    reliability: package.reliability,
                    server_targeted: package.server_targeted,
                    id: package.id,
                    payload: package.payload,
                }
            });
        if self.endpoint.counters.malformed == malformed {
            self.heard = true;
        }
    }

    transmit_one_at_a_time!(endpoint);

    fn poll_timeout(&self) -> Option<Instant> {
        self.endpoint.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let mut forgotten = Vec::new();
        self.endpoint.handle_timeout(now, &mut forgotten);
        if !forgotten.is_empty() {
            self.heard = false;
            self.events.push_back(Event::Forgotten);
        }
    }
}
