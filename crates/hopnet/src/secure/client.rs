//! A secure client: hopnet's [`Client`] under netcode 1.02. The netcode client connects
//! with a connect token; once the server has given it a slot, a connection starts in the data
//! phase (netcode's handshake replaces the spec's `Init` / `Challenge`), and each datagram it
//! sends travels sealed as a payload packet.
//!
//! The two ends end together: a netcode disconnect, timeout or failure to connect ends the
//! connection (reported as [`Event::Disconnected`]), and a connection closed here sends
//! netcode's disconnect packets.

use std::net::SocketAddr;
use std::time::Instant;

use crate::client::Client;
use crate::event::{Delivery, DisconnectReason, Event};
use crate::transmit::Transmit;
use crate::{Config, Error};

use super::connect_token::ConnectToken;
use super::netcode_client::{ClientState, NetcodeClient};
use super::packet::MAX_PAYLOAD_BYTES;
use super::stats::SecureStats;

/// A secure client: a [`Client`] whose datagrams travel as netcode 1.02 payload packets.
#[derive(Debug)]
pub struct SecureClient {
    config: Config,
    netcode: NetcodeClient,
    /// The connection, once netcode has connected.
    inner: Option<Client>,
    /// The event for a netcode failure before there was a connection to report it.
    failed: Option<Event>,
    /// Whether that event was made (it is reported once).
    failure_noted: bool,
    plain: Vec<u8>,
}

impl SecureClient {
    /// Starts connecting at `now` with `token`. `config`'s datagrams must fit a netcode payload
    /// (`max_datagram_size` at most 1,200 bytes; the spec's 508 do).
    pub fn new(config: Config, token: ConnectToken, now: Instant) -> Result<SecureClient, Error> {
        if config.max_datagram_size > MAX_PAYLOAD_BYTES {
            return Err(Error::InvalidConfig(
                "secure mode carries datagrams of at most 1,200 bytes (max_datagram_size)",
            ));
        }
        Ok(SecureClient {
            config,
            netcode: NetcodeClient::new(token, now),
            inner: None,
            failed: None,
            failure_noted: false,
            plain: Vec::new(),
        })
    }

    /// The server connected to (or being tried).
    pub fn remote(&self) -> SocketAddr {
        self.netcode.server_address()
    }

    /// Whether the connection is open.
    pub fn is_connected(&self) -> bool {
        self.inner.as_ref().is_some_and(Client::is_connected)
    }

    /// Whether the connection has ended, or never will open.
    pub fn is_closed(&self) -> bool {
        match &self.inner {
            Some(inner) => inner.is_closed(),
            None => self.netcode.state().is_closed(),
        }
    }

    /// Takes a datagram received from `from`.
    pub fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(payload) = self.netcode.handle(now, from, datagram)
            && let Some(inner) = self.inner.as_mut()
        {
            inner.handle(now, from, payload);
        }
        self.follow_netcode(now);
    }

    /// Opens the connection when netcode connects; ends it when netcode ends.
    fn follow_netcode(&mut self, now: Instant) {
        let state = self.netcode.state();
        match (&mut self.inner, state) {
            (None, ClientState::Connected) => {
                let server = self.netcode.server_address();
                self.inner = Some(Client::authenticated(self.config.clone(), server, now));
            }
            (Some(inner), state) if state.is_closed() => {
                let reason = match state {
                    ClientState::Disconnected => DisconnectReason::PeerClosed,
                    _ => DisconnectReason::TimedOut,
                };
                inner.end_authenticated(reason);
            }
            (None, state) if state.is_closed() => {
                self.note_failure(DisconnectReason::ConnectTimeout);
            }
            _ => {}
        }
    }

    fn note_failure(&mut self, reason: DisconnectReason) {
        if !self.failure_noted {
            self.failure_noted = true;
            self.failed = Some(Event::Disconnected { reason });
        }
    }

    /// Sends netcode's disconnect once the connection has closed here.
    fn follow_connection(&mut self, now: Instant) {
        if self.inner.as_ref().is_some_and(Client::is_closed) && !self.netcode.state().is_closed() {
            self.netcode.disconnect(now);
        }
    }

    /// Queues a message (see [`Client::send`]); [`Error::WouldBlock`] until connected.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        match self.inner.as_mut() {
            Some(inner) => inner.send(bytes, delivery),
            None if self.netcode.state().is_closed() => Err(Error::Closed),
            None => Err(Error::WouldBlock),
        }
    }

    /// Closes the connection: its `END`, then netcode's disconnect packets.
    pub fn close(&mut self, now: Instant) {
        match self.inner.as_mut() {
            Some(inner) => {
                inner.close();
                let mut buf = Vec::new();
                while let Some(transmit) = inner.poll_transmit(now, &mut buf, 1) {
                    let _ = self.netcode.send(now, &buf[..transmit.size]);
                }
            }
            None => self.note_failure(DisconnectReason::LocalClose),
        }
        self.netcode.disconnect(now);
    }

    /// Writes the next datagram into `buf`: netcode's own packets first, then the connection's
    /// datagrams, each sealed as a payload packet. One datagram at a time (`max_datagrams` is
    /// not used yet: sealed datagrams are not batched).
    pub fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        _max_datagrams: usize,
    ) -> Option<Transmit> {
        loop {
            if let Some(to) = self.netcode.poll_transmit(now, buf) {
                return Some(Transmit::single(to, buf.len()));
            }
            let inner = self.inner.as_mut()?;
            let transmit = inner.poll_transmit(now, &mut self.plain, 1)?;
            // Only a closed netcode client refuses; the datagram is then lost like any other.
            let _ = self.netcode.send(now, &self.plain[..transmit.size]);
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        let inner = self.inner.as_mut().and_then(Client::poll_timeout);
        [inner, self.netcode.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs both layers' timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.netcode.handle_timeout(now);
        self.follow_netcode(now);
        if let Some(inner) = self.inner.as_mut() {
            inner.handle_timeout(now);
        }
        self.follow_connection(now);
    }

    /// The next event: the connection's, or the failure to connect.
    pub fn poll_event(&mut self) -> Option<Event> {
        if let Some(event) = self.inner.as_mut().and_then(Client::poll_event) {
            return Some(event);
        }
        self.failed.take()
    }

    /// The connection, once netcode has connected (for `send_payload`, `send_tracked`,
    /// `stats`, `recycle`...).
    pub fn machine(&mut self) -> Option<&mut Client> {
        self.inner.as_mut()
    }

    /// The netcode client (its state, slot, counters).
    pub fn netcode(&self) -> &NetcodeClient {
        &self.netcode
    }

    /// The netcode layer's counters.
    pub fn netcode_stats(&self) -> &SecureStats {
        self.netcode.stats()
    }
}
