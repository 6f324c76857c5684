//! Smart pointers and references: the pointee's encoding, nothing added.

use crate::encode::Encode;
use crate::error::Result;
use crate::read::{BitReader, Decode};
use std::borrow::{Cow, ToOwned};
use std::rc::Rc;
use std::sync::Arc;

deref_encode! {
    impl[T: Encode + ?Sized] for Box<T> => T;
    impl[T: Encode + ?Sized] for Rc<T> => T;
    impl[T: Encode + ?Sized] for Arc<T> => T;
    impl[T: Encode + ?Sized] for &T => T;
    impl[T: Encode + ToOwned + ?Sized] for Cow<'_, T> => T;
}

/// Decoding builds the pointee, then the pointer from it.
macro_rules! decode_into {
    ($(impl[$($g:tt)*] for $t:ty, from $owned:ty;)*) => {$(
        impl<$($g)*> Decode for $t {
            #[inline(always)]
            fn decode(r: &mut BitReader<'_>) -> Result<Self> {
                <$owned>::decode(r).map(<$t>::from)
            }
        }
    )*};
}

decode_into! {
    impl[T: Decode] for Box<T>, from T;
    impl[T: Decode] for Rc<T>, from T;
    impl[T: Decode] for Arc<T>, from T;
    impl[] for Arc<str>, from String;
    impl[] for Rc<str>, from String;
    impl[T: Decode + Encode] for Arc<[T]>, from Vec<T>;
    impl[T: Decode + Encode] for Rc<[T]>, from Vec<T>;
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
