//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! [`Server`], [`Client`] and [`Driver`] (any [`Machine`](crate::Machine)) are one type,
//! [`Endpoint`](crate::Endpoint), waiting the [`Blocking`] way; the server and the client
//! implement [`ServerDriver`](crate::ServerDriver) and
//! [`ClientDriver`](crate::ClientDriver).
//!
//! An optional [`Impairment`](crate::Impairment) drops and delays outgoing datagrams, so
//! that an application can try itself over real loopback sockets through a lossy link.
//!
//! Messages queued together leave in fewer system calls:
//!
//! ```no_run
//! use hopnet::Client;
//! use hopnet::{Config, Delivery};
//! use std::time::Duration;
//!
//! let mut client = Client::connect("127.0.0.1:4000".parse().unwrap(), Config::default())?;
//! client.wait_connected()?;
//! for input in [b"jump".as_slice(), b"shoot", b"chat: gg"] {
//!     client.queue(input, Delivery::Reliable)?;
//! }
//! client.poll(Duration::ZERO)?; // sends all three, then reads what has arrived
//! # Ok::<(), hopnet::Error>(())
//! ```
//!
//! The socket calls are batched through `quinn-udp` (`send.rs`, `recv.rs`): where the
//! platform has them (Linux), equal-sized datagrams to one peer leave in one `sendmsg` with UDP
//! GSO, and receiving uses `recvmmsg` with UDP GRO. Nothing is allocated per datagram.

mod any_machine;
mod busy_poll;
mod client;
mod driver;
mod server;

pub use any_machine::Driver;
pub use client::Client;
pub use driver::{BUSY_POLL, Blocking};
pub use server::Server;
