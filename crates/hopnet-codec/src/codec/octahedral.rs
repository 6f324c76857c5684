//! `#[rabbit(unit_vector(bits = B))]`: a direction as its point on an octahedron unfolded onto
//! a square, two coordinates of `B` bits each.

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::BitRead;
use crate::schema::Encoding;
use crate::write::BitWriter;

/// A direction `(x, y, z)`: what a `unit_vector` field holds.
///
/// Implemented for `[f32; 3]`; a game's own vector type implements it as
/// [`Quaternion`](super::Quaternion) is implemented (a type of another crate goes in a newtype
/// of the game's, or the field stays `[f32; 3]`).
///
/// ```
/// use hopnet_codec::codec::UnitVector;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Normal { x: f32, y: f32, z: f32 }
///
/// impl UnitVector for Normal {
///     fn to_xyz(&self) -> [f32; 3] {
///         [self.x, self.y, self.z]
///     }
///     fn from_xyz([x, y, z]: [f32; 3]) -> Self {
///         Normal { x, y, z }
///     }
/// }
///
/// #[derive(hopnet_codec::Rabbit)]
/// struct Hit {
///     #[rabbit(unit_vector(bits = 12))]
///     normal: Normal,
/// }
/// # let hit = Hit { normal: Normal { x: 0.0, y: 0.0, z: 1.0 } };
/// # let back: Hit = hopnet_codec::from_bytes(&hopnet_codec::to_bytes(&hit)?)?;
/// # assert_eq!(back.normal, hit.normal);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[rabbit(unit_vector(...))]` needs `[f32; 3]` or a type implementing `hopnet_codec::codec::UnitVector`, not `{Self}`",
    label = "not a unit vector"
)]
pub trait UnitVector: Sized {
    /// The components `[x, y, z]`; any length but zero (the encoder normalizes).
    fn to_xyz(&self) -> [f32; 3];
    /// The value of a unit vector's components.
    fn from_xyz(xyz: [f32; 3]) -> Self;
}

impl UnitVector for [f32; 3] {
    #[inline(always)]
    fn to_xyz(&self) -> [f32; 3] {
        *self
    }
    #[inline(always)]
    fn from_xyz(xyz: [f32; 3]) -> Self {
        xyz
    }
}

/// A unit vector in `2 * BITS` bits, by the octahedral mapping: the vector scaled to
/// `|x| + |y| + |z| = 1` lies on an octahedron; its upper half is `(x, y)` on the diamond
/// `|u| + |v| ≤ 1`, and its lower half is folded out over the diamond's edges to fill the
/// square `[-1, 1]²`. `u` then `v` are written as the indices of their nearest points on a grid
/// of `2^BITS - 1` points from -1 to 1 (step `s = 2 / (2^BITS - 2)`; an odd count, so that the
/// axes are grid points and decode exactly). The one index left over decodes as the grid's
/// end.
///
/// Every bit string decodes to a unit vector, and a vector of zero length, infinite or NaN is an
/// encode error. `BITS` is 4 to 24 (finer than an `f32` holds is no use), checked at compile
/// time.
///
/// # Error
///
/// `u` and `v` are each off by at most `s/2`; a step of `d` in the square moves the point on the
/// octahedron by at most `√3·d`, and the octahedron is nowhere nearer the centre than `1/√3`, so
/// the decoded direction is within `θ = 2·asin(3·s / (2·√2))` (about `2.12·s` radians) of the
/// encoded one, plus `f32` rounding: [`Octahedral::max_error_degrees`]. At 12 bits (24 a
/// vector) that is 0.0594°; at 8 bits, 0.957°; at 16 bits, 0.0037°.
///
/// ```
/// use hopnet_codec::codec::{FieldCodec, FieldDecode, Octahedral};
/// use hopnet_codec::{BitReader, BitWriter};
///
/// type Direction = Octahedral<12>;
/// assert_eq!(<Direction as FieldCodec<[f32; 3]>>::MAX_BITS, Some(24));
///
/// let mut buf = Vec::new();
/// let mut w = BitWriter::new(&mut buf);
/// <Direction as FieldCodec<[f32; 3]>>::encode(&[0.6, 0.0, -0.8], &mut w)?;
/// w.finish();
/// let back: [f32; 3] = <Direction as FieldDecode<[f32; 3]>>::decode(&mut BitReader::new(&buf))?;
/// assert!((back[0] - 0.6).abs() < 0.001 && (back[2] + 0.8).abs() < 0.001);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
pub struct Octahedral<const BITS: u32>;

