//! Integers, floats, `bool` and `char`.
//!
//! `u8` is eight plain bits; wider unsigned integers are the spec's variable-length integers;
//! signed ones are zig-zag interleaved first (`i8`: zig-zag, then eight plain bits). `usize` and
//! `isize` are `u64` and `i64` on every platform, so both ends agree whatever their word size.

use crate::schema::Encoding;
use crate::write::{varint_word, varint_word_bits};
use crate::{BitReader, BitWriter, Decode, Encode, Error, Result, varint};

impl Encode for bool {
    const MIN_BITS: u64 = 1;
    const MAX_BITS: Option<u64> = Some(1);
    const WORD_BITS: Option<u32> = Some(1);
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok((*self as u64, 1))
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bool(*self);
        Ok(())
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        1
    }
    fn schema() -> Encoding {
        Encoding::Bool
    }
}

impl Decode for bool {
    decode_both!(|r| r.read_bool());
}

impl Encode for u8 {
    const MIN_BITS: u64 = 8;
    const MAX_BITS: Option<u64> = Some(8);
    const WORD_BITS: Option<u32> = Some(8);
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok((*self as u64, 8))
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bits(*self as u64, 8);
        Ok(())
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        8
    }
    fn schema() -> Encoding {
        Encoding::Fixed {
            bits: 8,
            signed: false,
        }
    }
}

impl Decode for u8 {
    decode_both!(|r| Ok(r.read_bits(8)? as u8));
}

impl Encode for i8 {
    const MIN_BITS: u64 = 8;
    const MAX_BITS: Option<u64> = Some(8);
    const WORD_BITS: Option<u32> = Some(8);
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok((varint::zigzag_encode(*self as i64) & 0xff, 8))
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bits(varint::zigzag_encode(*self as i64), 8);
        Ok(())
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        8
    }
    fn schema() -> Encoding {
        Encoding::Varint {
            bytes: 1,
            zigzag: true,
        }
    }
}

impl Decode for i8 {
    decode_both!(|r| Ok(varint::zigzag_decode(r.read_bits(8)?) as i8));
}

macro_rules! unsigned_varint {
    ($($t:ty => $bytes:expr),*) => {$(
        impl Encode for $t {
            const MIN_BITS: u64 = varint::min_bits($bytes);
            const MAX_BITS: Option<u64> = Some(varint::max_bits($bytes));
            const WORD_BITS: Option<u32> = varint_word_bits($bytes);
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                Ok(varint_word(*self as u64, $bytes))
            }
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                w.write_varint(*self as u64, $bytes);
                Ok(())
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                varint::encoded_bits(*self as u64, $bytes)
            }
            fn schema() -> Encoding {
                Encoding::Varint { bytes: $bytes, zigzag: false }
            }
        }

        impl Decode for $t {
            decode_both!(|r| {
                let v = r.read_varint($bytes)?;
                <$t>::try_from(v).map_err(|_| Error::OutOfRange {
                    value: v as i128,
                    expected: stringify!($t).into(),
                })
            });
        }
    )*};
}
unsigned_varint!(u16 => 2, u32 => 4, u64 => 8, usize => 8);

macro_rules! signed_varint {
    ($($t:ty => $bytes:expr),*) => {$(
        impl Encode for $t {
            const MIN_BITS: u64 = varint::min_bits($bytes);
            const MAX_BITS: Option<u64> = Some(varint::max_bits($bytes));
            const WORD_BITS: Option<u32> = varint_word_bits($bytes);
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                Ok(varint_word(varint::zigzag_encode(*self as i64), $bytes))
            }
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                w.write_varint(varint::zigzag_encode(*self as i64), $bytes);
                Ok(())
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                varint::encoded_bits(varint::zigzag_encode(*self as i64), $bytes)
            }
            fn schema() -> Encoding {
                Encoding::Varint { bytes: $bytes, zigzag: true }
            }
        }

        impl Decode for $t {
            decode_both!(|r| {
                let v = varint::zigzag_decode(r.read_varint($bytes)?);
                <$t>::try_from(v).map_err(|_| Error::OutOfRange {
                    value: v as i128,
                    expected: stringify!($t).into(),
                })
            });
        }
    )*};
}
signed_varint!(i16 => 2, i32 => 4, i64 => 8, isize => 8);

impl Encode for u128 {
    const MIN_BITS: u64 = varint::min_bits(16);
    const MAX_BITS: Option<u64> = Some(varint::max_bits(16));
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_varint_u128(*self);
        Ok(())
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        varint::encoded_bits_u128(*self)
    }
    fn schema() -> Encoding {
        Encoding::Varint {
            bytes: 16,
            zigzag: false,
        }
    }
}

impl Decode for u128 {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        r.read_varint_u128()
    }
}

impl Encode for i128 {
    const MIN_BITS: u64 = varint::min_bits(16);
    const MAX_BITS: Option<u64> = Some(varint::max_bits(16));
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_varint_u128(varint::zigzag_encode_i128(*self));
        Ok(())
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        varint::encoded_bits_u128(varint::zigzag_encode_i128(*self))
    }
    fn schema() -> Encoding {
        Encoding::Varint {
            bytes: 16,
            zigzag: true,
        }
    }
}

impl Decode for i128 {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        Ok(varint::zigzag_decode_i128(r.read_varint_u128()?))
    }
}

impl Encode for f32 {
    const MIN_BITS: u64 = 32;
    const MAX_BITS: Option<u64> = Some(32);
    const WORD_BITS: Option<u32> = Some(32);
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok((self.to_bits() as u64, 32))
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bits(self.to_bits() as u64, 32);
        Ok(())
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        32
    }
    fn schema() -> Encoding {
        Encoding::Float { bits: 32 }
    }
}

impl Decode for f32 {
    decode_both!(|r| Ok(f32::from_bits(r.read_bits(32)? as u32)));
}

impl Encode for f64 {
    const MIN_BITS: u64 = 64;
    const MAX_BITS: Option<u64> = Some(64);
    const WORD_BITS: Option<u32> = Some(64);
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok((self.to_bits(), 64))
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_bits(self.to_bits(), 64);
        Ok(())
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        64
    }
    fn schema() -> Encoding {
        Encoding::Float { bits: 64 }
    }
}

impl Decode for f64 {
    decode_both!(|r| Ok(f64::from_bits(r.read_bits(64)?)));
}

/// A `char` is its scalar value as a `u32`; decoding rejects surrogates and values past U+10FFFF.
impl Encode for char {
    const MIN_BITS: u64 = varint::min_bits(4);
    const MAX_BITS: Option<u64> = Some(varint::max_bits(4));
    const WORD_BITS: Option<u32> = varint_word_bits(4);
    #[inline]
    fn encode_word(&self) -> Result<(u64, u32)> {
        Ok(varint_word(*self as u64, 4))
    }
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        w.write_varint(*self as u64, 4);
        Ok(())
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        varint::encoded_bits(*self as u64, 4)
    }
}

impl Decode for char {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        let v = r.read_varint(4)?;
        u32::try_from(v)
            .ok()
            .and_then(char::from_u32)
            .ok_or(Error::OutOfRange {
                value: v as i128,
                expected: "a Unicode scalar value".into(),
            })
    }
}
