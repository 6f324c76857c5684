//! `#[rabbit(quantize(range = "A..=B", precision = P))]`: a float rounded to a grid of step `P`
//! from `A` to `B`, written as the index of its grid point.

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::size;
use crate::write::BitWriter;

/// Floats that a quantized field can hold.
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(quantize(...))]` needs `f32` or `f64`, not `{Self}`",
    label = "not a float"
)]
pub trait QuantizeFloat: Sized + Copy {
    /// Significand bits of the type (24 for `f32`, 53 for `f64`): how fine a grid it can hold.
    const SIGNIFICAND: u32;
    /// The value, widened.
    fn to_f64(self) -> f64;
    /// The nearest value of the type.
    fn from_f64(v: f64) -> Self;
}

impl QuantizeFloat for f32 {
    const SIGNIFICAND: u32 = f32::MANTISSA_DIGITS;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl QuantizeFloat for f64 {
    const SIGNIFICAND: u32 = f64::MANTISSA_DIGITS;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// A float on the grid `MIN, MIN + STEP, ...` up to `MAX`, written as its grid index `k` in the
/// fewest bits that hold the last index: the value decodes as `MIN + k * STEP`, the grid point
/// nearest to what was encoded. A value more than half a step outside `MIN..=MAX`, or NaN, is an
/// error; an index past the last is a decode error.
///
/// The parameters are the IEEE-754 bits of `f64` values (floats cannot be const generic
/// parameters): `Quantize<{ f64::to_bits(-512.0) }, { f64::to_bits(512.0) }, { f64::to_bits(0.01) }>`.
/// The grid must have at most 2^64 points, and be coarse enough for the float type that a
/// grid point re-encodes as itself (a step of at least `max(|MIN|, |MAX|) / 2^22` for `f32`):
/// both are checked at compile time, as is `MIN < MAX`.
///
/// ```
/// use hopnet_codec::codec::{FieldCodec, FieldDecode, Quantize};
/// use hopnet_codec::{BitReader, BitWriter};
///
/// // Metres from -512 to 512, to the centimetre: 102,400 steps in 17 bits.
/// type Metres = Quantize<{ f64::to_bits(-512.0) }, { f64::to_bits(512.0) }, { f64::to_bits(0.01) }>;
/// assert_eq!(<Metres as FieldCodec<f32>>::MAX_BITS, Some(17));
///
/// let mut buf = Vec::new();
/// let mut w = BitWriter::new(&mut buf);
/// <Metres as FieldCodec<f32>>::encode(&12.3456, &mut w)?;
/// w.finish();
/// let back = <Metres as FieldDecode<f32>>::decode(&mut BitReader::new(&buf))?;
/// assert!((back - 12.35).abs() < 1e-4);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
pub struct Quantize<const MIN: u64, const MAX: u64, const STEP: u64>;

impl<const MIN: u64, const MAX: u64, const STEP: u64> Quantize<MIN, MAX, STEP> {
    /// The grid's first point.
    pub const MIN: f64 = f64::from_bits(MIN);
    /// The grid's end.
    pub const MAX: f64 = f64::from_bits(MAX);
    /// The distance between grid points.
    pub const STEP: f64 = f64::from_bits(STEP);
    /// The last grid index: `(MAX - MIN) / STEP`, rounded.
    pub const STEPS: u64 = {
        let (min, max, step) = (Self::MIN, Self::MAX, Self::STEP);
        assert!(
            min.is_finite() && max.is_finite() && min < max,
            "quantize: the range must be finite and not empty"
        );
        assert!(
            step.is_finite() && step > 0.0,
            "quantize: the precision must be positive"
        );
        let steps = (max - min) / step + 0.5;
        assert!(
            steps < 18_446_744_073_709_551_615.0,
            "quantize: more than 2^64 grid points"
        );
        steps as u64
    };
    /// The bits of an index.
    pub const BITS: u32 = size::span_bits(Self::STEPS as u128);

    /// Whether the grid is coarse enough for a float of `significand` bits: a grid point,
    /// rounded to the float type, is nearer to its own index than to any other.
    pub const fn fits(significand: u32) -> bool {
        let largest = Self::MIN.abs().max(Self::MAX.abs());
        // A float of `significand` bits is within largest / 2^significand of the grid point,
        // a quarter of the smallest step allowed here.
        Self::STEP * (1u64 << (significand - 2)) as f64 >= largest
    }

    #[cold]
    fn outside(value: f64) -> Error {
        Error::custom(format!(
            "{value} is outside the quantized range {}..={} (step {})",
            Self::MIN,
            Self::MAX,
            Self::STEP
        ))
    }

    #[cold]
    fn past_end(index: u64) -> Error {
        Error::custom(format!(
            "quantized index {index} is past the last one, {}",
            Self::STEPS
        ))
    }
}

/// Checked at compile time for each float type the codec is used with.
struct Fine<F, const MIN: u64, const MAX: u64, const STEP: u64>(F);

impl<F: QuantizeFloat, const MIN: u64, const MAX: u64, const STEP: u64> Fine<F, MIN, MAX, STEP> {
    const OK: () = assert!(
        Quantize::<MIN, MAX, STEP>::fits(F::SIGNIFICAND),
        "quantize: the precision is too fine for the float type at this range"
    );
}

impl<T: QuantizeFloat, const MIN: u64, const MAX: u64, const STEP: u64> FieldCodec<T>
    for Quantize<MIN, MAX, STEP>
{
    const MIN_BITS: u64 = Self::BITS as u64;
    const MAX_BITS: Option<u64> = Some(Self::BITS as u64);
    const WORD_BITS: Option<u32> = Some(Self::BITS);

    #[inline(always)]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        super::write_word(Self::encode_word(value), w)
    }

    #[inline(always)]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        let () = Fine::<T, MIN, MAX, STEP>::OK;
        let v = value.to_f64();
        let at = (v - Self::MIN) / Self::STEP + 0.5;
        // NaN fails both tests.
        if !(at >= 0.0 && at < Self::STEPS as f64 + 1.0) {
            return Err(Self::outside(v));
        }
        Ok(((at as u64).min(Self::STEPS), Self::BITS))
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        Self::BITS as u64
    }

    /// The same bits in the range make the same index, without the arithmetic; otherwise
    /// the indices are compared.
    #[inline(always)]
    fn same_encoding(a: &T, b: &T) -> bool {
        let (x, y) = (a.to_f64(), b.to_f64());
        if x.to_bits() == y.to_bits() && Self::MIN <= x && x <= Self::MAX {
            return true;
        }
        matches!((Self::encode_word(a), Self::encode_word(b)), (Ok(p), Ok(q)) if p == q)
    }

    fn schema() -> Encoding {
        Encoding::Quantized {
            min: Self::MIN,
            max: Self::MAX,
            step: Self::STEP,
            bits: Self::BITS,
        }
    }
}

impl<T: QuantizeFloat, const MIN: u64, const MAX: u64, const STEP: u64> FieldDecode<T>
    for Quantize<MIN, MAX, STEP>
{
    #[inline(always)]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        let () = Fine::<T, MIN, MAX, STEP>::OK;
        let index = r.read_bits(Self::BITS)?;
        if index > Self::STEPS {
            return Err(Self::past_end(index));
        }
        Ok(T::from_f64(Self::MIN + index as f64 * Self::STEP))
    }
}
