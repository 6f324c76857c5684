//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! An optional [`Impairment`](crate::io::Impairment) drops and delays outgoing datagrams, so
//! that an application can try itself over real loopback sockets through a lossy link.
//!
//! Messages queued together leave in fewer system calls:
//!
//! ```no_run
//! use hopnet::io::blocking::Client;
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
//! The socket calls are batched through `quinn-udp` (see [`io`](crate::io)): where the
//! platform has them (Linux), equal-sized datagrams to one peer leave in one `sendmsg` with UDP
//! GSO, and receiving uses `recvmmsg` with UDP GRO. Nothing is allocated per datagram.

mod busy_poll;
mod driver;

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

pub use driver::BUSY_POLL;
use driver::Driver;

use super::{Driven, any_local};
use crate::{Config, Error, Event, ServerEvent};

/// The methods [`Server`] and [`Client`] share, each of which documents its own.
macro_rules! driver_methods {
    ($event:ty) => {
        /// The next event, after a [`poll`](Self::poll).
        pub fn poll_event(&mut self) -> Option<$event> {
            Driven::poll_event(&mut self.driver.port.machine)
        }

        /// How long [`poll`](Self::poll), when allowed to wait, keeps reading the socket
        /// without blocking (yielding the CPU before each attempt) before it sleeps until a
        /// datagram or the next deadline; zero sleeps at once. A reply on loopback or a LAN
        /// often comes within microseconds, sooner than a sleeping thread wakes up. It costs
        /// at most that much CPU per idle `poll`; `poll(Duration::ZERO)` never waits and so
        /// never busy-polls. Default: [`BUSY_POLL`].
        ///
        /// When the busy-poll's turns keep getting slow (four of more than 0.25 ms within
        /// 50 ms: another thread wants this core, and each yield hands it over for a scheduler
        /// slice), `poll` sleeps at once for a while instead (4 ms, doubled while the
        /// contention lasts, up to 128 ms): a sleeping thread is woken when its datagram
        /// arrives. [`SocketStats::busy_poll_calms`](crate::io::SocketStats::busy_poll_calms)
        /// counts these stand-downs.
        pub fn set_busy_poll(&mut self, duration: Duration) {
            self.driver.busy_poll = duration;
        }

        /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
        pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
            Ok(self.driver.poll(max_wait)?)
        }

        /// Sends what is queued, as far as the congestion window allows.
        pub fn flush(&mut self) -> Result<(), Error> {
            Ok(self.driver.flush()?)
        }
    };
}

/// A server: a [`hopnet::Server`](crate::Server) on a UDP socket.
#[derive(Debug)]
pub struct Server {
    driver: Driver<crate::Server>,
}

impl Server {
    /// Binds a socket and starts accepting connections.
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        Ok(Server {
            driver: Driver::new(socket, crate::Server::new(config))?,
        })
    }

    driver_methods!(ServerEvent);
    server_methods!(,);
}

/// A client: a [`hopnet::Client`](crate::Client) on its own UDP socket.
#[derive(Debug)]
pub struct Client {
    driver: Driver<crate::Client>,
}

impl Client {
    /// Binds an ephemeral port of the server's address family and starts the handshake.
    pub fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        Self::connect_from(any_local(server), server, config)
    }

    /// Binds `local` and starts the handshake with `server`.
    pub fn connect_from(
        local: SocketAddr,
        server: SocketAddr,
        config: Config,
    ) -> Result<Client, Error> {
        let socket = UdpSocket::bind(local)?;
        let conn = crate::Client::new(config, server, Instant::now());
        let mut driver = Driver::new(socket, conn)?;
        driver.flush()?;
        Ok(Client { driver })
    }

    driver_methods!(Event);
    client_methods!(,);

    /// Polls until connected, or fails with [`Error::Closed`] if the handshake times out.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.machine().is_connected() {
            if self.machine().is_closed() {
                return Err(Error::Closed);
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }
}
