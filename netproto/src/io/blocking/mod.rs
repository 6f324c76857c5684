//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! An optional [`Impairment`] drops and delays outgoing datagrams, so that an application can
//! try itself over real loopback sockets through a lossy link.
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

use super::{Driven, Impairment, SocketStats, any_local};
use crate::{
    Config, Connection, ConnectionId, Delivery, Endpoint, EndpointEvent, Error, Event, Payload,
    Stats,
};

/// The methods [`Server`] and [`Client`] share, each of which documents its own.
macro_rules! driver_methods {
    ($event:ty) => {
        /// Drops and delays outgoing datagrams from now on.
        pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
            self.driver.port.outbox.set_impairment(impairment);
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
        /// arrives. [`SocketStats::busy_poll_calms`] counts these stand-downs.
        pub fn set_busy_poll(&mut self, duration: Duration) {
            self.driver.busy_poll = duration;
        }

        /// The bound address.
        pub fn local_addr(&self) -> Result<SocketAddr, Error> {
            Ok(self.driver.port.socket.local_addr()?)
        }

        /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
        pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
            Ok(self.driver.poll(max_wait)?)
        }

        /// The next event, after a [`poll`](Self::poll).
        pub fn poll_event(&mut self) -> Option<$event> {
            Driven::poll_event(&mut self.driver.port.machine)
        }

        /// Sends what is queued, as far as the congestion window allows.
        pub fn flush(&mut self) -> Result<(), Error> {
            Ok(self.driver.flush()?)
        }

        /// Socket-level counters.
        pub fn socket_stats(&self) -> SocketStats {
            self.driver.port.stats.clone()
        }
    };
}

/// A server: an [`Endpoint`] on a UDP socket.
#[derive(Debug)]
pub struct Server {
    driver: Driver<Endpoint>,
}

impl Server {
    /// Binds a socket and starts accepting connections.
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        Ok(Server {
            driver: Driver::new(socket, Endpoint::new(config))?,
        })
    }

    driver_methods!(EndpointEvent);

    /// Queues a message and sends what the congestion window allows.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.queue(id, bytes, delivery)?;
        self.flush()
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush),
    /// [`poll`](Self::poll) or [`send`](Self::send) sends it, together with whatever else is
    /// queued. Messages queued together leave in fewer system calls (the full chunks of
    /// several messages share one GSO batch), which pays when a tick produces several
    /// messages for one peer.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.endpoint().send(id, bytes, delivery)
    }

    /// Queues a message held in shared bytes without copying them (see [`Payload`]), and
    /// without sending anything yet, as [`queue`](Self::queue).
    pub fn queue_payload(
        &mut self,
        id: ConnectionId,
        payload: &Payload,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.endpoint().send_payload(id, payload, delivery)
    }

    /// Closes a connection (sends `END`).
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.endpoint().close(id)?;
        self.flush()
    }

    /// The state machine, for everything else (stats, connection list).
    pub fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.driver.port.machine
    }
}

/// A client: a [`Connection`] on its own UDP socket.
#[derive(Debug)]
pub struct Client {
    driver: Driver<Connection>,
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
        let conn = Connection::new(config, server, Instant::now());
        let mut driver = Driver::new(socket, conn)?;
        driver.flush()?;
        Ok(Client { driver })
    }

    driver_methods!(Event);

    /// Polls until connected, or fails with [`Error::Closed`] if the handshake times out.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.connection().is_connected() {
            if self.connection().is_closed() {
                return Err(Error::Closed);
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }

    /// Queues a message and sends what the congestion window allows.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.queue(bytes, delivery)?;
        self.flush()
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush),
    /// [`poll`](Self::poll) or [`send`](Self::send) sends it, together with whatever else is
    /// queued. Messages queued together leave in fewer system calls (the full chunks of
    /// several messages share one GSO batch), which pays when a tick produces several
    /// messages.
    ///
    /// ```no_run
    /// use netproto::io::blocking::Client;
    /// use netproto::{Config, Delivery};
    /// use std::time::Duration;
    ///
    /// let mut client = Client::connect("127.0.0.1:4000".parse().unwrap(), Config::default())?;
    /// client.wait_connected()?;
    /// for input in [b"jump".as_slice(), b"shoot", b"chat: gg"] {
    ///     client.queue(input, Delivery::Reliable)?;
    /// }
    /// client.poll(Duration::ZERO)?; // sends all three, then reads what has arrived
    /// # Ok::<(), netproto::Error>(())
    /// ```
    pub fn queue(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.connection().send(bytes, delivery)
    }

    /// Closes the connection (sends `END`).
    pub fn close(&mut self) -> Result<(), Error> {
        self.connection().close();
        self.flush()
    }

    /// The state machine.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.driver.port.machine
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.port.machine.stats()
    }
}
