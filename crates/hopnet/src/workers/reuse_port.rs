//! One UDP socket per worker on one address, with `SO_REUSEPORT`: the kernel hashes each
//! datagram's addresses and ports (the 4-tuple) to one socket of the group, so a client's
//! datagrams, its handshake first, always reach the same worker while the group stays as it
//! was bound. Closing a socket or adding one changes the hash's modulus and moves most flows
//! to another socket, whose machine does not know them: the group is made once, at bind, and
//! lives as long as the server.
//!
//! Linux (and Android) only: elsewhere `SO_REUSEPORT` either does not balance (the BSDs and
//! macOS give every datagram to one socket) or does not exist.

use std::io;
use std::net::{SocketAddr, UdpSocket};

/// `n` sockets bound to `addr` with `SO_REUSEPORT` (a port of 0 picks one port for all).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn bind_group(addr: SocketAddr, n: usize) -> io::Result<Vec<UdpSocket>> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType, sockopt};
    let mut addr = addr;
    let mut sockets = Vec::with_capacity(n);
    for _ in 0..n {
        let family = match addr {
            SocketAddr::V4(_) => AddressFamily::INET,
            SocketAddr::V6(_) => AddressFamily::INET6,
        };
        let fd = rustix::net::socket_with(family, SocketType::DGRAM, SocketFlags::CLOEXEC, None)?;
        sockopt::set_socket_reuseport(&fd, true)?;
        rustix::net::bind(&fd, &addr)?;
        let socket = UdpSocket::from(fd);
        // The first socket's port, for the others when the caller asked for any port.
        addr = socket.local_addr()?;
        sockets.push(socket);
    }
    Ok(sockets)
}

/// Elsewhere there is no balancing group to bind.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn bind_group(_addr: SocketAddr, _n: usize) -> io::Result<Vec<UdpSocket>> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "SO_REUSEPORT balancing is Linux's: use Spread::ByAddress",
    ))
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn the_group_shares_one_port() {
        let group = bind_group("127.0.0.1:0".parse().unwrap(), 3).unwrap();
        let port = group[0].local_addr().unwrap().port();
        assert_ne!(port, 0);
        for s in &group {
            assert_eq!(s.local_addr().unwrap().port(), port);
        }
    }
}
