//! `#[rabbit(max_len = N)]`: lists and strings of at most `N` items (bytes for strings).

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use super::{FieldCodec, FieldDecode};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::read::{BitRead, BitReader, Decode};
use crate::schema::Encoding;
use crate::size;
use crate::write::BitWriter;

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

/// The items of a bounded list: the most bits one takes, for the list's `MAX_BITS`.
pub trait ListItems {
    /// `MAX_BITS` of one item (a byte for strings).
    const ITEM_MAX_BITS: Option<u64>;
}

macro_rules! lists {
    ($(impl[$($g:tt)*] for $t:ty => $item:expr;)*) => {$(
        impl<$($g)*> Bounded for $t {
            #[inline]
            fn wire_len(&self) -> usize {
                self.len()
            }
        }
        impl<$($g)*> ListItems for $t {
            const ITEM_MAX_BITS: Option<u64> = $item;
        }
    )*};
}

lists! {
    impl[T: Encode] for [T] => T::MAX_BITS;
    impl[T: Encode] for Vec<T> => T::MAX_BITS;
    impl[] for str => Some(8);
    impl[] for String => Some(8);
}

macro_rules! pointers {
    ($(impl[$($g:tt)*] for $t:ty;)*) => {$(
        impl<$($g)*> Bounded for $t {
            #[inline]
            fn wire_len(&self) -> usize {
                (**self).wire_len()
            }
        }
        impl<$($g)*> ListItems for $t {
            const ITEM_MAX_BITS: Option<u64> = T::ITEM_MAX_BITS;
        }
    )*};
}

pointers! {
    impl[T: Bounded + ListItems + ?Sized] for &T;
    impl[T: Bounded + ListItems + ?Sized] for Box<T>;
    impl[T: Bounded + ListItems + ?Sized] for Rc<T>;
    impl[T: Bounded + ListItems + ?Sized] for Arc<T>;
    impl[T: Bounded + ListItems + ToOwned + ?Sized] for Cow<'_, T>;
}

/// A list or string of at most `N` items: a longer one is an error when encoding, and when
/// decoding as soon as its count is read, before anything is allocated. Bounds `MAX_BITS`.
pub struct MaxLen<const N: u64>;

#[cold]
fn too_long(len: u64, max: u64) -> Error {
    Error::TooLong { len, max }
}

impl<T: Encode + Bounded + ListItems + ?Sized, const N: u64> FieldCodec<T> for MaxLen<N> {
    const MIN_BITS: u64 = T::MIN_BITS;
    const MAX_BITS: Option<u64> = size::list_max(N, T::ITEM_MAX_BITS);

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        let len = value.wire_len() as u64;
        if len > N {
            return Err(too_long(len, N));
        }
        value.encode(w)
    }

    #[inline]
    fn encoded_bits(value: &T) -> u64 {
        value.encoded_bits()
    }

    fn schema() -> Encoding {
        match T::schema() {
            Encoding::List { item, .. } => Encoding::List {
                item,
                max_len: Some(N),
            },
            Encoding::String { .. } => Encoding::String { max_len: Some(N) },
            other => other,
        }
    }
}

impl<T: Decode, const N: u64> FieldDecode<T> for MaxLen<N> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        r.with_reader(decode_bounded::<T, N>)
    }
}

/// Reads the count ahead, and the list only if it is short enough.
#[inline]
fn decode_bounded<T: Decode, const N: u64>(r: &mut BitReader<'_>) -> Result<T> {
    let len = r.clone().read_varint(4)?;
    if len > N {
        return Err(too_long(len, N));
    }
    T::decode(r)
}
