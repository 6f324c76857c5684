//! The receive side of a driver's socket: one `recvmmsg` (or `recvmsg`) fills several slots,
//! each of which may hold a GRO batch of datagrams, handed to the machine straight from the
//! buffer.

use std::io::{self, IoSliceMut};
use std::time::Instant;

use quinn_udp::{RecvMeta, UdpSockRef, UdpSocketState};

use hopnet_proto::Machine;
use hopnet_proto::Transmit;

/// Bytes per receive slot: the largest UDP datagram, and so also the largest GRO batch the
/// kernel coalesces (at most 64 KiB), so nothing is ever truncated.
const RECV_SLOT: usize = 1 << 16;
/// Receive slots filled by one `recvmmsg`; with GRO each may hold up to 64 datagrams.
pub(crate) const RECV_SLOTS: usize = 8;

/// Whether a receive error only means "nothing now": no datagram, a signal, a timeout, or an
/// ICMP error about an earlier send (which UDP may ignore).
pub(crate) fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock
            | io::ErrorKind::TimedOut
            | io::ErrorKind::Interrupted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// The receive slots (512 KiB, allocated once) and their metadata.
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
            std::array::from_fn(|_| IoSliceMut::new(slices.next().unwrap_or_default()));
        let slots = slots.clamp(1, RECV_SLOTS);
        let filled = state.recv(socket, &mut bufs[..slots], &mut self.meta[..slots])?;
        Ok(filled.min(slots))
    }

    /// The datagrams of the first `filled` slots with their sources, a GRO slot split at its
    /// stride.
    fn datagrams(&self, filled: usize) -> impl Iterator<Item = (std::net::SocketAddr, &[u8])> {
        let slots = self.meta.iter().enumerate().take(filled);
        let batches = slots.filter_map(|(i, m)| {
            let start = i * RECV_SLOT;
            let data = self.buf.get(start..start + m.len.min(RECV_SLOT))?;
            let stride = if m.stride == 0 { data.len() } else { m.stride };
            let batch = Transmit {
                destination: m.addr,
                size: data.len(),
                segment_size: stride,
            };
            Some((m.addr, batch, data))
        });
        batches.flat_map(|(from, batch, data)| batch.split(data).map(move |d| (from, d)))
    }

    /// Hands every datagram of the first `filled` slots to the machine (received at `now`);
    /// returns how many there were.
    pub(crate) fn deliver(&self, filled: usize, machine: &mut impl Machine, now: Instant) -> usize {
        let mut count = 0;
        for (from, datagram) in self.datagrams(filled) {
            machine.handle(now, from, datagram);
            count += 1;
        }
        count
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;
    use crate::send::{MAX_BATCH, SAFE_BATCH, Socket, gso_segments};
    use hopnet_proto::CHUNK_SIZE;
    use hopnet_proto::HEADER_LEN;

    /// What the probe promises: a batch of that many full datagrams leaves in one send, and
    /// every datagram arrives whole.
    #[test]
    fn a_batch_of_the_probed_size_is_accepted_and_arrives() {
        let rx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let rx_state = rx.prepare().unwrap();
        let tx_state = tx.prepare().unwrap();
        let n = gso_segments(&tx_state);
        assert!(matches!(n, 1 | SAFE_BATCH | MAX_BATCH), "{n}");
        let segment = CHUNK_SIZE + HEADER_LEN;
        let contents: Vec<u8> = (0..n * segment).map(|i| (i / segment) as u8).collect();
        let transmit = quinn_udp::Transmit {
            destination: rx.local_addr().unwrap(),
            ecn: None,
            contents: &contents,
            segment_size: (n > 1).then_some(segment),
            src_ip: None,
        };
        tx.send_gso(&tx_state, &transmit).unwrap();
        assert!(n == 1 || tx_state.max_gso_segments() > 1, "GSO still on");
        rx.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut recv = RecvBuf::new();
        let mut got = Vec::new();
        while got.len() < n {
            let filled = recv.recv(&rx_state, (&rx).into(), RECV_SLOTS).unwrap();
            got.extend(recv.datagrams(filled).map(|(_, d)| (d.len(), d[0])));
        }
        let want: Vec<(usize, u8)> = (0..n).map(|i| (segment, i as u8)).collect();
        assert_eq!(got, want);
    }
}
