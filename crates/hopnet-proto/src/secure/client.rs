//! A secure client: hopnet's [`Client`] under netcode 1.02. The netcode client connects
//! with a connect token; once the server has given it a slot, the connection opens in the data
//! phase (netcode's handshake replaces the spec's `Init` / `Challenge`), and each datagram it
//! sends travels sealed as a payload packet.
//!
//! The connection exists from the start, so that the application holds one [`Client`]
//! whatever happens below, and sends as it would on a plain connection still in its
//! handshake: reliable messages queue (bounded, [`Error::WouldBlock`] when full) and go out in
//! order once netcode has connected; unreliable ones sent before that are dropped, as the
//! delivery mode allows.
//!
//! The two ends end together: a netcode disconnect, timeout or failure to connect ends the
//! connection (reported as [`Event::Disconnected`]), and a connection closed here sends its
//! `END` and netcode's disconnect packets.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet_netcode::{ClientState, ConnectToken, NetcodeClient, NetcodeStats};

use crate::client::Client;
use crate::event::{Delivery, DisconnectReason, Event};
use crate::machine::Machine;
use crate::transmit::Transmit;
use crate::{Config, Error};

use super::batch::{ClientSeal, PlainBatch};
use super::fits_netcode;
use super::plain_capture::{PlainCapture, PlainDatagram};

/// A secure client: a [`Client`] whose datagrams travel as netcode 1.02 payload packets.
#[derive(Debug)]
pub struct SecureClient {
    netcode: NetcodeClient,
    /// Driven only once netcode has connected (`opened`).
    inner: Client,
    opened: bool,
    /// The connection's datagrams not yet sealed.
    plain: PlainBatch,
    /// The plain datagrams kept for a recording, when asked.
    capture: PlainCapture,
}

impl SecureClient {
    /// Keeps (or stops keeping) a copy of every plain hopnet datagram this machine decrypts
    /// and every one it is about to seal, for [`take_plain`](Self::take_plain): what a
    /// recording of the decrypted session writes. Off by default; PROTOCOL.md, "Recording a
    /// secure session".
    ///
    /// ```
    /// # use std::time::{Instant, SystemTime};
    /// # use hopnet_proto::secure::{ConnectTokenBuilder, Key, SecureClient};
    /// # let key = Key::generate();
    /// # let token = ConnectTokenBuilder::new(7, 1, ["127.0.0.1:7000".parse().unwrap()])
    /// #     .issue(&key, SystemTime::now()).unwrap();
    /// # let mut machine = SecureClient::new(hopnet_proto::Config::default(), token, Instant::now()).unwrap();
    /// machine.set_plain_capture(true);
    /// // ... rounds of I/O ...
    /// while let Some(d) = machine.take_plain() {
    ///     println!("{:?} {} {} bytes", d.direction, d.peer, d.bytes.len());
    /// }
    /// ```
    pub fn set_plain_capture(&mut self, on: bool) {
        self.capture.set(on);
    }

    /// The oldest plain datagram kept (see [`set_plain_capture`](Self::set_plain_capture)).
    pub fn take_plain(&mut self) -> Option<PlainDatagram> {
        self.capture.take()
    }

    /// Plain datagrams dropped from the capture because none were taken for
    /// [`PLAIN_CAPTURE_LIMIT`](super::PLAIN_CAPTURE_LIMIT) of them.
    pub fn plain_capture_dropped(&self) -> u64 {
        self.capture.dropped()
    }

    /// Starts connecting at `now` with `token`. `config`'s datagrams must fit a netcode payload
    /// (`max_datagram_size` at most 1,200 bytes; the spec's 508 do).
    pub fn new(config: Config, token: ConnectToken, now: Instant) -> Result<SecureClient, Error> {
        fits_netcode(&config)?;
        let netcode = NetcodeClient::new(token, now);
        let inner = Client::new(config, netcode.server_address(), now);
        Ok(SecureClient {
            netcode,
            inner,
            opened: false,
            plain: PlainBatch::default(),
            capture: PlainCapture::default(),
        })
    }

    /// The server connected to (or being tried).
    pub fn remote(&self) -> SocketAddr {
        self.netcode.server_address()
    }

