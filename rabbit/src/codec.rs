//! Field encodings other than a type's default, used by `#[derive(Rabbit)]` for the field
//! attributes `#[bits(N)]`, `#[rabbit(varint)]`, `#[rabbit(zigzag)]`, `#[rabbit(range = ...)]` and
//! `#[rabbit(max_len = N)]`. They are public so that hand-written impls can use them too.

use crate::{BitReader, BitWriter, Decode, Encode, Error, Result, size, varint};
use std::borrow::Cow;

/// Integers and `bool`, as plain fixed-width bit fields (`#[bits(N)]`); signed types as two's
/// complement of that width.
#[diagnostic::on_unimplemented(
    message = "`#[bits(N)]` needs an integer or `bool`, not `{Self}`",
    label = "not a fixed-width bit field",
    note = "`#[bits(N)]` works on `u8`..`u64`, `i8`..`i64`, `usize`, `isize` and `bool`; other types can use `#[rabbit(with = \"path\")]`"
)]
pub trait FixedBits: Sized + Copy {
    /// The type's own width: a `#[bits(N)]` field of this type takes `N <= WIDTH`.
    const WIDTH: u32;
    /// Whether the bits are two's complement.
    const SIGNED: bool;

    /// The low `bits` bits of the value, or an error if it does not fit `bits` bits.
    fn to_bits(self, bits: u32) -> Result<u64>;

    /// The value of `bits` raw bits (sign-extended for signed types).
    fn from_bits(raw: u64, bits: u32) -> Result<Self>;
}

#[cold]
fn does_not_fit(value: i128, bits: u32) -> Error {
    Error::OutOfRange {
        value,
        expected: Cow::Owned(format!("{bits} bits")),
    }
}

macro_rules! fixed_unsigned {
    ($($t:ty),*) => {$(
        impl FixedBits for $t {
            const WIDTH: u32 = <$t>::BITS;
            const SIGNED: bool = false;
            #[inline(always)]
            fn to_bits(self, bits: u32) -> Result<u64> {
                let v = self as u64;
                if bits < 64 && v >> bits != 0 {
                    return Err(does_not_fit(v as i128, bits));
                }
                Ok(v)
            }
            #[inline(always)]
            fn from_bits(raw: u64, bits: u32) -> Result<Self> {
                <$t>::try_from(raw).map_err(|_| does_not_fit(raw as i128, bits))
            }
        }
    )*};
}
fixed_unsigned!(u8, u16, u32, u64);

macro_rules! fixed_signed {
    ($($t:ty),*) => {$(
        impl FixedBits for $t {
            const WIDTH: u32 = <$t>::BITS;
            const SIGNED: bool = true;
            #[inline(always)]
            fn to_bits(self, bits: u32) -> Result<u64> {
                let v = self as i64;
                let fits = match bits {
                    0 => v == 0,
                    1..=63 => {
                        let half = 1i64 << (bits - 1);
                        v >= -half && v < half
                    }
                    _ => true,
                };
                if !fits {
                    return Err(does_not_fit(v as i128, bits));
                }
                Ok(v as u64)
            }
            #[inline(always)]
            fn from_bits(raw: u64, bits: u32) -> Result<Self> {
                let v = if bits == 0 {
                    0
                } else if bits < 64 {
                    let shift = 64 - bits;
                    ((raw << shift) as i64) >> shift
                } else {
                    raw as i64
                };
                <$t>::try_from(v).map_err(|_| does_not_fit(v as i128, bits))
            }
        }
    )*};
}
fixed_signed!(i8, i16, i32, i64);

impl FixedBits for usize {
    const WIDTH: u32 = 64;
    const SIGNED: bool = false;
    #[inline(always)]
    fn to_bits(self, bits: u32) -> Result<u64> {
        (self as u64).to_bits(bits)
    }
    #[inline(always)]
    fn from_bits(raw: u64, bits: u32) -> Result<Self> {
        usize::try_from(raw).map_err(|_| does_not_fit(raw as i128, bits))
    }
}

