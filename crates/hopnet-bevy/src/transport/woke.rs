//! WOKE (`hopnet_protocols::woke`, the seed's transport) under the plugins, on hopnet's
//! generic blocking driver ([`Driver`]), behind the `protocols` feature.
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
//! gives each connection its own [`ConnectionId`], never reused, as hopnet's servers do.
//! WOKE keeps no per-connection statistics in hopnet's form: `stats` reports zeros for a
//! connection that is open.

use std::collections::{HashMap, VecDeque};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::{
    ConnectionId, Delivery, DisconnectReason, Error, Event, MessageId, ServerEvent, Stats,
};
use hopnet_protocols::woke::{self, CloseReason, SendError};

use super::{ClientTransport, ServerTransport};

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

fn message(command: woke::Incoming) -> Event {
    Event::Message {
        bytes: command.data,
        reliable: command.reliable,
    }
}

/// A WOKE server ([`woke::Server::application`]) on a UDP socket, as a [`ServerTransport`].
#[derive(Debug)]
pub struct WokeServer {
    driver: Driver<woke::Server>,
    /// WOKE's client ids of the open connections, and their connections' ids.
    ids: HashMap<u16, ConnectionId>,
    clients: HashMap<ConnectionId, u16>,
    next_id: u64,
    events: VecDeque<ServerEvent>,
}

impl WokeServer {
    /// A WOKE server on a socket bound to `addr`.
    pub fn bind(addr: impl ToSocketAddrs, config: woke::Config) -> Result<WokeServer, Error> {
        Ok(WokeServer {
            driver: Driver::bind(addr, woke::Server::application(config))?,
            ids: HashMap::new(),
            clients: HashMap::new(),
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the WOKE server itself.
    pub fn driver(&mut self) -> &mut Driver<woke::Server> {
        &mut self.driver
    }

    fn client_id(&self, client: ConnectionId) -> Result<u16, Error> {
        self.clients
            .get(&client)
            .copied()
            .ok_or(Error::UnknownConnection(client))
    }
}

impl ServerTransport for WokeServer {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.poll(Duration::ZERO)?;
        while let Some(event) = self.driver.machine().poll_event() {
            let (client_id, peer, event) = match event {
                woke::ServerEvent::Connected { client_id, peer } => {
                    let connection = ConnectionId(self.next_id);
                    self.next_id += 1;
                    self.ids.insert(client_id, connection);
                    self.clients.insert(connection, client_id);
                    (client_id, peer, Event::Connected)
                }
                woke::ServerEvent::Command {
                    client_id,
                    peer,
                    command,
                } => (client_id, peer, message(command)),
                woke::ServerEvent::Closed {
                    client_id,
                    peer,
                    reason: why,
                } => (
                    client_id,
                    peer,
                    Event::Disconnected {
                        reason: reason(why),
                    },
                ),
            };
            let Some(&connection) = self.ids.get(&client_id) else {
                continue;
            };
            if matches!(event, Event::Disconnected { .. }) {
                self.ids.remove(&client_id);
                self.clients.remove(&connection);
            }
            self.events.push_back(ServerEvent {
                connection,
                peer,
                event,
            });
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
        let reliable = woke_reliable(delivery)?;
        let id = self.client_id(client)?;
        self.driver
            .machine()
            .send(id, MESSAGE_COMMAND, bytes, reliable)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn send_tracked(&mut self, _client: ConnectionId, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(woke_reliable(Delivery::Tracked).unwrap_err())
    }

    fn close(&mut self, client: ConnectionId) -> Result<(), Error> {
        let id = self.client_id(client)?;
        self.driver
            .machine()
            .close(id, Instant::now())
            .map_err(|e| send_error(e, 0))
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

/// A WOKE client ([`woke::Client`]) on a UDP socket, as a [`ClientTransport`].
#[derive(Debug)]
pub struct WokeClient {
    driver: Driver<woke::Client>,
    events: VecDeque<Event>,
}

impl WokeClient {
    /// A WOKE client of the server at `server`, from an ephemeral port; its first request
    /// goes with the first update.
    pub fn connect(server: SocketAddr, config: woke::Config) -> Result<WokeClient, Error> {
        let local: SocketAddr = if server.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let machine = woke::Client::new(server, config, Instant::now());
        Ok(WokeClient {
            driver: Driver::bind(local, machine)?,
            events: VecDeque::new(),
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the WOKE client itself.
    pub fn driver(&mut self) -> &mut Driver<woke::Client> {
        &mut self.driver
    }
}

impl ClientTransport for WokeClient {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.poll(Duration::ZERO)?;
        while let Some(event) = self.driver.machine().poll_event() {
            self.events.push_back(match event {
                woke::Event::Connected(_) => Event::Connected,
                woke::Event::Command(command) => message(command),
                woke::Event::Closed(why) => Event::Disconnected {
                    reason: reason(why),
                },
            });
        }
        Ok(())
    }

    fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        let reliable = woke_reliable(delivery)?;
        self.driver
            .machine()
            .send(MESSAGE_COMMAND, bytes, reliable)
            .map_err(|e| send_error(e, bytes.len()))
    }

    fn send_tracked(&mut self, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(woke_reliable(Delivery::Tracked).unwrap_err())
    }

    fn close(&mut self, now: Instant) {
        self.driver.machine().close(now);
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.flush()
    }

    fn stats(&mut self) -> Stats {
        Stats::default()
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        self.driver.local_addr().ok()
    }
}
