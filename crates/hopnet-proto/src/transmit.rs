//! The shape of what a machine hands its driver to send: one datagram, or a batch of datagrams
//! to one destination, every one the size of the first but the last (UDP GSO's shape).

use std::net::SocketAddr;

use crate::chunk::CHUNK_SIZE;
use crate::packet::HEADER_LEN;

/// What [`Machine::poll_transmit`] wrote into the caller's buffer: one datagram, or several to the same destination laid end to end.
///
/// Every datagram of a batch is `segment_size` bytes except the last, which may be shorter:
/// exactly the shape UDP generic segmentation offload (GSO, `UDP_SEGMENT`) sends with one
/// system call, and what a driver without GSO splits at every `segment_size` bytes. Batches are
/// only formed where the protocol makes the sizes equal: the ACKs answering received chunks
/// (4 bytes each) and the chunks of one or several messages (504 bytes of payload each, the
/// last shorter).
///
/// [`Machine::poll_transmit`]: crate::Machine::poll_transmit
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmit {
    /// Where to send the datagrams.
    pub destination: SocketAddr,
    /// Bytes written into the buffer, all datagrams together.
    pub size: usize,
    /// Size of each datagram but the last (equal to `size` for a single datagram).
    pub segment_size: usize,
}

impl Transmit {
    /// A single datagram of `size` bytes.
    pub fn single(destination: SocketAddr, size: usize) -> Transmit {
        Transmit {
            destination,
            size,
            segment_size: size,
        }
    }

    /// How many datagrams the batch holds.
    pub fn datagrams(&self) -> usize {
        self.size.div_ceil(self.segment_size.max(1)).max(1)
    }

    /// The datagrams of the batch, as slices of the buffer it was written into.
    pub fn split<'a>(&self, buf: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let buf = &buf[..self.size.min(buf.len())];
        let segment = self.segment_size.max(1);
        // An empty datagram is still one datagram.
        let empty = buf.is_empty();
        buf.chunks(segment).chain(empty.then_some(&[][..]))
    }
}

/// The size of a datagram carrying a full chunk: only a run of these can lead a batch of
/// chunks that is not a single message's last one.
pub(crate) const FULL_DATAGRAM: usize = HEADER_LEN + CHUNK_SIZE;

/// The most bytes one batch holds: a GSO send must fit one UDP payload (65,507 bytes over
/// IPv4), and 128 full spec datagrams are 65,024.
pub(crate) const MAX_BATCH_BYTES: usize = 128 * FULL_DATAGRAM;

/// Which datagram sizes the next datagram of a batch may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    /// Any: the first datagram of a batch.
    Any,
    /// Exactly this many bytes: the middle of a batch.
    Exactly(usize),
    /// At most this many bytes: the last datagram of a batch.
    AtMost(usize),
}

impl Size {
    /// The constraint on the datagram after `count` datagrams of `segment` bytes.
    pub fn after(count: usize, segment: usize) -> Size {
        if count == 0 {
            Size::Any
        } else {
            Size::Exactly(segment)
        }
    }

    /// Whether a datagram of `len` bytes may come next.
    pub fn fits(self, len: usize) -> bool {
        match self {
            Size::Any => true,
            Size::Exactly(want) => len == want,
            Size::AtMost(max) => len <= max,
        }
    }
}
