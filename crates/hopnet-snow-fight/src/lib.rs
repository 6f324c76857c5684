//! Every message of the game protocol (the repository's `spec/game-protocol.md`, section "Messages"),
//! declared with `#[derive(Rabbit)]`: the schema crate a game client or server imports.
//!
//! A server sends [`ServerMessage`]s: timed [`Event`]s (a [`Snapshot`] of the world every tick,
//! [`GameOver`] at the end) and [`Response`]s to requests. A client sends [`ClientMessage`]s:
//! [`Request`]s (`Ping`, `Init`) that the server answers on the same [`ChannelId`], and
//! [`Action`]s of the player ([`Break`], [`Throw`], [`Move`]).
//!
//! ```
//! use hopnet_snow_fight::*;
//!
//! // A world of one tree and one player, sent at tick 7.
//! let snapshot = Snapshot::from(vec![
//!     Entity::new(1, Object {
//!         position: Point::new(10.0, 20.0, 0.0),
//!         kind: ObjectKind::Tree,
//!         durability: Some(3.5),
//!         health: 10,
//!         max_health: 10,
//!     }),
//!     Entity::new(2, Player {
//!         position: Point::new(12.5, 20.0, 0.0),
//!         movement: Direction::NORTH | Direction::EAST,
//!         holding: None,
//!         breaking: Some(EntityId(1)),
//!         owner: PlayerId(0),
//!         health: 100,
//!         max_health: 100,
//!     }),
//! ]);
//! // A server encodes the tick's snapshot once and sends the same bytes to every client.
//! let message = ServerMessage::snapshot(7, snapshot);
//!
//! let mut buffer = Vec::new();
//! hopnet_codec::encode_into(&message, &mut buffer)?;
//! assert_eq!(buffer.len(), hopnet_codec::encoded_len(&message));
//! assert_eq!(hopnet_codec::from_bytes::<ServerMessage>(&buffer)?, message);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Modules
//!
//! The types follow the spec's structure: [`server`] (what the server sends), [`world`] (the
//! state of the world inside snapshots), [`response`] (answers to requests), [`client`] (what
//! the client sends), [`ids`] (entity, player and channel ids: distinct types, plain `u32` on
//! the wire). Everything is re-exported at the crate root. [`notation`] prints the definitions
//! in the spec's notation; [`sample`] builds the deterministic world the benchmarks use.
//!
//! # Dialects
//!
//! The spec author's own implementation writes [`ClientMessage`]'s tag as 1 bit where the spec
//! text says `u32` (10 bits for 0 or 1); nothing else on the wire differs, and a server's
//! messages are the same in both. [`Dialect`] encodes and decodes a `ClientMessage` in either
//! encoding (the spec's is the default), and [`Dialect::detect`] tells a server which one a
//! client speaks from its first message; [`original`] declares the original's `ClientMessage`.
//!
//! ```
//! use hopnet_snow_fight::{ClientMessage, Dialect};
//!
//! // A client of the original implementation joins: its Init, with the 1-bit tag.
//! let bytes = Dialect::Original.to_bytes(&ClientMessage::init(0u32))?;
//! assert!(hopnet_codec::from_bytes::<ClientMessage>(&bytes).is_err()); // not the spec's encoding
//!
//! // The server detects the dialect once, then decodes that connection's messages with it.
//! let (dialect, message) = Dialect::detect(&bytes).expect("decodes in one dialect");
//! assert_eq!((dialect, message), (Dialect::Original, ClientMessage::init(0u32)));
//! let next = dialect.to_bytes(&ClientMessage::ping(1u32))?;
//! assert_eq!(dialect.from_bytes(&next)?, ClientMessage::ping(1u32));
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Features
//!
//! - `serde`: `Serialize` / `Deserialize` in the canonical JSON form of the conformance vectors
//!   (see the `json` module when the feature is on).
//!
//! The `rabbit-msg` tool, which encodes and decodes any message between that JSON form and hex,
//! prints the schema in the spec's notation and generates TypeScript codecs, is the `hopnet-msg`
//! crate.
//!
//! # Sizes
//!
//! Every message knows its size bounds at compile time ([`hopnet_codec::Encode::MIN_BITS`],
//! [`hopnet_codec::Encode::MAX_BITS`]). What a client sends is small and bounded: an [`Action`] takes
//! at most 98 bits, a [`Request`] at most 35 and a [`ClientMessage`] at most 108 (its 10-bit
//! tag, then an action). Each always fits one 504-byte chunk ([`CHUNK_BITS`]); the crate asserts
//! this in a `const`, so a change that broke it would not compile.
//!
//! What a server sends is unbounded: a [`Snapshot`] holds as many entities as the world has, and
//! an error text ([`ErrorMessage`]) is as long as the server makes it. So [`ServerMessage`],
//! [`Event`], [`EventKind`], [`Response`], [`ResponseKind`], [`Connect`], [`ErrorMessage`] and
//! [`Snapshot`] have `MAX_BITS == None`, and a big snapshot travels in many chunks: the
//! transport's largest message, 256 chunks, holds some 6,400 entities of the benchmark sample's
//! kind (about 20 bytes each; a little less in a smaller world, whose ids are shorter).
//!
//! ```
//! use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_event};
//!
//! let largest = 256 * 504; // bytes: the transport's 256 chunks of 504
//! let fits = |entities| hopnet_codec::encoded_len(&sample_event(entities, DEFAULT_SEED)) <= largest;
//! assert!(fits(6_400) && !fits(6_600));
//! ```
//!
//! # Growing the schema
//!
//! A game built on this protocol adds messages of its own in its own crate, by deriving
//! `Rabbit` on them and using this crate's types as fields. An enum's tag is as wide as its
//! variants need, unless `#[bits(N)]` says otherwise; a new variant that still fits the tag does
//! not change the encoding of the old ones, so give an enum that will grow a tag wider than it
//! needs today:
//!
//! ```
//! use hopnet_snow_fight::{EntityId, Point};
//! use hopnet_codec::Rabbit;
//!
//! /// Version 1 of a game's own chat / emote message.
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[bits(4)] // room for 16 variants, 2 used
//! enum Social {
//!     Chat { text: String },
//!     Wave { at: EntityId },
//! }
//!
//! /// Version 2 adds a variant at the end: the old ones keep their index and tag width.
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[bits(4)]
//! enum SocialV2 {
//!     Chat { text: String },
//!     Wave { at: EntityId },
//!     Point { at: Point },
//! }
//!
//! let old = hopnet_codec::to_bytes(&Social::Wave { at: EntityId(7) })?;
//! assert_eq!(hopnet_codec::from_bytes::<SocialV2>(&old)?, SocialV2::Wave { at: EntityId(7) });
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! Without `#[bits(4)]` the tag of a two-variant enum is 1 bit and a third variant would make it
//! 2: every old encoding would change. [`ClientMessage`] needs no such care: the spec writes its
//! tag as a `u32`, so it has room for any number of new kinds of client message. The spec's own
//! enums have the exact widths the spec gives them; extending those is a change of the protocol.
//! See `examples/custom_message.rs` in the workspace for a whole downstream message type.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// `From` each variant's payload type for an enum whose variants are named after their
/// payload types: a message is built from its part (`ClientMessage::from(request)`).
macro_rules! from_variants {
    ($enum:ident: $($variant:ident),+ $(,)?) => {$(
        impl From<$variant> for $enum {
            fn from(value: $variant) -> Self {
                $enum::$variant(value)
            }
        }
    )+};
}

