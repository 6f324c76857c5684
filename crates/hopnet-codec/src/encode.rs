//! [`Encode`], the trait of every type written as Rabbit bits, and the functions that encode a
//! whole message with it.
//!
//! A file of its own below the readers and the codec types, which all name it, and above the
//! writer it pushes into.

use crate::error::{Error, Result};
use crate::schema;
use crate::write::{self, BitWriter};

/// A type that can be written as Rabbit bits.
///
/// Usually derived with `#[derive(Rabbit)]`; a type written as another one (a bitflags type as
/// its bits) derives it with `#[rabbit(from = "W", into = "W")]` (see
/// `guide::containers`). Hand-written impls need `MIN_BITS`, `MAX_BITS` and
/// [`Encode::encode`], push their fields with the [`BitWriter`] (or the codec types of
/// [`codec`](crate::codec)) and must keep the sizes true, since decoders use `MIN_BITS` to reject
/// impossible length prefixes.
pub trait Encode {
    /// The fewest bits any value of the type takes.
    const MIN_BITS: u64;
    /// The most bits any value takes, or `None` if values can be arbitrarily large.
    const MAX_BITS: Option<u64>;

    /// Pushes the value's bits.
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()>;

    /// The bits [`Encode::encode`] would push, computed without encoding.
    ///
    /// The provided method is `MIN_BITS` when every value takes the same bits (`MAX_BITS` is
    /// `Some(MIN_BITS)`), and otherwise encodes into a scratch buffer and counts, which
    /// allocates: a type whose values vary in size should override it.
    #[inline]
    fn encoded_bits(&self) -> u64 {
        match Self::MAX_BITS {
            Some(max) if max == Self::MIN_BITS => max,
            _ => write::count_bits(|w| self.encode(w)),
        }
    }

    /// `Some(n)` if every value's encoding fits in one 64-bit word, `n <= 64` bits at most,
    /// and [`Encode::encode_word`] returns it; `None` (the default) otherwise.
    ///
    /// Derived code uses it to merge a run of small fields (numbers, flags, `Option`s of them,
    /// enum tags) into one write of up to 64 bits where it would otherwise make one write per
    /// field: the bit writer's bookkeeping (the bit count and the check for a full word) then
    /// runs once per run instead of once per field. The runs are chosen from these constants
    /// at compile time, so an impl that leaves it `None` only loses that merging.
    const WORD_BITS: Option<u32> = None;

    /// The value's encoding as one word: the bits, first pushed in the least significant
    /// position and nothing at or above the count, and the count. Exactly what
    /// [`Encode::encode`] pushes; only called when [`Encode::WORD_BITS`] is `Some(n)`, and the
    /// count is then at most `n`.
    ///
    /// The provided method encodes into a scratch buffer and reads the bits back, which is
    /// correct for any impl but slow: an impl that sets `WORD_BITS` should override it.
    #[inline]
    fn encode_word(&self) -> Result<(u64, u32)> {
        word_by_encoding(self)
    }

    /// How the type is laid out on the wire.
    fn schema() -> schema::Encoding {
        schema::Encoding::Opaque {
            type_name: std::any::type_name::<Self>(),
        }
    }
}

/// Encodes `value` into a new buffer.
///
/// The buffer starts with room for the most bytes the type can take when that is at most
/// 4 KiB (so a bounded message is one allocation), and otherwise for the fewest it takes, at
/// least 64 bytes (so a large one starts growing from there, not from 8).
#[inline]
pub fn to_bytes<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(initial_capacity::<T>());
    encode_into(value, &mut out)?;
    Ok(out)
}

/// The capacity [`to_bytes`] starts with.
const fn initial_capacity<T: Encode + ?Sized>() -> usize {
    const SMALL: u64 = 4096;
    // A `MIN_BITS` is a promise about every value, but one from a hand-written impl could be
    // wrong: never reserve more than this on its word alone.
    const LARGE: u64 = 1 << 20;
    let min = T::MIN_BITS.div_ceil(8);
    let bytes = match T::MAX_BITS {
        Some(max) if max.div_ceil(8) <= SMALL => max.div_ceil(8),
        _ => {
            let at_least = if min > 64 { min } else { 64 };
            if at_least < LARGE { at_least } else { LARGE }
        }
    };
    bytes as usize
}

/// Appends the encoding of `value` to `out`, reusing its capacity.
///
/// On error, `out` is left as it was.
#[inline]
pub fn encode_into<T: Encode + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    // `ManuallyDrop`: if an impl panics, the writer's drop glue would have to run from the
    // unwinding path, which makes LLVM keep the accumulator in memory (stored on every field)
    // instead of in registers. A panic leaves `out` with whatever whole words it had.
    let mut w = std::mem::ManuallyDrop::new(BitWriter::new(out));
    let result = value.encode(&mut w);
    std::mem::ManuallyDrop::into_inner(w).finish();
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// The bytes the encoding of `value` takes: [`Encode::encoded_bits`] rounded up.
#[inline]
pub fn encoded_len<T: Encode + ?Sized>(value: &T) -> usize {
    value.encoded_bits().div_ceil(8) as usize
}

/// The provided [`Encode::encode_word`]: encodes into a scratch buffer and reads the bits back.
pub(crate) fn word_by_encoding<T: Encode + ?Sized>(value: &T) -> Result<(u64, u32)> {
    let (word, bits) = write::scratch_word(|w| value.encode(w))?;
    if bits > 64 {
        return Err(Error::custom(format!(
            "`{}` set `WORD_BITS` but encoded {bits} bits, more than one word",
            std::any::type_name::<T>()
        )));
    }
    Ok((word, bits as u32))
}
