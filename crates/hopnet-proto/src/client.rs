//! A client's connection to a server: the handshake (see [`handshake`](crate::handshake)),
//! then the data phase it shares with the server's connections.

use std::net::SocketAddr;
use std::time::Instant;

use rand::{Rng, SeedableRng, rngs::StdRng};

use crate::config::Config;
use crate::connection::Connection;
use crate::error::Error;
use crate::event::{Delivery, DisconnectReason, Event, MessageId};
use crate::ext::Extensions;
use crate::handshake::client::ClientHandshake;
use crate::handshake::{HANDSHAKE_LEN, HandshakeFailure};
use crate::machine::Machine;
use crate::packet::{HEADER_LEN, is_handshake_shaped};
use crate::payload::{Data, Payload};
use crate::spares::Spares;
use crate::stats::Stats;
use crate::transmit::Transmit;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitingChallenge,
    AwaitingConfirmation,
    Established,
    Closed,
}

/// A client's connection to a server.
///
/// Drive it like quinn-proto's: feed every datagram from the socket to
/// [`handle`](Machine::handle), send whatever [`poll_transmit`](Machine::poll_transmit)
/// writes into your buffer, call [`handle_timeout`](Machine::handle_timeout) when the instant from
/// [`poll_timeout`](Machine::poll_timeout) passes, and drain
/// [`poll_event`](Client::poll_event).
#[derive(Debug)]
pub struct Client {
    core: Connection,
    handshake: ClientHandshake,
    phase: Phase,
    /// What the handshake had tried when the connect timeout passed, if it did.
    failure: Option<HandshakeFailure>,
    /// Buffers handed back with [`recycle`](Client::recycle).
    spares: Spares,
}

impl Client {
    /// Starts connecting to `server` with a random salt.
    pub fn new(config: Config, server: SocketAddr, now: Instant) -> Client {
        Self::with_rng(config, server, now, &mut rand::rng())
    }

    /// Starts connecting with a salt drawn from a seeded generator (deterministic tests).
    pub fn with_seed(config: Config, server: SocketAddr, now: Instant, seed: u64) -> Client {
        Self::with_rng(config, server, now, &mut StdRng::seed_from_u64(seed))
    }

    fn with_rng(config: Config, server: SocketAddr, now: Instant, rng: &mut impl Rng) -> Client {
        Client {
            handshake: ClientHandshake::new(
                now,
                rng.random(),
                config.handshake_initial_resend,
                config.handshake_max_resend,
                config.connect_timeout,
            ),
            core: Connection::new(server, &config, now, true, false),
            phase: Phase::AwaitingChallenge,
            failure: None,
            spares: Spares::received(),
        }
    }

    /// The server's address.
    pub fn remote(&self) -> SocketAddr {
        self.core.peer
    }

    /// Whether the server has shown that it accepted the handshake (its first packet with a
    /// header arrived) and the connection is open.
    pub fn is_connected(&self) -> bool {
        self.phase == Phase::Established
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    /// Why the handshake failed, once the connect timeout has passed without the server's
    /// confirmation ([`DisconnectReason::ConnectTimeout`]): what the client sent, and which
    /// step went unanswered. `None` otherwise.
    pub fn handshake_failure(&self) -> Option<HandshakeFailure> {
        self.failure
    }

    /// The error for a call on this connection once it has closed: the handshake's failure if
    /// that is why, else [`Error::Closed`].
    pub fn closed_error(&self) -> Error {
        self.failure.map_or(Error::Closed, Error::Handshake)
    }

    /// Queues a message. Reliable messages may be queued during the handshake and go out once
    /// the server has confirmed it ([`Event::Connected`]); unreliable ones sent before that are
    /// dropped, as the delivery mode allows.
    ///
    /// On a closed connection: [`Error::Closed`], or [`Error::Handshake`] if it never got past
    /// its handshake.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.queue(Data::Borrowed(bytes), delivery).map(drop)
    }

