//! Field encodings: one type per way a value can be written, each implementing
//! [`FieldCodec`] (and [`FieldDecode`]).
//!
//! `#[derive(Rabbit)]` picks one codec type per field from its attributes ([`Native`] when
//! there is none, [`Fixed`] for `#[bits(N)]`, [`Varint`], [`ZigZag`], [`Range`], [`MaxLen`], and for byte layouts
//! [`BigEndian`], [`LittleEndian`], [`FixedLen`], [`ToEnd`], [`Counted`], [`UntilByte`], [`UntilItem`], [`CString`], [`Leb128`],
//! [`Leb128Signed`] and [`Leb128ZigZag`]) and
//! emits the same calls for every field: `<C as FieldCodec<T>>::encode(&value, w)`, its
//! constants for the sizes, `<C as FieldDecode<T>>::decode(r)`. Every rule of an encoding (its
//! widths, its checks, its schema) lives in its type, so a new encoding is one more type and
//! the derive only learns which attribute selects it. An enum's tag is written by a codec type
//! too ([`TagCodec`]).
//!
//! The types are public so that hand-written impls can use them:
//!
//! ```
//! use hopnet_codec::codec::{FieldCodec, FieldDecode, Range};
//! use hopnet_codec::{BitReader, BitWriter};
//!
//! type Level = Range<10, 20>; // 10..=20 in four bits
//!
//! let mut buf = Vec::new();
//! let mut w = BitWriter::new(&mut buf);
//! <Level as FieldCodec<u8>>::encode(&15, &mut w)?;
//! w.finish();
//! assert_eq!(buf, [5]);
//! assert_eq!(<Level as FieldCodec<u8>>::MAX_BITS, Some(4));
//! assert_eq!(<Level as FieldDecode<u8>>::decode(&mut BitReader::new(&buf))?, 15);
//! assert!(<Level as FieldCodec<u8>>::encode(&21, &mut BitWriter::new(&mut Vec::new())).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```

mod byte_string;
mod bytes;
mod counted;
mod cstring;
mod find_byte;
mod fixed;
pub mod leb128;
mod max_len;
mod octahedral;
mod quantize;
mod quantize_axes;
mod range;
mod smallest_three;
mod tag;
mod to_end;
mod until;
mod varint;

pub use byte_string::ByteString;
pub use bytes::{BigEndian, ByteNumber, FixedLen, LittleEndian};
pub use counted::{CountValue, Counted, CountedDecode, CountedList, check_count};
pub use cstring::CString;
pub use fixed::{Fixed, FixedBits};
pub use leb128::{Leb128, Leb128Int, Leb128Signed, Leb128ZigZag};
pub use max_len::{Bounded, ListItems, MaxLen};
pub use octahedral::{Octahedral, UnitVector};
pub use quantize::{Quantize, QuantizeFloat};
pub use quantize_axes::QuantizeAxes;
pub use range::{Range, RangeInt};
pub use smallest_three::{Quaternion, SmallestThree};
pub use tag::{TagCodec, TagIndex};
pub use to_end::{EndList, ToEnd};
pub use until::{UntilByte, UntilItem, check_until, with_expression};
pub use varint::{Varint, VarintInt, ZigZag};

use crate::encode::Encode;
use crate::error::Result;
use crate::read::{BitRead, Decode};
use crate::schema::Encoding;
use crate::write::BitWriter;

/// How values of type `T` are written: the encoding half of a codec type.
///
/// The constants and methods mean what [`Encode`]'s do, for `T` under this encoding; a field
/// with the codec takes exactly what these say.
pub trait FieldCodec<T: ?Sized> {
    /// The fewest bits any value takes.
    const MIN_BITS: u64;
    /// The most bits any value takes, or `None` if unbounded.
    const MAX_BITS: Option<u64>;
    /// `Some(n)` if every value's encoding fits one 64-bit word of at most `n` bits, which
    /// [`FieldCodec::encode_word`] returns (see [`Encode::WORD_BITS`]).
    const WORD_BITS: Option<u32> = None;

    /// Pushes the value's bits.
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()>;

