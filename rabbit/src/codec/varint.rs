//! `#[rabbit(varint)]` and `#[rabbit(zigzag)]`: the spec's variable-length integer of the
//! type's own width, of the bits as they are or zig-zag interleaved.

use super::fixed::does_not_fit;
use super::{FieldCodec, FieldDecode};
use crate::schema::Encoding;
use crate::write::{varint_word, varint_word_bits};
use crate::{BitRead, BitWriter, Result, varint};

/// Integers as the spec's variable-length integer of their own width, without zig-zag (for a
/// signed type, its two's complement bits).
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(varint)]` needs an integer of at most 64 bits, not `{Self}`",
    label = "not an integer"
)]
pub trait AsVarint: Sized + Copy {
    /// The type's width in bytes.
    const BYTES: u32;
    /// The value as an unsigned integer of the same width.
    fn to_varint(self) -> u64;
    /// The value back from its unsigned form.
    fn from_varint(raw: u64) -> Result<Self>;
}

/// Signed integers, zig-zag interleaved (0, -1, 1, -2, … → 0, 1, 2, 3, …) before the
/// variable-length form, so that small magnitudes stay short.
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(zigzag)]` needs a signed integer, not `{Self}`",
    label = "not a signed integer",
    note = "unsigned integers are variable-length already; zig-zag only helps negative numbers"
)]
pub trait AsZigZag: Sized + Copy {
    /// The type's width in bytes.
    const BYTES: u32;
    /// The zig-zag form.
    fn to_zigzag(self) -> u64;
    /// The value back from its zig-zag form.
    fn from_zigzag(raw: u64) -> Result<Self>;
}

macro_rules! varint_ints {
    ($($t:ty => $u:ty),*) => {$(
        impl AsVarint for $t {
            const BYTES: u32 = <$u>::BITS / 8;
            #[inline(always)]
            fn to_varint(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn from_varint(raw: u64) -> Result<Self> {
                <$u>::try_from(raw)
                    .map(|v| v as $t)
                    .map_err(|_| does_not_fit(raw as i128, <$u>::BITS))
            }
        }
    )*};
}
varint_ints!(u8 => u8, u16 => u16, u32 => u32, u64 => u64);
varint_ints!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

/// A `usize` is a `u64` on the wire, on every platform.
impl AsVarint for usize {
    const BYTES: u32 = 8;
    #[inline(always)]
    fn to_varint(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_varint(raw: u64) -> Result<Self> {
        usize::try_from(raw).map_err(|_| does_not_fit(raw as i128, 64))
    }
}

macro_rules! zigzag_ints {
    ($($t:ty => $bytes:expr),*) => {$(
        impl AsZigZag for $t {
            const BYTES: u32 = $bytes;
            #[inline(always)]
            fn to_zigzag(self) -> u64 {
                varint::zigzag_encode(self as i64)
            }
            #[inline(always)]
            fn from_zigzag(raw: u64) -> Result<Self> {
                let v = varint::zigzag_decode(raw);
                <$t>::try_from(v).map_err(|_| does_not_fit(v as i128, 8 * $bytes))
            }
        }
    )*};
}
zigzag_ints!(i8 => 1, i16 => 2, i32 => 4, i64 => 8, isize => 8);

/// The variable-length integer of the type's width (`#[rabbit(varint)]`); as an enum's tag
/// (`#[rabbit(tag = "varint")]`), a `u32` one.
pub struct Varint;

/// Zig-zag, then the variable-length integer of the type's width (`#[rabbit(zigzag)]`).
pub struct ZigZag;

/// The parts both codecs share, given how a value becomes its unsigned form.
macro_rules! varint_codec {
    ($codec:ty, $trait:ident, $to:ident, $from:ident, $zigzag:expr) => {
        impl<T: $trait> FieldCodec<T> for $codec {
            const MIN_BITS: u64 = varint::min_bits(T::BYTES);
            const MAX_BITS: Option<u64> = Some(varint::max_bits(T::BYTES));
            const WORD_BITS: Option<u32> = varint_word_bits(T::BYTES);

            #[inline(always)]
            fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
                w.write_varint(value.$to(), T::BYTES);
                Ok(())
            }

            #[inline(always)]
            fn encode_word(value: &T) -> Result<(u64, u32)> {
                Ok(varint_word(value.$to(), T::BYTES))
            }

            #[inline(always)]
            fn encoded_bits(value: &T) -> u64 {
                varint::encoded_bits(value.$to(), T::BYTES)
            }

            fn schema() -> Encoding {
                Encoding::Varint {
                    bytes: T::BYTES,
                    zigzag: $zigzag,
                }
            }
        }

        impl<T: $trait> FieldDecode<T> for $codec {
            #[inline(always)]
            fn decode<R: BitRead>(r: &mut R) -> Result<T> {
                T::$from(r.read_varint(T::BYTES)?)
            }
        }
    };
}

varint_codec!(Varint, AsVarint, to_varint, from_varint, false);
varint_codec!(ZigZag, AsZigZag, to_zigzag, from_zigzag, true);