impl FixedBits for isize {
    const WIDTH: u32 = 64;
    const SIGNED: bool = true;
    #[inline(always)]
    fn to_bits(self, bits: u32) -> Result<u64> {
        (self as i64).to_bits(bits)
    }
    #[inline(always)]
    fn from_bits(raw: u64, bits: u32) -> Result<Self> {
        let v = i64::from_bits(raw, bits)?;
        isize::try_from(v).map_err(|_| does_not_fit(v as i128, bits))
    }
}

impl FixedBits for bool {
    const WIDTH: u32 = 1;
    const SIGNED: bool = false;
    #[inline(always)]
    fn to_bits(self, _bits: u32) -> Result<u64> {
        Ok(self as u64)
    }
    #[inline(always)]
    fn from_bits(raw: u64, bits: u32) -> Result<Self> {
        match raw {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(does_not_fit(raw as i128, bits)),
        }
    }
}

/// Writes `value` in exactly `bits` bits (`#[bits(N)]`).
#[inline(always)]
pub fn encode_fixed<T: FixedBits>(value: &T, bits: u32, w: &mut BitWriter<'_>) -> Result<()> {
    w.write_bits(value.to_bits(bits)?, bits);
    Ok(())
}

/// What [`encode_fixed`] writes, as one word for [`crate::Encode::encode_word`]: `(bits, bits)`.
#[inline(always)]
pub fn fixed_word<T: FixedBits>(value: &T, bits: u32) -> Result<(u64, u32)> {
    let v = value.to_bits(bits)?;
    // Signed values come as their 64-bit two's complement: keep the low `bits`.
    let v = if bits < 64 {
        v & ((1u64 << bits) - 1)
    } else {
        v
    };
    Ok((v, bits))
}

/// Reads a value written by [`encode_fixed`].
#[inline(always)]
pub fn decode_fixed<T: FixedBits>(bits: u32, r: &mut BitReader<'_>) -> Result<T> {
    T::from_bits(r.read_bits(bits)?, bits)
}

/// Integers as the spec's variable-length integer of their own width, without zig-zag
/// (`#[rabbit(varint)]`; for a signed type, its two's complement bits).
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(varint)]` needs an integer of at most 64 bits, not `{Self}`",
    label = "not an integer"
)]
pub trait Varint: Sized + Copy {
    /// The type's width in bytes.
    const BYTES: u32;
    /// The value as an unsigned integer of the same width.
    fn to_varint(self) -> u64;
    /// The value back from its unsigned form.
    fn from_varint(raw: u64) -> Result<Self>;
}

macro_rules! varint_impl {
    ($($t:ty => $u:ty),*) => {$(
        impl Varint for $t {
            const BYTES: u32 = <$t>::BITS / 8;
            #[inline(always)]
            fn to_varint(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn from_varint(raw: u64) -> Result<Self> {
                <$u>::try_from(raw)
                    .map(|v| v as $t)
                    .map_err(|_| does_not_fit(raw as i128, <$t>::BITS))
            }
        }
    )*};
}
varint_impl!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, i8 => u8, i16 => u16, i32 => u32, i64 => u64);

impl Varint for usize {
    const BYTES: u32 = 8;
    #[inline(always)]
    fn to_varint(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_varint(raw: u64) -> Result<Self> {
        usize::try_from(raw).map_err(|_| does_not_fit(raw as i128, 64))
    }
}

/// Writes `value` as a variable-length integer of its own width.
#[inline(always)]
pub fn encode_varint<T: Varint>(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
    w.write_varint(value.to_varint(), T::BYTES);
    Ok(())
}

/// What [`encode_varint`] writes, as one word; only meaningful when [`varint_word_bits`] is
/// `Some` (integers of at most four bytes).
#[inline(always)]
pub fn varint_word<T: Varint>(value: &T) -> Result<(u64, u32)> {
    Ok(crate::write::varint_word(value.to_varint(), T::BYTES))
}

/// `Some(bits)` when every value of a `bytes`-byte variable-length integer fits in one 64-bit
/// word: the `WORD_BITS` of a `#[rabbit(varint)]` or `#[rabbit(zigzag)]` field.
pub const fn varint_word_bits(bytes: u32) -> Option<u32> {
    crate::write::varint_word_bits(bytes)
}

