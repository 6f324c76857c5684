//! What derived delta impls (`#[rabbit(delta)]`) call besides the traits: fields written by a
//! codec, `if` fields, keyed lists.

use crate::codec::{FieldCodec, FieldDecode};
use crate::delta::{coded_decode_changes, coded_unchanged};
use crate::error::Result;
use crate::read::BitReader;
use crate::write::BitWriter;

pub use crate::delta::keyed;
pub use crate::delta::{DeltaDecode, DeltaEncode};

/// Reads a field written by codec `C`: its changed bit, then the value if it changed.
#[inline(always)]
pub fn coded_decode_delta<C: FieldDecode<T>, T: Clone>(
    base: &T,
    r: &mut BitReader<'_>,
) -> Result<T> {
    if r.read_bool()? {
        coded_decode_changes::<C, T>(r)
    } else {
        Ok(base.clone())
    }
}

/// An `if` field is unchanged when both are absent, or both present and unchanged.
#[inline]
pub fn cond_unchanged<C: FieldCodec<T>, T>(value: &Option<T>, base: &Option<T>) -> bool {
    match (value, base) {
        (Some(a), Some(b)) => coded_unchanged::<C, T>(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// An `if` field's presence must agree with its condition, changed or not.
#[inline]
pub fn cond_check<T>(value: &Option<T>, condition: bool, field: &'static str) -> Result<()> {
    if value.is_some() == condition {
        Ok(())
    } else {
        Err(super::condition_mismatch(field, condition))
    }
}

/// A changed `if` field: its value if present.
#[inline]
pub fn cond_encode_changes<C: FieldCodec<T>, T>(
    value: &Option<T>,
    condition: bool,
    field: &'static str,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    match value {
        Some(v) if condition => C::encode(v, w),
        None if !condition => Ok(()),
        _ => Err(super::condition_mismatch(field, condition)),
    }
}

/// Reads an `if` field's changed bit, then its value if it changed and is present. The baseline's value is taken only if its presence
/// agrees with the condition on the decoded fields: a delta against another baseline could
/// otherwise build a value that breaks its own condition.
#[inline]
pub fn cond_decode_delta<C: FieldDecode<T>, T: Clone>(
    base: &Option<T>,
    condition: bool,
    field: &'static str,
    r: &mut BitReader<'_>,
) -> Result<Option<T>> {
    if r.read_bool()? {
        cond_decode_changes::<C, T>(condition, r)
    } else {
        cond_check(base, condition, field).map(|()| base.clone())
    }
}

/// Reads what [`cond_encode_changes`] wrote.
#[inline]
pub fn cond_decode_changes<C: FieldDecode<T>, T>(
    condition: bool,
    r: &mut BitReader<'_>,
) -> Result<Option<T>> {
    if condition {
        C::decode(r).map(Some)
    } else {
        Ok(None)
    }
}
