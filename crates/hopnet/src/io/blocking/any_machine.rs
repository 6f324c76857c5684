//! The blocking driver around a machine of any protocol: what a wire other than Snow Fight's
//! (a game's own, or one of `hopnet-protocols`') runs on, with the same socket batching,
//! busy-poll and impairment as [`Server`](super::Server) and [`Client`](super::Client).

use std::net::{ToSocketAddrs, UdpSocket};
use std::time::Duration;

use super::driver::Loop;
use crate::error::Error;
use crate::machine::Machine;

/// Any [`Machine`] on a UDP socket.
///
/// The application reads the machine's events through [`machine`](Self::machine) after each
/// [`poll`](Self::poll); what the machine queues leaves on the next `poll` or
/// [`flush`](Self::flush).
///
/// ```
/// use std::net::SocketAddr;
/// use std::time::{Duration, Instant};
/// use hopnet::io::blocking::Driver;
/// use hopnet::{Machine, Transmit};
///
/// /// Answers every datagram with its bytes reversed.
/// #[derive(Default)]
/// struct Reverser { out: Vec<(SocketAddr, Vec<u8>)> }
///
/// impl Machine for Reverser {
///     fn handle(&mut self, _now: Instant, from: SocketAddr, datagram: &[u8]) {
///         self.out.push((from, datagram.iter().rev().copied().collect()));
///     }
///     fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>, _max: usize) -> Option<Transmit> {
///         let (to, bytes) = self.out.pop()?;
///         buf.clear();
///         buf.extend_from_slice(&bytes);
///         Some(Transmit::single(to, bytes.len()))
///     }
///     fn poll_timeout(&self) -> Option<Instant> { None }
///     fn handle_timeout(&mut self, _now: Instant) {}
/// }
///
/// let mut server = Driver::bind("127.0.0.1:0", Reverser::default())?;
/// let client = std::net::UdpSocket::bind("127.0.0.1:0")?;
/// client.send_to(b"abc", server.local_addr()?)?;
/// let mut buf = [0; 16];
/// client.set_nonblocking(true)?;
/// let n = loop {
///     server.poll(Duration::from_millis(10))?;
///     if let Ok((n, _)) = client.recv_from(&mut buf) { break n; }
/// };
/// assert_eq!(&buf[..n], b"cba");
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Debug)]
pub struct Driver<M> {
    driver: Loop<M>,
}

impl<M: Machine> Driver<M> {
    /// Runs `machine` on a socket bound to `addr`.
    pub fn bind(addr: impl ToSocketAddrs, machine: M) -> Result<Driver<M>, Error> {
        Driver::new(UdpSocket::bind(addr)?, machine)
    }

    /// Runs `machine` on `socket` (made non-blocking).
    pub fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        Ok(Driver {
            driver: Loop::new(socket, machine)?,
        })
    }

    /// The machine, for its application side (events, sends).
    pub fn machine(&mut self) -> &mut M {
        &mut self.driver.port.machine
    }

    /// The machine, the socket closed.
    pub fn into_machine(self) -> M {
        self.driver.port.machine
    }

    /// How long [`poll`](Self::poll), when allowed to wait, reads without blocking before it
    /// sleeps (see [`Server::set_busy_poll`](super::Server::set_busy_poll)).
    pub fn set_busy_poll(&mut self, duration: Duration) {
        self.driver.busy_poll = duration;
    }

    /// One round of I/O: due timers, what is queued sent, then a wait of at most `max_wait`
    /// (zero: never block) for a datagram or the machine's next deadline, and every datagram
    /// already in the kernel handed to the machine.
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// Sends what the machine has to send now.
    pub fn flush(&mut self) -> Result<(), Error> {
        Ok(self.driver.flush()?)
    }

    socket_methods!();
}
