//! The UDP side of the driver: hopnet's clients on a plain socket.
//!
//! Simpler than hopnet's own drivers (no GSO or `recvmmsg` batching): a server that carries
//! browsers as well spends its time in QUIC and the game, not in UDP system calls. The policy
//! is theirs: a datagram the kernel has no room for waits, in order, and goes first when the
//! socket can take it; any other refusal drops it, as UDP may.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;

use tokio::net::UdpSocket;

/// The largest UDP payload: every datagram fits the receive buffer whole.
const RECV_BUF: usize = 65_536;

#[derive(Debug)]
pub(crate) struct Udp {
    pub socket: UdpSocket,
    recv: Box<[u8]>,
    /// Datagrams the kernel had no room for, oldest first.
    stalled: VecDeque<(SocketAddr, Vec<u8>)>,
    pub sent: u64,
    pub received: u64,
    pub send_errors: u64,
}

impl Udp {
    /// `socket` must be non-blocking.
    pub fn new(socket: std::net::UdpSocket) -> io::Result<Udp> {
        Ok(Udp {
            socket: UdpSocket::from_std(socket)?,
            recv: vec![0; RECV_BUF].into_boxed_slice(),
            stalled: VecDeque::new(),
            sent: 0,
            received: 0,
            send_errors: 0,
        })
    }

    pub fn is_stalled(&self) -> bool {
        !self.stalled.is_empty()
    }

    /// Sends what waited for room; `false` if some still waits.
    pub fn send_stalled(&mut self) -> bool {
        while let Some((to, bytes)) = self.stalled.front() {
            match self.socket.try_send_to(bytes, *to) {
                Ok(_) => self.sent += 1,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
                Err(_) => self.send_errors += 1,
            }
            self.stalled.pop_front();
        }
        true
    }

    /// Sends one datagram, or keeps it if the socket is full (or others already wait).
    pub fn send(&mut self, to: SocketAddr, datagram: &[u8]) {
        if self.is_stalled() {
            self.stalled.push_back((to, datagram.to_vec()));
            return;
        }
        match self.socket.try_send_to(datagram, to) {
            Ok(_) => self.sent += 1,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.stalled.push_back((to, datagram.to_vec()));
            }
            Err(_) => self.send_errors += 1,
        }
    }

    /// The next datagram the socket holds, without waiting; `None` when it holds none.
    pub fn try_recv(&mut self) -> Option<(SocketAddr, &[u8])> {
        loop {
            match self.socket.try_recv_from(&mut self.recv) {
                Ok((len, from)) => {
                    self.received += 1;
                    return Some((from, &self.recv[..len]));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                // An ICMP error for an earlier send (a client that went away), or a signal:
                // nothing to read here, but the socket is fine.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionRefused
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => return None,
            }
        }
    }
}
