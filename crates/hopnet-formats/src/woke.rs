//! WOKE (`spec/context-woke-transport.txt`): the transport of an R-Type, packets of commands over
//! UDP.
//!
//! # Choices the seed leaves open
//!
//! - **Byte order: little-endian.** The seed gives its header and commands as C structs of
//!   `uint16_t` and `uint32_t` and never says how they are serialised; sent as they lie in
//!   memory on the machines such a game runs on (x86-64, ARM), they are little-endian.
//! - **The flags of `command_type`**: the 10-bit type is the `u16`'s low bits, the 6 flags its
//!   high bits, the first flag the most significant: bit 15 says reliable, bit 14 split, bits
//!   10 to 13 are reserved and zero. The seed's `0b10` (reliable) and `0b11` (split) are those
//!   two bits, first flag first; a split command that is not reliable (`0b01`) is refused, as
//!   the seed only supports splitting reliable commands.
//!
//! A packet is the 12-byte header (the magic `0x57`, the packet type, then
//! [`Header`]) and, for [`Packet::Commands`], its commands to the end; a
//! [`Packet::ConnectionRequest`] carries its optional validation payload to the end.

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The header after the magic byte and the packet type: 10 bytes.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
pub struct Header {
    /// The client's identifier.
    pub client_id: u16,
    /// This packet's sequence number (wrapping).
    pub sequence: u16,
    /// The last sequence number received.
    pub ack: u16,
    /// Which of the 32 packets before `ack` were received.
    pub ack_bitfield: u32,
}

/// A packet: the magic byte `0x57` (`'W'`), the packet type, the header, then what the type
/// carries.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(magic = b"W")]
#[bits(8)]
pub enum Packet {
    /// 0: a client asks to connect.
    ConnectionRequest {
        /// The header.
        header: Header,
        /// The optional validation payload, to the end.
        #[rabbit(to_end)]
        payload: Vec<u8>,
    },
    /// 1: the connection ends now.
    ConnectionClosed {
        /// The header.
        header: Header,
    },
    /// 2: commands.
    Commands {
        /// The header.
        header: Header,
        /// The commands, to the end.
        #[rabbit(to_end)]
        commands: Vec<Command>,
    },
    /// 3: nothing to send; keeps the connection alive.
    KeepAlive {
        /// The header.
        header: Header,
    },
}

/// One command: its type and flags, the fields its flags call for, then its data behind its
/// size.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
pub struct Command {
    /// The command's type: the low 10 bits of `command_type`.
    #[bits(10)]
    pub kind: u16,
    /// The two flags at the top of `command_type` (after 4 reserved zero bits) and what they
    /// call for.
    #[rabbit(pad_before = 4)]
    pub delivery: Delivery,
    /// `data_size`: the data's length in bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub data_size: Computed<u16>,
    /// The payload.
    #[rabbit(byte_len = "data_size")]
    pub data: Vec<u8>,
}

/// How a command is delivered: its two flags (reliable, then split) and the ids they bring.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
#[bits(2)]
pub enum Delivery {
    /// Flags `00`.
    Unreliable,
    /// Flags `10`: sent until acknowledged.
    #[rabbit(index = 2)]
    Reliable {
        /// Identifies the reliable command.
        reliable_id: u16,
    },
    /// Flags `11`: one part of a reliable command too large for one packet.
    Split {
        /// Identifies the reliable command.
        reliable_id: u16,
        /// Identifies the split command.
        split_id: u16,
        /// This part's index.
        split_index: u16,
        /// How many parts.
        split_count: u16,
    },
}
