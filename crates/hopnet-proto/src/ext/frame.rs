//! The frames of an extended datagram: padding, ping, close, acknowledgements of many chunks,
//! and data (a chunk of a message, with its delivery mode).
//!
//! Every frame starts with a type byte. Data frames carry their length, so that any frame may
//! follow any other; a frame that does not parse makes the whole datagram malformed.
//!
//! `ACK_NOW` is how a sender blocked by its congestion window avoids waiting for the
//! receiver's delayed acknowledgement: with a small window, a delay of a few milliseconds per
//! window would bound the rate at a window per delay.

use std::fmt;

use crate::event::Delivery;

/// One byte of padding.
pub const PADDING: u8 = 0x00;
/// A frame that only shows the sender is alive (the extended keepalive).
pub const PING: u8 = 0x01;
/// The sender closed the connection (the spec's `END`).
pub const CLOSE: u8 = 0x02;
/// Acknowledgements: ranges of chunks of ranges of sequences.
pub const ACK: u8 = 0x03;
/// The sender's congestion window is full: acknowledge what is owed at once, without the
/// usual delay (QUIC's IMMEDIATE_ACK).
pub const ACK_NOW: u8 = 0x04;
/// The two top bits of a data frame's type byte.
pub const DATA: u8 = 0x40;
const DATA_MASK: u8 = 0xc0;
const DATA_FIN: u8 = 0x20;
const DATA_COMPRESSED: u8 = 0x10;
const DATA_MODE_SHIFT: u8 = 1;
const DATA_MODE_MASK: u8 = 0x0e;
const DATA_CHUNK: u8 = 0x01;

/// Bytes of an ACK frame before its entries: type, delay, count.
pub const ACK_HEADER: usize = 4;
/// Bytes of one ACK entry.
pub const ACK_ENTRY: usize = 6;
/// Entries in one ACK frame at most.
pub const MAX_ACK_ENTRIES: usize = 255;
/// Sequences one ACK frame may span at most (first entry's first sequence to the last entry's
/// last): under half the sequence space, so that serial order is unambiguous.
pub const MAX_ACK_SPAN: u32 = 32_767;
/// The largest chunk length a data frame can carry (its length field's 15 bits).
pub const MAX_DATA_LEN: usize = 0x7fff;

/// Why a frame did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The frame runs past the end of the datagram.
    #[error("frame truncated")]
    Truncated,
    /// A type byte no frame has.
    #[error("unknown frame type {0:#04x}")]
    UnknownType(u8),
    /// A data frame's delivery code is not one of the six.
    #[error("unknown delivery mode {0}")]
    UnknownDelivery(u8),
    /// A longer encoding than needed (a length under 128 in two bytes, a chunk index of 0
    /// written out): every frame has exactly one encoding.
    #[error("non-canonical encoding")]
    NonCanonical,
    /// An ACK frame with no entries, an entry whose first chunk is after its last, or entries
    /// out of order, overlapping, or spanning half the sequence space.
    #[error("invalid ACK ranges")]
    AckRanges,
}

/// The 3-bit code of a delivery mode on the wire.
pub fn delivery_code(d: Delivery) -> u8 {
    match d {
        Delivery::Unreliable => 0,
        Delivery::Sequenced => 1,
        Delivery::Reliable => 2,
        Delivery::ReliableOrdered => 3,
        Delivery::SemiOrdered => 4,
        Delivery::Tracked => 5,
    }
}

fn delivery_of(code: u8) -> Result<Delivery, FrameError> {
    Ok(match code {
        0 => Delivery::Unreliable,
        1 => Delivery::Sequenced,
        2 => Delivery::Reliable,
        3 => Delivery::ReliableOrdered,
        4 => Delivery::SemiOrdered,
        5 => Delivery::Tracked,
        _ => return Err(FrameError::UnknownDelivery(code)),
    })
}

/// Whether chunk 0 of a message of this mode carries a reliable index: the modes a
/// semi-ordered message waits for.
pub fn has_index(d: Delivery) -> bool {
    matches!(
        d,
        Delivery::Reliable | Delivery::ReliableOrdered | Delivery::SemiOrdered
    )
}

/// A data frame's header: which chunk of which message, and how the message is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataHeader {
    /// The message's sequence id (the spec's, shared by both forms of datagram).
    pub sequence: u16,
    /// The chunk index.
    pub chunk: u8,
    /// The last chunk of its message (the spec's `FIN`).
    pub fin: bool,
    /// The message is LZ4-compressed (see `ext::compress`).
    pub compressed: bool,
    /// How the message is delivered.
    pub delivery: Delivery,
    /// On chunk 0 of a reliable, reliable ordered or semi-ordered message: its reliable index,
    /// counting those messages from 0 in the order they were sent (wrapping at 65,536).
    pub index: Option<u16>,
    /// On chunk 0 of a reliable ordered message: the reliable index of the ordered (reliable
    /// ordered or semi-ordered) message sent just before it, if any.
    pub after: Option<u16>,
}

