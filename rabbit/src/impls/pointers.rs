//! Smart pointers and references: the pointee's encoding, nothing added.

use crate::schema::Encoding;
use crate::{BitReader, BitWriter, Decode, Encode, Result};
use std::borrow::{Cow, ToOwned};
use std::rc::Rc;
use std::sync::Arc;

macro_rules! deref_encode {
    ($($ptr:ident),*) => {$(
        impl<T: Encode + ?Sized> Encode for $ptr<T> {
            const MIN_BITS: u64 = T::MIN_BITS;
            const MAX_BITS: Option<u64> = T::MAX_BITS;
            const WORD_BITS: Option<u32> = T::WORD_BITS;
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                (**self).encode_word()
            }
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                (**self).encode(w)
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                (**self).encoded_bits()
            }
            fn schema() -> Encoding {
                T::schema()
            }
        }

        impl<T: Decode> Decode for $ptr<T> {
            #[inline(always)]
            fn decode(r: &mut BitReader<'_>) -> Result<Self> {
                T::decode(r).map($ptr::new)
            }
        }
    )*};
}
deref_encode!(Box, Rc, Arc);

impl Decode for Arc<str> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        String::decode(r).map(Arc::from)
    }
}

impl Decode for Rc<str> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        String::decode(r).map(Rc::from)
    }
}

impl<T: Decode + crate::Encode> Decode for Arc<[T]> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        Vec::<T>::decode(r).map(Arc::from)
    }
}

impl<T: Decode + crate::Encode> Decode for Rc<[T]> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        Vec::<T>::decode(r).map(Rc::from)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    const MIN_BITS: u64 = T::MIN_BITS;
    const MAX_BITS: Option<u64> = T::MAX_BITS;
    const WORD_BITS: Option<u32> = T::WORD_BITS;
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        (**self).encode_word()
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        (**self).encode(w)
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        (**self).encoded_bits()
    }
    fn schema() -> Encoding {
        T::schema()
    }
}

impl<T: Encode + ToOwned + ?Sized> Encode for Cow<'_, T> {
    const MIN_BITS: u64 = T::MIN_BITS;
    const MAX_BITS: Option<u64> = T::MAX_BITS;
    const WORD_BITS: Option<u32> = T::WORD_BITS;
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        (**self).encode_word()
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        (**self).encode(w)
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        (**self).encoded_bits()
    }
    fn schema() -> Encoding {
        T::schema()
    }
}

/// A `Cow` always decodes to its owned form.
impl<T: ToOwned + ?Sized> Decode for Cow<'_, T>
where
    T::Owned: Decode,
{
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        T::Owned::decode(r).map(Cow::Owned)
    }
}
