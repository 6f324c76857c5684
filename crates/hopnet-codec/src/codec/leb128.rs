//! `#[rabbit(leb128)]` and `#[rabbit(leb128_zigzag)]`: LEB128, the variable-length integer of
//! DWARF, WebAssembly, protobuf and Minecraft: seven bits a byte, least significant group
//! first, the high bit set on every byte but the last. Unlike the spec's varints its length is
//! not bounded by the type's width in a prefix, so a reader takes at most
//! [`max_bytes`] bytes of a type and refuses a value that does not fit it.

use super::{FieldCodec, FieldDecode};
use crate::schema::{Encoding, Leb128Form};
use crate::{BitRead, BitWriter, Error, Result};

/// LEB128 (`#[rabbit(leb128)]`): an unsigned type as it is (ULEB128), a signed type in two's
/// complement with the sign extended from the last group's high bit (SLEB128, as DWARF and
/// WebAssembly write it).
pub struct Leb128;

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
    note = "`#[rabbit(leb128)]` takes integers of at most 64 bits, `#[rabbit(leb128_zigzag)]` signed ones"
)]
pub trait Leb128Int<C>: Sized + Copy {
    /// The type's width in bits.
    const BITS: u32;
    /// Whether the value is written sign-extended (SLEB128) rather than unsigned.
    const SIGNED: bool;
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// The value back, if it fits the type.
    fn from_i128(v: i128) -> Option<Self>;
}

macro_rules! leb128_int {
    ($codec:ty, $signed:expr, $($t:ty => $bits:expr),*) => {$(
        impl Leb128Int<$codec> for $t {
            const BITS: u32 = $bits;
            const SIGNED: bool = $signed;
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
leb128_int!(Leb128, false, u8 => 8, u16 => 16, u32 => 32, u64 => 64, usize => 64);
leb128_int!(Leb128, true, i8 => 8, i16 => 16, i32 => 32, i64 => 64, isize => 64);
leb128_int!(Leb128ZigZag, false, i8 => 8, i16 => 16, i32 => 32, i64 => 64, isize => 64);

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
    ($codec:ty, $form:expr, $encode:expr, $decode:expr) => {
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
                    form: $form(T::SIGNED),
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
    |signed| if signed {
        Leb128Form::SignExtended
    } else {
        Leb128Form::Unsigned
    },
    |v, signed, put| if signed {
        signed_groups(v, put)
    } else {
        unsigned_groups(v as u128, put)
    },
    |raw, last, shift, signed| if signed && last & 0x40 != 0 && shift < 128 {
        (raw | (!0u128 << shift)) as i128
    } else {
        raw as i128
    }
);

leb128_codec!(
    Leb128ZigZag,
    |_| Leb128Form::ZigZagged,
    |v, _, put| unsigned_groups(zigzag(v), put),
    |raw, _, _, _| ((raw >> 1) as i128) ^ -((raw & 1) as i128)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BitReader;

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
        assert_eq!(encode::<Leb128, i32>(-123_456), [0xc0, 0xbb, 0x78]);
        assert_eq!(encode::<Leb128, i8>(-1), [0x7f]);
        assert_eq!(encode::<Leb128, i8>(63), [0x3f]);
        assert_eq!(encode::<Leb128, i8>(64), [0xc0, 0x00]);
        assert_eq!(encode::<Leb128, u64>(u64::MAX).len(), 10);
        // protobuf's sint32: -1 is 1, 1 is 2, -64 is 127.
        assert_eq!(encode::<Leb128ZigZag, i32>(-1), [1]);
        assert_eq!(encode::<Leb128ZigZag, i32>(1), [2]);
        assert_eq!(encode::<Leb128ZigZag, i64>(i64::MIN).len(), 10);
        assert_eq!(
            decode::<Leb128, i32>(&[0xc0, 0xbb, 0x78]).unwrap(),
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
        assert!(decode::<Leb128, i8>(&[0x80, 0x01]).is_err());
        assert!(matches!(
            decode::<Leb128, u32>(&[0x80]),
            Err(Error::UnexpectedEnd { .. })
        ));
        assert!(decode::<Leb128, u64>(&[0xff; 11]).is_err());
    }
}
