//! The blocking driver around a machine of any protocol: what a wire other than Snow Fight's
//! (a game's own, or one of `hopnet-protocols`') runs on, with the same socket batching,
//! busy-poll and impairment as [`Server`](super::Server) and [`Client`](super::Client).

use std::net::{ToSocketAddrs, UdpSocket};

use super::Blocking;
use crate::endpoint::AnyMachine;
use crate::endpoint::Endpoint;
use hopnet_proto::Error;
use hopnet_proto::Machine;

/// Any [`Machine`] on a UDP socket.
///
/// The application reads the machine's events through [`machine`](Self::machine) after each
/// [`poll`](Self::poll); what the machine queues leaves on the next `poll` or
/// [`flush`](Self::flush).
///
/// ```
/// use std::net::SocketAddr;
/// use std::time::{Duration, Instant};
/// use hopnet::Driver;
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
pub type Driver<M> = Endpoint<AnyMachine<M>, Blocking>;

/// What a blocking [`Driver`] adds to every driver: it is made from its machine.
impl<M: Machine> Endpoint<AnyMachine<M>, Blocking> {
    /// Runs `machine` on a socket bound to `addr`.
    pub fn bind(addr: impl ToSocketAddrs, machine: M) -> Result<Driver<M>, Error> {
        Driver::new(UdpSocket::bind(addr)?, machine)
    }

    /// Runs `machine` on `socket` (made non-blocking).
    pub fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        Endpoint::on(socket, machine)
    }
}