/// Reads a value written by [`encode_varint`].
#[inline(always)]
pub fn decode_varint<T: Varint>(r: &mut BitReader<'_>) -> Result<T> {
    T::from_varint(r.read_varint(T::BYTES)?)
}

/// Bits [`encode_varint`] takes for `value`.
#[inline(always)]
pub fn varint_bits<T: Varint>(value: &T) -> u64 {
    varint::encoded_bits(value.to_varint(), T::BYTES)
}

/// Signed integers, zig-zag interleaved and then written as variable-length integers of their
/// width (`#[rabbit(zigzag)]`, also the default encoding of `i16`, `i32`, `i64`).
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(zigzag)]` needs a signed integer, not `{Self}`",
    label = "not a signed integer",
    note = "unsigned integers are variable-length already; zig-zag only helps negative numbers"
)]
pub trait ZigZag: Sized + Copy {
    /// The type's width in bytes.
    const BYTES: u32;
    /// The zig-zag form.
    fn to_zigzag(self) -> u64;
    /// The value back from its zig-zag form.
    fn from_zigzag(raw: u64) -> Result<Self>;
}

macro_rules! zigzag_impl {
    ($($t:ty),*) => {$(
        impl ZigZag for $t {
            const BYTES: u32 = <$t>::BITS / 8;
            #[inline(always)]
            fn to_zigzag(self) -> u64 {
                varint::zigzag_encode(self as i64)
            }
            #[inline(always)]
            fn from_zigzag(raw: u64) -> Result<Self> {
                let v = varint::zigzag_decode(raw);
                <$t>::try_from(v).map_err(|_| does_not_fit(v as i128, <$t>::BITS))
            }
        }
    )*};
}
zigzag_impl!(i8, i16, i32, i64);

impl ZigZag for isize {
    const BYTES: u32 = 8;
    #[inline(always)]
    fn to_zigzag(self) -> u64 {
        varint::zigzag_encode(self as i64)
    }
    #[inline(always)]
    fn from_zigzag(raw: u64) -> Result<Self> {
        let v = varint::zigzag_decode(raw);
        isize::try_from(v).map_err(|_| does_not_fit(v as i128, 64))
    }
}

/// Writes `value` zig-zag interleaved as a variable-length integer of its width.
#[inline(always)]
pub fn encode_zigzag<T: ZigZag>(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
    w.write_varint(value.to_zigzag(), T::BYTES);
    Ok(())
}

/// What [`encode_zigzag`] writes, as one word; only meaningful when [`varint_word_bits`] is
/// `Some`.
#[inline(always)]
pub fn zigzag_word<T: ZigZag>(value: &T) -> Result<(u64, u32)> {
    Ok(crate::write::varint_word(value.to_zigzag(), T::BYTES))
}

/// Reads a value written by [`encode_zigzag`].
#[inline(always)]
pub fn decode_zigzag<T: ZigZag>(r: &mut BitReader<'_>) -> Result<T> {
    T::from_zigzag(r.read_varint(T::BYTES)?)
}

/// Bits [`encode_zigzag`] takes for `value`.
#[inline(always)]
pub fn zigzag_bits<T: ZigZag>(value: &T) -> u64 {
    varint::encoded_bits(value.to_zigzag(), T::BYTES)
}

/// Integers that a `#[rabbit(range = "A..=B")]` field can hold.
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(range = \"A..=B\")]` needs an integer, not `{Self}`",
    label = "not an integer"
)]
pub trait RangeInt: Sized + Copy {
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// The value back, if it fits the type.
    fn from_i128(v: i128) -> Option<Self>;
}

