//! Drivers that run the state machines over real sockets.
//!
//! - [`std`]: [`Server`](self::std::Server) and [`Client`](self::std::Client) over
//!   `std::net::UdpSocket`, polled once per game tick or in a loop, with an optional
//!   [`Impairment`](self::std::Impairment) that drops and delays outgoing datagrams.
//! - [`relay`]: a lossy UDP relay thread between real processes.
//! - `tokio` (feature `tokio`): the same over `tokio::net::UdpSocket` with `async fn recv`.
//!
//! The drivers are thin: all protocol logic is in [`Connection`] and [`Endpoint`].

use ::std::net::SocketAddr;
use ::std::time::Instant;

use crate::{Connection, Endpoint, EndpointEvent, Event, TransmitInfo};

pub mod relay;
pub mod std;
#[cfg(feature = "tokio")]
pub mod tokio;

/// The common surface of [`Connection`] and [`Endpoint`] the drivers need.
pub(crate) trait Machine {
    type Event;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]);
    fn handle_timeout(&mut self, now: Instant);
    fn poll_transmit_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<TransmitInfo>;
    fn poll_timeout(&mut self) -> Option<Instant>;
    fn poll_event(&mut self) -> Option<Self::Event>;
}

impl Machine for Connection {
    type Event = Event;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        Connection::handle(self, now, from, datagram)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Connection::handle_timeout(self, now)
    }
    fn poll_transmit_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<TransmitInfo> {
        Connection::poll_transmit_batch(self, now, buf, max_datagrams)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        Connection::poll_timeout(self)
    }
    fn poll_event(&mut self) -> Option<Event> {
        Connection::poll_event(self)
    }
}

impl Machine for Endpoint {
    type Event = EndpointEvent;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        Endpoint::handle(self, now, from, datagram)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Endpoint::handle_timeout(self, now)
    }
    fn poll_transmit_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<TransmitInfo> {
        Endpoint::poll_transmit_batch(self, now, buf, max_datagrams)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        Endpoint::poll_timeout(self)
    }
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        Endpoint::poll_event(self)
    }
}
