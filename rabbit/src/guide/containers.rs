//! Container options: `crate` and `bound`.
//!
//! # `#[rabbit(crate = "path")]`
//!
//! Generated code names everything through `::rabbit` and never through your imports. When the
//! crate is reachable under another path (a re-export from a facade crate), say where:
//!
//! ```
//! mod facade {
//!     pub(crate) use ::rabbit as codec;
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
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Batch<T> {
//!     #[rabbit(max_len = 3)]
//!     items: Vec<T>,
//! }
//!
//! assert_eq!(<Batch<bool>>::MAX_BITS, Some(10 + 3));
//! let bytes = rabbit::to_bytes(&Batch { items: vec![true, false] })?;
//! assert_eq!(rabbit::from_bytes::<Batch<bool>>(&bytes)?.items, [true, false]);
//!
//! #[derive(Rabbit)]
//! #[rabbit(bound = "T: rabbit::Encode + rabbit::Decode + Copy")]
//! struct Boxed<T> {
//!     value: Box<T>,
//! }
//! assert_eq!(rabbit::to_bytes(&Boxed { value: Box::new(1u8) })?, [1]);
//! # Ok::<(), rabbit::Error>(())
//! ```
