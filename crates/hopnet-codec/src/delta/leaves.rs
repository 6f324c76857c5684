//! Values that change as a whole: numbers, `bool`, `char`, strings. Unchanged is one `0` bit;
//! changed is a `1`, then the value. `()` and `PhantomData` have one value: their delta takes
//! no bits at all.
//!
//! Floats compare by their bits, so `-0.0` against `0.0` and one NaN against another are
//! changes, and every bit pattern comes back as it went. A changed float is written as the
//! difference of its bits from the baseline's, their XOR: the number of leading zero bits of
//! the XOR (5 bits for an `f32`, 6 for an `f64`), then the XOR's bits below its highest set bit
//! (that bit is 1, so it is left out). A position that moved a little keeps its sign, exponent
//! and high mantissa bits: an `f32` at 100 that moved by 0.25 differs in its low 16 bits, and
//! takes 5 + 15 bits instead of 32; one that changed completely takes 5 + 31.

use std::marker::PhantomData;

use super::{DeltaDecode, DeltaEncode};
use crate::encode::Encode;
use crate::error::Result;
use crate::read::{BitReader, Decode};
use crate::write::BitWriter;

macro_rules! leaves {
    ($(|$a:ident, $b:ident| $same:expr => $($t:ty),+;)*) => {$($(
        impl DeltaEncode for $t {
            #[inline(always)]
            fn unchanged(&self, base: &Self) -> bool {
                let ($a, $b) = (self, base);
                $same
            }
            #[inline(always)]
            fn encode_changes(&self, _: &Self, w: &mut BitWriter<'_>) -> Result<()> {
                self.encode(w)
            }
        }

        impl DeltaDecode for $t {
            #[inline(always)]
            fn decode_changes(_: &Self, r: &mut BitReader<'_>) -> Result<Self> {
                Self::decode(r)
            }
        }
    )+)*};
}

leaves! {
    |a, b| a == b => bool, char, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, String;
}

macro_rules! floats {
    ($($t:ty: $bits:ty, $count:expr;)*) => {$(
        impl DeltaEncode for $t {
            #[inline(always)]
            fn unchanged(&self, base: &Self) -> bool {
                self.to_bits() == base.to_bits()
            }
            #[inline(always)]
            fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
                let xor = self.to_bits() ^ base.to_bits();
                if xor == 0 {
                    // Only called for a change: the same bits have no difference to write.
                    return Err(crate::error::Error::custom("encode_changes of an unchanged float"));
                }
                let zeros = xor.leading_zeros();
                let below = <$bits>::BITS - 1 - zeros;
                w.write_bits(u64::from(zeros), $count);
                w.write_bits(xor as u64, below);
                Ok(())
            }
        }

        impl DeltaDecode for $t {
            #[inline(always)]
            fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
                // At most `BITS - 1`, all the count's bits can say.
                let zeros = r.read_bits($count)? as u32;
                let below = <$bits>::BITS - 1 - zeros;
                let low = r.read_bits(below)? as $bits;
                let xor = ((1 as $bits) << below) | low;
                Ok(<$t>::from_bits(base.to_bits() ^ xor))
            }
        }
    )*};
}

floats! {
    f32: u32, 5;
    f64: u64, 6;
}

macro_rules! empty {
    ($(impl[$($g:tt)*] for $t:ty;)*) => {$(
        impl<$($g)*> DeltaEncode for $t {
            // Its delta is nothing at all.
            const DELTA_BIT: bool = false;

            #[inline(always)]
            fn unchanged(&self, _: &Self) -> bool {
                true
            }
            #[inline(always)]
            fn encode_delta(&self, _: &Self, _: &mut BitWriter<'_>) -> Result<()> {
                Ok(())
            }
            #[inline(always)]
            fn encode_changes(&self, _: &Self, _: &mut BitWriter<'_>) -> Result<()> {
                Ok(())
            }
        }

        impl<$($g)*> DeltaDecode for $t {
            #[inline(always)]
            fn decode_delta(base: &Self, _: &mut BitReader<'_>) -> Result<Self> {
                Ok(base.clone())
            }
            #[inline(always)]
            fn decode_changes(base: &Self, _: &mut BitReader<'_>) -> Result<Self> {
                Ok(base.clone())
            }
        }
    )*};
}

empty! {
    impl[] for ();
    impl[T: ?Sized] for PhantomData<T>;
}