pub mod client;
pub mod delta;
pub mod dialect;
pub mod ids;
#[cfg(feature = "serde")]
pub mod json;
pub mod notation;
pub mod original;
pub mod response;
pub mod sample;
pub mod scoped;
pub mod server;
pub mod world;

pub use client::{
    Action, Break, ClientMessage, DeltaRequest, Move, Request, RequestKind, ScopedRequest, Throw,
};
pub use dialect::{DetectError, Dialect, UnknownDialect};
pub use ids::{ChannelId, EntityId, PlayerId};
pub use response::{Connect, ErrorMessage, Response, ResponseKind};
pub use server::{Event, EventKind, GameOver, ServerMessage};
pub use world::{Direction, Entity, EntityKind, Object, ObjectKind, Player, Point, Snapshot};

/// The largest payload of one chunk of the transport, in bits (504 bytes).
pub const CHUNK_BITS: u64 = 504 * 8;

/// Whether a type's largest encoding fits one chunk.
const fn fits_one_chunk(max_bits: Option<u64>) -> bool {
    match max_bits {
        Some(bits) => bits <= CHUNK_BITS,
        None => false,
    }
}

const _: () = assert!(fits_one_chunk(<Action as hopnet_codec::Encode>::MAX_BITS));
const _: () = assert!(fits_one_chunk(<Request as hopnet_codec::Encode>::MAX_BITS));
const _: () = assert!(fits_one_chunk(
    <ClientMessage as hopnet_codec::Encode>::MAX_BITS
));
const _: () = assert!(fits_one_chunk(
    <original::ClientMessage as hopnet_codec::Encode>::MAX_BITS
));
// The server's messages carry snapshots and texts: no bound.
const _: () = assert!(<ServerMessage as hopnet_codec::Encode>::MAX_BITS.is_none());
