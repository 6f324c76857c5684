//! Byte layouts: numbers as whole bytes in a byte order (`#[rabbit(endian = "big")]`,
//! `#[rabbit(bytes = N)]`), and strings and byte lists of an exact length (`bytes = N` on a
//! `String` or a `Vec<u8>`).
//!
//! Rabbit's stream is least significant bit first, so `N` bytes of a value written as one
//! `8N`-bit word land as the value's little-endian bytes; big-endian is the same word with its
//! bytes swapped. Both are one word, so runs of byte fields merge into one write like any
//! other small fields, and a byte layout costs what a bit layout does.

use std::borrow::Cow;

use super::byte_string::ByteString;
use super::fixed::FixedBits;
use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::{Encoding, Number};
use crate::write::BitWriter;

/// Numbers written as whole bytes: integers (two's complement for signed ones), `bool` (one
/// byte, 0 or 1) and floats (their IEEE-754 bits).
#[diagnostic::on_unimplemented(
    message = "`bytes = N` and `endian` need an integer, a `bool` or a float, not `{Self}`",
    label = "not a number of whole bytes",
    note = "on a `String` or a `Vec<u8>`, `bytes = N` is an exact length; other types can use `#[rabbit(with = \"path\")]`"
)]
pub trait ByteNumber: Sized + Copy {
    /// The type's own width in bytes: a field of it takes `N <= WIDTH` bytes.
    const WIDTH: u32;
    /// What kind of number the schema shows.
    const NUMBER: Number;
    /// The value's low `bits` bits, or an error if it does not fit them.
    fn to_raw(self, bits: u32) -> Result<u64>;
    /// The value of `bits` raw bits.
    fn from_raw(raw: u64, bits: u32) -> Result<Self>;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ByteNumber for $t {
            const WIDTH: u32 = <$t as FixedBits>::WIDTH / 8;
            const NUMBER: Number =
                if <$t as FixedBits>::SIGNED { Number::Signed } else { Number::Unsigned };
            #[inline(always)]
            fn to_raw(self, bits: u32) -> Result<u64> {
                FixedBits::to_bits(self, bits)
            }
            #[inline(always)]
            fn from_raw(raw: u64, bits: u32) -> Result<Self> {
                FixedBits::from_bits(raw, bits)
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl ByteNumber for bool {
    const WIDTH: u32 = 1;
    const NUMBER: Number = Number::Bool;
    #[inline(always)]
    fn to_raw(self, _bits: u32) -> Result<u64> {
        Ok(self as u64)
    }
    #[inline(always)]
    fn from_raw(raw: u64, bits: u32) -> Result<Self> {
        FixedBits::from_bits(raw, bits)
    }
}

macro_rules! floats {
    ($($t:ty: $bits:ty),*) => {$(
        impl ByteNumber for $t {
            const WIDTH: u32 = <$bits>::BITS / 8;
            const NUMBER: Number = Number::Float;
            #[inline(always)]
            fn to_raw(self, bits: u32) -> Result<u64> {
                if bits != <$bits>::BITS {
                    return Err(float_width(bits));
                }
                Ok(self.to_bits() as u64)
            }
            #[inline(always)]
            fn from_raw(raw: u64, bits: u32) -> Result<Self> {
                if bits != <$bits>::BITS {
                    return Err(float_width(bits));
                }
                Ok(<$t>::from_bits(raw as $bits))
            }
        }
    )*};
}
floats!(f32: u32, f64: u64);

/// A float in fewer bytes than its own: the derive refuses it at the attribute, so only a
/// hand-written impl using the codec can get here.
#[cold]
fn float_width(bits: u32) -> Error {
    Error::custom(format!("a float takes its whole width, not {bits} bits"))
}

/// The value in `N` bytes, most significant byte first (network order).
pub struct BigEndian<const N: u32>;

/// The value in `N` bytes, least significant byte first.
pub struct LittleEndian<const N: u32>;

/// `N` bytes' raw value, as its `8N`-bit word in the stream: the bytes swapped for big-endian.
#[inline(always)]
const fn order(raw: u64, n: u32, big: bool) -> u64 {
    if big && n > 0 {
        raw.swap_bytes() >> (64 - 8 * n)
    } else {
        raw
    }
}

macro_rules! byte_order {
    ($codec:ident, $big:expr) => {
        impl<T: ByteNumber, const N: u32> FieldCodec<T> for $codec<N> {
            const MIN_BITS: u64 = 8 * N as u64;
            const MAX_BITS: Option<u64> = Some(8 * N as u64);
            const WORD_BITS: Option<u32> = Some(8 * N);

            #[inline(always)]
            fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
                super::write_word(Self::encode_word(value), w)
            }

            #[inline(always)]
            fn encode_word(value: &T) -> Result<(u64, u32)> {
                let bits = 8 * N;
                let raw = value.to_raw(bits)?;
                // Signed values come as their 64-bit two's complement: keep the low bytes.
                let raw = if bits < 64 {
                    raw & ((1u64 << bits) - 1)
                } else {
                    raw
                };
                Ok((order(raw, N, $big), bits))
            }

            #[inline(always)]
            fn encoded_bits(_: &T) -> u64 {
                8 * N as u64
            }

            fn schema() -> Encoding {
                Encoding::Bytes {
                    len: N,
                    big_endian: $big,
                    number: T::NUMBER,
                }
            }
        }

        impl<T: ByteNumber, const N: u32> FieldDecode<T> for $codec<N> {
            #[inline(always)]
            fn decode<R: BitRead>(r: &mut R) -> Result<T> {
                let raw = r.read_bits(8 * N)?;
                T::from_raw(order(raw, N, $big), 8 * N)
            }
        }
    };
}

byte_order!(BigEndian, true);
byte_order!(LittleEndian, false);

/// Strings and byte lists that take exactly `N` bytes, with no length on the wire
/// (`#[rabbit(bytes = N)]` on a `String`, `Vec<u8>` or `Box<[u8]>`): a fixed-size text id.
/// Any other length is an error when encoding; a string's bytes must be UTF-8.
pub struct FixedLen<const N: u64>;

/// A string or byte list of the wrong length for its field.
#[cold]
fn wrong_length(len: usize, n: u64) -> Error {
    Error::OutOfRange {
        value: len as i128,
        expected: Cow::Owned(format!("a length of exactly {n} bytes")),
    }
}

impl<T: ByteString, const N: u64> FieldCodec<T> for FixedLen<N> {
    const MIN_BITS: u64 = 8 * N;
    const MAX_BITS: Option<u64> = Some(8 * N);

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        let bytes = value.as_wire();
        if bytes.len() as u64 != N {
            return Err(wrong_length(bytes.len(), N));
        }
        w.write_bytes(bytes);
        Ok(())
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        8 * N
    }

    /// The bytes are the encoding: compared in place, without encoding both.
    #[inline]
    fn same_encoding(a: &T, b: &T) -> bool {
        let (a, b) = (a.as_wire(), b.as_wire());
        a == b && a.len() as u64 == N
    }

    fn schema() -> Encoding {
        Encoding::FixedLen {
            len: N,
            text: T::TEXT,
        }
    }
}

impl<T: ByteString, const N: u64> FieldDecode<T> for FixedLen<N> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        r.with_reader(|r| {
            // Checked against the input before the buffer is made.
            r.ensure(8 * N)?;
            if r.position().is_multiple_of(8) {
                // On a byte boundary the bytes are borrowed from the input: one copy, into the
                // value.
                let bytes = r.read_slice(N)?;
                return T::from_slice(bytes, r.position());
            }
            let mut bytes = vec![0u8; N as usize];
            r.read_bytes(&mut bytes)?;
            T::from_wire(bytes, r.position())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed length's shortcut agrees with encoding both values and comparing the bytes.
    #[test]
    fn fixed_length_same_encoding_is_the_encodings_compared() {
        let values = ["abcd", "abce", "abc", "abcde", ""].map(String::from);
        for a in &values {
            for b in &values {
                assert_eq!(
                    <FixedLen<4> as FieldCodec<String>>::same_encoding(a, b),
                    crate::codec::encodings_equal::<FixedLen<4>, String>(a, b),
                    "{a:?} against {b:?}"
                );
            }
        }
    }
}
