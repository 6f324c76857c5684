//! A seed protocol's server machine on a UDP socket, as a [`ServerTransport`].

use std::collections::{HashMap, VecDeque};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::{ConnectionId, Delivery, DisconnectReason, Error, Event, MessageId, ServerEvent};

use super::once::{UnreliableOnce, hand_up};
use super::{Closing, SeedServerEvent, SeedServerMachine, tracked_refused};
use crate::shared::transport::{ConnectionStats, ServerTransport};

/// An open connection: its id and address, its unreliable ids handed up, and what the glue
/// counts.
#[derive(Debug)]
struct Open {
    connection: ConnectionId,
    peer: SocketAddr,
    once: UnreliableOnce,
    sent: u64,
    delivered: u64,
}

/// A seed protocol's server (`M`: WOKE's, Semi-ordered UDP's) on a UDP socket.
#[derive(Debug)]
pub struct SeedServer<M: SeedServerMachine> {
    driver: Driver<M>,
    open: HashMap<M::Key, Open>,
    keys: HashMap<ConnectionId, M::Key>,
    next_id: u64,
    events: VecDeque<ServerEvent>,
}

impl<M: SeedServerMachine> SeedServer<M> {
    /// `machine` on a socket bound to `addr`.
    pub fn new(addr: impl ToSocketAddrs, machine: M) -> Result<SeedServer<M>, Error> {
        Ok(SeedServer {
            driver: Driver::bind(addr, machine)?,
            open: HashMap::new(),
            keys: HashMap::new(),
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the protocol's server itself.
    pub fn driver(&mut self) -> &mut Driver<M> {
        &mut self.driver
    }

    fn key(&self, client: ConnectionId) -> Result<M::Key, Error> {
        self.keys
            .get(&client)
            .copied()
            .ok_or(Error::UnknownConnection(client))
    }

    /// Forgets a connection that ended, and reports it.
    fn closed(&mut self, key: M::Key, peer: SocketAddr, reason: DisconnectReason) {
        let Some(open) = self.open.remove(&key) else {
            // A connection the application closed is gone already.
            return;
        };
        self.keys.remove(&open.connection);
        self.events.push_back(ServerEvent {
            connection: open.connection,
            peer,
            event: Event::Disconnected { reason },
        });
    }
}

impl<M: SeedServerMachine> ServerTransport for SeedServer<M> {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.poll(Duration::ZERO)?;
        while let Some(event) = self.driver.machine().next_event() {
            match event {
                SeedServerEvent::Connected { key, peer } => {
                    let connection = ConnectionId(self.next_id);
                    self.next_id += 1;
                    let open = Open {
                        connection,
                        peer,
                        once: UnreliableOnce::default(),
                        sent: 0,
                        delivered: 0,
                    };
                    self.open.insert(key, open);
                    self.keys.insert(connection, key);
                    self.events.push_back(ServerEvent {
                        connection,
                        peer,
                        event: Event::Connected,
                    });
                }
                SeedServerEvent::Message { key, peer, message } => {
                    let Some(open) = self.open.get_mut(&key) else {
                        continue;
                    };
                    if let Some(event) = hand_up(&mut open.once, message) {
                        open.delivered += 1;
                        self.events.push_back(ServerEvent {
                            connection: open.connection,
                            peer,
                            event,
                        });
                    }
                }
                SeedServerEvent::Closed { key, peer, reason } => self.closed(key, peer, reason),
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
        let mode = M::mode(delivery)?;
        let key = self.key(client)?;
        self.driver
            .machine()
            .send(key, bytes, mode, Instant::now())?;
        if let Some(open) = self.open.get_mut(&key) {
            open.sent += 1;
        }
        Ok(())
    }

    fn send_tracked(&mut self, _client: ConnectionId, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(tracked_refused(M::mode(Delivery::Tracked)))
    }

    fn close(&mut self, client: ConnectionId) -> Result<(), Error> {
        let key = self.key(client)?;
        let closing = self.driver.machine().close(key, Instant::now())?;
        if closing == Closing::AtOnce
            && let Some(open) = self.open.get(&key)
        {
            let peer = open.peer;
            self.closed(key, peer, DisconnectReason::LocalClose);
        }
        Ok(())
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        self.driver.flush()
    }

    fn stats(&mut self, client: ConnectionId) -> Option<ConnectionStats> {
        let key = *self.keys.get(&client)?;
        let open = self.open.get(&key)?;
        Some(ConnectionStats {
            messages_sent: Some(open.sent),
            messages_delivered: Some(open.delivered),
            pending_reliable: self.driver.machine().pending_reliable(key),
            ..ConnectionStats::default()
        })
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        self.driver.local_addr().ok()
    }
}