macro_rules! range_impl {
    ($($t:ty),*) => {$(
        impl RangeInt for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}
range_impl!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Bits a `min..=max` range field takes.
pub const fn range_bits(min: i128, max: i128) -> u32 {
    size::span_bits(max.abs_diff(min))
}

#[cold]
fn out_of_range(value: i128, min: i128, max: i128) -> Error {
    Error::OutOfRange {
        value,
        expected: Cow::Owned(format!("{min}..={max}")),
    }
}

/// Writes `value - min` in [`range_bits`] bits; fails if `value` is outside `min..=max`.
#[inline(always)]
pub fn encode_range<T: RangeInt>(
    value: &T,
    min: i128,
    max: i128,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    let v = value.to_i128();
    if v < min || v > max {
        return Err(out_of_range(v, min, max));
    }
    w.write_bits((v - min) as u64, range_bits(min, max));
    Ok(())
}

/// What [`encode_range`] writes, as one word: `(value - min, range_bits(min, max))`; only
/// meaningful when that width is at most 64.
#[inline(always)]
pub fn range_word<T: RangeInt>(value: &T, min: i128, max: i128) -> Result<(u64, u32)> {
    let v = value.to_i128();
    if v < min || v > max {
        return Err(out_of_range(v, min, max));
    }
    Ok(((v - min) as u64, range_bits(min, max)))
}

/// Reads a value written by [`encode_range`], rejecting one above `max`.
#[inline(always)]
pub fn decode_range<T: RangeInt>(min: i128, max: i128, r: &mut BitReader<'_>) -> Result<T> {
    let v = min + r.read_bits(range_bits(min, max))? as i128;
    if v > max {
        return Err(out_of_range(v, min, max));
    }
    T::from_i128(v).ok_or_else(|| out_of_range(v, min, max))
}

/// Lists and strings whose length a `#[rabbit(max_len = N)]` field bounds.
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(max_len = N)]` needs a list or a string, not `{Self}`",
    label = "not a list or string",
    note = "`max_len` works on `Vec<T>`, `[T]`, `Box<[T]>`, `String`, `str` and `Cow` of them"
)]
pub trait Bounded {
    /// The length as the wire counts it (items, or bytes for strings).
    fn wire_len(&self) -> usize;
}

impl<T> Bounded for Vec<T> {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl<T> Bounded for [T] {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl<T> Bounded for Box<[T]> {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl Bounded for String {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl Bounded for str {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl Bounded for Box<str> {
    fn wire_len(&self) -> usize {
        self.len()
    }
}
impl<T: Bounded + ?Sized> Bounded for &T {
    fn wire_len(&self) -> usize {
        (**self).wire_len()
    }
}
impl<T: Bounded + ?Sized> Bounded for std::sync::Arc<T> {
    fn wire_len(&self) -> usize {
        (**self).wire_len()
    }
}
impl<T: Bounded + ToOwned + ?Sized> Bounded for Cow<'_, T> {
    fn wire_len(&self) -> usize {
        (**self).wire_len()
    }
}
impl<T: Bounded + ?Sized> Bounded for std::rc::Rc<T> {
    fn wire_len(&self) -> usize {
        (**self).wire_len()
    }
}

#[cold]
fn too_long(len: u64, max: u64) -> Error {
    Error::TooLong { len, max }
}

/// Writes a list or string, failing if it is longer than `max_len`.
#[inline]
pub fn encode_max_len<T: Encode + Bounded + ?Sized>(
    value: &T,
    max_len: u64,
    w: &mut BitWriter<'_>,
) -> Result<()> {
    let len = value.wire_len() as u64;
    if len > max_len {
        return Err(too_long(len, max_len));
    }
    value.encode(w)
}

/// Reads a list or string, failing as soon as its count says it is longer than `max_len`,
/// before reading or allocating the items.
#[inline]
pub fn decode_max_len<T: Decode>(max_len: u64, r: &mut BitReader<'_>) -> Result<T> {
    let mut peek = r.clone();
    let len = peek.read_varint(4)?;
    if len > max_len {
        return Err(too_long(len, max_len));
    }
    T::decode(r)
}
