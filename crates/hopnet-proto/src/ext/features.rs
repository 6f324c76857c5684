//! What a connection's two ends agree to use beyond the spec, and the arithmetic that follows
//! from it: the chunk size of an extended message.

use crate::chunk::CHUNK_SIZE;
use crate::packet::HEADER_LEN;

/// The spec's datagram: a 4-byte header and a 504-byte chunk. The smallest datagram size an
/// extended connection may agree on, and the default.
pub const SPEC_DATAGRAM: usize = HEADER_LEN + CHUNK_SIZE;

/// The largest datagram size an extended connection may agree on: an Ethernet frame's 1,500
/// bytes less the IPv4 and UDP headers. Beyond it a datagram is fragmented on most paths.
pub const MAX_DATAGRAM: usize = 1472;

/// Bytes of an extended datagram that are not frames: the marker byte.
pub(crate) const MARKER_LEN: usize = 1;

/// Bytes of the CRC-32 trailer, when agreed.
pub(crate) const CRC_LEN: usize = 4;

/// The longest header a data frame has: type, sequence, length (2 bytes), reliable index and
/// previous ordered index, on chunk 0 of a reliable ordered message.
pub(crate) const MAX_DATA_HEADER: usize = 9;

/// The byte kept after a full chunk's frame for an `ACK_NOW` (the sender's window filled).
pub(crate) const ACK_NOW_LEN: usize = 1;

/// The feature bits of the negotiation (PROTOCOL.md, "Extensions").
pub(crate) mod bits {
    pub const BATCHING: u16 = 1 << 0;
    pub const ACK_RANGES: u16 = 1 << 1;
    pub const CRC: u16 = 1 << 2;
    pub const COMPRESSION: u16 = 1 << 3;
}

/// The extensions of a connection: what its client offered and its server accepted, the same
/// on both ends. Extended framing itself (ordered and tracked delivery need it) comes with any
/// agreement, even one without a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Extensions {
    /// Several frames (chunks of several messages, acknowledgements) in one datagram.
    pub batching: bool,
    /// Acknowledgements of many chunks in one frame, delayed by a few milliseconds or until a
    /// number of chunks is owed.
    pub ack_ranges: bool,
    /// A CRC-32 after every extended datagram; a datagram whose CRC does not match is dropped.
    pub crc: bool,
    /// LZ4 compression of messages above the sender's threshold.
    pub compression: bool,
    /// The largest datagram either end sends, from 508 (the spec's) to 1,472 bytes.
    pub max_datagram_size: u16,
}

impl Extensions {
    /// Every feature, with the spec's datagram size.
    pub const ALL: Extensions = Extensions {
        batching: true,
        ack_ranges: true,
        crc: true,
        compression: true,
        max_datagram_size: SPEC_DATAGRAM as u16,
    };

    /// No feature: extended framing only.
    pub const NONE: Extensions = Extensions {
        batching: false,
        ack_ranges: false,
        crc: false,
        compression: false,
        max_datagram_size: SPEC_DATAGRAM as u16,
    };

    /// The feature bits on the wire.
    pub(crate) fn bits(&self) -> u16 {
        let mut b = 0;
        for (on, bit) in [
            (self.batching, bits::BATCHING),
            (self.ack_ranges, bits::ACK_RANGES),
            (self.crc, bits::CRC),
            (self.compression, bits::COMPRESSION),
        ] {
            if on {
                b |= bit;
            }
        }
        b
    }

    /// Extensions from feature bits (unknown bits ignored) and a datagram size.
    pub(crate) fn from_bits(b: u16, max_datagram_size: u16) -> Extensions {
        Extensions {
            batching: b & bits::BATCHING != 0,
            ack_ranges: b & bits::ACK_RANGES != 0,
            crc: b & bits::CRC != 0,
            compression: b & bits::COMPRESSION != 0,
            max_datagram_size,
        }
    }

    /// What both `self` and `other` support: the features of both, the smaller datagram.
    pub fn intersect(&self, other: &Extensions) -> Extensions {
        let size = self.max_datagram_size.min(other.max_datagram_size);
        Extensions::from_bits(self.bits() & other.bits(), size)
    }

    /// Whether every feature of `self` is in `other` and its datagram is no larger: whether an
    /// accept of `self` answers an offer of `other` truthfully.
    pub fn within(&self, other: &Extensions) -> bool {
        self.bits() & !other.bits() == 0 && self.max_datagram_size <= other.max_datagram_size
    }

    /// The datagram size, as a length.
    pub fn datagram_size(&self) -> usize {
        usize::from(self.max_datagram_size)
    }

    /// Bytes of payload in every chunk of an extended message but its last: what is left of a
    /// datagram after the marker, the CRC, the longest data frame header and an `ACK_NOW`, so
    /// that any chunk fits one datagram with any header.
    pub fn chunk_size(&self) -> usize {
        let crc = if self.crc { CRC_LEN } else { 0 };
        self.datagram_size() - MARKER_LEN - crc - MAX_DATA_HEADER - ACK_NOW_LEN
    }

    /// Whether the datagram size is one an agreement may have.
    pub(crate) fn size_is_valid(size: u16) -> bool {
        (SPEC_DATAGRAM..=MAX_DATAGRAM).contains(&usize::from(size))
    }
}

/// An offer and a server's extensions that differ both ways (the client wants a CRC, the
/// server larger datagrams), for the tests of agreement here and in the negotiation.
#[cfg(test)]
pub(crate) fn differing() -> (Extensions, Extensions) {
    let offer = Extensions {
        max_datagram_size: 1200,
        ..Extensions::ALL
    };
    let server = Extensions {
        crc: false,
        max_datagram_size: 1472,
        ..Extensions::ALL
    };
    (offer, server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_and_truthful_accepts() {
        let (offer, server) = differing();
        let agreed = offer.intersect(&server);
        assert_eq!(
            agreed,
            Extensions {
                crc: false,
                max_datagram_size: 1200,
                ..Extensions::ALL
            }
        );
        assert!(agreed.within(&offer) && agreed.within(&server));
        assert!(
            !server.within(&offer),
            "a larger datagram was never offered"
        );
        assert!(!Extensions::ALL.within(&Extensions::NONE));
        assert_eq!(Extensions::from_bits(0xffff, 508), Extensions::ALL);
    }

    #[test]
    fn chunk_sizes_leave_room_for_any_header() {
        // 508 with a CRC: 508 - 1 - 4 - 9 - 1.
        assert_eq!(Extensions::ALL.chunk_size(), 493);
        let quic = Extensions {
            crc: false,
            max_datagram_size: 1200,
            ..Extensions::ALL
        };
        assert_eq!(quic.chunk_size(), 1189);
        assert!(Extensions::size_is_valid(508) && Extensions::size_is_valid(1472));
        assert!(!Extensions::size_is_valid(507) && !Extensions::size_is_valid(1473));
    }
}