    /// Queues a message held in shared bytes, without copying them (see [`Payload`]).
    pub fn send_payload(&mut self, payload: &Payload, delivery: Delivery) -> Result<(), Error> {
        self.queue(Data::Shared(payload), delivery).map(drop)
    }

    /// Queues a [`Delivery::Tracked`] message; its [`Event::Acknowledged`] or [`Event::Lost`]
    /// will name the id returned.
    pub fn send_tracked(&mut self, bytes: &[u8]) -> Result<MessageId, Error> {
        self.queue(Data::Borrowed(bytes), Delivery::Tracked)
    }

    /// Queues a [`Delivery::Tracked`] message held in shared bytes (see [`Payload`]).
    pub fn send_payload_tracked(&mut self, payload: &Payload) -> Result<MessageId, Error> {
        self.queue(Data::Shared(payload), Delivery::Tracked)
    }

    fn queue(&mut self, data: Data<'_>, delivery: Delivery) -> Result<MessageId, Error> {
        match self.core.send(data, delivery) {
            Err(Error::Closed) => Err(self.closed_error()),
            other => other,
        }
    }

    /// The extensions agreed with the server, once they are (see
    /// [`ConfigBuilder::extensions`](crate::ConfigBuilder::extensions)).
    pub fn extensions(&self) -> Option<Extensions> {
        self.core.extensions()
    }

    /// Closes the connection: sends `END` and reports [`Event::Disconnected`].
    pub fn close(&mut self) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.core.close_with(DisconnectReason::LocalClose, true);
        }
    }

    /// The server has shown that it accepted us: data may flow, and the extensions may be
    /// offered.
    fn confirm(&mut self, now: Instant) {
        self.phase = Phase::Established;
        self.core.data_phase = true;
        self.core.push_event(Event::Connected);
        self.core.start_negotiation(now);
    }

    fn sync_phase(&mut self) {
        if self.core.is_closed() {
            self.phase = Phase::Closed;
        }
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.core.poll_event()
    }

    /// Hands back the buffer of a message the application has read (the `bytes` of an
    /// [`Event::Message`]), so that a later message is copied into it rather than into a new
    /// allocation.
    ///
    /// Optional: a buffer not handed back is freed when dropped, as any `Vec`. It pays where
    /// many messages arrive per poll: dropped together, their buffers overflow the
    /// allocator's per-thread cache, and most frees take its slow path. Messages that
    /// arrived in one datagram use the buffers; small ones are kept (up to 4 KiB of capacity
    /// each, 1,024 of them and 1 MiB in all), anything else is freed at once. Any `Vec<u8>`
    /// will do, not only one this connection delivered.
    ///
    /// ```
    /// use hopnet_proto::sim::Pair;
    /// use hopnet_proto::{Config, Delivery, Event};
    ///
    /// let mut pair = Pair::new(Config::default());
    /// let id = pair.id();
    /// for tick in 0..3u8 {
    ///     pair.server().send(id, &[tick; 100], Delivery::Reliable).unwrap();
    ///     pair.drive();
    ///     while let Some(event) = pair.client().poll_event() {
    ///         if let Event::Message { bytes, .. } = event {
    ///             assert_eq!(bytes, [tick; 100]);
    ///             pair.client().recycle(bytes);
    ///         }
    ///     }
    /// }
    /// ```
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.spares.give(bytes);
    }

    /// A snapshot of the connection's statistics.
    pub fn stats(&self) -> Stats {
        self.core.stats()
    }
}

/// Entry points for secure mode (`crate::secure`), whose netcode handshake authenticates the
/// server before this connection exists and replaces the spec's `Init` / `Challenge`.
impl Client {
    /// Opens the data phase of a connection made with [`new`](Self::new) and not driven since,
    /// once the layer below has connected to `server` at `now` (the token's first server, or a
    /// later one): it reports [`Event::Connected`], counts silence from `now`, and sends the
    /// reliable messages queued meanwhile, as a plain connection does after its handshake.
    pub(crate) fn authenticate(&mut self, now: Instant, server: SocketAddr) {
        if self.phase == Phase::AwaitingChallenge {
            self.core.peer = server;
            self.core.restart_liveness(now);
            self.confirm(now);
        }
    }

