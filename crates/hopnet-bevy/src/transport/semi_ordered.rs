//! Semi-ordered UDP (`hopnet_protocols::semi_ordered_udp`, the seed's transport) under the
//! plugins, on hopnet's generic blocking driver ([`Driver`]), behind the `protocols` feature.
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
//! it after its silence. The protocol keeps no statistics in hopnet's form: `stats` reports
//! zeros for a connection that is open.

use std::collections::{HashMap, VecDeque};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::engine::{SerialIndex, U24};
use hopnet::{
    ConnectionId, Delivery, DisconnectReason, Error, Event, MessageId, ServerEvent, Stats,
};
use hopnet_protocols::semi_ordered_udp::{self, Reliability, SendError};

use super::{ClientTransport, ServerTransport};

/// The keepalive both ends send when [`Config::keepalive`](semi_ordered_udp::Config::keepalive)
/// is `None`: well within the 15 s after which a silent peer is forgotten, so that a few lost
/// keepalives in a row do not end a connection.
pub const KEEPALIVE: Duration = Duration::from_secs(1);

/// How far behind the newest unreliable package of a peer the receiving transport remembers
/// which ids it handed up; an older one is dropped rather than perhaps handed up twice.
pub const UNRELIABLE_WINDOW: i32 = 128;

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

/// The unreliable package ids of one sender handed up lately: each is handed up at most once.
#[derive(Debug, Default)]
struct UnreliableOnce {
    newest: Option<U24>,
    /// Bit `k`: the id `newest - k` was handed up.
    seen: u128,
}

impl UnreliableOnce {
    /// Whether the package `id` is handed up (first time seen, within the window).
    fn take(&mut self, id: u32) -> bool {
        let id = U24::new(id);
        let Some(newest) = self.newest else {
            self.newest = Some(id);
            self.seen = 1;
            return true;
        };
        let ahead = id.diff(newest);
        if ahead > 0 {
            self.seen = if ahead >= UNRELIABLE_WINDOW {
                0
            } else {
                self.seen << ahead
            } | 1;
            self.newest = Some(id);
            return true;
        }
        let behind = -ahead;
        if behind >= UNRELIABLE_WINDOW || self.seen >> behind & 1 == 1 {
            return false;
        }
        self.seen |= 1 << behind;
        true
    }
}

/// One delivered package as hopnet's event, or nothing if it is an unreliable one seen before.
fn message(
    once: &mut UnreliableOnce,
    reliability: Reliability,
    id: u32,
    payload: Vec<u8>,
) -> Option<Event> {
    let reliable = reliability != Reliability::Unreliable;
    (reliable || once.take(id)).then_some(Event::Message {
        bytes: payload,
        reliable,
    })
}

/// A connection the server transport knows: its id, and its unreliable ids seen.
#[derive(Debug)]
struct Peer {
    connection: ConnectionId,
    once: UnreliableOnce,
}

/// A Semi-ordered UDP server ([`semi_ordered_udp::Server::application`]) on a UDP socket, as
/// a [`ServerTransport`].
#[derive(Debug)]
pub struct SemiOrderedServer {
    driver: Driver<semi_ordered_udp::Server>,
    peers: HashMap<SocketAddr, Peer>,
    clients: HashMap<ConnectionId, SocketAddr>,
    next_id: u64,
    events: VecDeque<ServerEvent>,
}

