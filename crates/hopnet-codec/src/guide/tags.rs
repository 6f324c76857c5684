//! The tag: how an enum's variant is written.
//!
//! # The tag
//!
//! Variants are numbered from 0 in declaration order. By default the tag has the fewest bits
//! that hold the largest index: no bits at all for a single variant, 1 bit for two, 2 bits for
//! three or four, and so on.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! enum Direction { North, East, South, West }
//!
//! assert_eq!(hopnet_codec::to_bytes(&Direction::West)?, [0b11]);
//! assert_eq!((Direction::MIN_BITS, Direction::MAX_BITS), (2, Some(2)));
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! enum Only { It(u8) }
//!
//! assert_eq!(hopnet_codec::to_bytes(&Only::It(9))?, [9]); // no tag
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! `#[bits(N)]` on the enum fixes the width (1 to 64 bits); it is a compile error if N bits
//! cannot hold every index. `#[rabbit(tag = "varint")]` writes the index as a `u32`
//! variable-length integer instead, as the spec's `ClientMessage` does (10 bits for indices
//! below 256). `#[rabbit(index = K)]` pins a variant's index; the variants after it continue
//! from K + 1, like Rust discriminants. Indices must be unique (a compile error otherwise).
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[bits(4)]
//! enum Kind { Rock, Tree }
//!
//! assert_eq!(hopnet_codec::to_bytes(&Kind::Tree)?, [0b0001]);
//! assert_eq!(Kind::MAX_BITS, Some(4));
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(tag = "varint")]
//! enum ClientMessage {
//!     Join { name: String },
//!     Leave,
//!     #[rabbit(index = 300)]
//!     Ping,
//!     Pong, // 301
//! }
//!
//! // Index 1: `00` (one byte follows), then 0000_0001, least significant bit first.
//! assert_eq!(hopnet_codec::to_bytes(&ClientMessage::Leave)?, [0x04, 0x00]);
//! assert_eq!(ClientMessage::Pong.encoded_bits(), 2 + 16);
//!
//! // An index that names no variant is an error, never a panic.
//! let err = hopnet_codec::from_bytes::<ClientMessage>(&hopnet_codec::to_bytes(&7u32)?).unwrap_err();
//! assert!(matches!(err, hopnet_codec::Error::UnknownVariant { type_name: "ClientMessage", index: 7, .. }));
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
