//! Minecraft Java edition's server list ping, as the protocol's wiki (wiki.vg, now
//! minecraft.wiki's "Java Edition protocol" and "Server List Ping") documents it: what the
//! multiplayer screen and server lists send to a server's TCP port to show its description,
//! version and player counts.
//!
//! Every packet travels in a [`Frame`]: its length in bytes as a VarInt, then the packet, whose
//! first byte is its id. A VarInt is LEB128 of an `i32`'s two's complement bits
//! (`#[rabbit(leb128)]` on an `i32`: -1 is five bytes); a string is its length in bytes as a
//! VarInt, then UTF-8; other numbers are big-endian. The exchange: the client sends a
//! [`Handshake`] (next state 1, status) and a [`Serverbound::StatusRequest`]; the server
//! answers a [`Clientbound::StatusResponse`] holding JSON; the client may send a
//! [`Serverbound::Ping`], which the server echoes in a [`Clientbound::Pong`].
//!
//! Choices this crate made where the protocol leaves something open:
//!
//! - **A packet id is one byte.** Ids are VarInts, and every id of the status exchange (zero
//!   and one) is below 128, where a VarInt is that byte: each direction's packets are an enum
//!   with an eight-bit tag. An id from another state is an unknown variant.
//! - **Packets are grouped by state and direction**, as their ids are only unique there:
//!   [`Handshaking`] (client to server, before the state changes), [`Serverbound`] and
//!   [`Clientbound`] (the status state).
//! - **The status JSON is text.** It is kept as the string the server sent, not parsed: which
//!   fields it holds (description, players, version, favicon, ...) varies between servers
//!   and versions. It is at most 32767 UTF-16 units long by the protocol; this crate bounds it
//!   at [`MAX_JSON_BYTES`] bytes, what that many units take in UTF-8 at most.
//! - **A frame's length is computed** from its packet when encoding and checked when decoding:
//!   the packet must fill exactly the bytes the length gives. Compression (negotiated only in
//!   the login state) is not modelled.
//! - **The legacy ping** (`FE 01`, before 1.7) is not modelled.

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The longest server address the handshake carries, in bytes (255 UTF-16 units).
pub const MAX_ADDRESS_BYTES: usize = 255 * 3;
/// The longest status JSON, in bytes (32767 UTF-16 units).
pub const MAX_JSON_BYTES: usize = 32767 * 3;

/// One packet and its length: how every packet travels on the connection.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame<P> {
    /// The packet's length in bytes, its id included.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(leb128)]
    pub length: Computed<i32>,
    /// The packet.
    #[rabbit(byte_len = "length")]
    pub packet: P,
}

impl<P> Frame<P> {
    /// The frame of `packet`.
    pub fn new(packet: P) -> Self {
        Frame {
            length: Computed::new(),
            packet,
        }
    }
}

/// The handshake's frame.
pub type HandshakeFrame = Frame<Handshaking>;
/// A status request's or a ping's frame.
pub type ServerboundFrame = Frame<Serverbound>;
/// A status response's or a pong's frame.
pub type ClientboundFrame = Frame<Clientbound>;

/// The client's packets before the state changes.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(8)]
pub enum Handshaking {
    /// Id 0: who the client is and what it wants.
    Handshake(Handshake),
}

/// The handshake (id 0): the client's protocol, the address it connected to, and the state it
/// asks for.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Handshake {
    /// The client's protocol version (767 for 1.21; -1 when a pinger does not know).
    #[rabbit(leb128)]
    pub protocol_version: i32,
    /// The host name or address the client used, in bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(leb128)]
    pub address_len: Computed<i32>,
    /// The host name or address the client used.
    #[rabbit(byte_len = "address_len", max_len = MAX_ADDRESS_BYTES)]
    pub server_address: String,
    /// The port the client used.
    pub server_port: u16,
    /// 1 for status, 2 for login, 3 for a transfer.
    #[rabbit(leb128)]
    pub next_state: i32,
}

/// The client's packets in the status state.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
#[bits(8)]
pub enum Serverbound {
    /// Id 0: asks for the status.
    StatusRequest,
    /// Id 1: asks for this number back, to time the round trip.
    Ping {
        /// Any number; the vanilla client sends the time in milliseconds.
        payload: i64,
    },
}

/// The server's packets in the status state.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
#[bits(8)]
pub enum Clientbound {
    /// Id 0: the status, as JSON text.
    StatusResponse {
        /// The JSON's length in bytes.
        #[cfg_attr(feature = "serde", serde(skip))]
        #[rabbit(leb128)]
        json_len: Computed<i32>,
        /// The status: `{"version": {...}, "players": {...}, "description": ...}`.
        #[rabbit(byte_len = "json_len", max_len = MAX_JSON_BYTES)]
        json: String,
    },
    /// Id 1: the ping's number, back.
    Pong {
        /// The ping's payload.
        payload: i64,
    },
}