impl<const BITS: u32> Octahedral<BITS> {
    /// The bits of the whole: `u`, then `v`.
    pub const TOTAL_BITS: u32 = {
        assert!(
            BITS >= 4 && BITS <= 24,
            "unit_vector: 4 to 24 bits per coordinate"
        );
        2 * BITS
    };
    /// The last grid index.
    const LAST: u64 = (1 << BITS) - 2;
    /// The bits of one coordinate.
    const MASK: u64 = (1 << BITS) - 1;

    /// The distance between grid points.
    pub fn step() -> f64 {
        2.0 / Self::LAST as f64
    }

    /// The most a decoded direction differs from the encoded one, in radians (the formula in
    /// the type's docs), not counting `f32` rounding.
    pub fn max_error_radians() -> f64 {
        let chord = 3.0 * Self::step() / 2f64.sqrt();
        2.0 * (chord / 2.0).min(1.0).asin()
    }

    /// [`Octahedral::max_error_radians`] in degrees.
    pub fn max_error_degrees() -> f64 {
        Self::max_error_radians().to_degrees()
    }

    fn pack(xyz: [f32; 3]) -> Result<u64> {
        let [x, y, z] = xyz.map(f64::from);
        let l1 = x.abs() + y.abs() + z.abs();
        if !(l1.is_finite() && l1 > 0.0) {
            return Err(Error::custom(format!(
                "{xyz:?} is no direction: a unit vector needs a finite, non-zero length"
            )));
        }
        let (x, y, z) = (x / l1, y / l1, z / l1);
        let (u, v) = if z >= 0.0 {
            (x, y)
        } else {
            ((1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y))
        };
        let index = |c: f64| ((c + 1.0) / Self::step() + 0.5).clamp(0.0, Self::LAST as f64) as u64;
        Ok(index(u) | index(v) << BITS)
    }

    fn unpack(word: u64) -> [f32; 3] {
        let at = |k: u64| (k & Self::MASK).min(Self::LAST) as f64 * Self::step() - 1.0;
        let (u, v) = (at(word), at(word >> BITS));
        let z = 1.0 - u.abs() - v.abs();
        let (x, y) = if z >= 0.0 {
            (u, v)
        } else {
            ((1.0 - v.abs()) * sign(u), (1.0 - u.abs()) * sign(v))
        };
        // |x| + |y| + |z| is 1 on both halves: never a zero length.
        let norm = (x * x + y * y + z * z).sqrt();
        [x, y, z].map(|c| (c / norm) as f32)
    }
}

/// The sign of `c`, `+1` at zero.
fn sign(c: f64) -> f64 {
    if c < 0.0 { -1.0 } else { 1.0 }
}

impl<T: UnitVector, const BITS: u32> FieldCodec<T> for Octahedral<BITS> {
    const MIN_BITS: u64 = Self::TOTAL_BITS as u64;
    const MAX_BITS: Option<u64> = Some(Self::TOTAL_BITS as u64);
    const WORD_BITS: Option<u32> = Some(Self::TOTAL_BITS);

    #[inline]
    fn encode(value: &T, w: &mut BitWriter<'_>) -> Result<()> {
        super::write_word(<Self as FieldCodec<T>>::encode_word(value), w)
    }

    #[inline]
    fn encode_word(value: &T) -> Result<(u64, u32)> {
        Ok((Self::pack(value.to_xyz())?, Self::TOTAL_BITS))
    }

    #[inline(always)]
    fn encoded_bits(_: &T) -> u64 {
        Self::TOTAL_BITS as u64
    }

    fn schema() -> Encoding {
        Encoding::Octahedral { bits: BITS }
    }
}

impl<T: UnitVector, const BITS: u32> FieldDecode<T> for Octahedral<BITS> {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<T> {
        let word = r.read_bits(Self::TOTAL_BITS)?;
        Ok(T::from_xyz(Self::unpack(word)))
    }
}
