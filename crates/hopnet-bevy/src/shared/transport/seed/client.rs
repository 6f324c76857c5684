//! A seed protocol's client machine on a UDP socket, as a [`ClientTransport`].

use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::{Delivery, DisconnectReason, Error, Event, MessageId};

use super::once::{UnreliableOnce, hand_up};
use super::{Closing, SeedClientEvent, SeedClientMachine, tracked_refused};
use crate::shared::transport::{ClientTransport, ConnectionStats};

/// A seed protocol's client (`M`: WOKE's, Semi-ordered UDP's) on a UDP socket.
#[derive(Debug)]
pub struct SeedClient<M: SeedClientMachine> {
    driver: Driver<M>,
    events: VecDeque<Event>,
    once: UnreliableOnce,
    connected: bool,
    /// The end was handed up: nothing more is read, sent or flushed.
    ended: bool,
    sent: u64,
    delivered: u64,
}

impl<M: SeedClientMachine> SeedClient<M> {
    /// `machine`, a client of the server at `server`, on an ephemeral port of the unspecified
    /// address of `server`'s family.
    pub fn new(server: SocketAddr, machine: M) -> Result<SeedClient<M>, Error> {
        let local: SocketAddr = if server.is_ipv4() {
            (Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (Ipv6Addr::UNSPECIFIED, 0).into()
        };
        Ok(SeedClient {
            driver: Driver::bind(local, machine)?,
            events: VecDeque::new(),
            once: UnreliableOnce::default(),
            connected: false,
            ended: false,
            sent: 0,
            delivered: 0,
        })
    }

    /// The driver: its impairment ([`Driver::set_impairment`]), its socket's statistics, and
    /// the protocol's client itself.
    pub fn driver(&mut self) -> &mut Driver<M> {
        &mut self.driver
    }
}

impl<M: SeedClientMachine> ClientTransport for SeedClient<M> {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        self.driver.poll(Duration::ZERO)?;
        while let Some(event) = self.driver.machine().next_event(self.connected) {
            match event {
                SeedClientEvent::Connected => {
                    self.connected = true;
                    self.events.push_back(Event::Connected);
                }
                SeedClientEvent::Message(message) => {
                    if let Some(event) = hand_up(&mut self.once, message) {
                        self.delivered += 1;
                        self.events.push_back(event);
                    }
                }
                SeedClientEvent::Closed(reason) => {
                    self.ended = true;
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
        let mode = M::mode(delivery)?;
        if self.ended {
            return Err(Error::Closed);
        }
        self.driver.machine().send(bytes, mode, Instant::now())?;
        self.sent += 1;
        Ok(())
    }

    fn send_tracked(&mut self, _bytes: &[u8]) -> Result<MessageId, Error> {
        Err(tracked_refused(M::mode(Delivery::Tracked)))
    }

    fn close(&mut self, now: Instant) {
        if self.ended {
            return;
        }
        if self.driver.machine().close(now) == Closing::AtOnce {
            self.ended = true;
            self.events.push_back(Event::Disconnected {
                reason: DisconnectReason::LocalClose,
            });
        }
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        self.driver.flush()
    }

    fn stats(&mut self) -> ConnectionStats {
        let socket = self.driver.socket_stats();
        ConnectionStats {
            packets_sent: Some(socket.sent),
            packets_received: Some(socket.received),
            messages_sent: Some(self.sent),
            messages_delivered: Some(self.delivered),
            pending_reliable: self.driver.machine().pending_reliable(),
            ..ConnectionStats::default()
        }
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        self.driver.local_addr().ok()
    }
}
