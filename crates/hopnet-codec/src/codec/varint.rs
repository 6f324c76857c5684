//! `#[rabbit(varint)]` and `#[rabbit(zigzag)]`: the spec's variable-length integer of the
//! type's own width, of the bits as they are or zig-zag interleaved.

use super::fixed::does_not_fit;
use super::{FieldCodec, FieldDecode};
use crate::error::Result;
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::varint;
use crate::write::BitWriter;
use crate::write::{varint_word, varint_word_bits};

/// The variable-length integer of the type's width, of its bits as they are (a signed type's
/// two's complement, so small negative numbers are long): `#[rabbit(varint)]`. As an enum's
/// tag (`#[rabbit(tag = "varint")]`), a `u32` one.
pub struct Varint;

/// Zig-zag (0, -1, 1, -2, … → 0, 1, 2, 3, …), then the variable-length integer of the type's
/// width, so that small magnitudes stay short: `#[rabbit(zigzag)]`, signed types only.
pub struct ZigZag;

/// Integers the variable-length codec `C` ([`Varint`] or [`ZigZag`]) writes, in the unsigned
/// form it gives them.
#[diagnostic::on_unimplemented(
    message = "`{C}` does not write `{Self}`",
    label = "not an integer this encoding takes",
    note = "`#[rabbit(varint)]` takes integers of at most 64 bits, `#[rabbit(zigzag)]` signed ones; other types can use `#[rabbit(with = \"path\")]`"
)]
pub trait VarintInt<C>: Sized + Copy {
    /// The type's width in bytes.
    const BYTES: u32;
    /// The unsigned form written.
    fn to_wire(self) -> u64;
    /// The value back from the unsigned form read.
    fn from_wire(raw: u64) -> Result<Self>;
}

/// `$t` written as its bits, `$u` its unsigned type of the same width.
macro_rules! as_bits {
    ($($t:ty => $u:ty),*) => {$(
        impl VarintInt<Varint> for $t {
            const BYTES: u32 = <$u>::BITS / 8;
            #[inline(always)]
            fn to_wire(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn from_wire(raw: u64) -> Result<Self> {
                <$u>::try_from(raw)
                    .map(|v| v as $t)
                    .map_err(|_| does_not_fit(raw as i128, <$u>::BITS))
            }
        }
    )*};
}
as_bits!(u8 => u8, u16 => u16, u32 => u32, u64 => u64);
as_bits!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

/// A `usize` is a `u64` on the wire, on every platform.
impl VarintInt<Varint> for usize {
    const BYTES: u32 = 8;
    #[inline(always)]
    fn to_wire(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_wire(raw: u64) -> Result<Self> {
        usize::try_from(raw).map_err(|_| does_not_fit(raw as i128, 64))
    }
}

/// `$t` zig-zag interleaved, `$bytes` its width.
macro_rules! zigzagged {
    ($($t:ty => $bytes:expr),*) => {$(
        impl VarintInt<ZigZag> for $t {
            const BYTES: u32 = $bytes;
            #[inline(always)]
            fn to_wire(self) -> u64 {
                varint::zigzag_encode(self as i64)
            }
            #[inline(always)]
            fn from_wire(raw: u64) -> Result<Self> {
                let v = varint::zigzag_decode(raw);
                <$t>::try_from(v).map_err(|_| does_not_fit(v as i128, 8 * $bytes))
            }
        }
    )*};
}
zigzagged!(i8 => 1, i16 => 2, i32 => 4, i64 => 8, isize => 8);

/// The codec, given whether it zig-zags.
macro_rules! varint_codec {
    ($codec:ty, $zigzag:expr) => {
        impl<T: VarintInt<$codec>> FieldCodec<T> for $codec {
            const MIN_BITS: u64 = varint::min_bits(T::BYTES);
            const MAX_BITS: Option<u64> = Some(varint::max_bits(T::BYTES));
            const WORD_BITS: Option<u32> = varint_word_bits(T::BYTES);

            #[inline(always)]
            fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
                w.write_varint(value.to_wire(), T::BYTES);
                Ok(())
            }

            #[inline(always)]
            fn encode_word(value: &T) -> Result<(u64, u32)> {
                Ok(varint_word(value.to_wire(), T::BYTES))
            }

            #[inline(always)]
            fn encoded_bits(value: &T) -> u64 {
                varint::encoded_bits(value.to_wire(), T::BYTES)
            }

            fn schema() -> Encoding {
                Encoding::Varint {
                    bytes: T::BYTES,
                    zigzag: $zigzag,
                }
            }
        }

        impl<T: VarintInt<$codec>> FieldDecode<T> for $codec {
            #[inline(always)]
            fn decode<R: BitRead>(r: &mut R) -> Result<T> {
                T::from_wire(r.read_varint(T::BYTES)?)
            }
        }
    };
}

varint_codec!(Varint, false);
varint_codec!(ZigZag, true);
