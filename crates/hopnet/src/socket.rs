//! The socket under a driver: its setup (buffers, GRO, what the kernel attaches to received
//! datagrams), how many datagrams one GSO send may carry, and the three ways datagrams leave
//! (one `sendto`, a GSO batch to one destination, `sendmmsg` to several).

use std::io;
use std::net::SocketAddr;
use std::ops::Range;

use quinn_udp::{UdpSockRef, UdpSocketState};

use hopnet_proto::CHUNK_SIZE;
use hopnet_proto::HEADER_LEN;

/// Datagrams per GSO batch at most: Linux takes up to 128 segments per send since 6.9 (64
/// before), and 128 full datagrams (65,024 bytes) still fit one UDP payload and one GRO slot.
/// What this kernel takes is probed once ([`gso_segments`]).
pub(crate) const MAX_BATCH: usize = 128;
/// The segments per send that every Linux with UDP GSO takes.
pub(crate) const SAFE_BATCH: usize = 64;
/// Capacity of a send buffer: one full batch of full chunks.
pub(crate) const SEND_BUF: usize = MAX_BATCH * (CHUNK_SIZE + HEADER_LEN);

/// Socket buffer size asked for in both directions (the OS may cap it, e.g. Linux at
/// `net.core.rmem_max`): a full congestion window (1024 chunks by default) must fit in the
/// peer's receive buffer, or a burst overflows it and the loss halves the window. The usual
/// default (about 200 KiB on Linux) holds only about 100 such datagrams.
const SOCKET_BUFFER: usize = 2 << 20;

/// What a driver needs of its UDP socket, whichever runtime owns it.
pub trait Socket {
    /// Prepares the socket (see [`prepare`]) and returns quinn-udp's state for it.
    fn prepare(&self) -> io::Result<UdpSocketState>;
    /// Sends one datagram with a plain `sendto`.
    fn send_one(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()>;
    /// Sends a batch of equal-sized datagrams in one system call (GSO), through quinn-udp.
    fn send_gso(
        &self,
        state: &UdpSocketState,
        transmit: &quinn_udp::Transmit<'_>,
    ) -> io::Result<()>;
    /// Sends datagrams to several destinations (`bytes[range]` to each address), in one
    /// system call where the OS has one (`sendmmsg`). Returns how many left, in order: an
    /// error only if the first could not, as `sendmmsg` reports.
    fn send_many(
        &self,
        bytes: &[u8],
        datagrams: &[(SocketAddr, Range<usize>)],
    ) -> io::Result<usize> {
        for (i, (to, range)) in datagrams.iter().enumerate() {
            let datagram = bytes.get(range.clone()).unwrap_or_default();
            if let Err(e) = self.send_one(datagram, *to) {
                return if i == 0 { Err(e) } else { Ok(i) };
            }
        }
        Ok(datagrams.len())
    }
}

impl Socket for std::net::UdpSocket {
    fn prepare(&self) -> io::Result<UdpSocketState> {
        prepare(self)
    }

    fn send_one(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
        loop {
            match self.send_to(datagram, to) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn send_gso(
        &self,
        state: &UdpSocketState,
        transmit: &quinn_udp::Transmit<'_>,
    ) -> io::Result<()> {
        state.try_send(self.into(), transmit)
    }

    #[cfg(target_os = "linux")]
    fn send_many(
        &self,
        bytes: &[u8],
        datagrams: &[(SocketAddr, Range<usize>)],
    ) -> io::Result<usize> {
        sendmmsg(self, bytes, datagrams)
    }
}

#[cfg(feature = "tokio")]
impl Socket for tokio::net::UdpSocket {
    fn prepare(&self) -> io::Result<UdpSocketState> {
        prepare(self)
    }

    fn send_one(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
        self.try_send_to(datagram, to).map(|_| ())
    }

    fn send_gso(
        &self,
        state: &UdpSocketState,
        transmit: &quinn_udp::Transmit<'_>,
    ) -> io::Result<()> {
        // Through tokio, so that a full socket clears its writable readiness.
        self.try_io(tokio::io::Interest::WRITABLE, || {
            state.try_send(self.into(), transmit)
        })
    }

    #[cfg(target_os = "linux")]
    fn send_many(
        &self,
        bytes: &[u8],
        datagrams: &[(SocketAddr, Range<usize>)],
    ) -> io::Result<usize> {
        self.try_io(tokio::io::Interest::WRITABLE, || {
            sendmmsg(self, bytes, datagrams)
        })
    }
}

/// `sendmmsg(2)`: each `bytes[range]` to its address, in one system call; how many left.
#[cfg(target_os = "linux")]
fn sendmmsg(
    socket: &impl std::os::fd::AsFd,
    bytes: &[u8],
    datagrams: &[(SocketAddr, Range<usize>)],
) -> io::Result<usize> {
    use std::io::IoSlice;

    use rustix::net::{MMsgHdr, SendAncillaryBuffer, SendFlags, SocketAddrAny};

    let addresses: Vec<SocketAddrAny> = datagrams.iter().map(|(to, _)| (*to).into()).collect();
    let slices: Vec<[IoSlice<'_>; 1]> = datagrams
        .iter()
        .map(|(_, range)| [IoSlice::new(bytes.get(range.clone()).unwrap_or_default())])
        .collect();
    let mut control: Vec<SendAncillaryBuffer<'_, '_, '_>> = datagrams
        .iter()
        .map(|_| SendAncillaryBuffer::default())
        .collect();
    let mut messages: Vec<MMsgHdr<'_>> = addresses
        .iter()
        .zip(&slices)
        .zip(control.iter_mut())
        .map(|((to, slice), control)| MMsgHdr::new_with_addr(to, slice, control))
        .collect();
    loop {
        match rustix::net::sendmmsg(socket, &mut messages, SendFlags::empty()) {
            Err(rustix::io::Errno::INTR) => {}
            sent => return sent.map_err(io::Error::from),
        }
    }
}

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
fn prepare<'s, S: Fd>(socket: &'s S) -> io::Result<UdpSocketState>
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

/// Datagrams one GSO send may carry on this socket: 1 without GSO, else what the kernel was
/// found to take. Checked on every send: quinn-udp turns GSO off for good on a socket whose
/// send failed with EIO or EINVAL. Twice as many segments per send halves the system calls of
/// a bulk transfer (BENCHMARKS.md).
pub(crate) fn gso_segments(state: &UdpSocketState) -> usize {
    if state.max_gso_segments() <= 1 {
        return 1;
    }
    static PROBED: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PROBED.get_or_init(probe_gso_segments)
}

/// Sends one batch of [`MAX_BATCH`] one-byte segments to a fresh loopback socket's own address:
/// the kernel refuses the whole send (EINVAL) when the batch is over its limit, so an
/// accepted send means the larger batch is safe. quinn-udp reports 64 without looking.
fn probe_gso_segments() -> usize {
    let probe = || -> io::Result<()> {
        let socket = std::net::UdpSocket::bind((std::net::Ipv4Addr::LOCALHOST, 0))?;
        socket.set_nonblocking(true)?;
        let state = UdpSocketState::new((&socket).into())?;
        if state.max_gso_segments() <= 1 {
            return Err(io::Error::other("no GSO"));
        }
        let contents = [0u8; MAX_BATCH];
        let transmit = quinn_udp::Transmit {
            destination: socket.local_addr()?,
            ecn: None,
            contents: &contents,
            segment_size: Some(1),
            src_ip: None,
        };
        state.try_send((&socket).into(), &transmit)
    };
    if probe().is_ok() {
        MAX_BATCH
    } else {
        SAFE_BATCH
    }
}

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
