//! Container options: `crate`, `bound`, and `from` / `into` for types written as another type.
//!
//! # `#[rabbit(crate = "path")]`
//!
//! Generated code names everything through `::hopnet_codec` and never through your imports. When the
//! crate is reachable under another path (a re-export from a facade crate), say where:
//!
//! ```
//! mod facade {
//!     pub(crate) use ::hopnet_codec as codec;
//! }
//!
//! #[derive(facade::codec::Rabbit)]
//! #[rabbit(crate = "crate::facade::codec")]
//! struct Ping {
//!     #[bits(4)]
//!     seq: u8,
//! }
//!
//! fn main() {
//!     assert_eq!(facade::codec::to_bytes(&Ping { seq: 9 }).unwrap(), [9]);
//! }
//! ```
//!
//! # Generics and `#[rabbit(bound = "...")]`
//!
//! As with serde, each type parameter used in a field on the wire gets the trait it needs:
//! `T: Encode` on the `Encode` and `Describe` impls, `T: Encode + Decode` on the `Decode` impl
//! (decoding a list checks counts against `T::MIN_BITS`). A parameter only used in a skipped
//! field gets `T: Default` for `Decode`; one only inside `PhantomData` or in a `with` field gets
//! nothing. `#[rabbit(bound = "...")]` on the container replaces the inferred predicates of all
//! three impls with its own (the type's own where-clause is kept).
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Batch<T> {
//!     #[rabbit(max_len = 3)]
//!     items: Vec<T>,
//! }
//!
//! assert_eq!(<Batch<bool>>::MAX_BITS, Some(10 + 3));
//! let bytes = hopnet_codec::to_bytes(&Batch { items: vec![true, false] })?;
//! assert_eq!(hopnet_codec::from_bytes::<Batch<bool>>(&bytes)?.items, [true, false]);
//!
//! #[derive(Rabbit)]
//! #[rabbit(bound = "T: hopnet_codec::Encode + hopnet_codec::Decode + Copy")]
//! struct Boxed<T> {
//!     value: Box<T>,
//! }
//! assert_eq!(hopnet_codec::to_bytes(&Boxed { value: Box::new(1u8) })?, [1]);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(from = "W", into = "W")]`: written as another type
//!
//! A type whose wire form is another type's (a bitflags type is its bits, a newtype its inner
//! value, a type with invariants its raw parts) derives by conversion, as with serde:
//! `into = "W"` writes `W::from(value.clone())` (so the type is `Clone`, and `Into<W>`), and
//! `from = "W"` reads a `W` and converts it back with `From<W>`; `try_from = "W"` converts with
//! `TryFrom<W>` instead, and a refusal (its error is `Display`) is a decode error. The type's
//! sizes, merged writes and window decoding are `W`'s. Nothing of its own fields is on the
//! wire, so options on them, on its variants, or a tag are errors; no bounds are inferred
//! (`bound` still applies). The schema is `W`'s layout, under the type's name, with `W`'s doc
//! if it has one: a derived `W` documents the wire form.
//!
//! ```
//! use hopnet_codec::schema::{Body, Describe};
//! use hopnet_codec::{Encode, Rabbit};
//!
//! /// Which keys are held: one bit each, all eight bits kept.
//! #[derive(Debug, Clone, Copy, PartialEq, Rabbit)]
//! #[rabbit(from = "Bits", into = "Bits")]
//! struct Keys(u8);
//!
//! /// The held keys, a bit each.
//! #[derive(Rabbit)]
//! struct Bits {
//!     /// bit 0 up, bit 1 down, bit 2 left, bit 3 right.
//!     bits: u8,
//! }
//!
//! impl From<Keys> for Bits {
//!     fn from(keys: Keys) -> Self {
//!         Bits { bits: keys.0 }
//!     }
//! }
//!
//! impl From<Bits> for Keys {
//!     fn from(wire: Bits) -> Self {
//!         Keys(wire.bits)
//!     }
//! }
//!
//! assert_eq!(hopnet_codec::to_bytes(&Keys(0b1001))?, [0b1001]);
//! assert_eq!(hopnet_codec::from_bytes::<Keys>(&[7])?, Keys(7));
//! assert_eq!(<Keys as Encode>::WORD_BITS, Some(8)); // merges with its neighbours
//! let schema = Keys::type_schema();
//! assert_eq!((schema.name, schema.doc), ("Keys", "The held keys, a bit each."));
//! let Body::Struct(fields) = schema.body else { unreachable!() };
//! assert_eq!(fields[0].name, "bits");
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! With `W` a plain type (`into = "u8"`) the schema shows one field `0` of that type. The
//! conversions may also live in a `bitflags!` invocation: the derive and its attribute go on
//! the struct inside it (`hopnet_snow_fight::Direction` is one).
