//! Sizes: `MIN_BITS`, `MAX_BITS`, `encoded_bits` and merged writes.
//!
//! # Sizes
//!
//! Every derived type has `MIN_BITS` and `MAX_BITS` constants computed at compile time from its
//! fields' constants (`MAX_BITS` is `None` when some field is unbounded: a list or string
//! without `max_len`, a `with` field), and an `encoded_bits` that adds up the fields' sizes
//! without encoding (except for `with` fields, see above). For an enum, the tag's bits are added
//! to each variant's fields, and the minimum and maximum are taken over the variants. Because
//! the constants are usable in `const` items, a build can prove that a message always fits one
//! 504-byte chunk:
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit)]
//! struct Chat {
//!     #[rabbit(max_len = 400)]
//!     text: String,
//!     #[bits(7)]
//!     channel: u8,
//! }
//!
//! const _: () = assert!(matches!(<Chat as hopnet_codec::Encode>::MAX_BITS, Some(b) if b <= 504 * 8));
//! ```
//!
//! A type that contains itself (through `Box` or `Option`) cannot derive: its `MAX_BITS` would
//! be defined in terms of itself. Write its impls by hand.
//!
//! Sizes also make the derived `encode` fast. A type whose encoding always fits one 64-bit word
//! says so in `WORD_BITS` (numbers up to `u32`, `f32`, `f64`, `bool`, `char`, `Option`s of
//! them, and derived structs and enums made of them, up to 64 bits), and a derived `encode`
//! merges each run of such fields (an enum's tag included) into one write of at most 64 bits,
//! chosen at compile time. The bytes are the same as one write per field. A hand-written impl
//! of a small type takes part by setting `WORD_BITS` and overriding `encode_word` (its
//! `encoded_bits` may stay the provided one: a constant when `MIN_BITS == MAX_BITS`):
//!
//! ```
//! use hopnet_codec::{BitWriter, Encode, Rabbit, Result};
//!
//! struct Heading(u16); // 0..360, in nine bits
//!
//! impl Encode for Heading {
//!     const MIN_BITS: u64 = 9;
//!     const MAX_BITS: Option<u64> = Some(9);
//!     const WORD_BITS: Option<u32> = Some(9);
//!     fn encode_word(&self) -> Result<(u64, u32)> {
//!         Ok((u64::from(self.0 % 360), 9))
//!     }
//!     fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
//!         w.write_bits(u64::from(self.0 % 360), 9);
//!         Ok(())
//!     }
//! }
//!
//! #[derive(Rabbit)]
//! struct Turn {
//!     #[bits(3)]
//!     speed: u8,
//!     heading: Heading, // written with `speed` and `running`: one write of 13 bits
//!     running: bool,
//! }
//! # impl hopnet_codec::Decode for Heading {
//! #     fn decode(r: &mut hopnet_codec::BitReader<'_>) -> Result<Self> {
//! #         Ok(Heading(r.read_bits(9)? as u16))
//! #     }
//! # }
//! assert_eq!(<Turn as Encode>::WORD_BITS, Some(13));
//! let bytes = hopnet_codec::to_bytes(&Turn { speed: 5, heading: Heading(270), running: true })?;
//! assert_eq!(bytes, [0x75, 0x18]);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
