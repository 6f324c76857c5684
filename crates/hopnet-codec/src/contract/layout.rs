//! Byte layouts in derived code: constant bits (magic numbers, reserved bits), fields framed
//! by a byte length, transformed fields, and the check of computed fields.

use std::fmt::Debug;

use crate::codec::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::layout::Transform;
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::write::BitWriter;

/// The word of up to eight magic bytes: as the bytes go in the stream (least significant byte
/// first), or as a number written most significant bit first (`bit_order = "msb"`), so that
/// either way the bytes appear in order.
pub const fn magic_word(bytes: &[u8], msb: bool) -> u64 {
    let mut word = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        word = if msb {
            (word << 8) | bytes[i] as u64
        } else {
            word | (bytes[i] as u64) << (8 * i)
        };
        i += 1;
    }
    word
}

/// Reads `bits` bits that must hold `value`.
#[inline(always)]
pub fn expect_bits<R: BitRead>(r: &mut R, bits: u32, value: u64) -> Result<()> {
    let found = r.read_bits(bits)?;
    if found != value {
        return Err(constant_mismatch(value, found, bits, r.position()));
    }
    Ok(())
}

/// The error of constant bits that held another value.
#[cold]
#[inline(never)]
pub fn constant_mismatch(expected: u64, found: u64, bits: u32, position: u64) -> Error {
    Error::Constant {
        expected,
        found,
        bits,
        position,
    }
}

/// Checks a computed field: what was read against what the other fields compute.
#[inline(always)]
pub fn check_computed<T: PartialEq + Debug>(
    field: &'static str,
    found: &T,
    expected: T,
) -> Result<()> {
    if *found != expected {
        return Err(computed_mismatch(field, found, &expected));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn computed_mismatch<T: Debug>(field: &'static str, found: &T, expected: &T) -> Error {
    Error::Computed {
        field,
        values: format!("reads {found:?}, but the other fields make it {expected:?}").into(),
    }
}

/// The value of a length field: `bits` (what the framed field takes) in bytes, as the length
/// field's type. Fails unless the bits are whole bytes and the count fits the type.
#[inline(always)]
pub fn byte_len<L: TryFrom<u64>>(bits: u64) -> Result<L> {
    if !bits.is_multiple_of(8) {
        return Err(Error::custom(format!(
            "a field framed by a byte length takes {bits} bits, not whole bytes"
        )));
    }
    let bytes = bits / 8;
    L::try_from(bytes).map_err(|_| too_long_for_length(bytes))
}

#[cold]
fn too_long_for_length(bytes: u64) -> Error {
    Error::custom(format!("{bytes} bytes do not fit the length field"))
}

/// Fails unless the writer is on a byte boundary: a field framed by a byte length starts on
/// one, so that the decoder can take its bytes as a span.
#[inline(always)]
pub fn byte_aligned(w: &BitWriter<'_>) -> Result<()> {
    let bits = w.bit_len();
    if !bits.is_multiple_of(8) {
        return Err(Error::Unaligned { position: bits });
    }
    Ok(())
}

/// The bytes a transform makes of `value`.
#[inline]
pub fn apply<T, X: Transform<T>>(transform: &X, value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    transform.apply(value, &mut out)?;
    Ok(out)
}

/// The codec type of a transformed field (`transform = "expr"`), whatever its type: what
/// the derive folds into its container's sizes like every other field's. Its bytes are
/// known only once the transform ran, so it takes at least nothing, has no bound and is
/// never one word.
///
/// Derived code writes such a field itself, from the bytes [`apply`] made, and reads it with
/// [`framed_revert`]: only it holds the transform, whose expression may name other fields.
pub struct Transformed;

impl<T: ?Sized> FieldCodec<T> for Transformed {
    const MIN_BITS: u64 = 0;
    const MAX_BITS: Option<u64> = None;

    /// Fails: the bytes are the transform's, and this type does not hold it.
    fn encode(_: &T, _: &mut BitWriter<'_>) -> Result<()> {
        Err(Error::custom(
            "a transformed field is written from its transform's bytes, not by its codec",
        ))
    }

    /// Bytes a transform made; the field's schema names the transform.
    fn schema() -> Encoding {
        Encoding::Transformed { transform: "" }
    }
}

/// A length read from the wire, as a byte count.
#[inline(always)]
fn length<L: TryInto<u64> + Copy>(len: &L) -> Result<u64> {
    (*len)
        .try_into()
        .map_err(|_| Error::custom("a negative byte length"))
}

/// Decodes a field framed by the byte length `len` with codec `C`: from exactly those bytes,
/// which it must fill (only the zero padding of its last byte may be left).
#[inline]
pub fn framed<T, C: FieldDecode<T>, L: TryInto<u64> + Copy, R: BitRead>(
    r: &mut R,
    len: &L,
) -> Result<T> {
    C::decode_framed(r, length(len)?)
}

/// Decodes a transformed field framed by the byte length `len`: its bytes, borrowed from the
/// input, reverted by the transform.
#[inline]
pub fn framed_revert<T, X: Transform<T>, L: TryInto<u64> + Copy, R: BitRead>(
    r: &mut R,
    len: &L,
    transform: &X,
) -> Result<T> {
    let bytes = length(len)?;
    r.with_reader(|r| {
        let span = r.read_slice(bytes)?;
        transform.revert(span)
    })
}
