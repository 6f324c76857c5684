//! How a driver hands its machine's datagrams to the kernel: the one policy both drivers
//! follow.
//!
//! - The machine writes each batch into one reused buffer (nothing allocated per datagram), as
//!   large as the socket's GSO allows.
//! - Lone datagrams (a small message, one ACK, a server's snapshot to each of its clients) are
//!   gathered, up to [`MAX_SINGLES`], and leave together in one `sendmmsg` on Linux
//!   ([`Singles`]); one alone leaves with a plain `sendto`. Not through
//!   quinn-udp's `sendmsg`, which also builds an `IP_TOS` control message (its ECN bits, which
//!   hopnet does not use) that the kernel must parse. A batch of several to one destination
//!   leaves in one `sendmsg` with UDP GSO, after the lone ones gathered before it.
//! - A full socket buffer (`WouldBlock`): the batch is kept and goes first when the socket has
//!   room (the blocking driver retries within a millisecond, the tokio driver awaits
//!   writability).
//! - A refused GSO batch (quinn-udp then stops using GSO on the socket): its datagrams are
//!   sent one by one.
//! - Any other error (an unreachable or refused destination): dropped and counted, as UDP may
//!   drop; the protocol repeats what matters.
//! - Under an [`Impairment`], datagrams leave one at a time, each dropped or held back as drawn.
//!
//! Lone datagrams to many destinations are gathered so that they leave in one system call. A
//! game server's tick hands each client its own snapshot: a thousand datagrams to a thousand
//! addresses, none of which GSO can batch (GSO sends to one destination). One `sendto` each
//! costs a system call each; Linux's `sendmmsg` takes many destinations at once, for about
//! three quarters of the kernel's cost per datagram (BENCHMARKS.md, "What the kernel costs the
//! sender"). Elsewhere they leave one `sendto` at a time. They keep their order: a driver sends
//! what it gathered before any batch that follows it, and before anything else when the socket
//! had no room.
//!
//! The socket's side of it is here too: the three ways datagrams leave (one `sendto`, a GSO
//! batch to one destination, `sendmmsg` to several) and how many datagrams one GSO send may
//! carry. How the socket is set up is [`socket`](super::socket)'s.

use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::time::Instant;

use quinn_udp::UdpSocketState;

use super::socket_stats::SocketStats;
use hopnet_proto::Machine;
use hopnet_proto::Transmit;
use hopnet_proto::impairment::{Impaired, Impairment};
use hopnet_proto::{CHUNK_SIZE, HEADER_LEN};

/// Datagrams per GSO batch at most: Linux takes up to 128 segments per send since 6.9 (64
/// before), and 128 full datagrams (65,024 bytes) still fit one UDP payload and one GRO slot.
/// What this kernel takes is probed once ([`gso_segments`]).
pub(crate) const MAX_BATCH: usize = 128;
/// The segments per send that every Linux with UDP GSO takes.
pub(crate) const SAFE_BATCH: usize = 64;
/// Capacity of a send buffer: one full batch of full chunks.
pub(crate) const SEND_BUF: usize = MAX_BATCH * (CHUNK_SIZE + HEADER_LEN);

/// Lone datagrams gathered before they leave, at most: one system call's worth.
pub(crate) const MAX_SINGLES: usize = 32;

/// A driver's outgoing side: the send buffer, a batch the kernel had no room for, and the
/// impairment's held datagrams.
#[derive(Debug)]
pub(crate) struct Outbox {
    buf: Vec<u8>,
    stalled: Option<Transmit>,
    singles: Singles,
    impaired: Option<Impaired<(SocketAddr, Vec<u8>)>>,
}

