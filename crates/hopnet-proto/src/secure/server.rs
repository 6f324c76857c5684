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
use crate::{Config, Error};

use super::batch::{PlainBatch, SlotSeal};
use super::fits_netcode;
use super::layers::{End, Secure};
use super::plain_capture::PlainCapture;

/// A secure server: a [`Server`] whose datagrams travel as netcode 1.02 payload packets.
pub type SecureServer = Secure<ServerEnd>;

/// What only the server end of secure mode keeps (see [`SecureServer`]).
#[derive(Debug)]
pub struct ServerEnd {
    /// Datagrams of the endpoint that could not be sealed: their netcode client was gone.
    unsealable: u64,
}

impl SecureServer {
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
        Ok(Secure {
            netcode,
            inner: Server::new(config),
            plain: PlainBatch::default(),
            capture: PlainCapture::default(),
            end: ServerEnd { unsealable: 0 },
        })
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
        self.end.unsealable
    }
}

/// The server's steps of the loop both ends share.
impl End for ServerEnd {
    type Netcode = NetcodeServer;
    type Inner = Server;

    /// A payload from a client whose connection has just closed above, before netcode's
    /// disconnect went out, is dropped: the endpoint would take it for the spec's handshake.
    fn receive(s: &mut SecureServer, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some((_, payload)) = s.netcode.handle(now, from, datagram)
            && s.inner.connection_of(from).is_some()
        {
            s.capture.received(now, from, payload);
            s.inner.handle(now, from, payload);
        }
    }

    fn runs_inner(_: &SecureServer) -> bool {
        true
    }

    /// Opens an endpoint connection for each client netcode connected, ends one for each it
    /// disconnected.
    fn follow_netcode(s: &mut SecureServer, now: Instant) {
        while let Some(event) = s.netcode.poll_event() {
            match event {
                NetcodeServerEvent::Connected {
                    client, address, ..
                } => {
                    if s.inner.open_authenticated(now, address).is_none() {
                        let _ = s.netcode.disconnect(now, client);
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
                    if let Some(id) = s.inner.connection_of(address) {
                        s.inner.end_authenticated(id, reason);
                    }
                }
            }
        }
    }

    /// Disconnects the netcode clients whose endpoint connection has closed; returns whether
    /// there were any (their disconnect packets are then queued). Every netcode client has an
    /// open connection but those, so the slots are looked at only when the counts differ.
    fn follow_inner(s: &mut SecureServer, now: Instant) -> bool {
        if s.inner.open_connections() >= s.netcode.connected_clients() {
            return false;
        }
        for client in 0..s.netcode.config().max_clients {
            let Some(address) = s.netcode.client_address(client) else {
                continue;
            };
            if s.inner.connection_of(address).is_none() {
                let _ = s.netcode.disconnect(now, client);
            }
        }
        // The disconnects' events: their connections are already gone.
        while s.netcode.poll_event().is_some() {}
        true
    }

    const FOLLOW_INNER_FIRST: bool = false;

    type Peer = usize;
    type Sealer<'a> = SlotSeal<'a>;

    /// Toward a client netcode no longer has, the datagrams are dropped (and counted); toward
    /// one that has not confirmed yet, they queue behind the keep-alive each payload needs.
    fn sealing_peer(s: &mut SecureServer, now: Instant) -> Option<usize> {
        let Some(client) = s.netcode.client_at(s.plain.destination()?) else {
            s.end.unsealable += s.plain.discard();
            return None;
        };
        if !s.netcode.is_confirmed(client) {
            let (netcode, unsealable) = (&mut s.netcode, &mut s.end.unsealable);
            while s.plain.take_next(|datagram| {
                if netcode.send(now, client, datagram).is_err() {
                    *unsealable += 1;
                }
            }) {}
            return None;
        }
        Some(client)
    }

    fn sealer(server: &mut NetcodeServer, client: usize, now: Instant) -> SlotSeal<'_> {
        SlotSeal {
            server,
            client,
            now,
        }
    }

    fn lost(s: &mut SecureServer, dropped: u64) {
        s.end.unsealable += dropped;
    }
}
