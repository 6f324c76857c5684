//! Rabbit: the bit-packed encoding of the game protocol.
//!
//! Rabbit is not self-describing: both ends know the types, so the wire carries only the bits the
//! values need, packed without byte alignment. This crate is the runtime: the [`Encode`] and
//! [`Decode`] traits, the [`BitWriter`] and [`BitReader`] they use, and impls for the standard
//! types. `#[derive(Rabbit)]` (the default `derive` feature) writes the impls for your own
//! structs and enums; the [`guide`] documents every attribute.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Move {
//!     #[bits(4)]
//!     direction: u8,
//!     speed: Option<f32>,
//! }
//!
//! let msg = Move { direction: 0b1001, speed: Some(1.5) };
//! let bytes = hopnet_codec::to_bytes(&msg)?;
//! assert_eq!(bytes.len(), 5); // 4 + 1 + 32 bits, padded to 40
//! assert_eq!(hopnet_codec::from_bytes::<Move>(&bytes)?, msg);
//! # }
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # The bit stream
//!
//! Values are pushed least significant bit first; byte 0 holds the first eight bits, the first
//! pushed bit as its least significant bit. The stream is padded with zeros to a whole byte, and
//! [`from_bytes`] accepts nothing after a message but those zero padding bits.
//!
//! # How each type is encoded
//!
//! | Type | Encoding | Bits |
//! |---|---|---|
//! | `bool` | one bit | 1 |
//! | `u8` | eight plain bits | 8 |
//! | `u16`, `u32`, `u64`, `u128`, `usize` | the spec's variable-length integer: the byte count less one in `log2(width in bytes)` bits, then that many low bytes; `usize` is a `u64` everywhere | `u32`: 10 to 34 |
//! | `i8` | zig-zag, then eight plain bits | 8 |
//! | `i16`, `i32`, `i64`, `i128`, `isize` | zig-zag (0, -1, 1, -2, … → 0, 1, 2, 3, …), then the unsigned form | `i32`: 10 to 34 |
//! | `f32`, `f64` | the IEEE-754 bits | 32, 64 |
//! | `char` | its scalar value as a `u32` | 10 to 34 |
//! | `Option<T>` | a presence bit, then `T` if present | 1 + `T` |
//! | `Vec<T>`, `[T]`, `Box<[T]>`, `Arc<[T]>` | a `u32` count, then the items | 10 + … |
//! | `String`, `&str`, `Box<str>`, `Arc<str>` | a `u32` byte count, then the UTF-8 bytes | 10 + 8 per byte |
//! | `[T; N]` | the `N` items, no count | `N` × `T` |
//! | tuples up to 8 | the items in order | the sum |
//! | `Box<T>`, `Rc<T>`, `Arc<T>`, `&T`, `Cow<T>` | `T` | `T` |
//! | `()`, `PhantomData<T>` | nothing | 0 |
//!
//! Every type states the fewest and the most bits a value can take ([`Encode::MIN_BITS`],
//! [`Encode::MAX_BITS`]), so a message's worst case is known at compile time:
//!
//! ```
//! // Two optional u32 and a bool: 1 + (1 + 34) * 2 bits at most.
//! assert_eq!(<(bool, Option<u32>, Option<u32>) as hopnet_codec::Encode>::MAX_BITS, Some(71));
//! ```
//!
//! # Deltas
//!
//! A value can also be written against a baseline the receiver holds, where what did not
//! change costs a bit or nothing ([`DeltaEncode`], [`DeltaDecode`], [`delta`]):
//! `#[rabbit(delta)]` derives them, `#[rabbit(key = "id")]` makes a list of entities a keyed
//! one, and `#[rabbit(quantize(...))]` puts floats on a grid (see `guide::delta`).
//!
//! # Decoding untrusted input
//!
//! Decoders never panic and never allocate more than the input could justify: a length prefix is
//! checked against the bits that are left before anything is reserved ([`Error::CountTooLarge`]),
//! unknown enum indices and invalid UTF-8 are errors, and integers must use their shortest form,
//! so that every value has exactly one encoding.
//!
//! ```
//! // A list claiming u32::MAX items in six bytes fails before allocating anything.
//! let forged = [0xfe, 0xff, 0xff, 0xff, 0x03, 0x00];
//! let err = hopnet_codec::from_bytes::<Vec<u64>>(&forged).unwrap_err();
//! assert!(matches!(err, hopnet_codec::Error::CountTooLarge { .. }));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Invokes the macro `$m` once per tuple arity the crate implements its traits for (1 to 8),
/// with the type parameters and their indices: `$m!(A.0, B.1)`.
macro_rules! for_each_tuple {
    ($m:ident) => {
        $m!(A.0);
        $m!(A.0, B.1);
        $m!(A.0, B.1, C.2);
        $m!(A.0, B.1, C.2, D.3);
        $m!(A.0, B.1, C.2, D.3, E.4);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7);
    };
}

#[doc(hidden)]
#[path = "contract/mod.rs"]
pub mod __derive;
pub mod codec;
pub mod delta;
mod error;
#[cfg(feature = "derive")]
pub mod guide;
mod impls;
pub mod layout;
pub mod limits;
mod read;
pub mod schema;
pub mod size;
pub mod varint;
mod write;

pub use delta::{DeltaDecode, DeltaEncode};
pub use error::{Error, Result};
pub use read::{BitRead, BitReader, BitWindow};
pub use write::BitWriter;

