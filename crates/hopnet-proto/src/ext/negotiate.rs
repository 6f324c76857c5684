//! The offer and the accept: how a client proposes extensions and a server agrees, in
//! datagrams every spec peer reads as an `ACK` of nothing.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------+---------------+-------------------------------+
//! |  Flags 0x06   |   Chunk 255   |           Sequence            |
//! +---------------+---------------+---------------+---------------+
//! |   Magic 'N'   |   Magic 'X'   |    Version    |     Kind      |
//! +---------------+---------------+---------------+---------------+
//! |           Features            |       Max datagram size       |
//! +-------------------------------+-------------------------------+
//! |                            CRC-32                             |
//! +---------------------------------------------------------------+
//! ```
//!
//! The first four bytes are a spec header, the keepalive's: `ACK | FIN`, chunk 255 of a
//! sequence 32,768 ids from the newest the sender has seen (see `connection/liveness.rs`). A spec
//! peer takes an `ACK` for a chunk it never has in flight, and ignores the payload, as it must
//! ignore any `ACK`'s; no reserved bit, and chunk 255 with `FIN`, so even a strict reader of
//! the spec finds nothing to object to. The CRC-32 (IEEE) covers every byte before it; bytes
//! between the fields and the CRC are reserved for later versions and ignored.

use super::features::Extensions;
use crate::packet::{Flags, HEADER_LEN};

/// The flags byte of a negotiation datagram: `ACK | FIN`, as in an `ACK` of chunk 255.
pub const NEGOTIATION_FLAGS: u8 = Flags::ACK.union(Flags::FIN).bits();
/// The chunk index of a negotiation datagram.
pub const NEGOTIATION_CHUNK: u8 = 255;
/// The magic after the header.
pub const MAGIC: [u8; 2] = *b"NX";
/// The version this implementation speaks.
pub const VERSION: u8 = 1;
/// Length of a negotiation datagram of this version.
pub const NEGOTIATION_LEN: usize = 16;

/// Which side of the negotiation a datagram is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A client proposes the extensions it supports.
    Offer,
    /// A server agrees to these (a subset of the offer).
    Accept,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Offer => 1,
            Kind::Accept => 2,
        }
    }
}

/// A decoded offer or accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Negotiation {
    /// Offer or accept.
    pub kind: Kind,
    /// The sender's version (at least 1).
    pub version: u8,
    /// The extensions offered or accepted.
    pub extensions: Extensions,
}

/// Why a datagram shaped like a negotiation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NegotiationError {
    /// The CRC-32 does not match: the datagram was corrupted.
    #[error("negotiation CRC mismatch")]
    Crc,
    /// Version 0, or a kind that is neither offer nor accept.
    #[error("unknown negotiation version or kind")]
    Unknown,
    /// A datagram size outside 508 to 1,472 bytes.
    #[error("datagram size {0} outside 508..=1472")]
    DatagramSize(u16),
}

/// Encodes an offer or accept. `sequence` goes in the header (see the module doc).
pub fn encode(kind: Kind, extensions: &Extensions, sequence: u16) -> [u8; NEGOTIATION_LEN] {
    let mut d = [0u8; NEGOTIATION_LEN];
    let [s_hi, s_lo] = sequence.to_be_bytes();
    let [f_hi, f_lo] = extensions.bits().to_be_bytes();
    let [m_hi, m_lo] = extensions.max_datagram_size.to_be_bytes();
    d[..12].copy_from_slice(&[
        NEGOTIATION_FLAGS,
        NEGOTIATION_CHUNK,
        s_hi,
        s_lo,
        MAGIC[0],
        MAGIC[1],
        VERSION,
        kind.code(),
        f_hi,
        f_lo,
        m_hi,
        m_lo,
    ]);
    let crc = crc32fast::hash(&d[..12]);
    d[12..].copy_from_slice(&crc.to_be_bytes());
    d
}

/// An offer or accept with `field` between `Max datagram size` and the CRC (the schema field,
/// [`super::schema`]); without one, the bytes of [`encode`].
pub fn encode_with(kind: Kind, extensions: &Extensions, sequence: u16, field: &[u8]) -> Vec<u8> {
    let plain = encode(kind, extensions, sequence);
    let mut d = Vec::with_capacity(NEGOTIATION_LEN + field.len());
    d.extend_from_slice(&plain[..12]);
    d.extend_from_slice(field);
    let crc = crc32fast::hash(&d);
    d.extend_from_slice(&crc.to_be_bytes());
    d
}