impl DataHeader {
    /// Bytes of this header in front of `len` bytes of data.
    pub fn encoded_len(&self, len: usize) -> usize {
        let chunk = usize::from(self.chunk != 0);
        let length = if len < 0x80 { 1 } else { 2 };
        let index = if self.chunk == 0 && has_index(self.delivery) {
            2
        } else {
            0
        };
        let after = if self.chunk == 0 && self.delivery == Delivery::ReliableOrdered {
            2
        } else {
            0
        };
        1 + 2 + chunk + length + index + after
    }

    /// Appends the header and `data` to `buf`. The caller keeps `index` and `after` as
    /// [`has_index`] and the delivery require (they are written only where they belong) and
    /// `data` under [`MAX_DATA_LEN`].
    pub fn write(&self, buf: &mut Vec<u8>, data: &[u8]) {
        debug_assert!(data.len() <= MAX_DATA_LEN);
        let mut ty = DATA | (delivery_code(self.delivery) << DATA_MODE_SHIFT);
        if self.fin {
            ty |= DATA_FIN;
        }
        if self.compressed {
            ty |= DATA_COMPRESSED;
        }
        if self.chunk != 0 {
            ty |= DATA_CHUNK;
        }
        buf.push(ty);
        buf.extend_from_slice(&self.sequence.to_be_bytes());
        if self.chunk != 0 {
            buf.push(self.chunk);
        }
        let len = data.len();
        if len < 0x80 {
            buf.push(len as u8);
        } else {
            buf.extend_from_slice(&(0x8000 | len as u16).to_be_bytes());
        }
        if self.chunk == 0 && has_index(self.delivery) {
            let index = self.index.unwrap_or(0);
            buf.extend_from_slice(&index.to_be_bytes());
            if self.delivery == Delivery::ReliableOrdered {
                buf.extend_from_slice(&self.after.unwrap_or(index).to_be_bytes());
            }
        }
        buf.extend_from_slice(data);
    }
}

/// One entry of an ACK frame: chunks `first_chunk..=last_chunk` of each sequence from
/// `sequence` to `sequence + extra` (wrapping). A receiver writes `0..=255` for a message it
/// holds whole; the sender acknowledges only the chunks it sent. Entries follow each other
/// in serial order; one may start at the sequence where the previous one ends if its chunks
/// come after the previous one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AckRange {
    /// The first sequence.
    pub sequence: u16,
    /// How many sequences follow the first.
    pub extra: u16,
    /// The first chunk acknowledged in each.
    pub first_chunk: u8,
    /// The last chunk acknowledged in each.
    pub last_chunk: u8,
}

impl AckRange {
    /// The last sequence of the range.
    pub fn last_sequence(&self) -> u16 {
        self.sequence.wrapping_add(self.extra)
    }

    fn encode(&self) -> [u8; ACK_ENTRY] {
        let [s0, s1] = self.sequence.to_be_bytes();
        let [e0, e1] = self.extra.to_be_bytes();
        [s0, s1, e0, e1, self.first_chunk, self.last_chunk]
    }

    fn decode(b: &[u8]) -> AckRange {
        AckRange {
            sequence: u16::from_be_bytes([b[0], b[1]]),
            extra: u16::from_be_bytes([b[2], b[3]]),
            first_chunk: b[4],
            last_chunk: b[5],
        }
    }
}

/// An ACK frame: its delay and its entries (checked when parsed).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AckFrame<'a> {
    /// Microseconds between the arrival of the newest chunk acknowledged and the frame's
    /// sending (saturating), for the sender's round-trip estimate.
    pub delay_micros: u16,
    entries: &'a [u8],
}

impl<'a> AckFrame<'a> {
    /// The entries, in serial order.
    pub fn ranges(&self) -> impl Iterator<Item = AckRange> + 'a {
        self.entries.chunks_exact(ACK_ENTRY).map(AckRange::decode)
    }
}

impl fmt::Debug for AckFrame<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AckFrame")
            .field("delay_micros", &self.delay_micros)
            .field("ranges", &self.ranges().collect::<Vec<_>>())
            .finish()
    }
}

/// Appends an ACK frame of `ranges` (1 to 255, in serial order, not overlapping) to `buf`.
pub fn write_ack(buf: &mut Vec<u8>, delay_micros: u16, ranges: &[AckRange]) {
    debug_assert!((1..=MAX_ACK_ENTRIES).contains(&ranges.len()));
    buf.push(ACK);
    buf.extend_from_slice(&delay_micros.to_be_bytes());
    buf.push(ranges.len() as u8);
    for r in ranges {
        buf.extend_from_slice(&r.encode());
    }
}

