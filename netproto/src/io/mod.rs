//! Drivers that run the state machines over real sockets.
//!
//! - [`std`]: [`Server`](self::std::Server) and [`Client`](self::std::Client) over
//!   `std::net::UdpSocket`, polled once per game tick or in a loop, with an optional
//!   [`Impairment`](self::std::Impairment) that drops and delays outgoing datagrams.
//! - [`relay`]: a lossy UDP relay thread between real processes.
//! - `tokio` (feature `tokio`): the same over `tokio::net::UdpSocket` with `async fn recv`.
//!
//! The drivers are thin: all protocol logic is in [`Connection`] and [`Endpoint`].

use ::std::io::{self, IoSliceMut};
use ::std::net::SocketAddr;
use ::std::time::Instant;

use quinn_udp::{RecvMeta, UdpSockRef, UdpSocketState};

use crate::{CHUNK_SIZE, Connection, Endpoint, EndpointEvent, Event, Transmit};

pub mod relay;
pub mod std;
#[cfg(feature = "tokio")]
pub mod tokio;

/// Bytes per receive slot: the largest UDP datagram, and so also the largest GRO batch the
/// kernel coalesces (at most 64 KiB), so nothing is ever truncated.
const RECV_SLOT: usize = 1 << 16;
/// Receive slots filled by one `recvmmsg`; with GRO each may hold up to 64 datagrams.
pub(crate) const RECV_SLOTS: usize = 8;
/// Datagrams per GSO batch at most: Linux takes up to 128 segments per send since 6.9 (64
/// before), and 128 full datagrams (65,024 bytes) still fit one UDP payload and one GRO slot.
/// What this kernel takes is probed once ([`gso_segments`]).
pub(crate) const MAX_BATCH: usize = 128;
/// The segments per send that every Linux with UDP GSO takes.
const SAFE_BATCH: usize = 64;

/// Datagrams one GSO send may carry on this socket: 1 without GSO, else what the kernel was
/// found to take. Checked on every send: quinn-udp turns GSO off for good on a socket whose
/// send failed with EIO or EINVAL.
///
/// Twice as many segments per send halves the system calls of a bulk transfer: on loopback,
/// 1 KiB messages went from about 1.8 to 2.8 GB/s and 64 KiB ones from 3.2 to 3.9 GB/s in
/// back-to-back runs.
pub(crate) fn gso_segments(state: &UdpSocketState) -> usize {
    if state.max_gso_segments() <= 1 {
        return 1;
    }
    static PROBED: ::std::sync::OnceLock<usize> = ::std::sync::OnceLock::new();
    *PROBED.get_or_init(probe_gso_segments)
}

/// Sends one batch of [`MAX_BATCH`] one-byte segments to a fresh loopback socket's own address:
/// the kernel refuses the whole send (EINVAL) when the batch is over its limit, so an
/// accepted send means the larger batch is safe. quinn-udp reports 64 without looking.
fn probe_gso_segments() -> usize {
    let probe = || -> io::Result<()> {
        let socket = ::std::net::UdpSocket::bind((::std::net::Ipv4Addr::LOCALHOST, 0))?;
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
/// Capacity of a send buffer: one full batch of full chunks.
pub(crate) const SEND_BUF: usize = MAX_BATCH * (CHUNK_SIZE + crate::packet::HEADER_LEN);

/// Socket buffer size asked for in both directions (the OS may cap it, e.g. Linux at
/// `net.core.rmem_max`): a full congestion window (1024 chunks by default) must fit in the
/// peer's receive buffer, or a burst overflows it and the loss halves the window. The usual
/// default (about 200 KiB on Linux) holds only about 100 such datagrams.
const SOCKET_BUFFER: usize = 2 << 20;

/// Prepares a driver's socket: enables GRO where available (through quinn-udp) and asks for
/// [`SOCKET_BUFFER`]-byte buffers, best effort (a smaller buffer only costs throughput).
pub(crate) fn socket_state<'s, S>(socket: &'s S) -> io::Result<UdpSocketState>
where
    &'s S: Into<UdpSockRef<'s>>,
{
    let state = UdpSocketState::new(socket.into())?;
    if state.recv_buffer_size(socket.into()).unwrap_or(0) < SOCKET_BUFFER {
        let _ = state.set_recv_buffer_size(socket.into(), SOCKET_BUFFER);
    }
    if state.send_buffer_size(socket.into()).unwrap_or(0) < SOCKET_BUFFER {
        let _ = state.set_send_buffer_size(socket.into(), SOCKET_BUFFER);
    }
    Ok(state)
}

/// Turns off what quinn-udp asked the kernel to attach to every received datagram and netproto
/// never reads: its TOS / traffic class (the ECN bits). One control message less per datagram;
/// on loopback the echo's round trip fell by about 0.2 µs. Best effort, as the buffers.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn skip_tos(socket: &impl ::std::os::fd::AsFd) {
    use rustix::net::sockopt;
    let _ = sockopt::set_ip_recvtos(socket, false);
    let _ = sockopt::set_ipv6_recvtclass(socket, false);
}

/// Elsewhere the driver leaves quinn-udp's options as they are.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn skip_tos<S>(_socket: &S) {}

