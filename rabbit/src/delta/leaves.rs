//! Values that change as a whole: numbers, `bool`, `char`, strings. Unchanged is one `0` bit;
//! changed is a `1`, then the value. Floats compare by their bits, so `-0.0` against `0.0`
//! and one NaN against another are changes, and every bit pattern comes back as it went.
//! `()` and `PhantomData` have one value: their delta takes no bits at all.

use std::marker::PhantomData;

use super::{DeltaDecode, DeltaEncode};
use crate::{BitReader, BitWriter, Decode, Encode, Result};

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
    |a, b| a.to_bits() == b.to_bits() => f32, f64;
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
