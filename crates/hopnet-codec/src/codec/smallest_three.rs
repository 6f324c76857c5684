//! `#[rabbit(quaternion(bits = B))]`: a rotation as the index of its largest component and the
//! other three on a grid of `B` bits each (Glenn Fiedler's "smallest three").

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::write::BitWriter;

/// A rotation as a unit quaternion `(x, y, z, w)`: what a `quaternion` field holds.
///
/// Implemented for `[f32; 4]`. A game's own quaternion type implements it by handing over its
/// four components; a type of another crate (glam's `Quat`, nalgebra's `UnitQuaternion`)
/// cannot implement a trait of this crate in the game's crate, so the game wraps it in a
/// newtype of its own, or keeps the field as `[f32; 4]` (glam: `Quat::to_array` and
/// `Quat::from_array`; nalgebra: `coords` is `(i, j, k, w)`).
///
/// ```
/// use hopnet_codec::codec::Quaternion;
///
/// /// A game's rotation, with `w` first.
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Rotation { w: f32, x: f32, y: f32, z: f32 }
///
/// impl Quaternion for Rotation {
///     fn to_xyzw(&self) -> [f32; 4] {
///         [self.x, self.y, self.z, self.w]
///     }
///     fn from_xyzw([x, y, z, w]: [f32; 4]) -> Self {
///         Rotation { w, x, y, z }
///     }
/// }
///
/// #[derive(hopnet_codec::Rabbit)]
/// struct Body {
///     #[rabbit(quaternion(bits = 9))]
///     rotation: Rotation,
/// }
/// # let body = Body { rotation: Rotation { w: 1.0, x: 0.0, y: 0.0, z: 0.0 } };
/// # let back: Body = hopnet_codec::from_bytes(&hopnet_codec::to_bytes(&body)?)?;
/// # assert_eq!(back.rotation, body.rotation);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(quaternion(...))]` needs `[f32; 4]` or a type implementing `hopnet_codec::codec::Quaternion`, not `{Self}`",
    label = "not a quaternion"
)]
pub trait Quaternion: Sized {
    /// The components `[x, y, z, w]`; any length but zero (the encoder normalizes).
    fn to_xyzw(&self) -> [f32; 4];
    /// The value of a unit quaternion's components `[x, y, z, w]`.
    fn from_xyzw(xyzw: [f32; 4]) -> Self;
}

impl Quaternion for [f32; 4] {
    #[inline(always)]
    fn to_xyzw(&self) -> [f32; 4] {
        *self
    }
    #[inline(always)]
    fn from_xyzw(xyzw: [f32; 4]) -> Self {
        xyzw
    }
}

/// A unit quaternion in `2 + 3 * BITS` bits: two bits for which component is largest in
/// magnitude, then the other three in order, each the index of its nearest point on a grid of
/// `2^BITS - 1` points from `-1/√2` to `1/√2` (step `s = √2 / (2^BITS - 2)`; an odd count, so
/// that zero is a grid point and the identity decodes exactly). The one index left over
/// decodes as the grid's end.
///
/// `q` and `-q` are the same rotation, so the encoder first makes the largest component
/// positive, and the decoder recomputes it as `√(1 - a² - b² - c²)`; the value is normalized
/// before encoding and after decoding. Every bit string decodes to a unit quaternion (three
/// components whose squares sum past one give a largest of zero, then are normalized), and a
/// quaternion of zero length, infinite or NaN is an encode error. `BITS` is 4 to 20 (so the
/// whole fits one 62-bit word), checked at compile time.
///
/// # Error
///
/// Each of the three is off by at most `s/2`, together at most `e = s·√3/2`; the largest
/// component is at least `1/2`, so the recomputed one moves by at most `e·R` with
/// `R = (√3 + e) / (1/2 + √(1 - (√3/2 + e)²))` (about `√3`), and the rotation decoded is within
/// `θ = 4·asin(e·√(1 + R²) / 2)` of the one encoded (about `2·√6 / (2^BITS - 2)` radians),
/// plus `f32` rounding: [`SmallestThree::max_error_degrees`]. At Fiedler's 9 bits (29 bits a
/// rotation) that is 0.553°; at 10 bits, 0.275°; at 12, 0.069°.
///
/// ```
/// use hopnet_codec::codec::{FieldCodec, FieldDecode, SmallestThree};
/// use hopnet_codec::{BitReader, BitWriter};
///
/// type Rotation = SmallestThree<9>;
/// assert_eq!(<Rotation as FieldCodec<[f32; 4]>>::MAX_BITS, Some(29));
/// assert!((Rotation::max_error_degrees() - 0.553).abs() < 0.001);
///
/// // A quarter turn about y.
/// let half = std::f32::consts::FRAC_1_SQRT_2;
/// let mut buf = Vec::new();
/// let mut w = BitWriter::new(&mut buf);
/// <Rotation as FieldCodec<[f32; 4]>>::encode(&[0.0, half, 0.0, half], &mut w)?;
/// w.finish();
/// let back: [f32; 4] = <Rotation as FieldDecode<[f32; 4]>>::decode(&mut BitReader::new(&buf))?;
/// assert!((back[1] - half).abs() < 0.002 && (back[3] - half).abs() < 0.002);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
pub struct SmallestThree<const BITS: u32>;

