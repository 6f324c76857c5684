//! An async driver over `tokio::net::UdpSocket` (feature `tokio`).
//!
//! [`TokioServer::recv`] and [`TokioClient::recv`] run the protocol (receive, timers, send)
//! until the next event and return it; `send` queues a message and writes what the
//! congestion window allows. Both are cancel-safe: a `recv` dropped in a `select!` loses no
//! datagram, because the socket read is the only await point that consumes input.
//!
//! It sends and receives as the [`blocking`](super::blocking) driver does, through the same
//! code (see [`io`](super)); only the waiting is tokio's.
//!
//! ```no_run
//! # async fn demo() -> Result<(), hopnet::Error> {
//! use hopnet::io::async_tokio::TokioClient;
//! use hopnet::{Config, Delivery, Event};
//!
//! let mut client = TokioClient::connect("127.0.0.1:7000".parse().unwrap(), Config::default()).await?;
//! while let Event::Connected = client.recv().await? {
//!     client.send(b"hello", Delivery::Reliable).await?;
//!     break;
//! }
//! # Ok(()) }
//! ```

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::Interest;
use tokio::net::{ToSocketAddrs, UdpSocket};

use super::port::Port;
use super::recv::{RECV_SLOTS, is_transient};
use super::{Driven, any_local};
use crate::{Config, Error, Event, ServerEvent};

/// How long `recv` sleeps when the machine has no deadline at all (a closed connection).
const IDLE: Duration = Duration::from_secs(3600);

#[derive(Debug)]
struct Driver<M> {
    port: Port<UdpSocket, M>,
}

impl<M: Driven> Driver<M> {
    fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        // The socket is already non-blocking.
        Ok(Driver {
            port: Port::new(socket, machine)?,
        })
    }

    /// Sends what is due, waiting for room in the socket when it is full.
    async fn flush(&mut self) -> Result<(), Error> {
        while !self.port.flush(Instant::now()) {
            self.port.socket.writable().await?;
        }
        Ok(())
    }

    /// Reads what the socket holds (one `recvmmsg`) into the machine.
    fn receive(&mut self) -> io::Result<()> {
        let Port {
            socket,
            state,
            recv,
            ..
        } = &mut self.port;
        let read = socket.try_io(Interest::READABLE, || {
            recv.recv(state, (&*socket).into(), RECV_SLOTS)
        });
        match read {
            Ok(filled) => {
                self.port.deliver(filled, Instant::now());
                Ok(())
            }
            Err(e) if is_transient(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }

    async fn next_event(&mut self, closed: impl Fn(&M) -> bool) -> Result<M::Event, Error> {
        loop {
            if let Some(e) = self.port.machine.poll_event() {
                return Ok(e);
            }
            if closed(&self.port.machine) {
                return Err(Error::Closed);
            }
            self.flush().await?;
            let deadline = self
                .port
                .next_deadline()
                .unwrap_or_else(|| Instant::now() + IDLE);
            tokio::select! {
                r = self.port.socket.readable() => {
                    r?;
                    self.receive()?;
                }
                _ = tokio::time::sleep_until(deadline.into()) => {
                    self.port.run_timers(Instant::now());
                }
            }
        }
    }
}

/// A server endpoint on a tokio UDP socket.
#[derive(Debug)]
pub struct TokioServer {
    driver: Driver<crate::Server>,
}

impl TokioServer {
    /// Binds and starts accepting connections.
    pub async fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<TokioServer, Error> {
        Ok(TokioServer {
            driver: Driver::new(UdpSocket::bind(addr).await?, crate::Server::new(config))?,
        })
    }

    server_methods!(async, .await);

    /// Runs the protocol until the next event on any connection.
    pub async fn recv(&mut self) -> Result<ServerEvent, Error> {
        self.driver.next_event(|_| false).await
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }
}

/// A client connection on a tokio UDP socket.
#[derive(Debug)]
pub struct TokioClient {
    driver: Driver<crate::Client>,
}

impl TokioClient {
    /// Binds an ephemeral port and starts the handshake; the first event will be
    /// [`Event::Connected`] (or `Disconnected` on timeout).
    pub async fn connect(server: SocketAddr, config: Config) -> Result<TokioClient, Error> {
        let mut driver = Driver::new(
            UdpSocket::bind(any_local(server)).await?,
            crate::Client::new(config, server, Instant::now()),
        )?;
        driver.flush().await?;
        Ok(TokioClient { driver })
    }

    client_methods!(async, .await);

    /// Runs the protocol until the next event. After `Disconnected`, returns
    /// [`Error::Closed`].
    pub async fn recv(&mut self) -> Result<Event, Error> {
        self.driver.next_event(crate::Client::is_closed).await
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }
}
