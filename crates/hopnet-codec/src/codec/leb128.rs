//! `#[rabbit(leb128)]`, `#[rabbit(leb128_signed)]` and `#[rabbit(leb128_zigzag)]`: LEB128, the
//! variable-length integer of DWARF, WebAssembly, protobuf and Minecraft: seven bits a byte,
//! least significant group first, the high bit set on every byte but the last. Unlike the
//! spec's varints its length is not bounded by the type's width in a prefix, so a reader takes
//! at most [`max_bytes`] bytes of a type and refuses a value that does not fit it.
//!
//! Formats disagree on negative numbers, so each way is its own codec: [`Leb128`] writes a
//! signed type's two's complement bits at its width as an unsigned number (Minecraft's VarInt:
//! -1 as an `i32` is five bytes), [`Leb128Signed`] extends the sign from the last group (DWARF
//! and WebAssembly: -1 is one byte), [`Leb128ZigZag`] interleaves first (protobuf's `sint`).

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::{Encoding, Leb128Form};
use crate::write::BitWriter;

/// Unsigned LEB128 (`#[rabbit(leb128)]`) of the value's bits: an unsigned type as it is
/// (ULEB128), a signed type's two's complement bits at the type's width (Minecraft's VarInt and
/// VarLong, protobuf's `int64`), so that a negative value takes the most bytes.
pub struct Leb128;

/// Signed LEB128 (`#[rabbit(leb128_signed)]`): two's complement with the sign extended from
/// bit 6 of the last group (SLEB128, as DWARF and WebAssembly write it), so that small negative
/// values stay short. Signed types only.
pub struct Leb128Signed;

/// Zig-zag (0, -1, 1, -2, … → 0, 1, 2, 3, …), then unsigned LEB128
/// (`#[rabbit(leb128_zigzag)]`): protobuf's `sint32` and `sint64`. Signed types only.
pub struct Leb128ZigZag;

/// The most bytes LEB128 takes for a type of `bits` bits: one per seven bits.
pub const fn max_bytes(bits: u32) -> u32 {
    bits.div_ceil(7)
}

/// Integers LEB128 writes.
#[diagnostic::on_unimplemented(
    message = "`{C}` does not write `{Self}`",
    label = "not an integer this encoding takes",
    note = "`#[rabbit(leb128)]` takes integers of at most 64 bits, `#[rabbit(leb128_signed)]` and `#[rabbit(leb128_zigzag)]` signed ones"
)]
pub trait Leb128Int<C>: Sized + Copy {
    /// The type's width in bits.
    const BITS: u32;
    /// Whether the value is written sign-extended (SLEB128) rather than unsigned.
    const SIGNED: bool;
    /// How the schema names the value's groups.
    const FORM: Leb128Form;
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// The value back, if it fits the type.
    fn from_i128(v: i128) -> Option<Self>;
}

