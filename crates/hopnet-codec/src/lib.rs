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
//! one, and `#[rabbit(quantize(...))]` puts floats on a grid (see `guide::delta`);
//! `quaternion(bits = B)` and `unit_vector(bits = B)` write rotations and directions in few
//! bits (see `guide::quantize`).
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

pub mod codec;
mod contract;
// The one module generated code names: `contract` under a name that carries this release's
// version, `__derive_v0_1_0` for 0.1.0 (written by `build.rs`).
include!(concat!(env!("OUT_DIR"), "/contract.rs"));
pub mod delta;
mod encode;
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
pub use encode::{Encode, encode_into, encoded_len, to_bytes};
pub use error::{Error, Result};
pub use read::{BitRead, BitReader, BitWindow, Decode, from_bytes};
pub use write::BitWriter;

#[cfg(feature = "derive")]
pub use hopnet_derive::Rabbit;
