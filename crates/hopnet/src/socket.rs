//! The socket under a driver: its setup (buffers, GRO, what the kernel attaches to received
//! datagrams). How datagrams leave it is [`send`](super::send)'s.

use std::io;

use quinn_udp::{UdpSockRef, UdpSocketState};

/// Socket buffer size asked for in both directions (the OS may cap it, e.g. Linux at
/// `net.core.rmem_max`): a full congestion window (1024 chunks by default) must fit in the
/// peer's receive buffer, or a burst overflows it and the loss halves the window. The usual
/// default (about 200 KiB on Linux) holds only about 100 such datagrams.
const SOCKET_BUFFER: usize = 2 << 20;

/// A socket's file descriptor, where [`skip_tos`] needs it.
#[cfg(any(target_os = "linux", target_os = "android"))]
use std::os::fd::AsFd as Fd;

/// Elsewhere nothing is asked of the socket.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
trait Fd {}
#[cfg(not(any(target_os = "linux", target_os = "android")))]
impl<T> Fd for T {}

/// Enables GRO where available (through quinn-udp), turns off what hopnet never reads
/// ([`skip_tos`]), and asks for [`SOCKET_BUFFER`]-byte buffers, best effort (a smaller buffer
/// only costs throughput).
pub(crate) fn prepare<'s, S: Fd>(socket: &'s S) -> io::Result<UdpSocketState>
where
    &'s S: Into<UdpSockRef<'s>>,
{
    let state = UdpSocketState::new(socket.into())?;
    skip_tos(socket);
    if state.recv_buffer_size(socket.into()).unwrap_or(0) < SOCKET_BUFFER {
        let _ = state.set_recv_buffer_size(socket.into(), SOCKET_BUFFER);
    }
    if state.send_buffer_size(socket.into()).unwrap_or(0) < SOCKET_BUFFER {
        let _ = state.set_send_buffer_size(socket.into(), SOCKET_BUFFER);
    }
    Ok(state)
}

/// Turns off what quinn-udp asked the kernel to attach to every received datagram and hopnet
/// never reads: its TOS / traffic class (the ECN bits). One control message less per datagram.
/// Best effort, as the buffers.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn skip_tos(socket: &impl Fd) {
    use rustix::net::sockopt;
    let _ = sockopt::set_ip_recvtos(socket, false);
    let _ = sockopt::set_ipv6_recvtclass(socket, false);
}

/// Elsewhere the driver leaves quinn-udp's options as they are.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn skip_tos(_socket: &impl Fd) {}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn prepare_turns_off_what_quinn_udp_turned_on() {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let _state = UdpSocketState::new((&socket).into()).unwrap();
        assert!(rustix::net::sockopt::ip_recvtos(&socket).unwrap());
        let _state = prepare(&socket).unwrap();
        assert!(!rustix::net::sockopt::ip_recvtos(&socket).unwrap());
    }
}