/// The bytes between `Max datagram size` and the CRC of a datagram that [`decode`] took:
/// later fields, empty in a datagram of 16 bytes.
pub fn later_fields(datagram: &[u8]) -> &[u8] {
    datagram
        .get(12..datagram.len().saturating_sub(4))
        .unwrap_or(&[])
}

/// Whether a datagram has the shape of a negotiation datagram: header, magic, room for the
/// fields and the CRC. Only such datagrams are decoded; anything else is a packet.
pub fn is_negotiation(datagram: &[u8]) -> bool {
    datagram.len() >= NEGOTIATION_LEN
        && datagram[0] == NEGOTIATION_FLAGS
        && datagram[1] == NEGOTIATION_CHUNK
        && datagram[HEADER_LEN..HEADER_LEN + 2] == MAGIC
}

/// Decodes a datagram for which [`is_negotiation`] holds.
pub fn decode(datagram: &[u8]) -> Result<Negotiation, NegotiationError> {
    let (body, crc) = datagram
        .split_last_chunk::<4>()
        .ok_or(NegotiationError::Unknown)?;
    if body.len() < 12 {
        return Err(NegotiationError::Unknown);
    }
    if crc32fast::hash(body) != u32::from_be_bytes(*crc) {
        return Err(NegotiationError::Crc);
    }
    let version = body[6];
    let kind = match body[7] {
        1 => Kind::Offer,
        2 => Kind::Accept,
        _ => return Err(NegotiationError::Unknown),
    };
    if version == 0 {
        return Err(NegotiationError::Unknown);
    }
    let features = u16::from_be_bytes([body[8], body[9]]);
    let size = u16::from_be_bytes([body[10], body[11]]);
    if !Extensions::size_is_valid(size) {
        return Err(NegotiationError::DatagramSize(size));
    }
    Ok(Negotiation {
        kind,
        version,
        extensions: Extensions::from_bits(features, size),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Header;

    #[test]
    fn a_spec_peer_reads_an_ack_of_nothing() {
        let offer = encode(Kind::Offer, &Extensions::ALL, 0x8123);
        let (header, rest) = Header::decode(&offer).unwrap();
        assert_eq!(header.flags, Flags::ACK | Flags::FIN);
        assert_eq!(offer[0] & Flags::RESERVED_MASK, 0);
        assert_eq!((header.chunk, header.sequence), (255, 0x8123));
        assert_eq!(rest.len(), 12);
        assert_eq!(hex(&offer[..12]), "06ff81234e580101000f01fc");
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn roundtrip_and_refusals() {
        let ext = Extensions {
            crc: false,
            max_datagram_size: 1200,
            ..Extensions::ALL
        };
        let d = encode(Kind::Accept, &ext, 7);
        assert!(is_negotiation(&d));
        let n = decode(&d).unwrap();
        assert_eq!((n.kind, n.version, n.extensions), (Kind::Accept, 1, ext));
        // Any flipped bit is caught by the CRC (or is no longer a negotiation at all).
        for bit in 0..NEGOTIATION_LEN * 8 {
            let mut bad = d;
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(!is_negotiation(&bad) || decode(&bad).is_err(), "bit {bit}");
        }
        // Longer: later versions' fields before the CRC are ignored.
        let mut longer = d[..12].to_vec();
        longer.extend_from_slice(&[9, 9]);
        let crc = crc32fast::hash(&longer);
        longer.extend_from_slice(&crc.to_be_bytes());
        assert_eq!(decode(&longer).unwrap().extensions, ext);
        // A datagram size out of range.
        let mut small = d[..12].to_vec();
        small[10..12].copy_from_slice(&100u16.to_be_bytes());
        let crc = crc32fast::hash(&small);
        small.extend_from_slice(&crc.to_be_bytes());
        assert_eq!(decode(&small), Err(NegotiationError::DatagramSize(100)));
        assert!(!is_negotiation(&d[..15]));
    }
}
