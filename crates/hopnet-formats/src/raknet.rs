//! RakNet's offline messages, as a Minecraft Bedrock server answers them on its UDP port (19132
//! by default): the unconnected ping that server lists send, and the unconnected pong that
//! carries the server's advertisement. Layouts as the Bedrock protocol documentation (wiki.vg's
//! "Raknet Protocol" page) and RakNet's own sources give them.
//!
//! Each message is one datagram: its id byte, then big-endian numbers and the 16-byte offline
//! magic ([`OFFLINE_MAGIC`]), which tells RakNet's offline messages from its connected ones.
//! The magic is a field of its own type, [`OfflineMagic`], as it stands between other fields.
//!
//! Choices this crate made where the format leaves something open:
//!
//! - **Both pings are one variant each**: id `0x01` (unconnected ping) and `0x02` (the same,
//!   answered only while the server has open connections).
//! - **The pong's advertisement is text**: its length as a big-endian `u16`, then the bytes,
//!   read as UTF-8 and not split. Bedrock servers send `MCPE;motd;protocol;version;players;
//!   max players;server id;sub-motd;game mode;...`; the fields vary between versions.
//! - **The ping's trailing client GUID** is required (RakNet 4 always sends it).

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The bytes that mark an offline message.
pub const OFFLINE_MAGIC: [u8; 16] = [
    0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, 0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78,
];

/// The offline magic, as a field: sixteen constant bytes, checked when decoding.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(magic = b"\x00\xff\xff\x00\xfe\xfe\xfe\xfe\xfd\xfd\xfd\xfd\x12\x34\x56\x78")]
pub struct OfflineMagic;

/// An offline message: its id byte, then its fields.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
#[bits(8)]
pub enum Offline {
    /// `0x01`: is anyone there?
    #[rabbit(index = 0x01)]
    UnconnectedPing(Ping),
    /// `0x02`: the same, answered only while the server has open connections.
    #[rabbit(index = 0x02)]
    UnconnectedPingOpenConnections(Ping),
    /// `0x1c`: the server's answer.
    #[rabbit(index = 0x1c)]
    UnconnectedPong(Pong),
}

/// An unconnected ping's fields.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Ping {
    /// The sender's time, in milliseconds since it started; echoed in the pong.
    pub time: i64,
    /// The offline magic.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub magic: OfflineMagic,
    /// The client's GUID.
    pub client_guid: i64,
}

/// An unconnected pong's fields.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Pong {
    /// The ping's time, echoed.
    pub time: i64,
    /// The server's GUID.
    pub server_guid: i64,
    /// The offline magic.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub magic: OfflineMagic,
    /// The advertisement's length in bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub advertisement_len: Computed<u16>,
    /// The advertisement: `MCPE;Dedicated Server;390;1.14.60;0;10;...`.
    #[rabbit(byte_len = "advertisement_len")]
    pub advertisement: String,
}
