//! The sans-I/O surface of a protocol state machine: what a driver, the simulator or a test
//! harness calls, and all it calls.
//!
//! A loop drives a machine by feeding it every datagram that arrives
//! ([`handle`](Machine::handle)), sending whatever [`poll_transmit`](Machine::poll_transmit)
//! writes until it returns `None`, and calling [`handle_timeout`](Machine::handle_timeout) once
//! the instant from [`poll_timeout`](Machine::poll_timeout) has passed. The application's side
//! (`send`, `poll_event`, `close`) is each machine's own.

use std::net::SocketAddr;
use std::time::Instant;

use crate::transmit::Transmit;

/// A protocol state machine without I/O: [`Client`](crate::Client),
/// [`Server`](crate::Server), their secure forms
/// ([`SecureClient`](crate::secure::SecureClient), [`SecureServer`](crate::secure::SecureServer)),
/// or a peer of your own
/// (a server that speaks only the spec, say) to run in [`sim`](crate::sim).
pub trait Machine {
    /// Takes a datagram received from `from` at `now`.
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]);

    /// Writes the next datagram, or a batch of up to `max_datagrams` datagrams of one size
    /// (the last may be shorter, see [`Transmit`]), into `buf` (cleared first), and says where
    /// it goes; `None` when there is nothing to send now.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit>;

    /// When [`handle_timeout`](Self::handle_timeout) should next be called. A pure query: it
    /// changes nothing, so a driver may ask as often as it likes.
    fn poll_timeout(&self) -> Option<Instant>;

    /// Runs the timers that have expired at `now`.
    fn handle_timeout(&mut self, now: Instant);
}
