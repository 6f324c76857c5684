//! The game protocol's transport: reliable and unreliable messages over UDP.
//!
//! Messages of up to 129,024 bytes are split into 504-byte chunks, framed with a 4-byte header
//! `[flags, chunk, sequence_hi, sequence_lo]`, and sent; reliable chunks are acknowledged one by
//! one and retransmitted on an adaptive timer (RFC 6298) under a congestion window. A connection
//! starts with the `Init` / `Challenge` / `ChallengeResponse` handshake and ends with `END` or
//! 15 s of silence. PROTOCOL.md ("Transport") records every choice the spec leaves open.
//!
//! The protocol is a pair of state machines with no I/O, in the shape of `quinn-proto`:
//! a client [`Connection`] and a server [`Endpoint`]. Datagrams and the current time go in,
//! datagrams, events and the next deadline come out. Because they never read a clock or a
//! socket, everything is testable deterministically: [`sim`] runs them over a seeded lossy
//! network with a virtual clock. The [`io`] drivers are thin loops around them over real UDP.
//!
//! Pumping datagrams by hand between a client and a server:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use netproto::{Config, Connection, Delivery, Endpoint, Event};
//!
//! let server_addr = "127.0.0.1:7000".parse().unwrap();
//! let client_addr = "127.0.0.1:7001".parse().unwrap();
//! let mut now = Instant::now();
//! let mut server = Endpoint::new(Config::default());
//! let mut client = Connection::new(Config::default(), server_addr, now);
//! client.send(b"hello", Delivery::Reliable).unwrap();
//!
//! let mut received = None;
//! let mut buf = Vec::new();
//! for _ in 0..20 {
//!     while client.poll_transmit(now, &mut buf, 1).is_some() {
//!         server.handle(now, client_addr, &buf);
//!     }
//!     while server.poll_transmit(now, &mut buf, 1).is_some() {
//!         client.handle(now, server_addr, &buf);
//!     }
//!     while let Some(e) = server.poll_event() {
//!         if let Event::Message { bytes, reliable } = e.event {
//!             assert!(reliable);
//!             received = Some(bytes);
//!         }
//!     }
//!     now += Duration::from_millis(10);
//!     client.handle_timeout(now);
//!     server.handle_timeout(now);
//! }
//! assert!(client.is_connected());
//! assert_eq!(client.poll_event(), Some(Event::Connected));
//! assert_eq!(received.as_deref(), Some(&b"hello"[..]));
//! ```
//!
//! # Which piece to use
//!
//! - A game server over real UDP: [`io::std::Server`] — call
//!   [`poll`](io::std::Server::poll)`(Duration::ZERO)` once per tick, then drain
//!   [`poll_event`](io::std::Server::poll_event) and [`send`](io::std::Server::send) to
//!   [`ConnectionId`]s. A bot or client: [`io::std::Client`]. Async code: `io::tokio`
//!   (feature `tokio`).
//! - Real sockets over a bad link: [`io::std::Impairment`] on a driver's own outgoing
//!   datagrams, or an [`io::relay::Relay`] thread between unmodified processes (clients
//!   connect to the relay's address).
//! - Tests of an application: [`sim::SimNetwork`] owns a server [`Endpoint`] and any number of
//!   client [`Connection`]s on seeded lossy links with a virtual clock; `step` or `run_until`,
//!   then read events from `server()` and `client(i)`.
//! - Your own event loop: drive [`Endpoint`] / [`Connection`] directly as below.
//!
//! `send` never blocks: reliable messages wait in a bounded queue and [`Error::WouldBlock`]
//! says it is full (poll, then retry). Unreliable messages are sent at once or dropped.
//!
//! Memory is bounded everywhere a peer could grow it: reassembly per connection
//! ([`ConfigBuilder::max_reassembly_bytes`]), reliable messages awaiting acknowledgement
//! ([`Error::WouldBlock`] from `send`), queued datagrams, and connections per endpoint. The
//! server keeps no state at all for a half-open handshake (see [`handshake`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod chunk;
mod config;
mod connection;
mod core;
mod endpoint;
mod error;
mod event;
pub mod handshake;
pub mod io;
pub mod packet;
mod payload;
mod receive;
mod send;
pub mod sim;
mod stats;
mod transmit;

pub use chunk::{CHUNK_SIZE, MAX_CHUNKS, MAX_PAYLOAD};
pub use config::{Config, ConfigBuilder};
pub use connection::Connection;
pub use endpoint::{ConnectionId, Endpoint, EndpointEvent};
pub use error::Error;
pub use event::{Delivery, DisconnectReason, Event};
pub use payload::Payload;
pub use stats::{EndpointStats, Stats};
pub use transmit::Transmit;