#[cfg(feature = "derive")]
pub use hopnet_derive::Rabbit;

/// A type that can be written as Rabbit bits.
///
/// Usually derived with `#[derive(Rabbit)]`; a type written as another one (a bitflags type as
/// its bits) derives it with `#[rabbit(from = "W", into = "W")]` (see
/// `guide::containers`). Hand-written impls need `MIN_BITS`, `MAX_BITS` and
/// [`Encode::encode`], push their fields with the [`BitWriter`] (or the codec types of
/// [`codec`]) and must keep the sizes true, since decoders use `MIN_BITS` to reject
/// impossible length prefixes.
pub trait Encode {
    /// The fewest bits any value of the type takes.
    const MIN_BITS: u64;
    /// The most bits any value takes, or `None` if values can be arbitrarily large.
    const MAX_BITS: Option<u64>;

    /// Pushes the value's bits.
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()>;

    /// The bits [`Encode::encode`] would push, computed without encoding.
    ///
    /// The provided method is `MIN_BITS` when every value takes the same bits (`MAX_BITS` is
    /// `Some(MIN_BITS)`), and otherwise encodes into a scratch buffer and counts, which
    /// allocates: a type whose values vary in size should override it.
    #[inline]
    fn encoded_bits(&self) -> u64 {
        match Self::MAX_BITS {
            Some(max) if max == Self::MIN_BITS => max,
            _ => write::count_bits(|w| self.encode(w)),
        }
    }

    /// `Some(n)` if every value's encoding fits in one 64-bit word, `n <= 64` bits at most,
    /// and [`Encode::encode_word`] returns it; `None` (the default) otherwise.
    ///
    /// Derived code uses it to merge a run of small fields (numbers, flags, `Option`s of them,
    /// enum tags) into one write of up to 64 bits where it would otherwise make one write per
    /// field: the bit writer's bookkeeping (the bit count and the check for a full word) then
    /// runs once per run instead of once per field. The runs are chosen from these constants
    /// at compile time, so an impl that leaves it `None` only loses that merging.
    const WORD_BITS: Option<u32> = None;

    /// The value's encoding as one word: the bits, first pushed in the least significant
    /// position and nothing at or above the count, and the count. Exactly what
    /// [`Encode::encode`] pushes; only called when [`Encode::WORD_BITS`] is `Some(n)`, and the
    /// count is then at most `n`.
    ///
    /// The provided method encodes into a scratch buffer and reads the bits back, which is
    /// correct for any impl but slow: an impl that sets `WORD_BITS` should override it.
    #[inline]
    fn encode_word(&self) -> Result<(u64, u32)> {
        write::word_by_encoding(self)
    }

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

    /// Reads one value from a [`BitWindow`] made for this type
    /// ([`BitReader::window`]`::<Self>()`, which exists only when the type's encoding fits a
    /// window): exactly what [`Decode::decode`] reads, with the same errors at the same
    /// positions. On a window made for a smaller type, reads past its end wrap around.
    ///
    /// A list decodes its items through this method when their type's
    /// [`Encode::MAX_BITS`] is at most [`limits::WINDOW_MAX_BITS`] and the input has a whole window
    /// left: the window's reads need no bounds checks. Derived impls read their fields through
    /// it; the provided method runs [`Decode::decode`] on a [`BitReader`] at the window's
    /// cursor, which is correct for any impl and only slower.
    #[inline(always)]
    fn decode_window(w: &mut BitWindow<'_>) -> Result<Self> {
        w.with_reader(Self::decode)
    }
}

/// Encodes `value` into a new buffer.
///
/// The buffer starts with room for the most bytes the type can take when that is at most
/// 4 KiB (so a bounded message is one allocation), and otherwise for the fewest it takes, at
/// least 64 bytes (so a large one starts growing from there, not from 8).
#[inline]
pub fn to_bytes<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(initial_capacity::<T>());
    encode_into(value, &mut out)?;
    Ok(out)
}

/// The capacity [`to_bytes`] starts with.
const fn initial_capacity<T: Encode + ?Sized>() -> usize {
    const SMALL: u64 = 4096;
    // A `MIN_BITS` is a promise about every value, but one from a hand-written impl could be
    // wrong: never reserve more than this on its word alone.
    const LARGE: u64 = 1 << 20;
    let min = T::MIN_BITS.div_ceil(8);
    let bytes = match T::MAX_BITS {
        Some(max) if max.div_ceil(8) <= SMALL => max.div_ceil(8),
        _ => {
            let at_least = if min > 64 { min } else { 64 };
            if at_least < LARGE { at_least } else { LARGE }
        }
    };
    bytes as usize
}

/// Appends the encoding of `value` to `out`, reusing its capacity.
///
/// On error, `out` is left as it was.
#[inline]
pub fn encode_into<T: Encode + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    // `ManuallyDrop`: if an impl panics, the writer's drop glue would have to run from the
    // unwinding path, which makes LLVM keep the accumulator in memory (stored on every field)
    // instead of in registers. A panic leaves `out` with whatever whole words it had.
    let mut w = std::mem::ManuallyDrop::new(BitWriter::new(out));
    let result = value.encode(&mut w);
    std::mem::ManuallyDrop::into_inner(w).finish();
    if result.is_err() {
        out.truncate(start);
    }
    result
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
