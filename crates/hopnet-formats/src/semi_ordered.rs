//! Semi-ordered UDP (`spec/context-semi-ordered-udp.txt`): every datagram is a flags byte, a
//! 24-bit big-endian id and a payload to the end.
//!
//! The flags byte is read from its most significant bit: the control bit, two reliability
//! bits, the server-targeted bit, and four bits the seed leaves unused, zero here. A control
//! datagram (the control bit set) is a delivery confirmation: every other header bit is zero,
//! and its payload is the confirmed ids, three bytes each, to the end. The container's
//! `bit_order = "msb"` packs the flags from the high bit; the enum's one-bit tag is the
//! control bit.

use hopnet_codec::Rabbit;

/// How a package is delivered: the flags byte's second and third bits (mask `0b0110_0000`).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(2)]
pub enum Reliability {
    /// `00`: may be lost, duplicated or reordered.
    Unreliable,
    /// `01`: delivered once, in any order.
    Unordered,
    /// `10`: delivered once, after every reliable package sent before it.
    SemiOrdered,
}

/// A package id as a confirmation lists it: three bytes, big-endian.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[rabbit(endian = "big")]
pub struct PackageId(#[rabbit(bytes = 3)] pub u32);

/// The most payload bytes a package carries.
pub const MAX_PAYLOAD: usize = 504;

/// One datagram: a package of user data, or a delivery confirmation (the control bit, the
/// flags byte's most significant bit).
#[derive(Rabbit, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(bit_order = "msb")]
#[bits(1)]
pub enum Datagram {
    /// User data (control bit 0).
    Package {
        /// The second and third bits.
        reliability: Reliability,
        /// The fourth bit: for the server rather than every other participant.
        server_targeted: bool,
        /// The package id: the last three header bytes, after the flags byte's four unused
        /// bits.
        #[rabbit(pad_before = 4)]
        #[bits(24)]
        id: u32,
        /// The user data, to the end of the datagram.
        #[rabbit(to_end, max_len = MAX_PAYLOAD)]
        payload: Vec<u8>,
    },
    /// A delivery confirmation (control bit 1): the other 31 header bits are zero, then the
    /// ids of the packages delivered.
    Confirmation {
        /// The confirmed ids, three bytes each, to the end of the datagram.
        #[rabbit(pad_before = 31, to_end)]
        ids: Vec<PackageId>,
    },
}
