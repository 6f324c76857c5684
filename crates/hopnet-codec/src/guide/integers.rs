//! Integer encodings: `#[bits(N)]`, `range`, `varint` and `zigzag`.
//!
//! # `#[bits(N)]`: fixed-width integers and bools
//!
//! On a field of type `u8`..`u64`, `usize`, `i8`..`i64`, `isize` or `bool`: exactly N bits
//! (1 to 64, at most the type's own width), two's complement for the signed types (the spec's
//! `i12`). A value that does not fit is an encode error, never a silent truncation; the error
//! names the field.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Cell {
//!     #[bits(3)]
//!     column: u8,
//!     #[bits(5)]
//!     height: i8,
//! }
//!
//! // 101, then -3 as 11101: both least significant bit first.
//! let bytes = hopnet_codec::to_bytes(&Cell { column: 5, height: -3 })?;
//! assert_eq!(bytes, [0b11101_101]);
//! assert_eq!(Cell::MAX_BITS, Some(8));
//!
//! let err = hopnet_codec::to_bytes(&Cell { column: 8, height: 0 }).unwrap_err();
//! assert_eq!(err.to_string(), "Cell.column: value 8 does not fit 3 bits");
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(range = "A..=B")]`: bounded integers
//!
//! On an integer field: `value - A` in the fewest bits that hold `B - A` (nothing at all when
//! `A == B`). Encoding a value outside the range is an error, and so is decoding one (the bits
//! may say more than `B - A`). `A` and `B` are integer literals, possibly negative, and must fit
//! the field's type; an empty range (`A > B`) is a compile error.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Level {
//!     #[rabbit(range = "10..=20")]
//!     level: u8,
//!     #[rabbit(range = "-8..=7")]
//!     tilt: i32,
//! }
//!
//! // 15 - 10 = 5 in 4 bits, then 0 - (-8) = 8 in 4 bits.
//! assert_eq!(hopnet_codec::to_bytes(&Level { level: 15, tilt: 0 })?, [0x85]);
//! assert_eq!(Level::MAX_BITS, Some(8));
//! assert!(hopnet_codec::to_bytes(&Level { level: 21, tilt: 0 }).is_err());
//! assert!(hopnet_codec::from_bytes::<Level>(&[0x0f]).is_err()); // 10 + 15 = 25 > 20
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(varint)]` and `#[rabbit(zigzag)]`
//!
//! `varint` writes an integer as the spec's variable-length integer of its own width (`m - 1`
//! in `log2(bytes)` bits, then the `m` low bytes), without zig-zag: a signed value is written
//! as its two's complement bits, so small negative numbers are long. `zigzag` (signed types
//! only) interleaves first, so small magnitudes stay short. They restate the defaults of
//! `u16`..`u64` and `i16`..`i64` respectively, and change `u8` / `i8` to the 1-byte form
//! (8 bits, no length prefix).
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Delta {
//!     #[rabbit(varint)]
//!     raw: i32,
//!     #[rabbit(zigzag)]
//!     dx: i32,
//! }
//!
//! let v = Delta { raw: -1, dx: -1 };
//! assert_eq!(v.encoded_bits(), (2 + 32) + (2 + 8));
//! assert_eq!(Delta::MIN_BITS, 10 + 10);
//! assert_eq!(Delta::MAX_BITS, Some(34 + 34));
//! assert_eq!(hopnet_codec::from_bytes::<Delta>(&hopnet_codec::to_bytes(&v)?)?, v);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
