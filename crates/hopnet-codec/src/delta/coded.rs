//! Fields written by a codec type of [`crate::codec`] (an encoding attribute: `#[bits(N)]`,
//! `range`, `varint`, `quantize`, `with`, ...): a change is the value as its codec writes it,
//! and a value is unchanged when the codec writes the same bits for it as for the baseline's.
//! So a quantized float that moved less than half a step is unchanged.
//!
//! Generated code calls these; a hand-written [`DeltaEncode`](super::DeltaEncode) can too.

use crate::codec::{FieldCodec, FieldDecode};
use crate::error::Result;
use crate::read::BitReader;
use crate::write::BitWriter;

/// Whether codec `C` writes the same bits for `a` as for `b`
/// ([`FieldCodec::same_encoding`]).
#[inline(always)]
pub fn coded_unchanged<C: FieldCodec<T>, T: ?Sized>(a: &T, b: &T) -> bool {
    C::same_encoding(a, b)
}

/// Writes a changed value: as codec `C` writes it.
#[inline(always)]
pub fn coded_encode_changes<C: FieldCodec<T>, T: ?Sized>(
    value: &T,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    C::encode(value, w)
}

/// Reads a changed value: as codec `C` reads it.
#[inline(always)]
pub fn coded_decode_changes<C: FieldDecode<T>, T>(r: &mut BitReader<'_>) -> Result<T> {
    C::decode(r)
}
