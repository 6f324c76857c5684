//! Rabbit: the bit-packed encoding of the game protocol.
//!
//! Rabbit is not self-describing: both sides know the types, so the wire carries only the bits
//! the values need. Bits are pushed least significant first; the stream is padded with zeros to
//! a whole byte. See the crate's README and `PROTOCOL.md` for how every type is laid out.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use rabbit::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Move {
//!     #[bits(4)]
//!     direction: u8,
//!     speed: Option<f32>,
//! }
//!
//! let msg = Move { direction: 0b1001, speed: Some(1.5) };
//! let bytes = rabbit::to_bytes(&msg)?;
//! assert_eq!(bytes.len(), 5); // 4 + 1 + 32 bits
//! assert_eq!(rabbit::from_bytes::<Move>(&bytes)?, msg);
//! # }
//! # Ok::<(), rabbit::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod codec;
mod error;
#[cfg(feature = "derive")]
pub mod guide;
mod impls;
mod read;
pub mod schema;
pub mod size;
pub mod varint;
mod write;

pub use error::{Error, Result};
pub use read::{BitReader, MAX_EMPTY_ITEMS};
pub use write::BitWriter;

#[cfg(feature = "derive")]
pub use rabbit_derive::Rabbit;

/// A type that can be written as Rabbit bits.
///
/// Usually derived with `#[derive(Rabbit)]`. Hand-written impls push their fields with the
/// [`BitWriter`] and must keep `MIN_BITS`, `MAX_BITS` and [`Encode::encoded_bits`] true, since
/// decoders use `MIN_BITS` to reject impossible length prefixes.
pub trait Encode {
    /// The fewest bits any value of the type takes.
    const MIN_BITS: u64;
    /// The most bits any value takes, or `None` if values can be arbitrarily large.
    const MAX_BITS: Option<u64>;

    /// Pushes the value's bits.
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()>;

    /// The bits [`Encode::encode`] would push, computed without encoding.
    fn encoded_bits(&self) -> u64;

    /// How the type is laid out on the wire.
    fn schema() -> schema::Encoding {
        schema::Encoding::Opaque {
            type_name: std::any::type_name::<Self>(),
        }
    }
}

/// A type that can be read back from Rabbit bits.
pub trait Decode: Sized {
    /// Reads one value.
    fn decode(r: &mut BitReader<'_>) -> Result<Self>;
}

/// Encodes `value` into a new buffer.
#[inline]
pub fn to_bytes<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`, reusing its capacity.
///
/// On error, `out` is left as it was.
#[inline]
pub fn encode_into<T: Encode + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let mut w = BitWriter::new(out);
    match value.encode(&mut w) {
        Ok(()) => {
            w.finish();
            Ok(())
        }
        Err(e) => {
            drop(w);
            out.truncate(start);
            Err(e)
        }
    }
}

/// Decodes one `T` from the whole of `bytes`: only the zero padding of the final byte may follow.
#[inline]
pub fn from_bytes<T: Decode>(bytes: &[u8]) -> Result<T> {
    let mut r = BitReader::new(bytes);
    let value = T::decode(&mut r)?;
    r.finish()?;
    Ok(value)
}

/// The bytes the encoding of `value` takes: [`Encode::encoded_bits`] rounded up.
#[inline]
pub fn encoded_len<T: Encode + ?Sized>(value: &T) -> usize {
    value.encoded_bits().div_ceil(8) as usize
}

#[doc(hidden)]
pub mod __private {
    pub use std::result::Result::{Err, Ok};
    pub use std::option::Option::{self, None, Some};
    pub use std::default::Default;
}
