//! `#[bits(N)]`: integers and `bool` as plain bit fields of a fixed width.

use std::borrow::Cow;

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::write::BitWriter;

/// Integers and `bool`, as plain fixed-width bit fields; signed types as two's complement of
/// that width.
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

/// The error of a value that does not fit its field's width.
#[cold]
pub(crate) fn does_not_fit(value: i128, bits: u32) -> Error {
    Error::OutOfRange {
        value,
        expected: Cow::Owned(format!("{bits} bits")),
    }
}

/// Unsigned values in `bits` bits: fits if nothing is set above them.
#[inline(always)]
fn unsigned_bits(v: u64, bits: u32) -> Result<u64> {
    if bits < 64 && v >> bits != 0 {
        return Err(does_not_fit(v as i128, bits));
    }
    Ok(v)
}

/// Signed values in `bits` bits of two's complement.
#[inline(always)]
fn signed_bits(v: i64, bits: u32) -> Result<u64> {
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

/// `bits` raw bits, sign-extended.
#[inline(always)]
fn sign_extend(raw: u64, bits: u32) -> i64 {
    match bits {
        0 => 0,
        1..=63 => {
            let shift = 64 - bits;
            ((raw << shift) as i64) >> shift
        }
        _ => raw as i64,
    }
}

macro_rules! fixed_ints {
    ($($t:ty: $wide:ty, $width:expr, $to:ident, $from:expr;)*) => {$(
        impl FixedBits for $t {
            const WIDTH: u32 = $width;
            const SIGNED: bool = <$t>::MIN != 0;
            #[inline(always)]
            fn to_bits(self, bits: u32) -> Result<u64> {
                $to(self as $wide, bits)
            }
            #[inline(always)]
            fn from_bits(raw: u64, bits: u32) -> Result<Self> {
                let v = $from(raw, bits);
                <$t>::try_from(v).map_err(|_| does_not_fit(v as i128, bits))
            }
        }
    )*};
}

fixed_ints! {
    u8: u64, 8, unsigned_bits, |raw, _| raw;
    u16: u64, 16, unsigned_bits, |raw, _| raw;
    u32: u64, 32, unsigned_bits, |raw, _| raw;
    u64: u64, 64, unsigned_bits, |raw, _| raw;
    usize: u64, 64, unsigned_bits, |raw, _| raw;
    i8: i64, 8, signed_bits, sign_extend;
    i16: i64, 16, signed_bits, sign_extend;
    i32: i64, 32, signed_bits, sign_extend;
    i64: i64, 64, signed_bits, sign_extend;
    isize: i64, 64, signed_bits, sign_extend;
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

/// Exactly `N` bits (`#[bits(N)]`, 0 to 64): a value that does not fit is an error, never
/// truncated. Also the codec of an enum tag of `N` plain bits.
pub struct Fixed<const N: u32>;

impl<T: FixedBits, const N: u32> FieldCodec<T> for Fixed<N> {
    const MIN_BITS: u64 = N as u64;
    const MAX_BITS: Option<u64> = Some(N as u64);
    const WORD_BITS: Option<u32> = Some(N);

    #[inline(always)]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        super::write_word(Self::encode_word(value), w)
    }

    #[inline(always)]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        let v = value.to_bits(N)?;
        // Signed values come as their 64-bit two's complement: keep the low `N`.
        let v = if N < 64 { v & ((1u64 << N) - 1) } else { v };
        Ok((v, N))
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        N as u64
    }

    fn schema() -> Encoding {
        Encoding::Fixed {
            bits: N,
            signed: T::SIGNED,
        }
    }
}

impl<T: FixedBits, const N: u32> FieldDecode<T> for Fixed<N> {
    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        T::from_bits(r.read_bits(N)?, N)
    }
}
