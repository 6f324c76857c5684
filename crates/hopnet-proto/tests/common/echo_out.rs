//! The sending half the model servers share (`original_server.rs`, `strict_server.rs`): they
//! read the spec differently, but both echo a payload as the spec's chunks and resend each
//! reliable chunk on a fixed interval until its `ACK` comes, so that part is written once.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet_proto::Transmit;

/// The spec's flag bits, as the model servers read and write them (their own reading of the
/// header, not hopnet's).
pub const REL: u8 = 0x01;
pub const ACK: u8 = 0x02;
pub const FIN: u8 = 0x04;
pub const END: u8 = 0x08;
pub const RESERVED: u8 = 0xf0;
/// Every chunk but the last carries exactly this many bytes.
pub const CHUNK: usize = 504;

/// Datagrams a model server has queued: destination and bytes.
pub type Outbox = VecDeque<(SocketAddr, Vec<u8>)>;

/// The oldest queued datagram, copied into `buf` as [`hopnet_proto::Machine::poll_transmit`]
/// hands it out.
pub fn pop_into(out: &mut Outbox, buf: &mut Vec<u8>) -> Option<Transmit> {
    let (destination, contents) = out.pop_front()?;
    buf.clear();
    buf.extend_from_slice(&contents);
    Some(Transmit::single(destination, contents.len()))
}

/// One connection's echoes: the next sequence to use, and the reliable chunks awaiting an
/// `ACK`, by (sequence, chunk), with when each is next resent.
#[derive(Debug)]
pub struct Echoes {
    interval: Duration,
    next_sequence: u16,
    pending: BTreeMap<(u16, u8), (Instant, Vec<u8>)>,
}

impl Echoes {
    /// Resending every `interval` until acknowledged.
    pub fn new(interval: Duration) -> Echoes {
        Echoes {
            interval,
            next_sequence: 0,
            pending: BTreeMap::new(),
        }
    }

    /// `payload` as the datagrams of a new sequence: chunks of [`CHUNK`] bytes (one empty chunk
    /// for an empty payload), `FIN` on the last, `REL` on each if `reliable`, which are also
    /// kept for resending.
    pub fn send(&mut self, now: Instant, payload: &[u8], reliable: bool) -> Vec<Vec<u8>> {
        let sequence = self.next_sequence;
        self.next_sequence = sequence.wrapping_add(1);
        let parts: Vec<&[u8]> = if payload.is_empty() {
            vec![&[]]
        } else {
            payload.chunks(CHUNK).collect()
        };
        let last = parts.len() - 1;
        let [hi, lo] = sequence.to_be_bytes();
        let mut datagrams = Vec::with_capacity(parts.len());
        for (i, part) in parts.into_iter().enumerate() {
            let flags = if i == last { FIN } else { 0 } | if reliable { REL } else { 0 };
            let mut datagram = vec![flags, i as u8, hi, lo];
            datagram.extend_from_slice(part);
            if reliable {
                let due = now + self.interval;
                self.pending
                    .insert((sequence, i as u8), (due, datagram.clone()));
            }
            datagrams.push(datagram);
        }
        datagrams
    }

    /// The peer acknowledged this chunk: it is not resent again.
    pub fn acked(&mut self, sequence: u16, chunk: u8) {
        self.pending.remove(&(sequence, chunk));
    }

    /// When the next resend is due, if any chunk awaits an `ACK`.
    pub fn next_resend(&self) -> Option<Instant> {
        self.pending.values().map(|(t, _)| *t).min()
    }

    /// The chunks whose resend is due at `now`, each due again an interval later.
    pub fn due(&mut self, now: Instant) -> Vec<Vec<u8>> {
        let mut due = Vec::new();
        for (at, datagram) in self.pending.values_mut() {
            if *at <= now {
                *at = now + self.interval;
                due.push(datagram.clone());
            }
        }
        due
    }
}
