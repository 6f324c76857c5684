//! The runtime contract of `#[derive(Rabbit)]`: everything generated code names, in one module
//! (the traits it implements, the helpers it calls, and the standard items it uses, re-exported
//! so that generated code relies on no import of the user's, not even the prelude). Not a
//! public API: names and signatures may change in any release.

use std::borrow::Cow;

pub use crate::schema::Encoding;
pub use crate::{BitReader, BitWindow, BitWriter, Decode, Encode, Error, Result};
pub use crate::{codec, schema, size, varint};
pub use std::boxed::Box;
pub use std::default::Default;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{Err, Ok};
pub use std::vec::Vec;

/// The element bound of a `#[rabbit(max_len = N)]` field: the most bits one item takes.
pub trait ListItems {
    /// `MAX_BITS` of one item (a byte for strings).
    const ITEM_MAX_BITS: Option<u64>;
}

impl<T: Encode> ListItems for [T] {
    const ITEM_MAX_BITS: Option<u64> = T::MAX_BITS;
}
impl<T: Encode> ListItems for Vec<T> {
    const ITEM_MAX_BITS: Option<u64> = T::MAX_BITS;
}
impl ListItems for str {
    const ITEM_MAX_BITS: Option<u64> = Some(8);
}
impl ListItems for String {
    const ITEM_MAX_BITS: Option<u64> = Some(8);
}
impl<T: ListItems + ?Sized> ListItems for &T {
    const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
}
impl<T: ListItems + ?Sized> ListItems for Box<T> {
    const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
}
impl<T: ListItems + ?Sized> ListItems for std::rc::Rc<T> {
    const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
}
impl<T: ListItems + ?Sized> ListItems for std::sync::Arc<T> {
    const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
}
impl<T: ListItems + ToOwned + ?Sized> ListItems for Cow<'_, T> {
    const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
}

/// A list or string encoding with its `max_len` filled in.
pub fn with_max_len(encoding: Encoding, max: u64) -> Encoding {
    match encoding {
        Encoding::List { item, .. } => Encoding::List {
            item,
            max_len: Some(max),
        },
        Encoding::String { .. } => Encoding::String { max_len: Some(max) },
        other => other,
    }
}

/// A `Vec` of the items, without relying on `From` being in scope.
pub fn list<T, const N: usize>(items: [T; N]) -> Vec<T> {
    Vec::from(items)
}

/// The sum of minima (saturating).
pub const fn sum_min(parts: &[u64]) -> u64 {
    let mut total = 0u64;
    let mut i = 0;
    while i < parts.len() {
        total = total.saturating_add(parts[i]);
        i += 1;
    }
    total
}

/// The sum of maxima: unbounded if any part is, or if the sum overflows.
pub const fn sum_max(parts: &[Option<u64>]) -> Option<u64> {
    let mut total = Some(0u64);
    let mut i = 0;
    while i < parts.len() {
        total = crate::size::add_max(total, parts[i]);
        i += 1;
    }
    total
}

/// The smallest of the variants' minima.
pub const fn min_over(parts: &[u64]) -> u64 {
    let mut least = u64::MAX;
    let mut i = 0;
    while i < parts.len() {
        least = crate::size::min_of(least, parts[i]);
        i += 1;
    }
    least
}

/// The largest of the variants' maxima.
pub const fn max_over(parts: &[Option<u64>]) -> Option<u64> {
    let mut most = Some(0u64);
    let mut i = 0;
    while i < parts.len() {
        most = crate::size::max_of(most, parts[i]);
        i += 1;
    }
    most
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

/// The bits a custom (`with = "..."`) codec writes, found by encoding into a scratch buffer.
///
/// This allocates: a custom codec declares no size, so `encoded_bits` has to run it.
pub fn custom_bits(encode: impl FnOnce(&mut BitWriter<'_>) -> Result<()>) -> u64 {
    let mut scratch = Vec::new();
    let mut w = BitWriter::new(&mut scratch);
    let _ = encode(&mut w);
    w.bit_len()
}

/// How derived `encode` writes each of a run of items (fields, with an enum's tag first) whose
/// [`Encode::WORD_BITS`] are `words`: `0` on its own, `1` as the first word of a group, `2`
/// joined to the group before it; `+ 4` when a group ends with the item (the group is written
/// then). Greedy: an item joins the open group while the group's most bits stay within 64.
pub const fn word_plan<const N: usize>(words: [Option<u32>; N]) -> [u8; N] {
    let mut plan = [0u8; N];
    let mut open = false;
    let mut bits = 0u32;
    let mut i = 0;
    while i < N {
        match words[i] {
            Some(n) if n <= 64 => {
                if open && bits + n <= 64 {
                    bits += n;
                    plan[i] = 2;
                } else {
                    if open {
                        plan[i - 1] += 4;
                    }
                    open = true;
                    bits = n;
                    plan[i] = 1;
                }
            }
            _ => {
                if open {
                    plan[i - 1] += 4;
                }
                open = false;
            }
        }
        i += 1;
    }
    if open {
        plan[N - 1] += 4;
    }
    plan
}

/// `WORD_BITS` of a struct (or an enum variant with its tag): the sum of its items' if every
/// item is a word and the sum fits in 64 bits.
pub const fn word_sum(words: &[Option<u32>]) -> Option<u32> {
    let mut total = 0u32;
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            Some(n) if n <= 64 && total + n <= 64 => total += n,
            _ => return None,
        }
        i += 1;
    }
    Some(total)
}

/// `WORD_BITS` of an enum: the largest of its variants', if every variant has one.
pub const fn word_over(words: &[Option<u32>]) -> Option<u32> {
    let mut most = 0u32;
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            Some(n) if n <= 64 => {
                if n > most {
                    most = n;
                }
            }
            _ => return None,
        }
        i += 1;
    }
    Some(most)
}

/// The provided [`Encode::encode_word`], for derived impls whose `WORD_BITS` is `None`.
#[inline]
pub fn word_by_encoding<T: Encode + ?Sized>(value: &T) -> Result<(u64, u32)> {
    crate::write::word_by_encoding(value)
}
