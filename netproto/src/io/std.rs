//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! An optional [`Impairment`] drops and delays outgoing datagrams, so that an application can
//! try itself over real loopback sockets through a lossy link.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng, rngs::StdRng};

use super::Machine;
use crate::{
    Config, Connection, ConnectionId, Delivery, Endpoint, EndpointEvent, Error, Event, Stats,
    Transmit,
};

/// Largest datagram we read; anything longer is truncated by the kernel and then dropped as
/// malformed by the protocol.
const RECV_BUF: usize = 2048;
/// Datagrams handled per `poll` at most, so one flood cannot starve the caller's tick.
const MAX_RECV_PER_POLL: usize = 4096;

/// Loss and delay applied to outgoing datagrams (for testing over real sockets).
#[derive(Debug, Clone, PartialEq)]
pub struct Impairment {
    /// Probability that an outgoing datagram is dropped.
    pub loss: f64,
    /// Delay added to every outgoing datagram.
    pub delay: Duration,
    /// Uniform extra delay in `0..=jitter`.
    pub jitter: Duration,
    /// Seed of the loss and jitter draws.
    pub seed: u64,
}

impl Default for Impairment {
    fn default() -> Self {
        Impairment {
            loss: 0.0,
            delay: Duration::ZERO,
            jitter: Duration::ZERO,
            seed: 0,
        }
    }
}

#[derive(Debug)]
struct Impaired {
    config: Impairment,
    rng: StdRng,
    queue: VecDeque<(Instant, Transmit)>,
}

/// Counters of the socket layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocketStats {
    /// Datagrams handed to the kernel.
    pub sent: u64,
    /// Datagrams read from the kernel.
    pub received: u64,
    /// Datagrams the kernel refused (e.g. an unreachable spoofed address); dropped.
    pub send_errors: u64,
    /// Datagrams dropped by the [`Impairment`].
    pub impaired_drops: u64,
}

#[derive(Debug)]
struct Driver<M> {
    socket: UdpSocket,
    machine: M,
    buf: Vec<u8>,
    nonblocking: bool,
    stalled: Option<Transmit>,
    impaired: Option<Impaired>,
    stats: SocketStats,
}

