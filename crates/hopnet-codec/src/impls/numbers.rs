//! Integers, floats, `bool` and `char`.
//!
//! `u8` is eight plain bits; wider unsigned integers are the spec's variable-length integers;
//! signed ones are zig-zag interleaved first (`i8`: zig-zag, then eight plain bits). `usize` and
//! `isize` are `u64` and `i64` on every platform, so both ends agree whatever their word size.

use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::read::{BitReader, Decode};
use crate::schema::Encoding;
use crate::varint;
use crate::write::BitWriter;
use crate::write::{varint_word, varint_word_bits};

/// Types of a constant width: their bits as one word (`to`), and back (`from`).
macro_rules! fixed_width {
    ($($t:ty: $bits:expr, |$v:ident| $to:expr, |$raw:ident| $from:expr, $schema:expr;)*) => {$(
        impl Encode for $t {
            const MIN_BITS: u64 = $bits;
            const MAX_BITS: Option<u64> = Some($bits);
            const WORD_BITS: Option<u32> = Some($bits);
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                let $v = *self;
                Ok(($to, $bits))
            }
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                let (bits, n) = self.encode_word()?;
                w.write_word(bits, n);
                Ok(())
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                $bits
            }
            fn schema() -> Encoding {
                $schema
            }
        }

        impl Decode for $t {
            decode_both!(|r| {
                let $raw = r.read_bits($bits)?;
                Ok($from)
            });
        }
    )*};
}

fixed_width! {
    bool: 1, |v| v as u64, |raw| raw != 0, Encoding::Bool;
    u8: 8, |v| v as u64, |raw| raw as u8, Encoding::Fixed { bits: 8, signed: false };
    i8: 8, |v| varint::zigzag_encode(v as i64) & 0xff, |raw| varint::zigzag_decode(raw) as i8,
        Encoding::Varint { bytes: 1, zigzag: true };
    f32: 32, |v| v.to_bits() as u64, |raw| f32::from_bits(raw as u32), Encoding::Float { bits: 32 };
    f64: 64, |v| v.to_bits(), |raw| f64::from_bits(raw), Encoding::Float { bits: 64 };
}

/// Variable-length integers of `$bytes` bytes: `to` gives the unsigned form written, `from`
/// the value back from the one read.
macro_rules! varints {
    ($($t:ty: $bytes:expr, |$v:ident| $to:expr, |$raw:ident| $from:expr, $zigzag:expr;)*) => {$(
        impl Encode for $t {
            const MIN_BITS: u64 = varint::min_bits($bytes);
            const MAX_BITS: Option<u64> = Some(varint::max_bits($bytes));
            const WORD_BITS: Option<u32> = varint_word_bits($bytes);
            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                let $v = *self;
                Ok(varint_word($to, $bytes))
            }
            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                let $v = *self;
                w.write_varint($to, $bytes);
                Ok(())
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                let $v = *self;
                varint::encoded_bits($to, $bytes)
            }
            fn schema() -> Encoding {
                Encoding::Varint { bytes: $bytes, zigzag: $zigzag }
            }
        }

        impl Decode for $t {
            decode_both!(|r| {
                let $raw = r.read_varint($bytes)?;
                let v = $from;
                <$t>::try_from(v).map_err(|_| Error::OutOfRange {
                    value: v as i128,
                    expected: stringify!($t).into(),
                })
            });
        }
    )*};
}

varints! {
    u16: 2, |v| v as u64, |raw| raw, false;
    u32: 4, |v| v as u64, |raw| raw, false;
    u64: 8, |v| v, |raw| raw, false;
    usize: 8, |v| v as u64, |raw| raw, false;
    i16: 2, |v| varint::zigzag_encode(v as i64), |raw| varint::zigzag_decode(raw), true;
    i32: 4, |v| varint::zigzag_encode(v as i64), |raw| varint::zigzag_decode(raw), true;
    i64: 8, |v| varint::zigzag_encode(v), |raw| varint::zigzag_decode(raw), true;
    isize: 8, |v| varint::zigzag_encode(v as i64), |raw| varint::zigzag_decode(raw), true;
}

/// 16-byte integers: a 4-bit length, then up to sixteen bytes, read and written in two parts.
macro_rules! wide_varints {
    ($($t:ty: |$v:ident| $to:expr, |$raw:ident| $from:expr, $zigzag:expr;)*) => {$(
        impl Encode for $t {
            const MIN_BITS: u64 = varint::min_bits(16);
            const MAX_BITS: Option<u64> = Some(varint::max_bits(16));
            #[inline]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                let $v = *self;
                w.write_varint_u128($to);
                Ok(())
            }
            #[inline]
            fn encoded_bits(&self) -> u64 {
                let $v = *self;
                varint::encoded_bits_u128($to)
            }
            fn schema() -> Encoding {
                Encoding::Varint { bytes: 16, zigzag: $zigzag }
            }
        }

        impl Decode for $t {
            #[inline]
            fn decode(r: &mut BitReader<'_>) -> Result<Self> {
                let $raw = r.read_varint_u128()?;
                Ok($from)
            }
        }
    )*};
}

wide_varints! {
    u128: |v| v, |raw| raw, false;
    i128: |v| varint::zigzag_encode_i128(v), |raw| varint::zigzag_decode_i128(raw), true;
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
