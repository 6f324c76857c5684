//! What derived delta impls (`#[rabbit(delta)]`) call besides the traits: fields written by a
//! codec, `if` fields, keyed lists.

use crate::codec::{FieldCodec, FieldDecode};
use crate::delta::{coded_decode_changes, coded_encode_changes, coded_unchanged};
use crate::{BitReader, BitWriter, Error, Result};

pub use crate::delta::keyed;
pub use crate::delta::{DeltaDecode, DeltaEncode};

/// A field written by codec `C`: its changed bit, then the value if it changed.
#[inline(always)]
pub fn coded_encode_delta<C: FieldCodec<T>, T: ?Sized>(
    value: &T,
    base: &T,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    if coded_unchanged::<C, T>(value, base) {
        w.write_bool(false);
        Ok(())
    } else {
        w.write_bool(true);
        coded_encode_changes::<C, T>(value, w)
    }
}

/// Reads what [`coded_encode_delta`] wrote.
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

/// An `if` field's changed bit, then its value if it changed and is present (whether it is
/// present is its condition's, which the decoder evaluates).
#[inline]
pub fn cond_encode_delta<C: FieldCodec<T>, T>(
    value: &Option<T>,
    base: &Option<T>,
    condition: bool,
    field: &'static str,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    if value.is_some() != condition {
        return Err(super::condition_mismatch(field, condition));
    }
    if cond_unchanged::<C, T>(value, base) {
        w.write_bool(false);
        Ok(())
    } else {
        w.write_bool(true);
        cond_encode_changes::<C, T>(value, condition, field, w)
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

/// Reads what [`cond_encode_delta`] wrote. The baseline's value is taken only if its presence
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
    } else if base.is_some() == condition {
        Ok(base.clone())
    } else {
        Err(Error::ConditionMismatch {
            field,
            condition,
            present: base.is_some(),
        })
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
