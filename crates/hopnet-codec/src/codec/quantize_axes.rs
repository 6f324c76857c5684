//! `quantize` on vectors: `[f32; N]` / `[f64; N]` with one grid for every axis ([`Quantize`]
//! itself), or a grid per axis ([`QuantizeAxes`]), each axis written as its own quantized
//! float, `x` first.

use std::marker::PhantomData;

use super::{FieldCodec, FieldDecode, Quantize, QuantizeFloat};
use crate::error::Result;
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::write::BitWriter;

/// `Some(total)` when every item is one word and together they fit one.
const fn word_of(widths: &[Option<u32>]) -> Option<u32> {
    let mut total = 0;
    let mut i = 0;
    while i < widths.len() {
        match widths[i] {
            Some(w) => total += w,
            None => return None,
        }
        i += 1;
    }
    if total <= 64 { Some(total) } else { None }
}

/// Every axis on the same grid: `N` grid indices one after another, `N * BITS` bits. The
/// error is the grid's on each axis: at most half a step, so at most `√N · STEP / 2` in
/// length.
///
/// ```
/// use hopnet_codec::codec::{FieldCodec, FieldDecode, Quantize};
/// use hopnet_codec::{BitReader, BitWriter};
///
/// // A 30 m pile to the millimetre: 30,001 points, 15 bits an axis.
/// type Pile = Quantize<{ f64::to_bits(-15.0) }, { f64::to_bits(15.0) }, { f64::to_bits(0.001) }>;
/// assert_eq!(<Pile as FieldCodec<[f32; 3]>>::MAX_BITS, Some(45));
///
/// let mut buf = Vec::new();
/// let mut w = BitWriter::new(&mut buf);
/// <Pile as FieldCodec<[f32; 3]>>::encode(&[1.2344, -7.0, 14.9996], &mut w)?;
/// w.finish();
/// let back: [f32; 3] = <Pile as FieldDecode<[f32; 3]>>::decode(&mut BitReader::new(&buf))?;
/// assert!((back[0] - 1.234).abs() < 1e-5 && (back[2] - 15.0).abs() < 1e-5);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
impl<T: QuantizeFloat, const N: usize, const MIN: u64, const MAX: u64, const STEP: u64>
    FieldCodec<[T; N]> for Quantize<MIN, MAX, STEP>
{
    const MIN_BITS: u64 = Self::BITS as u64 * N as u64;
    const MAX_BITS: Option<u64> = Some(Self::BITS as u64 * N as u64);
    const WORD_BITS: Option<u32> = if Self::BITS as u64 * N as u64 <= 64 {
        Some(Self::BITS * N as u32)
    } else {
        None
    };

    #[inline]
    fn encode(value: &[T; N], w: &mut BitWriter<'_>) -> Result<()> {
        for v in value {
            super::write_word(<Self as FieldCodec<T>>::encode_word(v), w)?;
        }
        Ok(())
    }

    #[inline]
    fn encode_word(value: &[T; N]) -> Result<(u64, u32)> {
        let mut word = 0;
        let mut shift = 0;
        for v in value {
            let (bits, n) = <Self as FieldCodec<T>>::encode_word(v)?;
            word |= bits.checked_shl(shift).unwrap_or(0);
            shift += n;
        }
        Ok((word, shift))
    }

    #[inline(always)]
    fn encoded_bits(_: &[T; N]) -> u64 {
        Self::BITS as u64 * N as u64
    }

    /// Axis by axis, without a scratch buffer when the whole is wider than a word.
    #[inline]
    fn same_encoding(a: &[T; N], b: &[T; N]) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| <Self as FieldCodec<T>>::same_encoding(x, y))
    }

    fn schema() -> Encoding {
        Encoding::Array {
            item: Box::new(<Self as FieldCodec<T>>::schema()),
            len: N as u64,
        }
    }
}

impl<T: QuantizeFloat, const N: usize, const MIN: u64, const MAX: u64, const STEP: u64>
    FieldDecode<[T; N]> for Quantize<MIN, MAX, STEP>
{
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<[T; N]> {
        let mut out = [T::from_f64(0.0); N];
        for v in &mut out {
            *v = <Self as FieldDecode<T>>::decode(r)?;
        }
        Ok(out)
    }
}

