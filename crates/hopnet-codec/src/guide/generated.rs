//! What the generated code looks like, and the runtime contract it relies on.
//!
//! # What the generated code looks like
//!
//! `encode` writes the tag and then each field, in order, as straight-line code on the
//! [`BitWriter`](crate::BitWriter), runs of small fields merged into one write (see
//! [`sizes`](super::sizes)); `decode` reads each field into a local, in order, and then builds
//! the value, and `decode_window` is the same body over a [`BitWindow`](crate::BitWindow);
//! `encoded_bits` adds up each field's bits, the constant ones folded by the compiler. Nothing
//! allocates (except `with` fields in `encoded_bits`) and nothing is cloned; the encode and
//! decode of a struct are `#[inline(always)]`, an enum's `#[inline]`. The impls carry
//! `#[automatically_derived]` and rely on nothing the user imported.
//!
//! # Codec types
//!
//! Each field is written by a codec type of [`hopnet_codec::codec`](crate::codec), chosen from its
//! attributes: [`Native`](crate::codec::Native) without one (the type's own
//! [`Encode`](crate::Encode) and [`Decode`](crate::Decode)), [`Fixed<N>`](crate::codec::Fixed)
//! for `#[bits(N)]`, [`Varint`](crate::codec::Varint), [`ZigZag`](crate::codec::ZigZag),
//! [`Range<A, B>`](crate::codec::Range), [`MaxLen<N>`](crate::codec::MaxLen), for byte layouts
//! [`BigEndian<N>`](crate::codec::BigEndian), [`LittleEndian<N>`](crate::codec::LittleEndian),
//! [`FixedLen<N>`](crate::codec::FixedLen) and [`ToEnd<MAX>`](crate::codec::ToEnd), and for
//! `with = "path"` a private type of the generated code that forwards to `path::encode` and
//! `path::decode`. Every field gets the same calls on its codec `C` and wire type `T`:
//! `<C as FieldCodec<T>>::encode`, `encode_word`, `encoded_bits`, `schema`, its `MIN_BITS`,
//! `MAX_BITS` and `WORD_BITS`, and `<C as FieldDecode<T>>::decode`. An enum's tag is written by
//! `Fixed<N>` or `Varint` too ([`TagCodec`](crate::codec::TagCodec)), so every encoding rule
//! (widths, the varint tag's bits, range widths) lives in the runtime, not in the macro.
//!
//! The codec types are public, so a hand-written impl can write its fields exactly as a
//! derived one would:
//!
//! ```
//! use hopnet_codec::codec::{FieldCodec, FieldDecode, Fixed, Varint};
//! use hopnet_codec::{BitReader, BitWriter, Decode, Encode, Result};
//!
//! /// A sensor number in five bits, then its reading as a variable-length `u32`.
//! struct Reading {
//!     sensor: u8,
//!     value: u32,
//! }
//!
//! type Sensor = Fixed<5>;
//!
//! impl Encode for Reading {
//!     const MIN_BITS: u64 =
//!         <Sensor as FieldCodec<u8>>::MIN_BITS + <Varint as FieldCodec<u32>>::MIN_BITS;
//!     const MAX_BITS: Option<u64> = Some(5 + 34);
//!     fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
//!         <Sensor as FieldCodec<u8>>::encode(&self.sensor, w)?;
//!         <Varint as FieldCodec<u32>>::encode(&self.value, w)
//!     }
//!     fn encoded_bits(&self) -> u64 {
//!         5 + <Varint as FieldCodec<u32>>::encoded_bits(&self.value)
//!     }
//! }
//!
//! impl Decode for Reading {
//!     fn decode(r: &mut BitReader<'_>) -> Result<Self> {
//!         let sensor = <Sensor as FieldDecode<u8>>::decode(r)?;
//!         let value = <Varint as FieldDecode<u32>>::decode(r)?;
//!         Ok(Reading { sensor, value })
//!     }
//! }
//!
//! let bytes = hopnet_codec::to_bytes(&Reading { sensor: 3, value: 7 })?;
//! // 3 in five bits, the varint's one-byte prefix 00, then 7 in eight bits: 15 bits in all.
//! assert_eq!(bytes, [0b1000_0011, 0b0000_0011]);
//! assert_eq!(hopnet_codec::from_bytes::<Reading>(&bytes)?.value, 7);
//! assert!(hopnet_codec::to_bytes(&Reading { sensor: 32, value: 0 }).is_err()); // not five bits
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Delta impls
//!
//! With `#[rabbit(delta)]` the same plan gives `DeltaEncode` and `DeltaDecode` (see
//! [`delta`](super::delta)). `unchanged` compares the fields on the wire, stopping at the first
//! difference. `encode_delta` compares each field once into a local flag; a `per_struct`
//! struct writes its own bit from them, then each field's part: for a field of a type whose
//! delta is one bit then its changes (`DeltaEncode::DELTA_BIT`, a constant, so the branch folds
//! away), the bit from the flag and `encode_changes` if it changed, so that the field is not
//! compared a second time; for any other, its `encode_delta`. Fields with a codec go through
//! `coded_unchanged` (`FieldCodec::same_encoding`) and `coded_encode_changes`, `if` fields
//! through `cond_*`, keyed lists through `delta::keyed`. Decoding mirrors it, and copies what did
//! not change from the baseline.
//!
//! # The runtime contract
//!
//! Generated code names the runtime only through one hidden module, `hopnet_codec::__derive` (under
//! the path `#[rabbit(crate = "...")]` gives): the traits it implements, the codec types, the
//! helpers it calls (size folding, the merged-write plan, its errors) and the standard items
//! it uses, re-exported so that the code needs no import, not even the prelude. The module is
//! not public API; what it holds may change in any release, together with the derive.
//!
//! # Byte layouts in the contract
//!
//! What does not fit "one codec type per field" has helpers of its own in `__derive`, in files
//! of their own: `contract/layout.rs` (constant bits: `magic_word`, `expect_bits`; fields
//! framed by a byte length: `byte_len`, `byte_aligned`, `framed`, `framed_revert`, `apply`;
//! computed fields: `check_computed`) and `contract/msb.rs` (the groups of
//! `bit_order = "msb"`: `msb_plan`, a constant made from the items' sizes like `word_plan`,
//! and `msb_push`, `msb_stream`, `msb_read`, `msb_take`, `msb_decode`, `msb_peek_tag`). The
//! generated code around them lives in `crates/hopnet-derive/src/expand/layout.rs`: computed values
//! are worked out before the first write (each computed field's binding then refers to its
//! value), transformed bytes are made when their length field needs them, and decoding checks
//! computed fields after the last read, before building the value.
