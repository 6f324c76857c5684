//! An async driver over `tokio::net::UdpSocket` (feature `tokio`).
//!
//! [`TokioServer::recv`] and [`TokioClient::recv`] run the protocol (receive, timers, send)
//! until the next event and return it; `send` queues a message and writes what the
//! congestion window allows. Both are cancel-safe: a `recv` dropped in a `select!` loses no
//! datagram, because the socket read is the only await point that consumes input.
//!
//! Batched like the std driver, through `quinn-udp`: GSO sends of equal-sized datagrams to one
//! peer, GRO and `recvmmsg` receives, from reused buffers.
//!
//! ```no_run
//! # async fn demo() -> Result<(), netproto::Error> {
//! use netproto::io::tokio::TokioClient;
//! use netproto::{Config, Delivery, Event};
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

use quinn_udp::UdpSocketState;
use tokio::io::Interest;
use tokio::net::{ToSocketAddrs, UdpSocket};

use super::{Machine, RECV_SLOTS, RecvBuf, SEND_BUF, gso_segments, skip_tos, socket_state};
use crate::{
    Config, Connection, ConnectionId, Delivery, Endpoint, EndpointEvent, Error, Event, Stats,
};

#[derive(Debug)]
struct Driver<M> {
    socket: UdpSocket,
    state: UdpSocketState,
    machine: M,
    recv: RecvBuf,
    /// The batch being sent, reused (no allocation per datagram).
    send_buf: Vec<u8>,
}

impl<M: Machine> Driver<M> {
    fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        // The socket is already non-blocking.
        let state = socket_state(&socket)?;
        skip_tos(&socket);
        Ok(Driver {
            socket,
            state,
            machine,
            recv: RecvBuf::new(),
            send_buf: Vec::with_capacity(SEND_BUF),
        })
    }

    async fn flush(&mut self) -> Result<(), Error> {
        let now = Instant::now();
        loop {
            let max = gso_segments(&self.state);
            let Some(info) = self.machine.poll_transmit(now, &mut self.send_buf, max) else {
                return Ok(());
            };
            let datagrams = info.datagrams();
            let transmit = quinn_udp::Transmit {
                destination: info.destination,
                ecn: None,
                contents: &self.send_buf[..info.size],
                segment_size: (datagrams > 1).then_some(info.segment_size),
                src_ip: None,
            };
            loop {
                let sent = if datagrams == 1 {
                    // A plain sendto, without quinn-udp's IP_TOS control message (see the std
                    // driver's `send_one`).
                    self.socket
                        .try_send_to(transmit.contents, transmit.destination)
                        .map(|_| ())
                } else {
                    self.socket.try_io(Interest::WRITABLE, || {
                        self.state.try_send((&self.socket).into(), &transmit)
                    })
                };
                match sent {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.socket.writable().await?;
                    }
                    // Sent; or refused (an unreachable destination, or GSO, which quinn-udp
                    // then stops using): dropped, as UDP may drop.
                    _ => break,
                }
            }
        }
    }

    /// Reads what the socket holds (one `recvmmsg`) into the machine.
    fn receive(&mut self) -> io::Result<()> {
        let Driver {
            socket,
            state,
            machine,
            recv,
            ..
        } = self;
        let read = socket.try_io(Interest::READABLE, || {
            recv.recv(state, (&*socket).into(), RECV_SLOTS)
        });
        match read {
            Ok(filled) => {
                recv.deliver(filled, machine, Instant::now());
                Ok(())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                        | io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    async fn next_event(&mut self, closed: impl Fn(&M) -> bool) -> Result<M::Event, Error> {
        loop {
            if let Some(e) = self.machine.poll_event() {
                return Ok(e);
            }
            if closed(&self.machine) {
                return Err(Error::Closed);
            }
            self.flush().await?;
            let deadline = self
                .machine
                .poll_timeout()
                .unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                r = self.socket.readable() => {
                    r?;
                    self.receive()?;
                }
                _ = tokio::time::sleep_until(deadline.into()) => {
                    self.machine.handle_timeout(Instant::now());
                }
            }
        }
    }
}

/// A server endpoint on a tokio UDP socket.
#[derive(Debug)]
pub struct TokioServer {
    driver: Driver<Endpoint>,
}

impl TokioServer {
    /// Binds and starts accepting connections.
    pub async fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<TokioServer, Error> {
        Ok(TokioServer {
            driver: Driver::new(UdpSocket::bind(addr).await?, Endpoint::new(config))?,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.driver.socket.local_addr()?)
    }

    /// Runs the protocol until the next event on any connection.
    pub async fn recv(&mut self) -> Result<EndpointEvent, Error> {
        self.driver.next_event(|_| false).await
    }

    /// Queues a message and sends what the congestion window allows.
    pub async fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.driver.machine.send(id, bytes, delivery)?;
        self.driver.flush().await
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush) or
    /// [`send`](Self::send), or a [`recv`](Self::recv) that has to wait, sends it together
    /// with whatever else is queued (the full chunks of several messages share one GSO
    /// batch).
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.driver.machine.send(id, bytes, delivery)
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }

    /// Closes a connection (sends `END`).
    pub async fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.driver.machine.close(id)?;
        self.driver.flush().await
    }

    /// The state machine.
    pub fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.driver.machine
    }
}

/// A client connection on a tokio UDP socket.
#[derive(Debug)]
pub struct TokioClient {
    driver: Driver<Connection>,
}

impl TokioClient {
    /// Binds an ephemeral port and starts the handshake; the first event will be
    /// [`Event::Connected`] (or `Disconnected` on timeout).
    pub async fn connect(server: SocketAddr, config: Config) -> Result<TokioClient, Error> {
        let local: SocketAddr = if server.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            ([0u16; 8], 0).into()
        };
        let mut driver = Driver::new(
            UdpSocket::bind(local).await?,
            Connection::new(config, server, Instant::now()),
        )?;
        driver.flush().await?;
        Ok(TokioClient { driver })
    }

    /// Runs the protocol until the next event. After `Disconnected`, returns
    /// [`Error::Closed`].
    pub async fn recv(&mut self) -> Result<Event, Error> {
        self.driver.next_event(Connection::is_closed).await
    }

    /// Queues a message and sends what the congestion window allows.
    pub async fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.driver.machine.send(bytes, delivery)?;
        self.driver.flush().await
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush) or
    /// [`send`](Self::send), or a [`recv`](Self::recv) that has to wait, sends it together
    /// with whatever else is queued (the full chunks of several messages share one GSO
    /// batch).
    pub fn queue(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.driver.machine.send(bytes, delivery)
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }

    /// Closes the connection (sends `END`).
    pub async fn close(&mut self) -> Result<(), Error> {
        self.driver.machine.close();
        self.driver.flush().await
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.machine.stats()
    }

    /// The state machine.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.driver.machine
    }
}
