//! A secure server: hopnet's [`Server`] under netcode 1.02. The netcode server sits
//! between the socket and the endpoint: it authenticates clients, decrypts their payload
//! packets into the endpoint's datagrams, and seals each datagram the endpoint sends into a
//! payload packet. Every delivery mode and extension works unchanged above it.
//!
//! netcode's handshake replaces the spec's `Init` / `Challenge`: a client whose netcode
//! connection is established gets an endpoint connection at once ([`Event::Connected`]). When
//! either ends, the other does: a netcode disconnect or timeout ends the connection (reported
//! as the peer's close or a timeout), and a connection closed here (by `close` or its idle
//! timeout) disconnects the netcode client.

use std::net::SocketAddr;
use std::time::{Instant, SystemTime};

use hopnet_netcode::{
    NetcodeServer, NetcodeServerConfig, NetcodeServerEvent, NetcodeStats, ServerDisconnectReason,
    UserData,
};

use crate::event::DisconnectReason;
use crate::event::{ConnectionId, ServerEvent};
use crate::machine::Machine;
use crate::server::Server;
use crate::transmit::Transmit;
use crate::{Config, Error};

use super::batch::{PlainBatch, SlotSeal};
use super::fits_netcode;
use super::plain_capture::{PlainCapture, PlainDatagram};

/// A secure server: an [`Server`] whose datagrams travel as netcode 1.02 payload packets.
#[derive(Debug)]
pub struct SecureServer {
    netcode: NetcodeServer,
    inner: Server,
    /// The endpoint's datagrams not yet sealed.
    plain: PlainBatch,
    /// Datagrams of the endpoint that could not be sealed: their netcode client was gone.
    unsealable: u64,
    /// The plain datagrams kept for a recording, when asked.
    capture: PlainCapture,
}

impl SecureServer {
    /// Keeps (or stops keeping) a copy of every plain hopnet datagram this server decrypts
    /// and every one it is about to seal, for [`take_plain`](Self::take_plain), as
    /// [`SecureClient::set_plain_capture`](super::SecureClient::set_plain_capture) does for a
    /// client (with an example). Off by default.
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

    /// A secure server started at `now` (the instant of the Unix time `unix_now`, by which
    /// connect tokens expire). `config`'s datagrams must fit a netcode payload (its
    /// `max_datagram_size` at most 1,200 bytes; the spec's 508 do) and its `max_connections`
    /// must cover `netcode`'s `max_clients`.
    pub fn new(
        config: Config,
        netcode: NetcodeServerConfig,
        now: Instant,
        unix_now: SystemTime,
    ) -> Result<SecureServer, Error> {
        fits_netcode(&config)?;
        if config.max_connections < netcode.max_clients {
            return Err(Error::InvalidConfig(
                "max_connections must cover the secure server's max_clients",
            ));
        }
        let netcode = NetcodeServer::new(netcode, now, unix_now)
            .map_err(|_| Error::InvalidConfig("max_clients must be 1 to 65,536"))?;
        Ok(SecureServer {
            netcode,
            inner: Server::new(config),
            plain: PlainBatch::default(),
            unsealable: 0,
            capture: PlainCapture::default(),
        })
    }

    /// Opens an endpoint connection for each client netcode connected, ends one for each it
    /// disconnected.
    fn follow_netcode(&mut self, now: Instant) {
        while let Some(event) = self.netcode.poll_event() {
            match event {
                NetcodeServerEvent::Connected {
                    client, address, ..
                } => {
                    if self.inner.open_authenticated(now, address).is_none() {
                        let _ = self.netcode.disconnect(now, client);
                    }
                }
                NetcodeServerEvent::Disconnected {
                    address, reason, ..
                } => {
                    let reason = match reason {
                        ServerDisconnectReason::TimedOut => DisconnectReason::TimedOut,
                        ServerDisconnectReason::ClientDisconnected => DisconnectReason::PeerClosed,
                        ServerDisconnectReason::ServerDisconnected => DisconnectReason::LocalClose,
                    };
                    if let Some(id) = self.inner.connection_of(address) {
                        self.inner.end_authenticated(id, reason);
                    }
                }
            }
        }
    }

    /// Disconnects the netcode clients whose endpoint connection has closed; returns whether
    /// there were any (their disconnect packets are then queued). Every netcode client has an
    /// open connection but those, so the slots are looked at only when the counts differ.
    fn follow_endpoint(&mut self, now: Instant) -> bool {
        if self.inner.open_connections() >= self.netcode.connected_clients() {
            return false;
        }
        for client in 0..self.netcode.config().max_clients {
            let Some(address) = self.netcode.client_address(client) else {
                continue;
            };
            if self.inner.connection_of(address).is_none() {
                let _ = self.netcode.disconnect(now, client);
            }
        }
        // The disconnects' events: their connections are already gone.
        while self.netcode.poll_event().is_some() {}
        true
    }

