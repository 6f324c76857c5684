//! An enum's tag: its variant's index, written by [`Fixed<N>`] (`N` plain bits) or [`Varint`]
//! (a `u32` variable-length integer).

use super::{Fixed, Varint};
use crate::error::Result;
use crate::read::BitRead;
use crate::schema::Tag;
use crate::write::varint_word;

/// A codec that writes an enum's tag.
pub trait TagCodec {
    /// The tag as the schema shows it.
    const SCHEMA: Tag;
    /// How many tags it can read (`2^N` for `N` bits): derived decoders check a tag against
    /// their variants only where it can name none of them.
    const VALUES: u128;

    /// Reads a tag: the index of a variant, or of none (the caller reports that).
    fn decode<R: BitRead>(r: &mut R) -> Result<u64>;
}

/// The tag of the variant with index `INDEX`, known at compile time: derived code writes it as
/// a constant word.
pub trait TagIndex<const INDEX: u64>: TagCodec {
    /// The bits the tag takes.
    const BITS: u32;
    /// The tag's bits, first pushed in the least significant position.
    const WORD: u64;
}

impl<const N: u32> TagCodec for Fixed<N> {
    const SCHEMA: Tag = Tag::Bits(N);
    const VALUES: u128 = 1 << N;

    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<u64> {
        r.read_bits(N)
    }
}

/// The index in `N` bits; the derive checks at compile time that every index fits.
impl<const N: u32, const INDEX: u64> TagIndex<INDEX> for Fixed<N> {
    const BITS: u32 = N;
    const WORD: u64 = INDEX;
}

impl TagCodec for Varint {
    const SCHEMA: Tag = Tag::Varint { bytes: 4 };
    const VALUES: u128 = 1 << 32;

    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<u64> {
        r.read_varint(4)
    }
}

impl<const INDEX: u64> TagIndex<INDEX> for Varint {
    const BITS: u32 = varint_word(INDEX, 4).1;
    const WORD: u64 = varint_word(INDEX, 4).0;
}
