//! Delta encoding: a value written against a baseline that the receiver already holds, so that
//! what did not change costs a bit or nothing.
//!
//! A game server sends the world every tick, and most of it is what the client already has:
//! trees stand still, only the players move. [`DeltaEncode::encode_delta`] writes a value
//! against a *baseline* (an earlier value both ends hold) and [`DeltaDecode::decode_delta`]
//! rebuilds it from the same baseline. Decoding against the baseline the encoder used gives
//! exactly the value encoded, bit for bit (floats included: `-0.0` and NaN payloads survive);
//! decoding against another baseline gives another value or an error, so the two ends must agree
//! on which baseline a delta is against (the game names it by its tick).
//!
//! `#[derive(Rabbit)]` with `#[rabbit(delta)]` implements both traits (see
//! `guide::delta`); the standard types have them too. How each kind of value is written:
//!
//! | Value | Unchanged | Changed |
//! |---|---|---|
//! | number, `bool`, `char`, string, a field with an encoding attribute | `0` | `1`, then the value as [`Encode`] writes it |
//! | `f32`, `f64` | `0` | `1`, then the XOR of its bits with the baseline's: its leading zero bits counted in 5 bits (6 for `f64`), then the bits below its highest set bit |
//! | derived struct (two or more fields on the wire) | `0` | `1`, then each field's delta |
//! | derived struct, `delta = "per_field"` or one field | each field's delta, no bit of its own | the same |
//! | derived enum | `0` | `1`, then `1` and the variant's fields' deltas if the variant is the baseline's, else `0` and the whole value |
//! | `Option<T>` | `0` | baseline `None`: `1`, the `T`; baseline `Some`: `1 1` and the `T`'s changes, or `1 0` for `None` |
//! | `Vec<T>` | `0` | `1`, the new length (`u32`), the delta of each item the baseline has, then the new items whole |
//! | `Vec<T>` with `#[rabbit(key = "field")]` | `0` | `1`, then whether anything came or went, what was removed and added, and what changed ([`keyed`]) |
//! | arrays, tuples | `0` | `1`, then each item's delta |
//!
//! [`DeltaEncode::unchanged`] decides "unchanged" from what is on the wire: two values are
//! unchanged when they encode to the same bits.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Tree {
//!     x: f32,
//!     y: f32,
//!     health: u32,
//! }
//!
//! let before = Tree { x: 10.0, y: 20.0, health: 100 };
//! let after = Tree { health: 90, ..before.clone() };
//! let delta = hopnet_codec::delta::to_bytes(&after, &before)?;
//! // 1 (changed), 0 (x), 0 (y), then 1 and 10 bits (health): 14 bits against the full 74.
//! assert_eq!(delta.len(), 2);
//! assert_eq!(hopnet_codec::delta::from_bytes(&before, &delta)?, after);
//! // Nothing changed: one bit.
//! assert_eq!(hopnet_codec::delta::to_bytes(&before, &before)?, [0]);
//! # }
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Untrusted deltas
//!
//! A delta is decoded with the same care as a full value: counts are checked against the bits
//! left before anything is allocated, and an index the baseline does not have is an error
//! ([`Error::BadDelta`](crate::Error::BadDelta)), never a panic. What a decoder allocates is
//! bounded by the baseline (which the receiver holds already) plus what the input could hold.

mod coded;
mod containers;
pub mod keyed;
mod leaves;

pub use coded::{coded_decode_changes, coded_encode_changes, coded_unchanged};

use crate::encode::Encode;
use crate::error::Result;
use crate::read::{BitReader, Decode};
use crate::write::BitWriter;

/// A type that can be written as the changes from a baseline.
///
/// Derived with `#[derive(Rabbit)]` and `#[rabbit(delta)]`. A hand-written impl needs
/// [`DeltaEncode::unchanged`] and [`DeltaEncode::encode_changes`]; the provided
/// [`DeltaEncode::encode_delta`] writes one bit, then the changes if there are any.
pub trait DeltaEncode: Encode {
    /// Whether [`DeltaEncode::encode_delta`] is laid out as the provided method is: one
    /// changed bit, then [`DeltaEncode::encode_changes`] if the value changed. A struct that
    /// has already compared a field with its baseline then writes that bit itself and calls
    /// `encode_changes`, instead of `encode_delta` comparing them again. An impl whose
    /// `encode_delta` writes anything else (nothing at all, or its parts' bits only) sets it
    /// to `false`.
    const DELTA_BIT: bool = true;

    /// Whether `self` and `base` encode to the same bits: a delta between them carries
    /// nothing, and its decoder gives back the baseline.
    fn unchanged(&self, base: &Self) -> bool;

    /// Writes `self` against `base`: [`DeltaDecode::decode_delta`] with the same baseline
    /// reads exactly this value back.
    #[inline]
    fn encode_delta(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        if self.unchanged(base) {
            w.write_bool(false);
            Ok(())
        } else {
            w.write_bool(true);
            self.encode_changes(base, w)
        }
    }

    /// Writes what differs between `self` and `base`, when they differ: what follows the
    /// changed bit of [`DeltaEncode::encode_delta`]. A type whose values always differ from
    /// each other in some part calls its parts' `encode_changes` directly, saving their bit.
    ///
    /// Only called when [`DeltaEncode::unchanged`] is false; otherwise what it writes need
    /// not decode.
    fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()>;
}

/// A type that can be read back from the changes from a baseline.
///
/// `Clone`, because what did not change is the baseline's: a decoder copies it.
pub trait DeltaDecode: Decode + Clone {
    /// Reads what [`DeltaEncode::encode_delta`] wrote against `base`.
    #[inline]
    fn decode_delta(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        if r.read_bool()? {
            Self::decode_changes(base, r)
        } else {
            Ok(base.clone())
        }
    }

    /// Reads what [`DeltaEncode::encode_changes`] wrote against `base`.
    fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self>;
}

/// Encodes `value` against `base` into a new buffer.
#[inline]
pub fn to_bytes<T: DeltaEncode>(value: &T, base: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(value, base, &mut out)?;
    Ok(out)
}

/// Appends the delta of `value` against `base` to `out`, reusing its capacity.
///
/// On error, `out` is left as it was.
#[inline]
pub fn encode_into<T: DeltaEncode>(value: &T, base: &T, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    // As in `crate::encode_into`: no drop glue on the unwinding path, so the writer's
    // accumulator can stay in registers.
    let mut w = std::mem::ManuallyDrop::new(BitWriter::new(out));
    let result = value.encode_delta(base, &mut w);
    std::mem::ManuallyDrop::into_inner(w).finish();
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Decodes a value from the whole of `bytes`, a delta against `base`: only the zero padding
/// of the final byte may follow.
#[inline]
pub fn from_bytes<T: DeltaDecode>(base: &T, bytes: &[u8]) -> Result<T> {
    let mut r = BitReader::new(bytes);
    let value = T::decode_delta(base, &mut r)?;
    r.finish()?;
    Ok(value)
}
