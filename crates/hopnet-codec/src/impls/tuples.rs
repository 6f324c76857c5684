//! Tuples (their items in order), `()` and `PhantomData` (no bits).

use crate::encode::Encode;
use crate::error::Result;
use crate::read::{BitReader, Decode};
use crate::schema::Encoding;
use crate::size;
use crate::write::BitWriter;
use std::marker::PhantomData;

/// Types with one value, which takes no bits.
macro_rules! empty {
    ($(impl[$($g:tt)*] for $t:ty = $value:expr;)*) => {$(
        impl<$($g)*> Encode for $t {
            const MIN_BITS: u64 = 0;
            const MAX_BITS: Option<u64> = Some(0);
            const WORD_BITS: Option<u32> = Some(0);
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                Ok((0, 0))
            }
            #[inline(always)]
            fn encode(&self, _: &mut BitWriter<'_>) -> Result<()> {
                Ok(())
            }
            fn schema() -> Encoding {
                Encoding::Empty
            }
        }

        impl<$($g)*> Decode for $t {
            #[inline(always)]
            fn decode(_: &mut BitReader<'_>) -> Result<Self> {
                Ok($value)
            }
        }
    )*};
}

empty! {
    impl[] for () = ();
    impl[T: ?Sized] for PhantomData<T> = PhantomData;
}

macro_rules! tuple {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            const MIN_BITS: u64 = 0 $(+ $name::MIN_BITS)+;
            const MAX_BITS: Option<u64> = {
                let max = Some(0);
                $(let max = size::add_max(max, $name::MAX_BITS);)+
                max
            };
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                $(self.$idx.encode(w)?;)+
                Ok(())
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                0 $(+ self.$idx.encoded_bits())+
            }
            fn schema() -> Encoding {
                Encoding::Tuple(vec![$($name::schema()),+])
            }
        }

        impl<$($name: Decode),+> Decode for ($($name,)+) {
            #[inline(always)]
            fn decode(r: &mut BitReader<'_>) -> Result<Self> {
                Ok(($($name::decode(r)?,)+))
            }
        }
    };
}

for_each_tuple!(tuple);
