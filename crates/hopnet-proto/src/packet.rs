//! The 4-byte packet header `[flags, chunk, sequence_hi, sequence_lo]` and sequence arithmetic.
//!
//! Every datagram after the handshake starts with this header. The flags byte is read bit 0 =
//! least significant bit, as in Rabbit and in the spec author's implementation. Reserved bits are
//! sent as zero and ignored on receipt (except for the 4-byte handshake rule, see
//! [`is_handshake_shaped`] and [`is_probe`]).

use std::fmt;

/// Size of the packet header in bytes.
pub const HEADER_LEN: usize = 4;

/// The flags byte of the header.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u8);

impl Flags {
    /// No flag set.
    pub const NONE: Flags = Flags(0);
    /// The chunk is reliable and must be acknowledged.
    pub const REL: Flags = Flags(0x01);
    /// The packet acknowledges the chunk with the same chunk index and sequence.
    pub const ACK: Flags = Flags(0x02);
    /// The chunk is the last of its sequence.
    pub const FIN: Flags = Flags(0x04);
    /// The connection has closed.
    pub const END: Flags = Flags(0x08);
    /// The four bits the spec reserves. Sent as zero, ignored on receipt.
    pub const RESERVED_MASK: u8 = 0xf0;

    /// Flags from a raw byte; reserved bits are dropped, so they are ignored everywhere.
    pub const fn from_bits_truncate(bits: u8) -> Flags {
        Flags(bits & !Self::RESERVED_MASK)
    }

    /// The raw byte (reserved bits are always zero).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every flag of `other` is set in `self`.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of two flag sets.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.union(rhs)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (Flags::REL, "REL"),
            (Flags::ACK, "ACK"),
            (Flags::FIN, "FIN"),
            (Flags::END, "END"),
        ];
        let mut list = f.debug_set();
        for (flag, name) in names {
            if self.contains(flag) {
                list.entry(&format_args!("{name}"));
            }
        }
        list.finish()
    }
}

/// A decoded packet header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The flags (reserved bits already cleared).
    pub flags: Flags,
    /// Index of the chunk within its sequence.
    pub chunk: u8,
    /// The sequence (message) id.
    pub sequence: u16,
}

impl Header {
    /// A header from its parts.
    pub const fn new(flags: Flags, chunk: u8, sequence: u16) -> Header {
        Header {
            flags,
            chunk,
            sequence,
        }
    }

    /// The header-only `ACK` of `(chunk, sequence)`: `ACK` alone, and `FIN` too for chunk 255.
    ///
    /// Chunk 255 can only be the last chunk of its sequence, so a strict reader of the spec
    /// takes a packet naming chunk 255 without `FIN` for a protocol violation and drops it;
    /// `ACK | FIN` is also what the spec author's implementation sends for every `ACK`.
    /// PROTOCOL.md, "Acknowledgement".
    pub const fn ack(chunk: u8, sequence: u16) -> Header {
        let flags = if chunk == u8::MAX {
            Flags::ACK.union(Flags::FIN)
        } else {
            Flags::ACK
        };
        Header::new(flags, chunk, sequence)
    }

    /// The 4 bytes on the wire: flags, chunk, sequence big-endian.
    pub const fn encode(self) -> [u8; HEADER_LEN] {
        let [hi, lo] = self.sequence.to_be_bytes();
        [self.flags.bits(), self.chunk, hi, lo]
    }

    /// Splits a datagram into its header and the chunk bytes after it. `None` if it is shorter
    /// than a header. Reserved flag bits are ignored.
    pub fn decode(datagram: &[u8]) -> Option<(Header, &[u8])> {
        let (head, rest) = datagram.split_first_chunk::<HEADER_LEN>()?;
        let header = Header {
            flags: Flags::from_bits_truncate(head[0]),
            chunk: head[1],
            sequence: u16::from_be_bytes([head[2], head[3]]),
        };
        Some((header, rest))
    }
}

/// Whether a 4-byte value could only be a handshake message, never a header a conforming peer
/// sends: a reserved flag bit is set in its first byte. Our server picks its `Pepper` so that
/// both the `Challenge` and the expected `ChallengeResponse` have this shape (PROTOCOL.md).
pub const fn is_handshake_shaped(value: [u8; 4]) -> bool {
    value[0] & Flags::RESERVED_MASK != 0
}

/// The flags of a client's probe (PROTOCOL.md, "The client's handshake"): `REL | FIN`.
pub const PROBE_FLAGS: Flags = Flags::REL.union(Flags::FIN);

/// The chunk index of a client's probe.
pub const PROBE_CHUNK: u8 = u8::MAX;

/// Whether a 4-byte value is a client's probe: `REL | FIN`, chunk 255, nothing after the
/// header. To a spec peer that is the empty last chunk of a 256-chunk message, which it
/// acknowledges and keeps waiting for chunks 0 to 254 of; no sender that splits a payload as
/// the spec says writes it (255 full chunks hold 128,520 bytes, and only the empty payload has
/// an empty last chunk). Our server answers it with an `ACK` and stores nothing.
pub const fn is_probe(value: [u8; 4]) -> bool {
    value[0] == PROBE_FLAGS.bits() && value[1] == PROBE_CHUNK
}

/// Serial-number arithmetic on 16-bit sequences (RFC 1982): the signed distance from `b` to `a`,
/// in `-32768..=32767`. Positive means `a` is newer than `b`.
pub const fn seq_diff(a: u16, b: u16) -> i16 {
    a.wrapping_sub(b) as i16
}

/// RFC 1982 "greater than": `a` is newer than `b`. The exactly opposite point (distance 32768)
/// is undefined in the RFC; we call it older, so the relation is never true both ways.
pub const fn seq_newer(a: u16, b: u16) -> bool {
    seq_diff(a, b) > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_roundtrip_and_reserved_bits() {
        let h = Header::new(Flags::REL | Flags::FIN, 3, 258);
        assert_eq!(h.encode(), [0x05, 0x03, 0x01, 0x02]);
        let (d, rest) = Header::decode(&[0xf5, 3, 1, 2, 9]).unwrap();
        assert_eq!(d, h);
        assert_eq!(rest, &[9]);
        assert!(Header::decode(&[1, 2, 3]).is_none());
    }

    #[test]
    fn acks_of_chunk_255_carry_fin() {
        assert_eq!(Header::ack(3, 258).encode(), [0x02, 3, 1, 2]);
        assert_eq!(Header::ack(255, 258).encode(), [0x06, 255, 1, 2]);
        assert!(is_probe([0x05, 255, 0xff, 0x12]));
        assert!(!is_probe([0x05, 254, 0xff, 0x12]));
        assert!(!is_probe([0x07, 255, 0xff, 0x12]));
        assert!(!is_probe([0x15, 255, 0xff, 0x12]));
    }

    #[test]
    fn serial_arithmetic_wraps() {
        assert!(seq_newer(0, 65535));
        assert!(seq_newer(10, 65530));
        assert!(!seq_newer(65530, 10));
        assert!(!seq_newer(5, 5));
        assert!(!seq_newer(32768, 0));
        assert!(!seq_newer(0, 32768));
        assert_eq!(seq_diff(1, 65535), 2);
    }
}
