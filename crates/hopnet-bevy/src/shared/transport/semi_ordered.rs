//! Semi-ordered UDP (`hopnet_protocols::semi_ordered_udp`, the seed's transport) under the
//! plugins, behind the `protocols` feature: what is the protocol's own, on the glue every
//! seed protocol shares ([`seed`](super::seed)).
//!
//! Semi-ordered UDP carries packages three ways, and each maps onto the hopnet mode whose
//! promise it keeps: [`Delivery::Reliable`] goes unordered (confirmed and retransmitted
//! until confirmed, handed up once, in any order), [`Delivery::SemiOrdered`] goes
//! semi-ordered (the same, and handed up only after every reliable package sent before it:
//! hopnet's semi-ordered promise, which the mode is named after), and
//! [`Delivery::Unreliable`] goes unreliable (sent once). The protocol's unreliable packages may
//! arrive twice; hopnet promises at most once, so the receiving transport drops an
//! unreliable package whose id it has seen (or that is more than [`UNRELIABLE_WINDOW`] ids
//! older than the newest). Every other mode promises something the protocol does not keep (a
//! total order, a newest-wins rule, a report of arrival), so a message registered with one
//! is refused with an error naming the mode rather than sent with a weaker promise.
//!
//! The protocol splits nothing: a message must fit one package's
//! [`MAX_PAYLOAD`](hopnet_protocols::semi_ordered_udp::MAX_PAYLOAD) bytes.
//!
//! There is no handshake and no close on the wire: a peer is an address that sent a datagram.
//! The server reports a client `Connected` on its first datagram, and `Disconnected`
//! (`TimedOut`) when it forgets it after the forgetting time of silence (15 s by default).
//! Both ends send a keepalive (an empty confirmation) after [`KEEPALIVE`] without sending
//! anything else, unless [`Config::keepalive`](semi_ordered_udp::Config::keepalive) says
//! otherwise: the client's first one makes it known to the server, the server's answer
//! makes the client `Connected`, and neither forgets the other while the game is quiet.
//! Closing sends nothing: the closing end forgets the other at once, and the other forgets
//! it after its silence. Of the [statistics](super::stats), the protocol keeps the reliable
//! packages not yet confirmed; the glue counts the messages sent and handed up, and a
//! client's datagrams; the rest is unknown.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use hopnet::{Delivery, DisconnectReason, Error};
use hopnet_protocols::semi_ordered_udp::{self, Reliability, SendError};

use super::seed::{
    Closing, SeedClient, SeedClientEvent, SeedClientMachine, SeedMessage, SeedServer,
    SeedServerEvent, SeedServerMachine,
};

pub use super::seed::UNRELIABLE_WINDOW;

/// The keepalive both ends send when [`Config::keepalive`](semi_ordered_udp::Config::keepalive)
/// is `None`: well within the 15 s after which a silent peer is forgotten, so that a few lost
/// keepalives in a row do not end a connection.
pub const KEEPALIVE: Duration = Duration::from_secs(1);

/// The protocol's reliability a delivery mode maps to, or the error that refuses it.
pub fn semi_ordered_reliability(delivery: Delivery) -> Result<Reliability, Error> {
    match delivery {
        Delivery::Reliable => Ok(Reliability::Unordered),
        Delivery::SemiOrdered => Ok(Reliability::SemiOrdered),
        Delivery::Unreliable => Ok(Reliability::Unreliable),
        Delivery::Sequenced => Err(Error::InvalidConfig(
            "Semi-ordered UDP has no Delivery::Sequenced (it never drops an older package for a newer one): register the message as Unreliable",
        )),
        Delivery::ReliableOrdered => Err(Error::InvalidConfig(
            "Semi-ordered UDP has no Delivery::ReliableOrdered (a semi-ordered package may come before a later unordered one): register the message as SemiOrdered or Reliable",
        )),
        Delivery::Tracked => Err(Error::InvalidConfig(
            "Semi-ordered UDP has no Delivery::Tracked (it reports no package's arrival): register the message as Unreliable or Reliable",
        )),
    }
}

fn send_error(error: SendError, len: usize) -> Error {
    match error {
        SendError::TooLarge => Error::PayloadTooLarge { len },
        SendError::WouldBlock => Error::WouldBlock,
        SendError::UnknownPeer => Error::Closed,
    }
}

/// The configuration with a keepalive: without one, a client would never become known to a
/// server before its first message, nor learn it was heard.
fn with_keepalive(mut config: semi_ordered_udp::Config) -> semi_ordered_udp::Config {
    config.keepalive.get_or_insert(KEEPALIVE);
    config
}

/// A delivered package as the glue's message: an unreliable one may come twice, and is
/// handed up once by its id.
fn message(reliability: Reliability, id: u32, payload: Vec<u8>) -> SeedMessage {
    SeedMessage {
        bytes: payload,
        reliable: reliability != Reliability::Unreliable,
        repeatable_id: Some(id),
    }
}

/// A Semi-ordered UDP server ([`semi_ordered_udp::Server::application`]) on a UDP socket, as
/// a [`ServerTransport`](super::ServerTransport).
pub type SemiOrderedServer = SeedServer<semi_ordered_udp::Server>;