    /// Whether the connection is open.
    pub fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Whether the connection has ended, or never will open.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Opens the connection when netcode connects; ends it when netcode ends.
    fn follow_netcode(&mut self, now: Instant) {
        let state = self.netcode.state();
        if !self.opened && state == ClientState::Connected {
            self.opened = true;
            self.inner.authenticate(now, self.netcode.server_address());
        } else if state.is_closed() {
            let reason = match (self.opened, state) {
                (false, _) => DisconnectReason::ConnectTimeout,
                (true, ClientState::Disconnected) => DisconnectReason::PeerClosed,
                (true, _) => DisconnectReason::TimedOut,
            };
            // Nothing once the connection has closed above (its own reason stands).
            self.inner.end_authenticated(reason);
        }
    }

    /// Once the connection has closed here: its last datagrams (the `END`) sealed, then
    /// netcode's disconnect packets.
    fn follow_connection(&mut self, now: Instant) {
        if !self.inner.is_closed() || self.netcode.state().is_closed() {
            return;
        }
        if self.opened {
            let netcode = &mut self.netcode;
            while self.plain.take_next(|datagram| {
                let _ = netcode.send(now, datagram);
            }) {}
            let mut buf = Vec::new();
            while let Some(transmit) = self.inner.poll_transmit(now, &mut buf, 1) {
                let _ = self.netcode.send(now, &buf[..transmit.size]);
            }
        }
        self.netcode.disconnect(now);
    }

    /// Queues a message (see [`Client::send`]). Before netcode has connected, a reliable
    /// message waits in the connection's queue (bounded: [`Error::WouldBlock`] when full) and
    /// an unreliable one is dropped; [`Error::Closed`] once connecting has failed.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.inner.send(bytes, delivery)
    }

    /// Closes the connection: its `END`, then netcode's disconnect packets (drain them with
    /// [`poll_transmit`](Self::poll_transmit)). Closing it through
    /// [`machine`](Self::machine) does the same.
    pub fn close(&mut self, now: Instant) {
        self.inner.close();
        self.follow_connection(now);
    }

    /// The next event: the connection's (its failure to connect included).
    pub fn poll_event(&mut self) -> Option<Event> {
        self.inner.poll_event()
    }

    /// The connection, from the start: for `send_payload`, `send_tracked`, `stats`,
    /// `recycle`, `close`... Until netcode has connected it is in its handshake, as a plain
    /// connection would be.
    pub fn machine(&mut self) -> &mut Client {
        &mut self.inner
    }

    /// The connection's statistics (see [`Client::stats`]).
    pub fn stats(&self) -> crate::Stats {
        self.inner.stats()
    }

    /// The netcode client (its state, slot, counters).
    pub fn netcode(&self) -> &NetcodeClient {
        &self.netcode
    }

    /// The netcode layer's counters.
    pub fn netcode_stats(&self) -> &NetcodeStats {
        self.netcode.stats()
    }
}

/// The [`Machine`] surface, what a driver, the simulator or a generic loop calls.
impl Machine for SecureClient {
    /// Takes a datagram received from `from`.
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(payload) = self.netcode.handle(now, from, datagram)
            && self.opened
        {
            self.capture.received(now, from, payload);
            self.inner.handle(now, from, payload);
        }
        self.follow_netcode(now);
    }

    /// Writes the next datagram or batch into `buf`: netcode's own packets first (one at a
    /// time), then the connection's datagrams, sealed as payload packets in batches of up to
    /// `max_datagrams` of one size (see [`Transmit`]), as the plain connection writes them.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        self.follow_connection(now);
        loop {
            if let Some(to) = self.netcode.poll_transmit(now, buf) {
                return Some(Transmit::single(to, buf.len()));
            }
            if !self.opened {
                return None;
            }
            let (inner, capture) = (&mut self.inner, &mut self.capture);
            if !self.plain.fill(max_datagrams, |plain, max| {
                let transmit = inner.poll_transmit(now, plain, max);
                capture.sent(now, transmit, plain);
                transmit
            }) {
                return None;
            }
            let mut seal = ClientSeal {
                client: &mut self.netcode,
                now,
            };
            // Only a closed netcode client refuses; the datagrams are then lost like any other.
            if let Ok(Some(transmit)) = self.plain.seal_into(buf, max_datagrams, &mut seal) {
                return Some(transmit);
            }
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&self) -> Option<Instant> {
        let inner = if self.opened {
            self.inner.poll_timeout()
        } else {
            None
        };
        [inner, self.netcode.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs both layers' timers.
    fn handle_timeout(&mut self, now: Instant) {
        self.netcode.handle_timeout(now);
        self.follow_netcode(now);
        if self.opened {
            self.inner.handle_timeout(now);
        }
        self.follow_connection(now);
    }
}
