//! Runtime helpers for the code `#[derive(Rabbit)]` generates. Not a public API: names and
//! signatures may change in any release.

use std::borrow::Cow;

use crate::schema::Encoding;
use crate::{BitWriter, Encode, Error, Result};

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