    /// The value's encoding as one word `(bits, count)`, when [`FieldCodec::WORD_BITS`] is
    /// `Some`. The provided method encodes into a scratch buffer and reads the bits back.
    #[inline]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        crate::write::word_by(|w| Self::encode(value, w))
    }

    /// The bits [`FieldCodec::encode`] pushes for `value`. The provided method is the constant
    /// width when every value takes the same bits, and otherwise encodes into a scratch
    /// buffer and counts (which allocates).
    #[inline]
    fn encoded_bits(value: &T) -> u64 {
        match Self::MAX_BITS {
            Some(max) if max == Self::MIN_BITS => max,
            _ => crate::write::count_bits(|w| Self::encode(value, w)),
        }
    }

    /// How a value is laid out on the wire.
    fn schema() -> Encoding;

    /// Whether `a` and `b` encode to the same bits: what a delta calls unchanged. A value the
    /// codec refuses is never the same as another, so that encoding it reports the error.
    ///
    /// The provided method compares the words when [`FieldCodec::WORD_BITS`] is `Some`, and
    /// otherwise encodes both into scratch buffers (which allocates).
    #[inline]
    fn same_encoding(a: &T, b: &T) -> bool {
        encodings_equal::<Self, T>(a, b)
    }
}

/// The provided [`FieldCodec::same_encoding`]: the words compared, or both encoded into
/// scratch buffers.
#[inline]
pub(crate) fn encodings_equal<C: FieldCodec<T> + ?Sized, T: ?Sized>(a: &T, b: &T) -> bool {
    if C::WORD_BITS.is_some() {
        return matches!((C::encode_word(a), C::encode_word(b)), (Ok(x), Ok(y)) if x == y);
    }
    let scratch = |v: &T| {
        let mut bytes = Vec::new();
        let mut w = BitWriter::new(&mut bytes);
        let result = C::encode(v, &mut w);
        let bits = w.bit_len();
        w.finish();
        result.map(|()| (bits, bytes))
    };
    matches!((scratch(a), scratch(b)), (Ok(x), Ok(y)) if x == y)
}

/// How values of type `T` are read back: the decoding half of a codec type.
///
/// A trait of its own so that each half carries only its own bounds: a generic type's
/// `Encode` impl needs its parameters to encode, not to decode.
pub trait FieldDecode<T> {
    /// Reads one value written by the codec's [`FieldCodec::encode`], from a [`BitReader`]
    /// or a [`BitWindow`](crate::BitWindow): exactly the same reads and errors from both.
    ///
    /// [`BitReader`]: crate::BitReader
    fn decode<R: BitRead>(r: &mut R) -> Result<T>;

    /// Reads one value from exactly the next `bytes` bytes (the cursor on a byte boundary),
    /// which it must fill but for the zero padding of its last byte: a field framed by a byte
    /// length (`byte_len`). The cursor ends past those bytes.
    ///
    /// The provided method decodes from a reader over those bytes only, then checks what is
    /// left of them; a codec whose value is the bytes themselves overrides it to take them
    /// without that second reader.
    #[inline]
    fn decode_framed<R: BitRead>(r: &mut R, bytes: u64) -> Result<T> {
        r.with_reader(|r| {
            let mut span = r.region(bytes)?;
            let end = span.position() + span.remaining_bits();
            let value = Self::decode(&mut span)?;
            span.finish()?;
            r.skip_to(end)?;
            Ok(value)
        })
    }
}

/// A value as its type encodes it ([`Encode`] and [`Decode`]): the codec of a field without
/// an encoding attribute.
pub struct Native;

impl<T: Encode + ?Sized> FieldCodec<T> for Native {
    const MIN_BITS: u64 = T::MIN_BITS;
    const MAX_BITS: Option<u64> = T::MAX_BITS;
    const WORD_BITS: Option<u32> = T::WORD_BITS;

    #[inline(always)]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        value.encode(w)
    }

    #[inline(always)]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        value.encode_word()
    }

    #[inline(always)]
    fn encoded_bits(value: &T) -> u64 {
        value.encoded_bits()
    }

    fn schema() -> Encoding {
        T::schema()
    }
}

impl<T: Decode> FieldDecode<T> for Native {
    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        r.decode_value()
    }
}

/// `encode` of a codec whose encoding is always one word: that word, written.
#[inline(always)]
fn write_word(word: Result<(u64, u32)>, w: &mut BitWriter<'_>) -> Result<()> {
    let (bits, n) = word?;
    w.write_word(bits, n);
    Ok(())
}