    /// Ends the connection because the layer below has ended, sending nothing.
    pub(crate) fn end_authenticated(&mut self, reason: DisconnectReason) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.core.close_with(reason, false);
        }
    }
}

/// The [`Machine`] surface, what a driver, the simulator or a generic loop calls.
impl Machine for Client {
    /// Takes a datagram received from `from`. Datagrams from anyone but the server are
    /// ignored (so an `END` from another address cannot close us); malformed ones are counted.
    ///
    /// Until the server has confirmed the handshake, a 4-byte datagram is either that
    /// confirmation (the acknowledgement of a probe) or a `Challenge`; a longer one is a packet
    /// and confirms too. See PROTOCOL.md, "The client's handshake".
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if from != self.core.peer || self.phase == Phase::Closed {
            return;
        }
        let four: Option<[u8; 4]> = datagram.try_into().ok();
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => match four {
                Some(v) if self.handshake.responded() && self.handshake.is_confirmation(v) => {
                    self.confirm(now);
                    self.core.handle_datagram(now, datagram, &mut self.spares);
                }
                Some(v) => {
                    self.core.count_received(now, HANDSHAKE_LEN);
                    if self.handshake.on_challenge(now, v) {
                        self.phase = Phase::AwaitingConfirmation;
                    }
                }
                None if self.phase == Phase::AwaitingConfirmation
                    && datagram.len() > HEADER_LEN =>
                {
                    self.confirm(now);
                    self.core.handle_datagram(now, datagram, &mut self.spares);
                    self.sync_phase();
                }
                None => self.core.count_malformed(),
            },
            Phase::Established => match four {
                Some(v) if is_handshake_shaped(v) || self.handshake.was_answered(v) => {
                    // A stray handshake datagram (a late copy of a Challenge): never a header
                    // from a conforming peer.
                    self.core.count_received(now, HANDSHAKE_LEN);
                }
                _ if datagram.len() < HEADER_LEN => self.core.count_malformed(),
                _ => {
                    self.core.handle_datagram(now, datagram, &mut self.spares);
                    self.sync_phase();
                }
            },
            Phase::Closed => {}
        }
    }

    /// Runs the timers that have expired at `now`.
    fn handle_timeout(&mut self, now: Instant) {
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => {
                if now >= self.handshake.deadline() {
                    self.phase = Phase::Closed;
                    self.failure = Some(self.handshake.tried());
                    self.core
                        .close_with(DisconnectReason::ConnectTimeout, false);
                    return;
                }
            }
            Phase::Established => self.core.handle_timeout(now),
            Phase::Closed => {}
        }
        self.sync_phase();
    }

    /// Writes the next datagram, or a batch of up to `max_datagrams` datagrams of equal size
    /// (the last may be shorter, see [`Transmit`]), into `buf` (cleared first), and says where
    /// it goes. Nothing is allocated per datagram: `buf` is the caller's, reused from call to
    /// call. Pass `max_datagrams = 1` to get one datagram at a time.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        buf.clear();
        let destination = self.core.peer;
        if matches!(
            self.phase,
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation
        ) {
            let datagram = self.handshake.poll(now)?;
            buf.extend_from_slice(&datagram);
            self.core.count_sent(now, buf.len());
            return Some(Transmit::single(destination, buf.len()));
        }
        let segment_size = self.core.transmit(now, buf, max_datagrams)?;
        Some(Transmit {
            destination,
            size: buf.len(),
            segment_size,
        })
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&self) -> Option<Instant> {
        match self.phase {
            Phase::AwaitingChallenge | Phase::AwaitingConfirmation => {
                Some(self.handshake.next_send().min(self.handshake.deadline()))
            }
            Phase::Established => self.core.poll_timeout(),
            Phase::Closed => None,
        }
    }
}