    /// The next event on any connection.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.inner.poll_event()
    }

    /// Closes a connection: the endpoint's `END` goes out sealed, then netcode's disconnect
    /// packets, and the slot is freed (at the next [`poll_transmit`](Self::poll_transmit) or
    /// [`handle_timeout`](Self::handle_timeout)). Closing it through
    /// [`machine`](Self::machine) does the same.
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.inner.close(id)
    }

    /// The endpoint, for everything else (`send`, `send_payload`, `stats`, `recycle`...).
    pub fn machine(&mut self) -> &mut Server {
        &mut self.inner
    }

    /// The netcode server (its clients, user data, counters).
    pub fn netcode(&self) -> &NetcodeServer {
        &self.netcode
    }

    /// The netcode layer's counters.
    pub fn netcode_stats(&self) -> &NetcodeStats {
        self.netcode.stats()
    }

    /// The client id a connection's connect token carries (the player the backend
    /// authenticated).
    pub fn client_id(&self, id: ConnectionId) -> Option<u64> {
        self.netcode.client_id(self.slot_of(id)?)
    }

    /// The 256 bytes of user data a connection's connect token carries.
    pub fn user_data(&self, id: ConnectionId) -> Option<&UserData> {
        self.netcode.user_data(self.slot_of(id)?)
    }

    fn slot_of(&self, id: ConnectionId) -> Option<usize> {
        self.netcode.client_at(self.inner.peer(id)?)
    }

    /// Datagrams of the endpoint dropped because their client's netcode connection was gone.
    pub fn unsealable(&self) -> u64 {
        self.unsealable
    }
}

/// The [`Machine`] surface, what a driver, the simulator or a generic loop calls.
impl Machine for SecureServer {
    /// Takes a datagram received from `from`: netcode's packets are handled below, a payload
    /// from a connected client goes to the endpoint as its datagram. (A payload from a client
    /// whose connection has just closed above, before netcode's disconnect went out, is
    /// dropped: the endpoint would take it for the spec's handshake.)
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some((_, payload)) = self.netcode.handle(now, from, datagram)
            && self.inner.connection_of(from).is_some()
        {
            self.capture.received(now, from, payload);
            self.inner.handle(now, from, payload);
        }
        self.follow_netcode(now);
    }

    /// Writes the next datagram or batch into `buf`: netcode's own packets first (one at a
    /// time), then the endpoint's datagrams, sealed as payload packets in batches of up to
    /// `max_datagrams` of one size (see [`Transmit`]), as the plain endpoint writes them.
    /// A connection closed above has its last datagrams sealed, then netcode's disconnect.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        loop {
            if let Some(to) = self.netcode.poll_transmit(now, buf) {
                return Some(Transmit::single(to, buf.len()));
            }
            let (inner, capture) = (&mut self.inner, &mut self.capture);
            if !self.plain.fill(max_datagrams, |plain, max| {
                let transmit = inner.poll_transmit(now, plain, max);
                capture.sent(now, transmit, plain);
                transmit
            }) {
                if self.follow_endpoint(now) {
                    continue;
                }
                return None;
            }
            let destination = self.plain.destination()?;
            let Some(client) = self.netcode.client_at(destination) else {
                self.unsealable += self.plain.discard();
                continue;
            };
            if !self.netcode.is_confirmed(client) {
                // Queued behind the keep-alive each payload needs until the client confirms.
                let (netcode, unsealable) = (&mut self.netcode, &mut self.unsealable);
                while self.plain.take_next(|datagram| {
                    if netcode.send(now, client, datagram).is_err() {
                        *unsealable += 1;
                    }
                }) {}
                continue;
            }
            let mut seal = SlotSeal {
                server: &mut self.netcode,
                client,
                now,
            };
            match self.plain.seal_into(buf, max_datagrams, &mut seal) {
                Ok(Some(transmit)) => return Some(transmit),
                Ok(None) => {}
                Err(dropped) => self.unsealable += dropped,
            }
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&self) -> Option<Instant> {
        [self.inner.poll_timeout(), self.netcode.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs both layers' timers.
    fn handle_timeout(&mut self, now: Instant) {
        self.netcode.handle_timeout(now);
        self.follow_netcode(now);
        self.inner.handle_timeout(now);
        self.follow_endpoint(now);
    }
}