impl SemiOrderedServer {
    /// A Semi-ordered UDP server on a socket bound to `addr` (with a [`KEEPALIVE`] if
    /// `config` sets none).
    pub fn bind(
        addr: impl ToSocketAddrs,
        config: semi_ordered_udp::Config,
    ) -> Result<SemiOrderedServer, Error> {
        let machine = semi_ordered_udp::Server::application(with_keepalive(config));
        SeedServer::new(addr, machine)
    }
}

impl SeedServerMachine for semi_ordered_udp::Server {
    /// A peer is its address.
    type Key = SocketAddr;
    type Mode = Reliability;

    fn mode(delivery: Delivery) -> Result<Reliability, Error> {
        semi_ordered_reliability(delivery)
    }

    fn next_event(&mut self) -> Option<SeedServerEvent<SocketAddr>> {
        Some(match self.poll_event()? {
            semi_ordered_udp::ServerEvent::Connected { peer } => {
                SeedServerEvent::Connected { key: peer, peer }
            }
            semi_ordered_udp::ServerEvent::Delivered(package) => SeedServerEvent::Message {
                key: package.from,
                peer: package.from,
                message: message(package.reliability, package.id, package.payload),
            },
            semi_ordered_udp::ServerEvent::Forgotten { peer } => SeedServerEvent::Closed {
                key: peer,
                peer,
                reason: DisconnectReason::TimedOut,
            },
        })
    }

    fn send(
        &mut self,
        peer: SocketAddr,
        bytes: &[u8],
        reliability: Reliability,
        now: Instant,
    ) -> Result<(), Error> {
        semi_ordered_udp::Server::send(self, now, peer, reliability, bytes)
            .map(drop)
            .map_err(|e| send_error(e, bytes.len()))
    }

    /// Closing sends nothing: the peer is forgotten at once.
    fn close(&mut self, peer: SocketAddr, _now: Instant) -> Result<Closing, Error> {
        self.forget(peer);
        Ok(Closing::AtOnce)
    }

    fn pending_reliable(&self, peer: SocketAddr) -> Option<u64> {
        Some(self.unconfirmed(peer) as u64)
    }
}

/// A Semi-ordered UDP client ([`semi_ordered_udp::Client`]) on a UDP socket, as a
/// [`ClientTransport`](super::ClientTransport).
pub type SemiOrderedClient = SeedClient<semi_ordered_udp::Client>;

impl SemiOrderedClient {
    /// A Semi-ordered UDP client of the server at `server`, from an ephemeral port (with a
    /// [`KEEPALIVE`] if `config` sets none); its first keepalive goes with the first update,
    /// and it is `Connected` once the server's answer arrives.
    pub fn connect(
        server: SocketAddr,
        config: semi_ordered_udp::Config,
    ) -> Result<SemiOrderedClient, Error> {
        let machine = semi_ordered_udp::Client::new(server, with_keepalive(config), Instant::now());
        SeedClient::new(server, machine)
    }
}

impl SeedClientMachine for semi_ordered_udp::Client {
    type Mode = Reliability;

    fn mode(delivery: Delivery) -> Result<Reliability, Error> {
        semi_ordered_reliability(delivery)
    }

    /// `Connected` once the server has been heard from; `Closed` when the client forgets the
    /// server after its silence (before it was ever heard: the connection never opened).
    fn next_event(&mut self, connected: bool) -> Option<SeedClientEvent> {
        if !connected && self.has_heard() {
            return Some(SeedClientEvent::Connected);
        }
        Some(match self.poll_event()? {
            semi_ordered_udp::Event::Delivered {
                reliability,
                id,
                payload,
                ..
            } => SeedClientEvent::Message(message(reliability, id, payload)),
            semi_ordered_udp::Event::Forgotten => SeedClientEvent::Closed(if connected {
                DisconnectReason::TimedOut
            } else {
                DisconnectReason::ConnectTimeout
            }),
        })
    }

    fn send(&mut self, bytes: &[u8], reliability: Reliability, now: Instant) -> Result<(), Error> {
        semi_ordered_udp::Client::send(self, now, reliability, false, bytes)
            .map(drop)
            .map_err(|e| send_error(e, bytes.len()))
    }

    /// Closing sends nothing: the server is forgotten at once.
    fn close(&mut self, _now: Instant) -> Closing {
        Closing::AtOnce
    }

    fn pending_reliable(&self) -> Option<u64> {
        Some(self.unconfirmed() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_maps_onto_the_promise_it_keeps_or_is_refused_by_name() {
        for delivery in Delivery::ALL {
            let expected = match delivery {
                Delivery::Reliable => Some(Reliability::Unordered),
                Delivery::SemiOrdered => Some(Reliability::SemiOrdered),
                Delivery::Unreliable => Some(Reliability::Unreliable),
                _ => None,
            };
            match (semi_ordered_reliability(delivery), expected) {
                (Ok(got), Some(expected)) => assert_eq!(got, expected, "{delivery:?}"),
                (Err(e), None) => {
                    assert!(e.to_string().contains(&format!("{delivery:?}")), "{e}");
                    assert!(e.to_string().contains("Semi-ordered UDP"), "{e}");
                }
                (got, _) => panic!("{delivery:?}: {got:?}"),
            }
        }
    }
}