impl<const BITS: u32> SmallestThree<BITS> {
    /// The bits of the whole: the index, then three components.
    pub const TOTAL_BITS: u32 = {
        assert!(
            BITS >= 4 && BITS <= 20,
            "quaternion: 4 to 20 bits per component"
        );
        2 + 3 * BITS
    };
    /// The last grid index.
    const LAST: u64 = (1 << BITS) - 2;
    /// The bits of one component.
    const MASK: u64 = (1 << BITS) - 1;
    /// The grid's ends.
    const LIMIT: f64 = std::f64::consts::FRAC_1_SQRT_2;

    /// The distance between grid points.
    pub fn step() -> f64 {
        2.0 * Self::LIMIT / Self::LAST as f64
    }

    /// The most a decoded rotation differs from the encoded one, in radians (the formula in
    /// the type's docs), not counting `f32` rounding.
    pub fn max_error_radians() -> f64 {
        let e = Self::step() * 3f64.sqrt() / 2.0;
        let half3 = 3f64.sqrt() / 2.0;
        let r = (3f64.sqrt() + e) / (0.5 + (1.0 - (half3 + e).powi(2)).max(0.0).sqrt());
        let chord = e * (1.0 + r * r).sqrt();
        4.0 * (chord / 2.0).min(1.0).asin()
    }

    /// [`SmallestThree::max_error_radians`] in degrees.
    pub fn max_error_degrees() -> f64 {
        Self::max_error_radians().to_degrees()
    }

    /// The index of the largest component, and the other three with the sign that makes it
    /// positive, each as its grid index.
    fn pack(xyzw: [f32; 4]) -> Result<u64> {
        let q = xyzw.map(f64::from);
        let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(Error::custom(format!(
                "{xyzw:?} is no rotation: a quaternion needs a finite, non-zero length"
            )));
        }
        let mut largest = 0;
        for i in 1..4 {
            if q[i].abs() > q[largest].abs() {
                largest = i;
            }
        }
        let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 } / norm;
        let step = Self::step();
        let mut word = largest as u64;
        let mut shift = 2;
        for (i, c) in q.iter().enumerate() {
            if i == largest {
                continue;
            }
            let at = ((c * sign + Self::LIMIT) / step + 0.5).clamp(0.0, Self::LAST as f64);
            word |= (at as u64) << shift;
            shift += BITS;
        }
        Ok(word)
    }

    /// The unit quaternion of a word: any word.
    fn unpack(word: u64) -> [f32; 4] {
        let largest = (word & 3) as usize;
        let step = Self::step();
        let mut q = [0f64; 4];
        let mut shift = 2;
        let mut sum = 0.0;
        for (i, c) in q.iter_mut().enumerate() {
            if i == largest {
                continue;
            }
            *c = ((word >> shift) & Self::MASK).min(Self::LAST) as f64 * step - Self::LIMIT;
            sum += *c * *c;
            shift += BITS;
        }
        q[largest] = (1.0 - sum).max(0.0).sqrt();
        // At least one of the three is nonzero when the largest is zero: never a zero length.
        let norm = (sum + q[largest] * q[largest]).sqrt();
        q.map(|c| (c / norm) as f32)
    }
}

impl<T: Quaternion, const BITS: u32> FieldCodec<T> for SmallestThree<BITS> {
    const MIN_BITS: u64 = Self::TOTAL_BITS as u64;
    const MAX_BITS: Option<u64> = Some(Self::TOTAL_BITS as u64);
    const WORD_BITS: Option<u32> = Some(Self::TOTAL_BITS);

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        super::write_word(<Self as FieldCodec<T>>::encode_word(value), w)
    }

    #[inline]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        Ok((Self::pack(value.to_xyzw())?, Self::TOTAL_BITS))
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        Self::TOTAL_BITS as u64
    }

    fn schema() -> Encoding {
        Encoding::SmallestThree { bits: BITS }
    }
}

impl<T: Quaternion, const BITS: u32> FieldDecode<T> for SmallestThree<BITS> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        let word = r.read_bits(Self::TOTAL_BITS)?;
        Ok(T::from_xyzw(Self::unpack(word)))
    }
}