/// The receive side of a batched socket: `RECV_SLOTS` slots of `RECV_SLOT` bytes (512 KiB,
/// allocated once) and their metadata.
#[derive(Debug)]
pub(crate) struct RecvBuf {
    buf: Vec<u8>,
    meta: [RecvMeta; RECV_SLOTS],
}

impl RecvBuf {
    pub(crate) fn new() -> RecvBuf {
        RecvBuf {
            buf: vec![0; RECV_SLOT * RECV_SLOTS],
            meta: [RecvMeta::default(); RECV_SLOTS],
        }
    }

    /// One `recvmmsg` (or `recvmsg`) into up to `slots` slots; returns how many were filled.
    pub(crate) fn recv(
        &mut self,
        state: &UdpSocketState,
        socket: UdpSockRef<'_>,
        slots: usize,
    ) -> io::Result<usize> {
        let mut slices = self.buf.chunks_mut(RECV_SLOT);
        let mut bufs: [IoSliceMut<'_>; RECV_SLOTS] =
            ::std::array::from_fn(|_| IoSliceMut::new(slices.next().unwrap_or_default()));
        let slots = slots.clamp(1, RECV_SLOTS);
        let filled = state.recv(socket, &mut bufs[..slots], &mut self.meta[..slots])?;
        Ok(filled.min(slots))
    }

    /// Hands every datagram of the first `filled` slots to the machine (received at `now`), a
    /// GRO slot split at its stride; returns how many datagrams there were.
    pub(crate) fn deliver<M: Machine>(
        &self,
        filled: usize,
        machine: &mut M,
        now: Instant,
    ) -> usize {
        let mut datagrams = 0;
        for (i, m) in self.meta.iter().enumerate().take(filled) {
            let start = i * RECV_SLOT;
            let Some(data) = self.buf.get(start..start + m.len.min(RECV_SLOT)) else {
                continue;
            };
            let info = Transmit {
                destination: m.addr,
                size: data.len(),
                segment_size: if m.stride == 0 { data.len() } else { m.stride },
            };
            for datagram in info.split(data) {
                machine.handle(now, m.addr, datagram);
                datagrams += 1;
            }
        }
        datagrams
    }
}

/// The common surface of [`Connection`] and [`Endpoint`] the drivers need.
pub(crate) trait Machine {
    type Event;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]);
    fn handle_timeout(&mut self, now: Instant);
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit>;
    fn poll_timeout(&mut self) -> Option<Instant>;
    fn poll_event(&mut self) -> Option<Self::Event>;
}

impl Machine for Connection {
    type Event = Event;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        Connection::handle(self, now, from, datagram)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Connection::handle_timeout(self, now)
    }
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        Connection::poll_transmit(self, now, buf, max_datagrams)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        Connection::poll_timeout(self)
    }
    fn poll_event(&mut self) -> Option<Event> {
        Connection::poll_event(self)
    }
}

impl Machine for Endpoint {
    type Event = EndpointEvent;
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        Endpoint::handle(self, now, from, datagram)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Endpoint::handle_timeout(self, now)
    }
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        Endpoint::poll_transmit(self, now, buf, max_datagrams)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        Endpoint::poll_timeout(self)
    }
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        Endpoint::poll_event(self)
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn skip_tos_turns_off_what_quinn_udp_turned_on() {
        let socket = ::std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let _state = socket_state(&socket).unwrap();
        assert!(rustix::net::sockopt::ip_recvtos(&socket).unwrap());
        skip_tos(&socket);
        assert!(!rustix::net::sockopt::ip_recvtos(&socket).unwrap());
    }

    /// What the probe promises: a batch of that many full datagrams leaves in one send, and
    /// every datagram arrives whole.
    #[test]
    fn a_batch_of_the_probed_size_is_accepted_and_arrives() {
        let rx = ::std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = ::std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let rx_state = socket_state(&rx).unwrap();
        let tx_state = socket_state(&tx).unwrap();
        let n = gso_segments(&tx_state);
        assert!(matches!(n, 1 | SAFE_BATCH | MAX_BATCH), "{n}");
        let segment = CHUNK_SIZE + crate::packet::HEADER_LEN;
        let contents: Vec<u8> = (0..n * segment).map(|i| (i / segment) as u8).collect();
        let transmit = quinn_udp::Transmit {
            destination: rx.local_addr().unwrap(),
            ecn: None,
            contents: &contents,
            segment_size: (n > 1).then_some(segment),
            src_ip: None,
        };
        tx_state.try_send((&tx).into(), &transmit).unwrap();
        assert!(n == 1 || tx_state.max_gso_segments() > 1, "GSO still on");
        rx.set_read_timeout(Some(::std::time::Duration::from_secs(5)))
            .unwrap();
        let mut recv = RecvBuf::new();
        let mut got = Vec::new();
        while got.len() < n {
            let filled = recv.recv(&rx_state, (&rx).into(), RECV_SLOTS).unwrap();
            for slot in 0..filled {
                let meta = recv.meta[slot];
                let data = &recv.buf[slot * RECV_SLOT..slot * RECV_SLOT + meta.len];
                let stride = if meta.stride == 0 {
                    meta.len
                } else {
                    meta.stride
                };
                got.extend(data.chunks(stride.max(1)).map(|d| (d.len(), d[0])));
            }
        }
        let want: Vec<(usize, u8)> = (0..n).map(|i| (segment, i as u8)).collect();
        assert_eq!(got, want);
    }
}
