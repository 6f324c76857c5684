//! [`Decode`], the trait of every type read back from Rabbit bits, and [`from_bytes`].
//!
//! It stands with the readers because its methods take them and their reads of a typed value
//! ([`BitRead::decode_value`](super::BitRead::decode_value)) call it.

use super::{BitReader, BitWindow};
use crate::error::Result;

/// A type that can be read back from Rabbit bits.
pub trait Decode: Sized {
    /// Reads one value.
    fn decode(r: &mut BitReader<'_>) -> Result<Self>;

    /// Reads one value from a [`BitWindow`] made for this type
    /// ([`BitReader::window`]`::<Self>()`, which exists only when the type's encoding fits a
    /// window): exactly what [`Decode::decode`] reads, with the same errors at the same
    /// positions. On a window made for a smaller type, reads past its end wrap around.
    ///
    /// A list decodes its items through this method when their type's
    /// [`Encode::MAX_BITS`](crate::Encode::MAX_BITS) is at most [`limits::WINDOW_MAX_BITS`](crate::limits::WINDOW_MAX_BITS) and the input has a whole window
    /// left: the window's reads need no bounds checks. Derived impls read their fields through
    /// it; the provided method runs [`Decode::decode`] on a [`BitReader`] at the window's
    /// cursor, which is correct for any impl and only slower.
    #[inline(always)]
    fn decode_window(w: &mut BitWindow<'_>) -> Result<Self> {
        w.with_reader(Self::decode)
    }
}

/// Decodes one `T` from the whole of `bytes`: only the zero padding of the final byte may follow.
#[inline]
pub fn from_bytes<T: Decode>(bytes: &[u8]) -> Result<T> {
    let mut r = BitReader::new(bytes);
    let value = T::decode(&mut r)?;
    r.finish()?;
    Ok(value)
}
