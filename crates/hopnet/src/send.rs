//! How a driver hands its machine's datagrams to the kernel: the one policy both drivers
//! follow.
//!
//! - The machine writes each batch into one reused buffer (nothing allocated per datagram), as
//!   large as the socket's GSO allows.
//! - Lone datagrams (a small message, one ACK, a server's snapshot to each of its clients) are
//!   gathered, up to [`MAX_SINGLES`](super::singles::MAX_SINGLES), and leave together in one
//!   `sendmmsg` on Linux ([`Singles`]); one alone leaves with a plain `sendto`. Not through
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

use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use quinn_udp::UdpSocketState;

use super::SocketStats;
use super::singles::Singles;
use super::socket::{SEND_BUF, Socket, gso_segments};
use hopnet_proto::Machine;
use hopnet_proto::Transmit;
use hopnet_proto::impairment::{Impaired, Impairment};

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
