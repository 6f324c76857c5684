//! The runtime contract of `#[derive(Rabbit)]`: everything generated code names, in one module.
//!
//! Generated code reaches the runtime only through `<crate path>::__derive_v0_1_0` (the name
//! carries the release's version, see `build.rs`; this module is what it re-exports): the traits it
//! implements, the codec types it picks per field, the helpers it calls, and the standard items
//! it uses (re-exported here, so that it relies on no import of the user's, not even the
//! prelude). Every encoding rule it needs (tag widths, varint tags, range widths, sizes) is a
//! const fn or a constant here or in [`crate::codec`]; the derive computes none of them.
//!
//! Not a public API: names and signatures may change in any release.

mod delta;
mod layout;
mod msb;
mod sizes;
mod via;
mod words;

pub use delta::{
    DeltaDecode, DeltaEncode, coded_decode_delta, cond_check, cond_decode_changes,
    cond_decode_delta, cond_encode_changes, cond_unchanged, keyed,
};
pub use layout::{
    Transformed, apply, byte_aligned, byte_len, check_computed, constant_mismatch, expect_bits,
    framed, framed_revert, magic_word,
};
pub use msb::{
    MsbSlot, msb_decode, msb_peek_tag, msb_plan, msb_push, msb_read, msb_schema, msb_stream,
    msb_tag, msb_take,
};
pub use sizes::{max_over, min_over, sum_max, sum_min};
pub use via::{via_error, via_schema};
pub use words::{word_over, word_plan, word_sum};

pub use crate::codec::{
    BigEndian, CString, CountValue, Counted, CountedDecode, FieldCodec, FieldDecode, Fixed,
    FixedLen, Leb128, Leb128Signed, Leb128ZigZag, LittleEndian, MaxLen, Native, Octahedral,
    Quantize, QuantizeAxes, Range, SmallestThree, TagCodec, TagIndex, ToEnd, UntilByte, UntilItem,
    Varint, ZigZag, check_count, check_until, with_expression,
};
pub use crate::delta::{coded_decode_changes, coded_encode_changes, coded_unchanged};
pub use crate::encode::Encode;
pub use crate::error::{Error, Result};
pub use crate::layout::{Computed, Transform};
pub use crate::read::{BitRead, BitReader, BitWindow, Decode};
pub use crate::schema::{
    Body, DeltaLayout, Describe, Encoding, FieldSchema, TypeRef, TypeSchema, VariantSchema,
};
pub use crate::write::BitWriter;

pub use std::boxed::Box;
pub use std::clone::Clone;
pub use std::convert::{From, Into, TryFrom};
pub use std::default::Default;
pub use std::marker::{PhantomData, Sized};
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{Err, Ok};
pub use std::string::String;
pub use std::vec::Vec;

/// The width of an enum tag by default: the fewest bits that hold the largest index (0 for a
/// single variant, 1 for two, 2 for three or four, …).
pub const fn fewest_tag_bits(max_index: u64) -> u32 {
    crate::size::tag_bits(max_index)
}

/// The provided [`Encode::encode_word`], for derived impls whose `WORD_BITS` is `None`.
#[inline]
pub fn word_by_encoding<T: Encode + ?Sized>(value: &T) -> Result<(u64, u32)> {
    crate::encode::word_by_encoding(value)
}

/// The bits `encode` writes, found by encoding into a scratch buffer: the size of a field with
/// a custom (`with = "..."`) codec, which declares none. This allocates.
pub fn count_bits(encode: impl FnOnce(&mut BitWriter<'_>) -> Result<()>) -> u64 {
    crate::write::count_bits(encode)
}

/// A `Vec` of the items, without relying on `From` being in scope.
pub fn list<T, const N: usize>(items: [T; N]) -> Vec<T> {
    Vec::from(items)
}

/// The error of an `if` field whose presence disagrees with its condition.
#[cold]
#[inline(never)]
pub fn condition_mismatch(field: &'static str, condition: bool) -> Error {
    Error::ConditionMismatch {
        field,
        condition,
        present: !condition,
    }
}

/// The error of a tag that names no variant.
#[cold]
#[inline(never)]
pub fn unknown_variant(type_name: &'static str, index: u64, position: u64) -> Error {
    Error::UnknownVariant {
        type_name,
        index,
        position,
    }
}
