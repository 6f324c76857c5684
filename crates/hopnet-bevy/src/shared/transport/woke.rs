//! WOKE (`hopnet_protocols::woke`, the seed's transport) under the plugins, behind the
//! `protocols` feature: what is WOKE's own, on the glue every seed protocol shares
//! ([`seed`](super::seed)).
//!
//! WOKE carries commands two ways only: reliable (retransmitted until acknowledged, handed up
//! once, in no particular order) and unreliable (sent once). [`Delivery::Reliable`] and
//! [`Delivery::Unreliable`] map onto them; every other mode promises something WOKE does not
//! keep (an order, a newest-wins rule, a report of arrival), so a message registered with one
//! is refused with an error naming the mode rather than sent with a weaker promise. Register
//! the messages of a WOKE game as `Reliable` or `Unreliable`.
//!
//! Every message goes as a command of type [`MESSAGE_COMMAND`]; a command of another type
//! from the peer is handed up as a message too (its bytes are the plugin's to decode, and
//! decoding refuses what is not one of its messages). A reliable message larger than a packet
//! is split by WOKE; an unreliable one must fit a packet
//! ([`MAX_UNRELIABLE_DATA`](hopnet_protocols::woke::MAX_UNRELIABLE_DATA)).
//!
//! WOKE names a client by a 16-bit id that a later client may get again; the server transport
//! gives each connection its own [`ConnectionId`](hopnet::ConnectionId), never reused, as hopnet's servers do.
//! Of the [statistics](super::stats), WOKE keeps the reliable commands pending; the glue
//! counts the messages sent and handed up, and a client's datagrams; the rest is unknown.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Instant;

use hopnet::{Delivery, DisconnectReason, Error};
use hopnet_protocols::woke::{self, CloseReason, SendError};

use super::seed::{
    Closing, SeedClient, SeedClientEvent, SeedClientMachine, SeedMessage, SeedServer,
    SeedServerEvent, SeedServerMachine,
};

/// The WOKE command type every message is sent as.
pub const MESSAGE_COMMAND: u16 = 1;

/// The WOKE flag a delivery mode maps to (`true`: reliable), or the error that refuses it.
pub fn woke_reliable(delivery: Delivery) -> Result<bool, Error> {
    match delivery {
        Delivery::Reliable => Ok(true),
        Delivery::Unreliable => Ok(false),
        Delivery::Sequenced => Err(Error::InvalidConfig(
            "WOKE has no Delivery::Sequenced (it never drops an older message for a newer one): register the message as Unreliable or Reliable",
        )),
        Delivery::ReliableOrdered => Err(Error::InvalidConfig(
            "WOKE has no Delivery::ReliableOrdered (its reliable commands arrive in any order): register the message as Reliable",
        )),
        Delivery::SemiOrdered => Err(Error::InvalidConfig(
            "WOKE has no Delivery::SemiOrdered (its reliable commands arrive in any order): register the message as Reliable",
        )),
        Delivery::Tracked => Err(Error::InvalidConfig(
            "WOKE has no Delivery::Tracked (it reports no message's arrival): register the message as Unreliable or Reliable",
        )),
    }
}

fn send_error(error: SendError, len: usize) -> Error {
    match error {
        SendError::TooLarge => Error::PayloadTooLarge { len },
        SendError::WouldBlock => Error::WouldBlock,
        SendError::Closed => Error::Closed,
        SendError::BadType(_) => Error::InvalidConfig("WOKE command type is not below 1024"),
    }
}

/// hopnet's reason for a WOKE connection's end. WOKE's two limits (32 packets in a row
/// unacknowledged, more than 1,024 reliable commands pending) both mean the peer stopped
/// keeping up: `TimedOut`.
fn reason(reason: CloseReason) -> DisconnectReason {
    match reason {
        CloseReason::ByPeer => DisconnectReason::PeerClosed,
        CloseReason::Local => DisconnectReason::LocalClose,
        CloseReason::Unacknowledged | CloseReason::TooManyPending => DisconnectReason::TimedOut,
    }
}

/// A WOKE command as the glue's message: WOKE never repeats an unreliable one.
fn message(command: woke::Incoming) -> SeedMessage {
    SeedMessage {
        bytes: command.data,
        reliable: command.reliable,
        repeatable_id: None,
    }
}

/// A WOKE server ([`woke::Server::application`]) on a UDP socket, as a
/// [`ServerTransport`](super::ServerTransport).
pub type WokeServer = SeedServer<woke::Server>;

impl WokeServer {
    /// A WOKE server on a socket bound to `addr`.
    pub fn bind(addr: impl ToSocketAddrs, config: woke::Config) -> Result<WokeServer, Error> {
        SeedServer::new(addr, woke::Server::application(config))
    }
}

impl SeedServerMachine for woke::Server {
    type Key = u16;
    type Mode = bool;

    fn mode(delivery: Delivery) -> Result<bool, Error> {
        woke_reliable(delivery)
    }

    fn next_event(&mut self) -> Option<SeedServerEvent<u16>> {
        Some(match self.poll_event()? {
            woke::ServerEvent::Connected { client_id, peer } => SeedServerEvent::Connected {
                key: client_id,
                peer,
            },
            woke::ServerEvent::Command {
                client_id,
                peer,
                command,
            } => SeedServerEvent::Message {
                key: client_id,
                peer,
                message: message(command),
            },
            woke::ServerEvent::Closed {
                client_id,
                peer,
                reason: why,
            } => SeedServerEvent::Closed {
                key: client_id,
                peer,
                reason: reason(why),
            },
        })
    }

    fn send(&mut self, key: u16, bytes: &[u8], reliable: bool, _now: Instant) -> Result<(), Error> {
        woke::Server::send(self, key, MESSAGE_COMMAND, bytes, reliable)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn close(&mut self, key: u16, now: Instant) -> Result<Closing, Error> {
        woke::Server::close(self, key, now).map_err(|e| send_error(e, 0))?;
        Ok(Closing::Reported)
    }

    fn pending_reliable(&self, key: u16) -> Option<u64> {
        self.pending(key).map(|n| n as u64)
    }
}

/// A WOKE client ([`woke::Client`]) on a UDP socket, as a
/// [`ClientTransport`](super::ClientTransport).
pub type WokeClient = SeedClient<woke::Client>;

impl WokeClient {
    /// A WOKE client of the server at `server`, from an ephemeral port; its first request
    /// goes with the first update.
    pub fn connect(server: SocketAddr, config: woke::Config) -> Result<WokeClient, Error> {
        SeedClient::new(server, woke::Client::new(server, config, Instant::now()))
    }
}

impl SeedClientMachine for woke::Client {
    type Mode = bool;

    fn mode(delivery: Delivery) -> Result<bool, Error> {
        woke_reliable(delivery)
    }

    fn next_event(&mut self, _connected: bool) -> Option<SeedClientEvent> {
        Some(match self.poll_event()? {
            woke::Event::Connected(_) => SeedClientEvent::Connected,
            woke::Event::Command(command) => SeedClientEvent::Message(message(command)),
            woke::Event::Closed(why) => SeedClientEvent::Closed(reason(why)),
        })
    }

    fn send(&mut self, bytes: &[u8], reliable: bool, _now: Instant) -> Result<(), Error> {
        woke::Client::send(self, MESSAGE_COMMAND, bytes, reliable)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn close(&mut self, now: Instant) -> Closing {
        woke::Client::close(self, now);
        Closing::Reported
    }

    fn pending_reliable(&self) -> Option<u64> {
        Some(self.pending() as u64)
    }
}