/// A parsed frame, borrowing the datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// One byte of padding.
    Padding,
    /// A sign of life.
    Ping,
    /// The connection ended.
    Close,
    /// Acknowledge at once.
    AckNow,
    /// Acknowledgements.
    Ack(AckFrame<'a>),
    /// A chunk.
    Data(DataHeader, &'a [u8]),
}

fn take<const N: usize>(b: &[u8], at: usize) -> Result<[u8; N], FrameError> {
    b.get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .ok_or(FrameError::Truncated)
}

/// Parses the frame at the start of `bytes`; returns it and its length.
pub fn decode(bytes: &[u8]) -> Result<(Frame<'_>, usize), FrameError> {
    let ty = *bytes.first().ok_or(FrameError::Truncated)?;
    match ty {
        PADDING => Ok((Frame::Padding, 1)),
        PING => Ok((Frame::Ping, 1)),
        CLOSE => Ok((Frame::Close, 1)),
        ACK_NOW => Ok((Frame::AckNow, 1)),
        ACK => decode_ack(bytes),
        t if t & DATA_MASK == DATA => decode_data(bytes, t),
        t => Err(FrameError::UnknownType(t)),
    }
}

fn decode_ack(bytes: &[u8]) -> Result<(Frame<'_>, usize), FrameError> {
    let [d0, d1, count] = take::<3>(bytes, 1)?;
    let count = usize::from(count);
    if count == 0 {
        return Err(FrameError::AckRanges);
    }
    let end = ACK_HEADER + count * ACK_ENTRY;
    let entries = bytes.get(ACK_HEADER..end).ok_or(FrameError::Truncated)?;
    let frame = AckFrame {
        delay_micros: u16::from_be_bytes([d0, d1]),
        entries,
    };
    // Ranges in serial order, apart, within half the sequence space: a forged frame can
    // then make the sender look at each of its live messages once per entry at most. Two
    // entries may share a sequence (the later one's chunks after the earlier one's).
    let mut first = None;
    let mut last: Option<(u32, u8)> = None;
    for r in frame.ranges() {
        if r.first_chunk > r.last_chunk {
            return Err(FrameError::AckRanges);
        }
        let start = *first.get_or_insert(r.sequence);
        let from = u32::from(r.sequence.wrapping_sub(start));
        let to = from + u32::from(r.extra);
        let after =
            last.is_none_or(|(end, chunk)| from > end || (from == end && r.first_chunk > chunk));
        if to > MAX_ACK_SPAN || !after {
            return Err(FrameError::AckRanges);
        }
        last = Some((to, r.last_chunk));
    }
    Ok((Frame::Ack(frame), end))
}

fn decode_data(bytes: &[u8], ty: u8) -> Result<(Frame<'_>, usize), FrameError> {
    let delivery = delivery_of((ty & DATA_MODE_MASK) >> DATA_MODE_SHIFT)?;
    let mut at = 1;
    let sequence = u16::from_be_bytes(take::<2>(bytes, at)?);
    at += 2;
    let chunk = if ty & DATA_CHUNK != 0 {
        let [c] = take::<1>(bytes, at)?;
        at += 1;
        if c == 0 {
            return Err(FrameError::NonCanonical);
        }
        c
    } else {
        0
    };
    let [l0] = take::<1>(bytes, at)?;
    let len = if l0 & 0x80 == 0 {
        at += 1;
        usize::from(l0)
    } else {
        let [_, l1] = take::<2>(bytes, at)?;
        at += 2;
        let len = usize::from(u16::from_be_bytes([l0 & 0x7f, l1]));
        if len < 0x80 {
            return Err(FrameError::NonCanonical);
        }
        len
    };
    let (mut index, mut after) = (None, None);
    if chunk == 0 && has_index(delivery) {
        let i = u16::from_be_bytes(take::<2>(bytes, at)?);
        at += 2;
        index = Some(i);
        if delivery == Delivery::ReliableOrdered {
            let a = u16::from_be_bytes(take::<2>(bytes, at)?);
            at += 2;
            after = (a != i).then_some(a);
        }
    }
    let data = bytes.get(at..at + len).ok_or(FrameError::Truncated)?;
    let header = DataHeader {
        sequence,
        chunk,
        fin: ty & DATA_FIN != 0,
        compressed: ty & DATA_COMPRESSED != 0,
        delivery,
        index,
        after,
    };
    Ok((Frame::Data(header, data), at + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(delivery: Delivery, chunk: u8) -> DataHeader {
        DataHeader {
            sequence: 0x1234,
            chunk,
            fin: true,
            compressed: false,
            delivery,
            index: (chunk == 0 && has_index(delivery)).then_some(7),
            after: (chunk == 0 && delivery == Delivery::ReliableOrdered).then_some(5),
        }
    }

    #[test]
    fn data_frames_roundtrip_with_their_exact_length() {
        for delivery in Delivery::ALL {
            for chunk in [0u8, 1, 200] {
                for len in [0usize, 1, 127, 128, 1190] {
                    let h = header(delivery, chunk);
                    let data = vec![0xab; len];
                    let mut buf = Vec::new();
                    h.write(&mut buf, &data);
                    assert_eq!(buf.len(), h.encoded_len(len) + len);
                    let (frame, used) = decode(&buf).unwrap();
                    assert_eq!(used, buf.len());
                    assert_eq!(frame, Frame::Data(h, &data[..]));
                }
            }
        }
        // A small unreliable message: type, sequence, length.
        let mut buf = Vec::new();
        header(Delivery::Unreliable, 0).write(&mut buf, &[9, 9]);
        assert_eq!(buf, [0x60, 0x12, 0x34, 2, 9, 9]);
        // A reliable ordered message's first chunk with no predecessor: `after` = its index.
        let mut h = header(Delivery::ReliableOrdered, 0);
        h.after = None;
        buf.clear();
        h.write(&mut buf, &[]);
        assert_eq!(buf, [0x66, 0x12, 0x34, 0, 0, 7, 0, 7]);
        assert_eq!(decode(&buf).unwrap().0, Frame::Data(h, &[]));
    }

    #[test]
    fn malformed_data_frames() {
        assert_eq!(
            decode(&[0x4c, 0, 0, 0]),
            Err(FrameError::UnknownDelivery(6))
        );
        assert_eq!(decode(&[0x41, 0, 0, 0, 0]), Err(FrameError::NonCanonical));
        assert_eq!(
            decode(&[0x40, 0, 0, 0x80, 5]),
            Err(FrameError::NonCanonical)
        );
        assert_eq!(decode(&[0x40, 0, 0, 3, 1, 2]), Err(FrameError::Truncated));
        assert_eq!(decode(&[0x44, 0, 0, 0, 1]), Err(FrameError::Truncated));
        assert_eq!(decode(&[0x80]), Err(FrameError::UnknownType(0x80)));
        assert_eq!(decode(&[]), Err(FrameError::Truncated));
    }

    #[test]
    fn ack_frames_roundtrip_and_refuse_disorder() {
        let ranges = [
            AckRange {
                sequence: 65_530,
                extra: 9,
                first_chunk: 0,
                last_chunk: 255,
            },
            AckRange {
                sequence: 5,
                extra: 0,
                first_chunk: 3,
                last_chunk: 4,
            },
        ];
        let mut buf = Vec::new();
        write_ack(&mut buf, 1500, &ranges);
        let (frame, used) = decode(&buf).unwrap();
        assert_eq!(used, ACK_HEADER + 2 * ACK_ENTRY);
        let Frame::Ack(ack) = frame else {
            panic!("{frame:?}")
        };
        assert_eq!(ack.delay_micros, 1500);
        assert_eq!(ack.ranges().collect::<Vec<_>>(), ranges);
        // Overlapping (5 is inside the first range if it runs further), reversed, or empty.
        let bad = |ranges: &[AckRange]| {
            let mut buf = Vec::new();
            write_ack(&mut buf, 0, ranges);
            decode(&buf).unwrap_err()
        };
        let mut overlap = ranges;
        overlap[0].extra = 11;
        assert_eq!(bad(&overlap), FrameError::AckRanges);
        assert_eq!(bad(&[ranges[1], ranges[0]]), FrameError::AckRanges);
        let mut chunks = ranges;
        chunks[1].first_chunk = 5;
        assert_eq!(bad(&chunks), FrameError::AckRanges);
        let mut wide = ranges;
        wide[0].extra = 40_000;
        wide[1].sequence = 40_000;
        assert_eq!(bad(&wide[..1]), FrameError::AckRanges);
        let same = |first_chunk| {
            let mut buf = Vec::new();
            let mut next = ranges[1];
            next.first_chunk = first_chunk;
            next.last_chunk = first_chunk;
            write_ack(&mut buf, 0, &[ranges[1], next]);
            decode(&buf).map(|_| ())
        };
        assert_eq!(same(5), Ok(()), "chunks 3..=4, then 5 of the same sequence");
        assert_eq!(same(4), Err(FrameError::AckRanges));
        assert_eq!(decode(&[ACK, 0, 0, 0]), Err(FrameError::AckRanges));
        assert_eq!(decode(&[ACK, 0, 0, 1, 0]), Err(FrameError::Truncated));
    }
}
