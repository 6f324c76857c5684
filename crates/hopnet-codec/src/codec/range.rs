//! `#[rabbit(range = "A..=B")]`: `value - A` in the fewest bits that hold `B - A`.

use std::borrow::Cow;

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::size;
use crate::write::BitWriter;

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

macro_rules! range_ints {
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
range_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// `value - MIN` in [`Range::BITS`] bits; a value outside `MIN..=MAX` is an error on both
/// sides (the bits can say more than `MAX - MIN`).
pub struct Range<const MIN: i128, const MAX: i128>;

impl<const MIN: i128, const MAX: i128> Range<MIN, MAX> {
    /// The fewest bits that hold every value of `0..=MAX - MIN`: 0 when `MIN == MAX`.
    pub const BITS: u32 = size::span_bits(MAX.abs_diff(MIN));

    #[cold]
    fn outside(value: i128) -> Error {
        Error::OutOfRange {
            value,
            expected: Cow::Owned(format!("{MIN}..={MAX}")),
        }
    }
}

impl<T: RangeInt, const MIN: i128, const MAX: i128> FieldCodec<T> for Range<MIN, MAX> {
    const MIN_BITS: u64 = Self::BITS as u64;
    const MAX_BITS: Option<u64> = Some(Self::BITS as u64);
    const WORD_BITS: Option<u32> = Some(Self::BITS);

    #[inline(always)]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        super::write_word(Self::encode_word(value), w)
    }

    #[inline(always)]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        let v = value.to_i128();
        if v < MIN || v > MAX {
            return Err(Self::outside(v));
        }
        Ok(((v - MIN) as u64, Self::BITS))
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        Self::BITS as u64
    }

    fn schema() -> Encoding {
        Encoding::Range {
            min: MIN,
            max: MAX,
            bits: Self::BITS,
        }
    }
}

impl<T: RangeInt, const MIN: i128, const MAX: i128> FieldDecode<T> for Range<MIN, MAX> {
    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        let v = MIN + r.read_bits(Self::BITS)? as i128;
        if v > MAX {
            return Err(Self::outside(v));
        }
        T::from_i128(v).ok_or_else(|| Self::outside(v))
    }
}