macro_rules! leb128_int {
    ($codec:ty, $signed:expr, $form:expr, $($t:ty => $bits:expr),*) => {$(
        impl Leb128Int<$codec> for $t {
            const BITS: u32 = $bits;
            const SIGNED: bool = $signed;
            const FORM: Leb128Form = $form;
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}
leb128_int!(Leb128, false, Leb128Form::Unsigned, u8 => 8, u16 => 16, u32 => 32, u64 => 64, usize => 64);
leb128_int!(Leb128Signed, true, Leb128Form::SignExtended, i8 => 8, i16 => 16, i32 => 32, i64 => 64, isize => 64);
leb128_int!(Leb128ZigZag, false, Leb128Form::ZigZagged, i8 => 8, i16 => 16, i32 => 32, i64 => 64, isize => 64);

/// A signed type under [`Leb128`]: its two's complement bits, widened as an unsigned number of
/// the type's width, and back.
macro_rules! leb128_bits {
    ($($t:ty => $u:ty),*) => {$(
        impl Leb128Int<Leb128> for $t {
            const BITS: u32 = <$u>::BITS;
            const SIGNED: bool = false;
            const FORM: Leb128Form = Leb128Form::TwosComplement;
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as $u as i128
            }
            #[inline(always)]
            fn from_i128(v: i128) -> Option<Self> {
                <$u>::try_from(v).ok().map(|u| u as $t)
            }
        }
    )*};
}
leb128_bits!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

/// The groups of `v`, unsigned: how many bytes and each written through `put`.
#[inline]
fn unsigned_groups(mut v: u128, mut put: impl FnMut(u8)) {
    loop {
        let group = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            put(group);
            return;
        }
        put(group | 0x80);
    }
}

/// The groups of `v`, sign-extended: the last group's bit 6 is the sign.
#[inline]
fn signed_groups(mut v: i128, mut put: impl FnMut(u8)) {
    loop {
        let group = (v & 0x7f) as u8;
        v >>= 7;
        let sign = group & 0x40 != 0;
        if (v == 0 && !sign) || (v == -1 && sign) {
            put(group);
            return;
        }
        put(group | 0x80);
    }
}

/// Zig-zag of a value of at most 64 bits.
#[inline(always)]
fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

/// Reads the groups, at most `max_bytes(bits)` of them: the value and the last group.
fn read_groups<R: BitRead>(r: &mut R, bits: u32) -> Result<(u128, u8, u32)> {
    let mut value = 0u128;
    let max = max_bytes(bits);
    for i in 0..max {
        let byte = r.read_bits(8)? as u8;
        value |= u128::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, byte, 7 * (i + 1)));
        }
    }
    Err(Error::custom(format!(
        "a LEB128 integer of {bits} bits longer than {max} bytes"
    )))
}

#[cold]
fn too_wide(value: i128, bits: u32) -> Error {
    Error::OutOfRange {
        value,
        expected: std::borrow::Cow::Owned(format!("LEB128 of {bits} bits")),
    }
}

macro_rules! leb128_codec {
    ($codec:ty, $encode:expr, $decode:expr) => {
        impl<T: Leb128Int<$codec>> FieldCodec<T> for $codec {
            const MIN_BITS: u64 = 8;
            const MAX_BITS: Option<u64> = Some(8 * max_bytes(T::BITS) as u64);

            #[inline]
            fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
                let encode: fn(i128, bool, &mut dyn FnMut(u8)) = $encode;
                encode(value.to_i128(), T::SIGNED, &mut |b| {
                    w.write_bits(u64::from(b), 8)
                });
                Ok(())
            }

            #[inline]
            fn encoded_bits(value: &T) -> u64 {
                let encode: fn(i128, bool, &mut dyn FnMut(u8)) = $encode;
                let mut n = 0;
                encode(value.to_i128(), T::SIGNED, &mut |_| n += 8);
                n
            }

            fn schema() -> Encoding {
                Encoding::Leb128 {
                    bits: T::BITS,
                    form: T::FORM,
                }
            }
        }

        impl<T: Leb128Int<$codec>> FieldDecode<T> for $codec {
            #[inline]
            fn decode<R: BitRead>(r: &mut R) -> Result<T> {
                let (raw, last, shift) = read_groups(r, T::BITS)?;
                let decode: fn(u128, u8, u32, bool) -> i128 = $decode;
                let v = decode(raw, last, shift, T::SIGNED);
                T::from_i128(v).ok_or_else(|| too_wide(v, T::BITS))
            }
        }
    };
}

leb128_codec!(
    Leb128,
    |v, _, put| unsigned_groups(v as u128, put),
    |raw, _, _, _| raw as i128
);

leb128_codec!(
    Leb128Signed,
    |v, _, put| signed_groups(v, put),
    |raw, last, shift, _| if last & 0x40 != 0 && shift < 128 {
        (raw | (!0u128 << shift)) as i128
    } else {
        raw as i128
    }
);

