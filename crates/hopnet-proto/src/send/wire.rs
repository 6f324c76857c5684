//! How a message's chunks are framed: as the spec's datagrams or as data frames of the
//! extended wire, fixed when the message gets its sequence id.
//!
//! A message sent before the connection agreed to the extensions keeps the spec's framing to
//! the end (its retransmissions too), so that a receiver never has to reassemble one message
//! from chunks of two sizes; so does a message too large for 256 extended chunks (at the
//! spec's datagram size with a CRC, an extended chunk is 493 bytes, 11 shorter than the
//! spec's).

use crate::chunk::{CHUNK_SIZE, MAX_CHUNKS};
use crate::event::Delivery;
use crate::ext::Extensions;
use crate::ext::frame::{DataHeader, has_index};
use crate::packet::{Flags, HEADER_LEN, Header};

/// The framing of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// The spec's: a 4-byte header and a chunk of up to 504 bytes per datagram.
    Spec {
        /// `REL` on every chunk (reliable and tracked messages).
        rel: bool,
    },
    /// Data frames of the extended wire.
    Ext(ExtWire),
}

/// What every data frame of an extended message repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExtWire {
    pub chunk_size: usize,
    pub delivery: Delivery,
    pub compressed: bool,
    pub index: Option<u16>,
    pub after: Option<u16>,
}

impl Wire {
    /// Bytes of payload in every chunk but the last.
    #[inline]
    pub fn chunk_size(&self) -> usize {
        match self {
            Wire::Spec { .. } => CHUNK_SIZE,
            Wire::Ext(e) => e.chunk_size,
        }
    }

    #[inline]
    pub fn is_spec(&self) -> bool {
        matches!(self, Wire::Spec { .. })
    }

    fn data_header(e: &ExtWire, seq: u16, chunk: u8, fin: bool) -> DataHeader {
        DataHeader {
            sequence: seq,
            chunk,
            fin,
            compressed: e.compressed,
            delivery: e.delivery,
            index: if chunk == 0 { e.index } else { None },
            after: if chunk == 0 { e.after } else { None },
        }
    }

    /// The bytes chunk `chunk` (`fin` if the last) of `len` bytes takes: a whole datagram on
    /// the spec's wire, a frame on the extended one.
    pub fn encoded_len(&self, seq: u16, chunk: u8, fin: bool, len: usize) -> usize {
        match self {
            Wire::Spec { .. } => HEADER_LEN + len,
            Wire::Ext(e) => Self::data_header(e, seq, chunk, fin).encoded_len(len) + len,
        }
    }

    /// Appends chunk `chunk` of message `seq` to `buf`: a spec datagram, or a data frame.
    #[inline]
    pub fn write(&self, buf: &mut Vec<u8>, seq: u16, chunk: u8, fin: bool, bytes: &[u8]) {
        match self {
            Wire::Spec { rel } => {
                let mut flags = if *rel { Flags::REL } else { Flags::NONE };
                if fin {
                    flags = flags | Flags::FIN;
                }
                buf.extend_from_slice(&Header::new(flags, chunk, seq).encode());
                buf.extend_from_slice(bytes);
            }
            Wire::Ext(e) => Self::data_header(e, seq, chunk, fin).write(buf, bytes),
        }
    }
}

/// What a connection that sends on the extended wire needs to frame new messages: the
/// agreement, and the reliable indexes of the order information.
#[derive(Debug, Clone)]
pub(crate) struct ExtSender {
    pub ext: Extensions,
    pub compression_threshold: usize,
    /// The reliable index of the next reliable, reliable ordered or semi-ordered message.
    next_index: u16,
    /// The reliable index of the last reliable ordered or semi-ordered message.
    last_ordered: Option<u16>,
}

impl ExtSender {
    pub fn new(ext: Extensions, compression_threshold: usize) -> ExtSender {
        ExtSender {
            ext,
            compression_threshold,
            next_index: 0,
            last_ordered: None,
        }
    }

    /// Whether a message of `len` bytes (as sent, after compression) fits 256 extended chunks.
    pub fn fits(&self, len: usize) -> bool {
        len <= MAX_CHUNKS * self.ext.chunk_size()
    }

    /// Whether a message of `len` bytes should be offered to the compressor.
    pub fn compresses(&self, len: usize) -> bool {
        self.ext.compression && len >= self.compression_threshold
    }

    /// The framing of a new message, numbering it if it is reliable.
    pub fn frame(&mut self, delivery: Delivery, compressed: bool) -> ExtWire {
        let mut wire = ExtWire {
            chunk_size: self.ext.chunk_size(),
            delivery,
            compressed,
            index: None,
            after: None,
        };
        if has_index(delivery) {
            let index = self.next_index;
            self.next_index = index.wrapping_add(1);
            wire.index = Some(index);
            if delivery == Delivery::ReliableOrdered {
                wire.after = self.last_ordered;
            }
            if delivery.is_ordered() {
                self.last_ordered = Some(index);
            }
        }
        wire
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_count_reliable_messages_and_chain_ordered_ones() {
        let mut s = ExtSender::new(Extensions::ALL, 128);
        let u = s.frame(Delivery::Unreliable, false);
        assert_eq!((u.index, u.after), (None, None));
        let r = s.frame(Delivery::Reliable, false);
        let o1 = s.frame(Delivery::ReliableOrdered, false);
        let t = s.frame(Delivery::Tracked, false);
        let so = s.frame(Delivery::SemiOrdered, false);
        let o2 = s.frame(Delivery::ReliableOrdered, true);
        assert_eq!(r.index, Some(0));
        assert_eq!((o1.index, o1.after), (Some(1), None));
        assert_eq!(t.index, None);
        assert_eq!((so.index, so.after), (Some(2), None));
        assert_eq!(
            (o2.index, o2.after, o2.compressed),
            (Some(3), Some(2), true)
        );
        assert_eq!(o2.chunk_size, 493);
        assert!(s.fits(256 * 493) && !s.fits(256 * 493 + 1));
    }

    #[test]
    fn spec_and_extended_chunks_take_what_they_say() {
        let spec = Wire::Spec { rel: true };
        let mut buf = Vec::new();
        spec.write(&mut buf, 9, 0, true, &[1, 2]);
        assert_eq!(buf, [0x05, 0, 0, 9, 1, 2]);
        assert_eq!(spec.encoded_len(9, 0, true, 2), buf.len());
        let ext = Wire::Ext(ExtSender::new(Extensions::ALL, 128).frame(Delivery::Reliable, false));
        buf.clear();
        ext.write(&mut buf, 9, 0, true, &[1, 2]);
        assert_eq!(ext.encoded_len(9, 0, true, 2), buf.len());
        assert_eq!(buf, [0x64, 0, 9, 2, 0, 0, 1, 2]);
    }
}
