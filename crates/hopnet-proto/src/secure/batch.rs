//! hopnet's datagrams sealed as netcode payload packets in batches of the shape UDP GSO sends
//! (every datagram the size of the first but the last, which may be shorter; see
//! [`Transmit`]), so that secure mode keeps the plain drivers' one system call per batch.
//!
//! The machine underneath writes a batch of plain datagrams; each is sealed straight into the
//! caller's buffer (the one copy encryption in place needs). Sealing adds a prefix byte, the
//! sequence (1 to 8 bytes, as many as its value needs) and a 16-byte tag, so equal datagrams
//! stay equal, except where the sequence needs one more byte (after 255, 65,535, ...): the
//! batch ends before that datagram, and the rest of the plain batch waits for the next call.
//! A sealed batch also stays within one UDP payload ([`MAX_BATCH_BYTES`]).
//!
//! A batch is shorter than the plain drivers' ([`MAX_SEALED_BATCH`]): the machine stamps every
//! datagram of a batch sent at the instant it writes them, but sealing each one takes about as
//! long as sending it, so the last of a long batch leaves long after its stamp. The congestion
//! controller reads that wait in every RTT sample as a queue (it tolerates a jitter floor of
//! 100 µs, `send/congestion.rs`) and shrinks the window to drain a queue that is not there.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet_netcode::{NetcodeClient, NetcodeServer, SendError};

use crate::transmit::{MAX_BATCH_BYTES, Transmit};

/// Datagrams polled from the machine underneath at once, at most: sealing 16 of the largest
/// (1,200 bytes) takes well under the congestion controller's jitter floor on a core that
/// seals a few hundred megabytes a second (BENCHMARKS.md, "Secure mode: batches short enough
/// for the congestion controller").
pub(crate) const MAX_SEALED_BATCH: usize = 16;

/// One end's way of sealing payload packets toward one peer.
pub trait Seal {
    /// The size of the packet that would carry `len` bytes next.
    fn packet_len(&self, len: usize) -> usize;
    /// Appends the packet carrying `payload` to `out`.
    fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), SendError>;
}

/// The server's sealing toward the client in one slot.
pub struct SlotSeal<'a> {
    pub server: &'a mut NetcodeServer,
    pub client: usize,
    pub now: Instant,
}

impl Seal for SlotSeal<'_> {
    fn packet_len(&self, len: usize) -> usize {
        self.server
            .payload_packet_len(self.client, len)
            .unwrap_or(usize::MAX)
    }

    fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), SendError> {
        self.server
            .append_payload(self.now, self.client, payload, out)
    }
}

/// The client's sealing toward its server.
pub struct ClientSeal<'a> {
    pub client: &'a mut NetcodeClient,
    pub now: Instant,
}

impl Seal for ClientSeal<'_> {
    fn packet_len(&self, len: usize) -> usize {
        self.client.payload_packet_len(len)
    }

    fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), SendError> {
        self.client.append_payload(self.now, payload, out)
    }
}

/// A batch of plain datagrams from the machine underneath, sealed a run at a time.
#[derive(Debug, Default)]
pub struct PlainBatch {
    buf: Vec<u8>,
    transmit: Option<Transmit>,
    /// Bytes of `buf` already sealed (or dropped).
    offset: usize,
}

impl PlainBatch {
    /// Where the datagrams waiting go; `None` when none wait.
    pub fn destination(&self) -> Option<SocketAddr> {
        self.transmit.map(|t| t.destination)
    }

    /// Whether datagrams wait, after asking `poll` (the machine's `poll_transmit` into the
    /// buffer, with the most datagrams it may write) for a new batch of at most
    /// `max_datagrams` and [`MAX_SEALED_BATCH`] if none did.
    pub fn fill(
        &mut self,
        max_datagrams: usize,
        poll: impl FnOnce(&mut Vec<u8>, usize) -> Option<Transmit>,
    ) -> bool {
        if self.transmit.is_none() {
            self.transmit = poll(&mut self.buf, max_datagrams.clamp(1, MAX_SEALED_BATCH));
            self.offset = 0;
        }
        self.transmit.is_some()
    }

    /// The next datagram waiting.
    fn peek(&self) -> Option<&[u8]> {
        let transmit = self.transmit?;
        let end = transmit.size.min(self.buf.len());
        let start = self.offset.min(end);
        let len = transmit.segment_size.max(1).min(end - start);
        Some(&self.buf[start..start + len])
    }

    /// Done with the datagram `peek` gave, of `len` bytes.
    fn advance(&mut self, len: usize) {
        self.offset += len.max(1);
        if self
            .transmit
            .is_none_or(|t| self.offset >= t.size.min(self.buf.len()))
        {
            self.transmit = None;
        }
    }

    /// Takes the next datagram (to be queued one by one), handing it to `take`.
    pub fn take_next(&mut self, take: impl FnOnce(&[u8])) -> bool {
        let Some(datagram) = self.peek() else {
            return false;
        };
        let len = datagram.len();
        take(datagram);
        self.advance(len);
        true
    }

    /// Drops the datagrams waiting; returns how many there were.
    pub fn discard(&mut self) -> u64 {
        let mut dropped = 0;
        while self.take_next(|_| {}) {
            dropped += 1;
        }
        dropped
    }