leb128_codec!(
    Leb128ZigZag,
    |v, _, put| unsigned_groups(zigzag(v), put),
    |raw, _, _, _| ((raw >> 1) as i128) ^ -((raw & 1) as i128)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::BitReader;

    fn encode<C, T: Leb128Int<C>>(v: T) -> Vec<u8>
    where
        C: FieldCodec<T>,
    {
        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        C::encode(&v, &mut w).unwrap();
        w.finish();
        assert_eq!(C::encoded_bits(&v), 8 * buf.len() as u64);
        buf
    }

    fn decode<C: FieldDecode<T>, T>(bytes: &[u8]) -> Result<T> {
        C::decode(&mut BitReader::new(bytes))
    }

    #[test]
    fn known_bytes() {
        // Wikipedia's and DWARF's examples.
        assert_eq!(encode::<Leb128, u32>(624_485), [0xe5, 0x8e, 0x26]);
        assert_eq!(encode::<Leb128Signed, i32>(-123_456), [0xc0, 0xbb, 0x78]);
        assert_eq!(encode::<Leb128Signed, i8>(-1), [0x7f]);
        assert_eq!(encode::<Leb128Signed, i8>(63), [0x3f]);
        assert_eq!(encode::<Leb128Signed, i8>(64), [0xc0, 0x00]);
        // Minecraft's VarInt (wiki.vg's table): the bits of an i32, unsigned.
        assert_eq!(encode::<Leb128, i32>(-1), [0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(
            encode::<Leb128, i32>(i32::MIN),
            [0x80, 0x80, 0x80, 0x80, 0x08]
        );
        assert_eq!(encode::<Leb128, i32>(25_565), [0xdd, 0xc7, 0x01]);
        assert_eq!(encode::<Leb128, i64>(-1).len(), 10);
        assert_eq!(
            decode::<Leb128, i32>(&[0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap(),
            -1
        );
        assert_eq!(encode::<Leb128, u64>(u64::MAX).len(), 10);
        // protobuf's sint32: -1 is 1, 1 is 2, -64 is 127.
        assert_eq!(encode::<Leb128ZigZag, i32>(-1), [1]);
        assert_eq!(encode::<Leb128ZigZag, i32>(1), [2]);
        assert_eq!(encode::<Leb128ZigZag, i64>(i64::MIN).len(), 10);
        assert_eq!(
            decode::<Leb128Signed, i32>(&[0xc0, 0xbb, 0x78]).unwrap(),
            -123_456
        );
        assert_eq!(decode::<Leb128ZigZag, i64>(&[3]).unwrap(), -2);
    }

    #[test]
    fn extremes_round_trip() {
        for v in [0, 1, 127, 128, u64::MAX, u64::MAX / 2] {
            assert_eq!(decode::<Leb128, u64>(&encode::<Leb128, u64>(v)).unwrap(), v);
        }
        for v in [0, -1, 63, 64, -64, -65, i64::MIN, i64::MAX] {
            assert_eq!(decode::<Leb128, i64>(&encode::<Leb128, i64>(v)).unwrap(), v);
            let s = encode::<Leb128Signed, i64>(v);
            assert_eq!(decode::<Leb128Signed, i64>(&s).unwrap(), v);
            let z = encode::<Leb128ZigZag, i64>(v);
            assert_eq!(decode::<Leb128ZigZag, i64>(&z).unwrap(), v);
        }
    }

    #[test]
    fn refuses_too_long_too_wide_and_truncated() {
        assert!(decode::<Leb128, u8>(&[0x80, 0x80, 0x01]).is_err());
        assert!(matches!(
            decode::<Leb128, u8>(&[0x80, 0x02]),
            Err(Error::OutOfRange { .. })
        ));
        assert!(decode::<Leb128Signed, i8>(&[0x80, 0x01]).is_err());
        assert!(decode::<Leb128, i8>(&[0x80, 0x02]).is_err());
        assert!(matches!(
            decode::<Leb128, u32>(&[0x80]),
            Err(Error::UnexpectedEnd { .. })
        ));
        assert!(decode::<Leb128, u64>(&[0xff; 11]).is_err());
    }
}