impl<M: Machine> Driver<M> {
    fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.impaired = impairment.map(|config| Impaired {
            rng: StdRng::seed_from_u64(config.seed),
            config,
            queue: VecDeque::new(),
        });
    }

    fn new(socket: UdpSocket, machine: M) -> io::Result<Driver<M>> {
        socket.set_nonblocking(true)?;
        Ok(Driver {
            socket,
            machine,
            buf: vec![0; RECV_BUF],
            nonblocking: true,
            stalled: None,
            impaired: None,
            stats: SocketStats::default(),
        })
    }

    fn set_nonblocking(&mut self, on: bool) -> io::Result<()> {
        if self.nonblocking != on {
            self.socket.set_nonblocking(on)?;
            self.nonblocking = on;
        }
        Ok(())
    }

    /// Sends one datagram; `false` if the kernel buffer is full (try again later).
    fn send_now(&mut self, t: &Transmit) -> io::Result<bool> {
        self.set_nonblocking(true)?;
        match self.socket.send_to(&t.contents, t.destination) {
            Ok(_) => {
                self.stats.sent += 1;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(_) => {
                // Unreachable or refused destination: UDP may drop, and so do we.
                self.stats.send_errors += 1;
                Ok(true)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let now = Instant::now();
        if let Some(t) = self.stalled.take()
            && !self.send_now(&t)?
        {
            self.stalled = Some(t);
            return Ok(());
        }
        self.flush_impaired(now)?;
        while let Some(t) = self.machine.poll_transmit(now) {
            if let Some(imp) = &mut self.impaired {
                if imp.rng.random_bool(imp.config.loss.clamp(0.0, 1.0)) {
                    self.stats.impaired_drops += 1;
                    continue;
                }
                let mut delay = imp.config.delay;
                if !imp.config.jitter.is_zero() {
                    delay += imp.config.jitter.mul_f64(imp.rng.random::<f64>());
                }
                if !delay.is_zero() {
                    imp.queue.push_back((now + delay, t));
                    continue;
                }
            }
            if !self.send_now(&t)? {
                self.stalled = Some(t);
                return Ok(());
            }
        }
        Ok(())
    }

    fn flush_impaired(&mut self, now: Instant) -> io::Result<()> {
        loop {
            let Some(imp) = &mut self.impaired else {
                return Ok(());
            };
            // Jitter may reorder: send every due datagram, not just a due prefix.
            let Some(pos) = imp.queue.iter().position(|(at, _)| *at <= now) else {
                return Ok(());
            };
            let Some((_, t)) = imp.queue.remove(pos) else {
                return Ok(());
            };
            if !self.send_now(&t)? {
                self.stalled = Some(t);
                return Ok(());
            }
        }
    }

    fn handle_datagram(&mut self, n: usize, from: SocketAddr) {
        self.stats.received += 1;
        let now = Instant::now();
        self.machine.handle(now, from, &self.buf[..n]);
    }

    fn run_timers(&mut self) {
        let now = Instant::now();
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
    }

    /// Reads every datagram already queued in the kernel (up to a limit), without blocking.
    fn drain(&mut self, mut received: usize) -> io::Result<usize> {
        self.set_nonblocking(true)?;
        while received < MAX_RECV_PER_POLL {
            match self.socket.recv_from(&mut self.buf) {
                Ok((n, from)) => {
                    self.handle_datagram(n, from);
                    received += 1;
                }
                Err(e) if is_transient(&e) => break,
                Err(e) => return Err(e),
            }
            if received.is_multiple_of(64) {
                // Answer (ACK) as we go, so a burst does not delay every acknowledgement.
                self.flush()?;
            }
        }
        Ok(received)
    }

    fn poll(&mut self, max_wait: Duration) -> io::Result<()> {
        self.run_timers();
        self.flush()?;
        // Under load datagrams are already waiting: read them without switching the socket
        // to blocking mode (two syscalls saved per poll). Only an idle socket waits.
        let received = self.drain(0)?;
        if received == 0 {
            let now = Instant::now();
            let mut deadline = now + max_wait;
            if let Some(t) = self.machine.poll_timeout() {
                deadline = deadline.min(t);
            }
            if let Some(t) = self
                .impaired
                .as_ref()
                .and_then(|imp| imp.queue.iter().map(|(at, _)| *at).min())
            {
                deadline = deadline.min(t);
            }
            if self.stalled.is_some() {
                deadline = deadline.min(now + Duration::from_millis(1));
            }
            let wait = deadline.saturating_duration_since(now);
            if !wait.is_zero() {
                self.set_nonblocking(false)?;
                self.socket.set_read_timeout(Some(wait))?;
                match self.socket.recv_from(&mut self.buf) {
                    Ok((n, from)) => {
                        self.handle_datagram(n, from);
                        self.drain(1)?;
                    }
                    Err(e) if is_transient(&e) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        self.run_timers();
        self.flush()
    }
}

fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock
            | io::ErrorKind::TimedOut
            | io::ErrorKind::Interrupted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
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

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.set_impairment(impairment);
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.driver.socket.local_addr()?)
    }

    /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// The next event, after a [`poll`](Self::poll).
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        Machine::poll_event(&mut self.driver.machine)
    }

    /// Queues a message and sends what the congestion window allows.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.driver.machine.send(id, bytes, delivery)?;
        Ok(self.driver.flush()?)
    }

    /// Closes a connection (sends `END`).
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.driver.machine.close(id)?;
        Ok(self.driver.flush()?)
    }

    /// The state machine, for everything else (stats, connection list).
    pub fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.driver.machine
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.stats.clone()
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
        let local: SocketAddr = if server.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            ([0u16; 8], 0).into()
        };
        Self::connect_from(local, server, config)
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

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.set_impairment(impairment);
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.driver.socket.local_addr()?)
    }

    /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// Polls until connected, or fails with [`Error::Closed`] if the handshake times out.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.driver.machine.is_connected() {
            if self.driver.machine.is_closed() {
                return Err(Error::Closed);
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }

    /// The next event, after a [`poll`](Self::poll).
    pub fn poll_event(&mut self) -> Option<Event> {
        Machine::poll_event(&mut self.driver.machine)
    }

    /// Queues a message and sends what the congestion window allows.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.driver.machine.send(bytes, delivery)?;
        Ok(self.driver.flush()?)
    }

    /// Closes the connection (sends `END`).
    pub fn close(&mut self) -> Result<(), Error> {
        self.driver.machine.close();
        Ok(self.driver.flush()?)
    }

    /// The state machine.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.driver.machine
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.machine.stats()
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.stats.clone()
    }
}
