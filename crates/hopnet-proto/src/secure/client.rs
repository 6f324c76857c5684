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
use crate::{Config, Error};

use super::batch::{ClientSeal, PlainBatch};
use super::fits_netcode;
use super::layers::{End, Secure};
use super::plain_capture::PlainCapture;

/// A secure client: a [`Client`] whose datagrams travel as netcode 1.02 payload packets.
pub type SecureClient = Secure<ClientEnd>;

/// What only the client end of secure mode keeps (see [`SecureClient`]).
#[derive(Debug)]
pub struct ClientEnd {
    /// Whether netcode has connected; the connection is driven only from then on.
    opened: bool,
}

impl SecureClient {
    /// Starts connecting at `now` with `token`. `config`'s datagrams must fit a netcode payload
    /// (`max_datagram_size` at most 1,200 bytes; the spec's 508 do).
    pub fn new(config: Config, token: ConnectToken, now: Instant) -> Result<SecureClient, Error> {
        fits_netcode(&config)?;
        let netcode = NetcodeClient::new(token, now);
        let inner = Client::new(config, netcode.server_address(), now);
        Ok(Secure {
            netcode,
            inner,
            plain: PlainBatch::default(),
            capture: PlainCapture::default(),
            end: ClientEnd { opened: false },
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
        ClientEnd::follow_inner(self, now);
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

/// The client's steps of the loop both ends share.
impl End for ClientEnd {
    type Netcode = NetcodeClient;
    type Inner = Client;

    /// Lets a payload through only once netcode has connected.
    fn receive(s: &mut SecureClient, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(payload) = s.netcode.handle(now, from, datagram)
            && s.end.opened
        {
            s.capture.received(now, from, payload);
            s.inner.handle(now, from, payload);
        }
    }

    fn runs_inner(s: &SecureClient) -> bool {
        s.end.opened
    }

    /// Opens the connection when netcode connects; ends it when netcode ends.
    fn follow_netcode(s: &mut SecureClient, now: Instant) {
        let state = s.netcode.state();
        if !s.end.opened && state == ClientState::Connected {
            s.end.opened = true;
            s.inner.authenticate(now, s.netcode.server_address());
        } else if state.is_closed() {
            let reason = match (s.end.opened, state) {
                (false, _) => DisconnectReason::ConnectTimeout,
                (true, ClientState::Disconnected) => DisconnectReason::PeerClosed,
                (true, _) => DisconnectReason::TimedOut,
            };
            // Nothing once the connection has closed above (its own reason stands).
            s.inner.end_authenticated(reason);
        }
    }

    /// Once the connection has closed here: its last datagrams (the `END`) sealed, then
    /// netcode's disconnect packets. Nothing waits for later, so never `true`.
    fn follow_inner(s: &mut SecureClient, now: Instant) -> bool {
        if !s.inner.is_closed() || s.netcode.state().is_closed() {
            return false;
        }
        if s.end.opened {
            let netcode = &mut s.netcode;
            while s.plain.take_next(|datagram| {
                let _ = netcode.send(now, datagram);
            }) {}
            let mut buf = Vec::new();
            while let Some(transmit) = s.inner.poll_transmit(now, &mut buf, 1) {
                let _ = s.netcode.send(now, &buf[..transmit.size]);
            }
        }
        s.netcode.disconnect(now);
        false
    }

    const FOLLOW_INNER_FIRST: bool = true;

    type Peer = ();
    type Sealer<'a> = ClientSeal<'a>;

    fn sealing_peer(_: &mut SecureClient, _: Instant) -> Option<()> {
        Some(())
    }

    fn sealer(client: &mut NetcodeClient, _: (), now: Instant) -> ClientSeal<'_> {
        ClientSeal { client, now }
    }

    /// Only a closed netcode client refuses; the datagrams are then lost like any other.
    fn lost(_: &mut SecureClient, _: u64) {}
}
