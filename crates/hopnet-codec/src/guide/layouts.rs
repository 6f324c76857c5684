//! Byte layouts: other games' formats, byte for byte.
//!
//! Rabbit's own layout is a bit stream, least significant bit first. Formats designed byte by
//! byte (big-endian integers, flags in the high bits of a byte, length prefixes, checksums)
//! are declared with the attributes below; the same `to_bytes` and `from_bytes` then write and
//! read exactly their bytes, with the sizes, the merged writes, the schema and the checks on
//! untrusted input of every derived type. The crate `hopnet-formats` declares four real
//! formats with them.
//!
//! | Where | Attribute | Effect |
//! |---|---|---|
//! | container | `endian = "big"` / `"little"` | integers, `bool` and floats without an encoding take their whole width in bytes, in that order |
//! | field | `bytes = N` | a number in `N` bytes (byte order from the field's or container's `endian`); a `String` or `Vec<u8>` of exactly `N` bytes |
//! | field | `endian = "..."` | this number's byte order |
//! | container | `bit_order = "msb"` | fields fill each byte from its most significant bit |
//! | container, variant | `magic = b"..."` | constant bytes first (an enum's before its tag, a variant's after it) |
//! | field | `pad_before = N` | `N` zero bits before the field |
//! | field | `to_end` | a `Vec<T>` or `String` with no count, to the end of the input |
//! | field | `byte_len = "len"` | a list filling the bytes an earlier `Computed` field `len` counts |
//! | field | `computed = "expr"` | a `Computed<T>` field: `expr` written, and checked when decoding |
//! | field | `transform = "expr"` | with `byte_len`: the bytes are what the [`Transform`](crate::layout::Transform) `expr` makes of the value |
//!
//! # `endian` and `bytes = N`: numbers in whole bytes
//!
//! With `#[rabbit(endian = "big")]` on a container, each field spelled as an integer type,
//! `bool` or float is written in its type's width in bytes, most significant byte first (`u8`
//! and `i8` one byte, `u16` two, ...; `bool` one byte, 0 or 1). `bytes = N` gives another width
//! (a `u32` in three bytes is a 24-bit id); a value that does not fit is an error, as for
//! `#[bits(N)]`. A field's own `endian` overrides the container's. Such fields are words:
//! runs of them merge into one write.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(endian = "big")]
//! struct Header {
//!     kind: u8,
//!     #[rabbit(bytes = 3)]
//!     id: u32,
//!     #[rabbit(endian = "little")]
//!     port: u16,
//!     alive: bool,
//! }
//!
//! let h = Header { kind: 7, id: 0x01a583, port: 0x1234, alive: true };
//! assert_eq!(hopnet_codec::to_bytes(&h)?, [7, 0x01, 0xa5, 0x83, 0x34, 0x12, 1]);
//! assert_eq!(hopnet_codec::from_bytes::<Header>(&[7, 0x01, 0xa5, 0x83, 0x34, 0x12, 1])?, h);
//! assert!(hopnet_codec::to_bytes(&Header { id: 1 << 24, ..h }).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! On a `String`, `Vec<u8>` or `Box<[u8]>`, `bytes = N` is an exact length with no count on
//! the wire (a fixed-size text id); any other length is an encode error, and a string's bytes
//! must be UTF-8. Fixed-count arrays need nothing: `[T; N]` is its `N` items with no count.
//!
//! ```
//! #[derive(hopnet_codec::Rabbit, Debug, PartialEq)]
//! struct Ids {
//!     #[rabbit(bytes = 4)]
//!     name: String,
//!     pair: [u8; 2],
//! }
//!
//! let ids = Ids { name: "abcd".into(), pair: [1, 2] };
//! assert_eq!(hopnet_codec::to_bytes(&ids)?, *b"abcd\x01\x02");
//! assert!(hopnet_codec::to_bytes(&Ids { name: "abc".into(), pair: [0; 2] }).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `bit_order = "msb"`: flags in the high bits of a byte
//!
//! In a container with `#[rabbit(bit_order = "msb")]`, fields fill each byte from its most
//! significant bit, as C bit fields are drawn in network protocols: a `bool` is one bit, a
//! `#[bits(N)]` integer `N` bits most significant first (so a big-endian number of several
//! bytes is `#[bits(8 * n)]`), and an enum's `#[bits(N)]` tag is the first byte's top bits.
//! Each run of fixed-width fields (the tag, padding and magic bytes included) must fill whole
//! bytes, which is checked at compile time: a list, a nested type of varying size or a field
//! with a condition starts on a byte boundary. A nested type is placed as the number its own
//! encoding forms (right for a unit enum's index or a bit-field struct; a type of several bytes
//! in another byte order belongs after the run). `endian` and `bytes` do not apply in such a
//! container, and its tag is never a varint.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! /// The top bit says which; then three flag bits, four unused, a 24-bit id.
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(bit_order = "msb")]
//! #[bits(1)]
//! enum Datagram {
//!     Data {
//!         #[bits(2)]
//!         mode: u8,
//!         urgent: bool,
//!         #[rabbit(pad_before = 4)]
//!         #[bits(24)]
//!         id: u32,
//!         #[rabbit(to_end)]
//!         payload: Vec<u8>,
//!     },
//!     Control {
//!         #[rabbit(pad_before = 7)]
//!         code: u8,
//!     },
//! }
//!
//! let d = Datagram::Data { mode: 2, urgent: true, id: 107_907, payload: vec![0x12] };
//! assert_eq!(hopnet_codec::to_bytes(&d)?, [0x50, 0x01, 0xa5, 0x83, 0x12]);
//! assert_eq!(hopnet_codec::from_bytes::<Datagram>(&[0x80, 9])?, Datagram::Control { code: 9 });
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `magic = b"..."` and `pad_before = N`: constant bits
//!
//! Magic bytes go first in a struct; in an enum, the enum's own before its tag and a variant's
//! after it. `pad_before = N` (at most 64) puts `N` zero bits before a field: reserved bits.
//! Encoding writes them; decoding checks them, and anything else is
//! [`Error::Constant`](crate::Error::Constant). The schema shows them as fields named `magic`
//! and `padding`.
//!
//! ```
//! #[derive(hopnet_codec::Rabbit, Debug, PartialEq)]
//! #[rabbit(magic = b"W")]
//! struct Hello {
//!     #[rabbit(pad_before = 4)]
//!     #[bits(4)]
//!     version: u8,
//! }
//!
//! assert_eq!(hopnet_codec::to_bytes(&Hello { version: 3 })?, [0x57, 0x30]);
//! assert!(hopnet_codec::from_bytes::<Hello>(&[0x58, 0x30]).is_err()); // another magic
//! assert!(hopnet_codec::from_bytes::<Hello>(&[0x57, 0x31]).is_err()); // reserved bits set
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `to_end`: lists to the end of the input
//!
//! A `Vec<T>` or `String` with `to_end` has no count: its items follow one another to the end
//! of the input (of the datagram, or of its `byte_len` span), read while a whole byte is left.
//! It must be its container's last field, and a type that ends with one must itself come last
//! wherever it is used. `max_len = N` bounds it on both sides. A prefix of such a message cut
//! between two items is a shorter valid message: the format has no end marker.
//!
//! # `computed`, `byte_len` and `transform`: fields computed from the others
//!
//! A length, a total size or a checksum is a field of type
//! [`Computed<T>`](crate::layout::Computed): it holds nothing in the value (every `Computed`
//! equals every other), and `T` is written on the wire. Its value comes either from its
//! `computed = "expr"` or from a later field that names it in `byte_len`:
//!
//! - `computed = "expr"`: `expr` (a `T`) may name every field as a reference, like a
//!   condition, and the computed fields before it (as their values). Encoding computes it
//!   before writing; decoding reads it, reads the rest, then checks it against `expr`
//!   ([`Error::Computed`](crate::Error::Computed) otherwise).
//! - `byte_len = "len"` on a list (or a transformed field) frames it by the earlier
//!   `Computed` field `len`: the derive writes the list's length in bytes there, and decoding
//!   reads the list from exactly that many bytes, which it must fill. The span starts on a byte
//!   boundary ([`Error::Unaligned`](crate::Error::Unaligned) otherwise).
//! - `transform = "expr"`, with `byte_len`: the bytes are what the
//!   [`Transform`](crate::layout::Transform) that `expr` evaluates to makes of the value
//!   (compression, say); `expr` may name earlier fields. Decoding hands it the span, borrowed
//!   from the input.
//!
//! ```
//! use hopnet_codec::layout::{Computed, Transform};
//! use hopnet_codec::{Rabbit, Result};
//!
//! /// Bytes written reversed: a stand-in for a compressor.
//! struct Reversed;
//!
//! impl Transform<Vec<u8>> for Reversed {
//!     fn apply(&self, value: &Vec<u8>, out: &mut Vec<u8>) -> Result<()> {
//!         out.extend(value.iter().rev());
//!         Ok(())
//!     }
//!     fn revert(&self, bytes: &[u8]) -> Result<Vec<u8>> {
//!         Ok(bytes.iter().rev().copied().collect())
//!     }
//! }
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(endian = "big")]
//! struct Frame {
//!     size: Computed<u16>,
//!     #[rabbit(byte_len = "size", transform = "Reversed")]
//!     body: Vec<u8>,
//!     #[rabbit(computed = "body.iter().fold(0u8, |a, b| a ^ b)")]
//!     check: Computed<u8>,
//! }
//!
//! let f = Frame { size: Computed::new(), body: vec![1, 2, 4], check: Computed::new() };
//! assert_eq!(hopnet_codec::to_bytes(&f)?, [0, 3, 4, 2, 1, 7]);
//! assert_eq!(hopnet_codec::from_bytes::<Frame>(&[0, 3, 4, 2, 1, 7])?, f);
//! assert!(hopnet_codec::from_bytes::<Frame>(&[0, 3, 4, 2, 1, 6]).is_err()); // a bad check byte
//! assert!(hopnet_codec::from_bytes::<Frame>(&[0, 4, 4, 2, 1, 7]).is_err()); // a size past the end
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! A type with a computed or transformed field counts its `encoded_bits` by encoding (the
//! computation is needed), and its `MAX_BITS` is unbounded when a field's is.
//!
//! # In the schema
//!
//! [`Encoding::Bytes`](crate::schema::Encoding::Bytes),
//! [`FixedLen`](crate::schema::Encoding::FixedLen), [`ToEnd`](crate::schema::Encoding::ToEnd),
//! [`ByteLen`](crate::schema::Encoding::ByteLen),
//! [`Transformed`](crate::schema::Encoding::Transformed),
//! [`Computed`](crate::schema::Encoding::Computed) (with the expression),
//! [`Constant`](crate::schema::Encoding::Constant) (magic and padding, as fields of their
//! own) and [`MsbFirst`](crate::schema::Encoding::MsbFirst) (a field in an msb run); an msb
//! enum's tag is [`Tag::MsbBits`](crate::schema::Tag::MsbBits). An enum's own magic bytes are
//! not in its schema.