impl Outbox {
    pub fn new() -> Outbox {
        Outbox {
            buf: Vec::with_capacity(SEND_BUF),
            stalled: None,
            singles: Singles::default(),
            impaired: None,
        }
    }

    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.impaired = impairment.map(Impaired::new);
    }

    /// Whether datagrams wait for room in the socket.
    pub fn is_stalled(&self) -> bool {
        self.stalled.is_some() || !self.singles.is_empty()
    }

    /// When the next datagram held back by the impairment is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.impaired.as_ref().and_then(Impaired::next_due)
    }

    /// Sends the stalled datagrams, the held ones now due, then what the machine has, until
    /// it has nothing more (`true`) or the socket is full (`false`: datagrams wait).
    pub fn flush<S: Socket>(
        &mut self,
        socket: &S,
        state: &UdpSocketState,
        machine: &mut impl Machine,
        now: Instant,
        stats: &mut SocketStats,
    ) -> bool {
        if !self.singles.send(socket, stats) {
            return false;
        }
        if let Some(batch) = self.stalled.take()
            && !self.send(socket, state, batch, stats)
        {
            return false;
        }
        while let Some((destination, bytes)) = self.impaired.as_mut().and_then(|i| i.pop_due(now)) {
            self.buf.clear();
            self.buf.extend_from_slice(&bytes);
            if !self.send(
                socket,
                state,
                Transmit::single(destination, bytes.len()),
                stats,
            ) {
                return false;
            }
        }
        loop {
            // An impairment decides per datagram.
            let max = match self.impaired {
                Some(_) => 1,
                None => gso_segments(state),
            };
            let Some(batch) = machine.poll_transmit(now, &mut self.buf, max) else {
                return self.singles.send(socket, stats);
            };
            if let Some(impaired) = &mut self.impaired {
                match impaired.draw(now) {
                    None => {
                        stats.impaired_drops += 1;
                        continue;
                    }
                    Some(at) if at > now => {
                        let bytes = self.buf[..batch.size].to_vec();
                        impaired.hold(at, (batch.destination, bytes));
                        continue;
                    }
                    Some(_) => {}
                }
            }
            if self.impaired.is_none() && batch.datagrams() == 1 {
                self.singles.push(
                    batch.destination,
                    &self.buf[..batch.size.min(self.buf.len())],
                );
                if self.singles.is_full() && !self.singles.send(socket, stats) {
                    return false;
                }
                continue;
            }
            // A batch to one destination leaves after the lone datagrams gathered before it.
            if !self.singles.send(socket, stats) {
                self.stalled = Some(batch);
                return false;
            }
            if !self.send(socket, state, batch, stats) {
                return false;
            }
        }
    }

    /// Sends the batch in the buffer; `false` (and the batch kept) if the socket is full.
    fn send<S: Socket>(
        &mut self,
        socket: &S,
        state: &UdpSocketState,
        batch: Transmit,
        stats: &mut SocketStats,
    ) -> bool {
        let datagrams = batch.datagrams();
        let contents = &self.buf[..batch.size];
        let sent = if datagrams == 1 {
            socket.send_one(contents, batch.destination)
        } else {
            let transmit = quinn_udp::Transmit {
                destination: batch.destination,
                ecn: None,
                contents,
                segment_size: Some(batch.segment_size),
                src_ip: None,
            };
            socket.send_gso(state, &transmit)
        };
        match sent {
            Ok(()) => stats.sent += datagrams as u64,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                self.stalled = Some(batch);
                return false;
            }
            Err(_) if datagrams > 1 => {
                // GSO refused: one by one.
                for datagram in batch.split(&self.buf) {
                    match socket.send_one(datagram, batch.destination) {
                        Ok(()) => stats.sent += 1,
                        Err(_) => stats.send_errors += 1,
                    }
                }
            }
            Err(_) => stats.send_errors += 1,
        }
        true
    }
}

/// Lone datagrams waiting to leave, each copied out of the machine's buffer.
#[derive(Debug, Default)]
pub(crate) struct Singles {
    bytes: Vec<u8>,
    datagrams: Vec<(SocketAddr, Range<usize>)>,
    /// How many of `datagrams` have left (or were dropped on an error).
    done: usize,
}

impl Singles {
    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.done >= self.datagrams.len()
    }

    /// Whether a system call's worth waits.
    pub fn is_full(&self) -> bool {
        self.datagrams.len() - self.done >= MAX_SINGLES
    }

    /// Gathers a datagram for `to`.
    pub fn push(&mut self, to: SocketAddr, datagram: &[u8]) {
        if self.is_empty() {
            self.bytes.clear();
            self.datagrams.clear();
            self.done = 0;
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(datagram);
        self.datagrams.push((to, start..self.bytes.len()));
    }

    /// Sends every datagram waiting; `false` if the socket had no room (those not sent wait,
    /// in order). A datagram the kernel refuses otherwise (an unreachable destination) is
    /// dropped and counted, as UDP may drop it.
    pub fn send<S: Socket>(&mut self, socket: &S, stats: &mut SocketStats) -> bool {
        while !self.is_empty() {
            let waiting = &self.datagrams[self.done..];
            let sent = if let [(to, range)] = waiting {
                // One alone: a plain `sendto` costs less than building a `sendmmsg`.
                socket.send_one(&self.bytes[range.clone()], *to).map(|()| 1)
            } else {
                socket.send_many(&self.bytes, waiting)
            };
            match sent {
                // The kernel takes at least one or says why not; a socket that took none is
                // taken for a full one.
                Ok(0) => return false,
                Ok(n) => {
                    let n = n.min(waiting.len());
                    self.done += n;
                    stats.sent += n as u64;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) =>
                {
                    return false;
                }
                Err(_) => {
                    // The first one waiting failed: the ones after it may still go.
                    self.done += 1;
                    stats.send_errors += 1;
                }
            }
        }
        true
    }
}

/// What a driver needs of its UDP socket, whichever runtime owns it.
pub trait Socket {
    /// Prepares the socket (see [`socket`](super::socket)) and returns quinn-udp's state for it.
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
        super::socket::prepare(self)
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
        super::socket::prepare(self)
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

#[cfg(test)]
mod tests;