/// A vector with a codec per axis, `A` a tuple of one to four of them (`(Quantize<..>,
/// Quantize<..>, Quantize<..>)` for `[f32; 3]`): the axes one after another, `x` first, each as
/// its codec writes it. The error is each axis's grid's: at most half its step.
///
/// ```
/// use hopnet_codec::codec::{FieldCodec, FieldDecode, Quantize, QuantizeAxes};
/// use hopnet_codec::{BitReader, BitWriter};
///
/// // x and z over a 30 m floor to the millimetre (15 bits), y from 0 to 8 m by centimetres (10).
/// type Floor = Quantize<{ f64::to_bits(-15.0) }, { f64::to_bits(15.0) }, { f64::to_bits(0.001) }>;
/// type Height = Quantize<{ f64::to_bits(0.0) }, { f64::to_bits(8.0) }, { f64::to_bits(0.01) }>;
/// type Position = QuantizeAxes<(Floor, Height, Floor)>;
/// assert_eq!(<Position as FieldCodec<[f32; 3]>>::MAX_BITS, Some(40));
///
/// let mut buf = Vec::new();
/// let mut w = BitWriter::new(&mut buf);
/// <Position as FieldCodec<[f32; 3]>>::encode(&[2.5, 1.004, -3.0], &mut w)?;
/// w.finish();
/// let back: [f32; 3] = <Position as FieldDecode<[f32; 3]>>::decode(&mut BitReader::new(&buf))?;
/// assert!((back[1] - 1.0).abs() < 1e-6);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
pub struct QuantizeAxes<A>(PhantomData<A>);

macro_rules! axes {
    ($n:literal: $($c:ident $i:tt),+) => {
        impl<T, $($c: FieldCodec<T>),+> FieldCodec<[T; $n]> for QuantizeAxes<($($c,)+)> {
            const MIN_BITS: u64 = 0 $(+ $c::MIN_BITS)+;
            const MAX_BITS: Option<u64> = {
                let widths = [$($c::MAX_BITS),+];
                let mut total = 0u64;
                let mut i = 0;
                let mut bounded = true;
                while i < widths.len() {
                    match widths[i] {
                        Some(w) => total += w,
                        None => bounded = false,
                    }
                    i += 1;
                }
                if bounded { Some(total) } else { None }
            };
            const WORD_BITS: Option<u32> = word_of(&[$($c::WORD_BITS),+]);

            #[inline]
            fn encode(value: &[T; $n], w: &mut BitWriter<'_>) -> Result<()> {
                $($c::encode(&value[$i], w)?;)+
                Ok(())
            }

            #[inline]
            fn encode_word(value: &[T; $n]) -> Result<(u64, u32)> {
                if Self::WORD_BITS.is_none() {
                    return crate::write::word_by(|w| Self::encode(value, w));
                }
                let mut word = 0;
                let mut shift = 0;
                $(
                    let (bits, n) = $c::encode_word(&value[$i])?;
                    word |= bits.checked_shl(shift).unwrap_or(0);
                    shift += n;
                )+
                Ok((word, shift))
            }

            #[inline]
            fn encoded_bits(value: &[T; $n]) -> u64 {
                0 $(+ $c::encoded_bits(&value[$i]))+
            }

            #[inline]
            fn same_encoding(a: &[T; $n], b: &[T; $n]) -> bool {
                true $(&& $c::same_encoding(&a[$i], &b[$i]))+
            }

            fn schema() -> Encoding {
                Encoding::Tuple(vec![$($c::schema()),+])
            }
        }

        impl<T, $($c: FieldDecode<T>),+> FieldDecode<[T; $n]> for QuantizeAxes<($($c,)+)> {
            #[inline]
            fn decode<R: BitRead>(r: &mut R) -> Result<[T; $n]> {
                Ok([$($c::decode(r)?),+])
            }
        }
    };
}

axes!(1: C0 0);
axes!(2: C0 0, C1 1);
axes!(3: C0 0, C1 1, C2 2);
axes!(4: C0 0, C1 1, C2 2, C3 3);