    /// Seals as many waiting datagrams as one batch takes, at most `max_datagrams`, into `out`
    /// (cleared first). `Err` with the datagrams dropped when the peer can no longer be
    /// sealed to (the rest of the batch is dropped with it).
    pub fn seal_into(
        &mut self,
        out: &mut Vec<u8>,
        max_datagrams: usize,
        seal: &mut impl Seal,
    ) -> Result<Option<Transmit>, u64> {
        out.clear();
        let Some(destination) = self.destination() else {
            return Ok(None);
        };
        let mut segment = None;
        let mut count = 0;
        while count < max_datagrams.max(1) {
            let Some(datagram) = self.peek() else {
                break;
            };
            let len = seal.packet_len(datagram.len());
            if let Some(segment) = segment
                && (len > segment || out.len() + len > MAX_BATCH_BYTES)
            {
                break;
            }
            if seal.seal(datagram, out).is_err() {
                return Err(self.discard());
            }
            let plain = datagram.len();
            self.advance(plain);
            count += 1;
            match segment {
                None => segment = Some(len),
                // A shorter datagram ends a batch.
                Some(segment) if len < segment => break,
                Some(_) => {}
            }
        }
        Ok(segment.map(|segment_size| Transmit {
            destination,
            size: out.len(),
            segment_size,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seals by framing: a one-byte "sequence" that grows to two bytes at 256.
    struct Frame {
        sequence: u64,
        refuse: bool,
    }

    impl Frame {
        /// A seal that takes every datagram, numbering them from `sequence`.
        fn from(sequence: u64) -> Frame {
            Frame {
                sequence,
                refuse: false,
            }
        }
    }

    impl Seal for Frame {
        fn packet_len(&self, len: usize) -> usize {
            len + if self.sequence < 256 { 1 } else { 2 }
        }
        fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), SendError> {
            if self.refuse {
                return Err(SendError::NotConnected);
            }
            out.extend(std::iter::repeat_n(0xee, self.packet_len(0)));
            out.extend_from_slice(payload);
            self.sequence += 1;
            Ok(())
        }
    }

    fn batch(sizes: &[usize]) -> PlainBatch {
        let mut plain = PlainBatch::default();
        let to = "10.0.0.1:1".parse().unwrap();
        plain.fill(64, |buf, _| {
            buf.clear();
            for (i, &n) in sizes.iter().enumerate() {
                buf.extend(std::iter::repeat_n(i as u8, n));
            }
            Some(Transmit {
                destination: to,
                size: buf.len(),
                segment_size: sizes[0],
            })
        });
        plain
    }

    /// A batch of plain datagrams of `sizes` being sealed by a [`Frame`] numbering from
    /// `sequence`, into one output buffer.
    struct Sealing {
        plain: PlainBatch,
        seal: Frame,
        out: Vec<u8>,
    }

    impl Sealing {
        fn of(sizes: &[usize], sequence: u64) -> Sealing {
            Sealing {
                plain: batch(sizes),
                seal: Frame::from(sequence),
                out: Vec::new(),
            }
        }

        /// The next sealed batch of at most `max_datagrams`.
        fn next(&mut self, max_datagrams: usize) -> Result<Option<Transmit>, u64> {
            self.plain
                .seal_into(&mut self.out, max_datagrams, &mut self.seal)
        }
    }

    #[test]
    fn a_batch_keeps_its_shape_sealed() {
        let mut sealing = Sealing::of(&[100, 100, 100, 40], 0);
        let t = sealing.next(64).unwrap().unwrap();
        assert_eq!((t.size, t.segment_size, t.datagrams()), (344, 101, 4));
        assert_eq!(sealing.plain.destination(), None);
    }

    #[test]
    fn a_longer_sequence_ends_the_batch_and_the_rest_waits() {
        let mut sealing = Sealing::of(&[100, 100, 100, 100], 254);
        let first = sealing.next(64).unwrap().unwrap();
        assert_eq!((first.size, first.segment_size), (202, 101));
        assert_eq!(sealing.out[101 + 1], 1, "the second datagram");
        let rest = sealing.next(64).unwrap().unwrap();
        assert_eq!((rest.size, rest.segment_size), (204, 102));
        assert_eq!(sealing.out[2], 2, "the third datagram");
        assert_eq!(sealing.next(64), Ok(None));
    }

    #[test]
    fn the_machine_is_asked_for_a_batch_short_enough_to_seal_in_time() {
        let mut plain = PlainBatch::default();
        let mut asked = Vec::new();
        for max in [64, 3, 0] {
            plain.fill(max, |_, n| {
                asked.push(n);
                None
            });
        }
        assert_eq!(asked, [MAX_SEALED_BATCH, 3, 1]);
    }

    #[test]
    fn at_most_max_datagrams_per_batch() {
        let mut sealing = Sealing::of(&[10, 10, 10], 0);
        for _ in 0..3 {
            assert_eq!(sealing.next(1).unwrap().unwrap().datagrams(), 1);
        }
        assert_eq!(sealing.plain.destination(), None);
    }

    #[test]
    fn a_refused_seal_drops_the_rest() {
        let mut sealing = Sealing::of(&[10, 10, 10], 0);
        sealing.seal.refuse = true;
        assert_eq!(sealing.next(64), Err(3));
        assert_eq!(sealing.plain.destination(), None);
    }
}
