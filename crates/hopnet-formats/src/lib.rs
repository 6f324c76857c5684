//! Other games' and game servers' wire formats, declared byte for byte with `#[derive(Rabbit)]`.
//!
//! The repository's `spec/` holds, besides Snow Fight's protocol, the formats of four other
//! games; game servers also answer queries in formats of their own. None is Rabbit's bit
//! stream: they are byte-aligned, big- or little-endian, with flags in the high bits of a
//! byte, lengths and checksums computed from other fields, lists that run to the end of the
//! datagram and compressed bodies. Each module declares one of them with the derive's
//! byte-layout attributes (`hopnet_codec::guide::layouts`), so that the same
//! `hopnet_codec::to_bytes` / `hopnet_codec::from_bytes` write and read exactly their bytes:
//!
//! | Module | Format | Top-level types |
//! |---|---|---|
//! | [`semi_ordered`] | Semi-ordered UDP: flags in the high bits, 24-bit big-endian ids | [`semi_ordered::Datagram`] |
//! | [`dogfight`] | Dogfight's binary codec (Elixir), big-endian; the same state in Rabbit's own bit-packing ([`dogfight::packed`]) | [`dogfight::State`], [`dogfight::Event`], [`dogfight::packed::State`] |
//! | [`woke`] | the WOKE transport of an R-Type, little-endian | [`woke::Packet`] |
//! | [`rtype`] | the R-TYPE RFC's frame: LZ4 body and four CRC32s, little-endian | [`rtype::Frame`] |
//! | [`dns`] | DNS messages: flags in the high bits, sections counted by the header, names ended by an empty label | [`dns::Message`] |
//! | [`minecraft`] | Minecraft Java edition's server list ping: VarInt-framed packets, JSON status | [`minecraft::HandshakeFrame`], [`minecraft::ServerboundFrame`], [`minecraft::ClientboundFrame`] |
//! | [`raknet`] | RakNet's offline ping and pong (Minecraft Bedrock's server list) | [`raknet::Offline`] |
//! | [`source_query`] | the Source engine's server queries (A2S): C strings, little-endian | [`source_query::InfoRequest`], [`source_query::InfoResponse`], [`source_query::PlayerResponse`], [`source_query::RulesResponse`], ... |
//!
//! Where a seed leaves something open (a byte order, which bits of a word hold its flags), the
//! module's documentation says what this crate chose. With the `serde` feature every type is
//! also `Serialize` and `Deserialize` (computed fields are left out: they hold nothing), which
//! is how `rabbit-msg` reads and prints them as JSON.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dns;
pub mod dogfight;
pub mod minecraft;
pub mod raknet;
pub mod rtype;
pub mod semi_ordered;
pub mod source_query;
pub mod woke;
