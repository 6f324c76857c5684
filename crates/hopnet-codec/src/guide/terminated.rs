//! Text ended by a zero byte, and LEB128 integers: what other formats write where rabbit
//! writes a count or the spec's varint.
//!
//! | Where | Attribute | Codec type | Effect |
//! |---|---|---|---|
//! | field | `cstring` | [`CString`](crate::codec::CString) | a `String`'s UTF-8 bytes, then a zero byte |
//! | field | `leb128` | [`Leb128`](crate::codec::Leb128) | an integer's bits as ULEB128: an unsigned one as it is, a signed one as its two's complement bits at the type's width (Minecraft's VarInt) |
//! | field | `leb128_signed` | [`Leb128Signed`](crate::codec::Leb128Signed) | a signed integer as SLEB128: two's complement, the sign extended from the last group (DWARF, WebAssembly) |
//! | field | `leb128_zigzag` | [`Leb128ZigZag`](crate::codec::Leb128ZigZag) | a signed integer zig-zag interleaved, then ULEB128 (protobuf's `sint32`) |
//!
//! Each is one encoding: it does not combine with `bits`, `varint`, `max_len` or another
//! encoding on the same field, and the schema names it ([`Encoding::CString`],
//! [`Encoding::Leb128`] with its [`Leb128Form`](crate::schema::Leb128Form)). A string ended by
//! another byte, and lists ended by a terminator, are [`until`](super::lists).
//!
//! [`Encoding::CString`]: crate::schema::Encoding::CString
//! [`Encoding::Leb128`]: crate::schema::Encoding::Leb128
//!
//! # `cstring`: strings ended by a zero byte
//!
//! The Source engine's server queries, and many formats from C, end each string with a zero
//! byte instead of counting it. A string that holds a zero byte is an encode error (a reader
//! would stop inside it); a missing terminator is a decode error at the end of the input. The
//! string grows only by bytes the input holds, so hostile input cannot make the reader reserve
//! more than it sent.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(endian = "little")]
//! struct Rule {
//!     #[rabbit(cstring)]
//!     name: String,
//!     #[rabbit(cstring)]
//!     value: String,
//!     flags: u8,
//! }
//!
//! let rule = Rule { name: "mp_friendlyfire".into(), value: "0".into(), flags: 1 };
//! let bytes = hopnet_codec::to_bytes(&rule)?;
//! assert_eq!(bytes, b"mp_friendlyfire\x000\x00\x01");
//! assert_eq!(hopnet_codec::from_bytes::<Rule>(&bytes)?, rule);
//! assert!(hopnet_codec::from_bytes::<Rule>(b"mp_friendlyfire").is_err());
//! assert!(hopnet_codec::to_bytes(&Rule { name: "a\0b".into(), ..rule }).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `leb128`, `leb128_signed` and `leb128_zigzag`: variable-length integers of other formats
//!
//! LEB128 writes seven bits a byte, least significant group first, with the high bit of every
//! byte but the last set. A type of `B` bits takes at most `ceil(B / 7)` bytes
//! ([`leb128::max_bytes`](crate::codec::leb128::max_bytes)), so its size is bounded at compile
//! time; a reader refuses a longer run and a value too wide for the type.
//!
//! Formats write negative numbers three ways, one attribute each:
//!
//! - `leb128` writes the type's bits as an unsigned number: ULEB128 on an unsigned type, and
//!   on a signed one its two's complement bits at the type's width, so -1 as an `i32` is
//!   `ff ff ff ff 0f`. Minecraft's VarInt and VarLong are this (an `i32` and an `i64`).
//! - `leb128_signed` is SLEB128, as DWARF and WebAssembly write it: two's complement with the
//!   sign extended from bit 6 of the last byte, so -1 is `7f`. Signed types only.
//! - `leb128_zigzag` interleaves first (0, -1, 1, -2 become 0, 1, 2, 3), as protobuf's `sint`
//!   fields do. Signed types only.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Numbers {
//!     #[rabbit(leb128)]
//!     length: u32,
//!     #[rabbit(leb128_signed)]
//!     offset: i32,
//!     #[rabbit(leb128_zigzag)]
//!     delta: i64,
//!     #[rabbit(leb128)]
//!     protocol: i32,
//! }
//!
//! let n = Numbers { length: 624_485, offset: -123_456, delta: -1, protocol: -1 };
//! let bytes = hopnet_codec::to_bytes(&n)?;
//! assert_eq!(
//!     bytes,
//!     [0xe5, 0x8e, 0x26, 0xc0, 0xbb, 0x78, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f]
//! );
//! assert_eq!(hopnet_codec::from_bytes::<Numbers>(&bytes)?, n);
//! assert_eq!(Numbers::MAX_BITS, Some(8 * (5 + 5 + 10 + 5)));
//! // A `u8` takes at most two bytes, and 256 does not fit it.
//! #[derive(Rabbit, Debug)]
//! struct Small(#[rabbit(leb128)] u8);
//! assert!(hopnet_codec::from_bytes::<Small>(&[0x80, 0x02]).is_err());
//! assert!(hopnet_codec::from_bytes::<Small>(&[0x80, 0x80, 0x01]).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