impl SemiOrderedServer {
    /// A Semi-ordered UDP server on a socket bound to `addr` (with a [`KEEPALIVE`] if
    /// `config` sets none).
    pub fn bind(
        addr: impl ToSocketAddrs,
        config: semi_ordered_udp::Config,
    ) -> Result<SemiOrderedServer, Error> {
        let machine = semi_ordered_udp::Server::application(with_keepalive(config));
        Ok(SemiOrderedServer {
            driver: Driver::bind(addr, machine)?,
            peers: HashMap::new(),
            clients: HashMap::new(),
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the Semi-ordered UDP server itself.
    pub fn driver(&mut self) -> &mut Driver<semi_ordered_udp::Server> {
        &mut self.driver
    }

    fn address(&self, client: ConnectionId) -> Result<SocketAddr, Error> {
        self.clients
            .get(&client)
            .copied()
            .ok_or(Error::UnknownConnection(client))
    }
}

impl ServerTransport for SemiOrderedServer {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.poll(Duration::ZERO)?;
        while let Some(event) = self.driver.machine().poll_event() {
            match event {
                semi_ordered_udp::ServerEvent::Connected { peer } => {
                    let connection = ConnectionId(self.next_id);
                    self.next_id += 1;
                    self.peers.insert(
                        peer,
                        Peer {
                            connection,
                            once: UnreliableOnce::default(),
                        },
                    );
                    self.clients.insert(connection, peer);
                    self.events.push_back(ServerEvent {
                        connection,
                        peer,
                        event: Event::Connected,
                    });
                }
                semi_ordered_udp::ServerEvent::Delivered(package) => {
                    let Some(known) = self.peers.get_mut(&package.from) else {
                        continue;
                    };
                    let event = message(
                        &mut known.once,
                        package.reliability,
                        package.id,
                        package.payload,
                    );
                    if let Some(event) = event {
                        self.events.push_back(ServerEvent {
                            connection: known.connection,
                            peer: package.from,
                            event,
                        });
                    }
                }
                semi_ordered_udp::ServerEvent::Forgotten { peer } => {
                    // A peer the application closed is already gone from the maps.
                    let Some(known) = self.peers.remove(&peer) else {
                        continue;
                    };
                    self.clients.remove(&known.connection);
                    self.events.push_back(ServerEvent {
                        connection: known.connection,
                        peer,
                        event: Event::Disconnected {
                            reason: DisconnectReason::TimedOut,
                        },
                    });
                }
            }
        }
        Ok(())
    }

    fn poll_event(&mut self) -> Option<ServerEvent> {
        self.events.pop_front()
    }

    fn send(
        &mut self,
        client: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        let reliability = semi_ordered_reliability(delivery)?;
        let peer = self.address(client)?;
        self.driver
            .machine()
            .send(Instant::now(), peer, reliability, bytes)
            .map(drop)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn send_tracked(&mut self, _client: ConnectionId, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(semi_ordered_reliability(Delivery::Tracked).unwrap_err())
    }

    fn close(&mut self, client: ConnectionId) -> Result<(), Error> {
        let peer = self.address(client)?;
        self.clients.remove(&client);
        self.peers.remove(&peer);
        self.driver.machine().forget(peer);
        self.events.push_back(ServerEvent {
            connection: client,
            peer,
            event: Event::Disconnected {
                reason: DisconnectReason::LocalClose,
            },
        });
        Ok(())
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.flush()
    }

    fn stats(&mut self, client: ConnectionId) -> Option<Stats> {
        self.clients.contains_key(&client).then(Stats::default)
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        self.driver.local_addr().ok()
    }
}

/// A Semi-ordered UDP client ([`semi_ordered_udp::Client`]) on a UDP socket, as a
/// [`ClientTransport`].
#[derive(Debug)]
pub struct SemiOrderedClient {
    driver: Driver<semi_ordered_udp::Client>,
    events: VecDeque<Event>,
    once: UnreliableOnce,
    connected: bool,
    closed: bool,
}

impl SemiOrderedClient {
    /// A Semi-ordered UDP client of the server at `server`, from an ephemeral port (with a
    /// [`KEEPALIVE`] if `config` sets none); its first keepalive goes with the first update,
    /// and it is `Connected` once the server's answer arrives.
    pub fn connect(
        server: SocketAddr,
        config: semi_ordered_udp::Config,
    ) -> Result<SemiOrderedClient, Error> {
        let local: SocketAddr = if server.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let machine = semi_ordered_udp::Client::new(server, with_keepalive(config), Instant::now());
        Ok(SemiOrderedClient {
            driver: Driver::bind(local, machine)?,
            events: VecDeque::new(),
            once: UnreliableOnce::default(),
            connected: false,
            closed: false,
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the Semi-ordered UDP client itself.
    pub fn driver(&mut self) -> &mut Driver<semi_ordered_udp::Client> {
        &mut self.driver
    }
}

impl ClientTransport for SemiOrderedClient {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        self.driver.poll(Duration::ZERO)?;
        if !self.connected && self.driver.machine().has_heard() {
            self.connected = true;
            self.events.push_back(Event::Connected);
        }
        while let Some(event) = self.driver.machine().poll_event() {
            match event {
                semi_ordered_udp::Event::Delivered {
                    reliability,
                    id,
                    payload,
                    ..
                } => {
                    if let Some(event) = message(&mut self.once, reliability, id, payload) {
                        self.events.push_back(event);
                    }
                }
                semi_ordered_udp::Event::Forgotten => {
                    let reason = if self.connected {
                        DisconnectReason::TimedOut
                    } else {
                        DisconnectReason::ConnectTimeout
                    };
                    self.closed = true;
                    self.events.push_back(Event::Disconnected { reason });
                    break;
                }
            }
        }
        Ok(())
    }

    fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        let reliability = semi_ordered_reliability(delivery)?;
        if self.closed {
            return Err(Error::Closed);
        }
        self.driver
            .machine()
            .send(Instant::now(), reliability, false, bytes)
            .map(drop)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn send_tracked(&mut self, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(semi_ordered_reliability(Delivery::Tracked).unwrap_err())
    }

    fn close(&mut self, _now: Instant) {
        if !self.closed {
            self.closed = true;
            self.events.push_back(Event::Disconnected {
                reason: DisconnectReason::LocalClose,
            });
        }
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        self.driver.flush()
    }

    fn stats(&mut self) -> Stats {
        Stats::default()
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        self.driver.local_addr().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreliable_id_is_handed_up_at_most_once() {
        let mut once = UnreliableOnce::default();
        assert!(once.take(10));
        assert!(!once.take(10));
        assert!(once.take(12));
        assert!(once.take(11), "late but unseen");
        assert!(!once.take(11));
        assert!(!once.take(12));
        // Wrapping past 2^24 - 1 is newer, not older.
        let mut wrap = UnreliableOnce::default();
        assert!(wrap.take((1 << 24) - 1));
        assert!(wrap.take(0));
        assert!(!wrap.take((1 << 24) - 1));
        // Too far behind the newest: dropped rather than perhaps handed up twice.
        let mut far = UnreliableOnce::default();
        assert!(far.take(1000));
        assert!(!far.take(1000 - UNRELIABLE_WINDOW as u32));
        assert!(far.take(1000 - UNRELIABLE_WINDOW as u32 + 1));
        // A jump past the window forgets what was seen before it.
        assert!(far.take(5000));
        assert!(!far.take(1000));
    }

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
