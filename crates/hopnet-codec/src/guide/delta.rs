//! Deltas: `#[rabbit(delta)]`, `key = "..."`, `quantize(...)`.
//!
//! A game sends its world many times a second, and most of it is what the receiver already
//! has. With `#[rabbit(delta)]` the derive also implements [`DeltaEncode`] and
//! [`DeltaDecode`]: a value written against a *baseline* (an earlier value the receiver
//! holds), where what did not change costs one bit or nothing. Decoding against the same
//! baseline gives exactly the value encoded; which baseline that is, the protocol around the
//! delta must say (a game names it by its tick). The layout of every kind of value is in
//! [`hopnet_codec::delta`](crate::delta).
//!
//! # `#[rabbit(delta)]`
//!
//! On a struct or an enum that derives `Rabbit` and `Clone` (a decoder copies what did not
//! change from the baseline). Every field on the wire must have deltas too: the standard
//! types do, and so do derived types with `#[rabbit(delta)]`. A field with an encoding
//! attribute (`#[bits(N)]`, `range`, `varint`, `with`, `max_len`, `quantize`, ...) changes as
//! a whole: one bit, then its encoding if it changed. A float without one is written, when it
//! changed, as the difference of its bits from the baseline's (see
//! [`hopnet_codec::delta`](crate::delta)): a value that moved a little costs less than its 32 or 64
//! bits. A skipped field keeps the baseline's value.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Player {
//!     x: f32,
//!     y: f32,
//!     #[rabbit(range = "0..=100")]
//!     health: u8,
//!     name: String,
//! }
//!
//! let before = Player { x: 1.0, y: 2.0, health: 100, name: "ada".into() };
//! let after = Player { x: 1.5, ..before.clone() };
//! let bytes = hopnet_codec::delta::to_bytes(&after, &before)?;
//! // The struct's changed bit; x's bit, then its difference from 1.0 (1.0 and 1.5 share their
//! // first 9 bits: the count 9 in 5 bits, then the 22 bits below the first that differs);
//! // then one bit each for y, health and name: 32 bits, where the whole value takes
//! // 32 + 32 + 7 + 34 = 105.
//! assert_eq!(bytes.len(), 4);
//! assert_eq!(hopnet_codec::delta::from_bytes(&before, &bytes)?, after);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! ## `per_struct` or `per_field`
//!
//! By default (`delta`, or `delta = "per_struct"`) a struct with two or more fields on the
//! wire writes one changed bit of its own, then, only if it changed, each field's delta: an
//! unchanged struct costs one bit however many fields it has, a changed one a bit more than
//! its fields. With `delta = "per_field"` it writes no bit of its own, only its fields': an
//! unchanged struct then costs a bit per field, and a changed one a bit less. A struct with
//! one field lets that field's bit speak for it either way. An enum writes its changed bit,
//! then whether the variant is the baseline's (then that variant's fields) or not (then the
//! whole value, tag included); `per_field` drops the changed bit.
//!
//! Measured on a snapshot of 1000 entities where 10 % moved (BENCHMARKS.md, the codec
//! suite's `delta-10pct` case): 858 bytes with every struct `per_struct`, 1,813 with every
//! struct `per_field`, whose unchanged entities cost nine bits each instead of one. A value
//! most of whose fields change at every step (a position that moves on two axes) gains a bit
//! from `per_field`; one that is mostly unchanged, as the entities of a world are, wants the
//! default.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta = "per_field")]
//! struct Velocity {
//!     dx: i16,
//!     dy: i16,
//! }
//!
//! let v = Velocity { dx: 3, dy: -1 };
//! // No bit of its own: one per field, unchanged.
//! assert_eq!(hopnet_codec::delta::to_bytes(&v, &v)?, [0]);
//! let w = Velocity { dx: 4, dy: -2 };
//! // dx and dy: 1 + 10 bits each, no bit for the struct.
//! assert_eq!(hopnet_codec::delta::to_bytes(&w, &v)?.len(), 3);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(key = "field")]`: lists of things with an identity
//!
//! A plain `Vec<T>` field's delta is its length and each item against the item at the same
//! position: a removal near the front shifts every item after it. On a `Vec<T>` of a type
//! with deltas, `key = "id"` names the items' identity (a field of `T`, or a path of fields:
//! `"meta.id"`, `"0"`) and makes it a keyed list: the delta says whether any item came or went,
//! then (if some did) which of the baseline's items are gone and where new items are (by
//! position), then every item, a new one whole and a kept one as its delta against the
//! baseline's item with the same key (one bit if it did not change). The key must be `Ord`; lists in increasing key order (as a world's entities usually
//! are) are paired in one walk, others through a sorted index. Every list encodes exactly,
//! duplicate keys included.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Entity {
//!     id: u32,
//!     x: f32,
//!     hp: u8,
//! }
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct World {
//!     #[rabbit(key = "id")]
//!     entities: Vec<Entity>,
//! }
//!
//! let e = |id, x| Entity { id, x, hp: 9 };
//! let before = World { entities: (1..=100).map(|id| e(id, 0.0)).collect() };
//! let mut after = before.clone();
//! after.entities.remove(0); // entity 1 is gone
//! after.entities[49].x = 2.0; // entity 51 moved
//! after.entities.push(e(101, 5.0)); // entity 101 is new
//! let bytes = hopnet_codec::delta::to_bytes(&after, &before)?;
//! assert_eq!(hopnet_codec::delta::from_bytes(&before, &bytes)?, after);
//! // 98 unchanged entities at a bit each, the moved one's changes (39 bits), the new one
//! // whole (50), the counts and positions (41 with the bit that says there are some) and two
//! // changed bits: 230 bits, 29 bytes, where the whole world takes 627.
//! assert_eq!((bytes.len(), hopnet_codec::encoded_len(&after)), (29, 627));
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(quantize(range = "A..=B", precision = P))]`: floats on a grid
//!
//! Exact floats by default: an `f32` that changed takes its 32 bits. Where a game can do with
//! less, `quantize` writes an `f32` or `f64` as the index of the nearest point of the grid
//! `A, A + P, A + 2P, ...` up to `B`, in the fewest bits that hold the last index, in full
//! encodings and deltas alike ([`Quantize`](crate::codec::Quantize)). A value decodes to its
//! grid point, and one that moved less than half a step is unchanged. A value more than half
//! a step outside the range, or NaN, is an encode error. The grid must suit the float type
//! (a grid point must re-encode as itself: a step of at least `max(|A|, |B|) / 2^22` for an
//! `f32`), which is checked at compile time.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Position {
//!     // -512 to 512 by centimetres: 102,400 steps, 17 bits.
//!     #[rabbit(quantize(range = "-512.0..=512.0", precision = 0.01))]
//!     x: f32,
//!     #[rabbit(quantize(range = "-512.0..=512.0", precision = 0.01))]
//!     y: f32,
//! }
//!
//! let p = Position { x: 12.3456, y: -0.004 };
//! let bytes = hopnet_codec::to_bytes(&p)?;
//! assert_eq!(bytes.len(), 5); // 34 bits
//! let back: Position = hopnet_codec::from_bytes(&bytes)?;
//! assert!((back.x - 12.35).abs() < 1e-4 && back.y == 0.0);
//! // Moved by less than half a centimetre: unchanged.
//! let nudged = Position { x: back.x + 0.001, ..back.clone() };
//! assert_eq!(hopnet_codec::delta::to_bytes(&nudged, &back)?, [0]);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! A quantized value decodes to its grid point, so both ends hold the same baseline only if the
//! encoder's baseline is a value as decoded: keep as baselines what was sent, decoded (or
//! quantize the world itself), not the unrounded values.
//!
//! Vectors of floats, rotations and directions have lossy encodings of their own, on the
//! [`quantize`](super::quantize) page.
//!
//! # Untrusted deltas
//!
//! Decoding a delta is as careful as decoding a value: counts are checked against the input
//! before anything is allocated, and a position the baseline does not have is
//! [`Error::BadDelta`](crate::Error::BadDelta). A delta decoded against another baseline than
//! its own gives another value or an error, never a panic: the protocol must name the baseline.
//!
//! # Misuse
//!
//! Compile errors: `key` without `delta` on the container, on a field that is no `Vec<T>`, or
//! beside an encoding attribute; an unknown layout (`delta = "..."`); `quantize` on a type that
//! is no float, with an empty range, without a precision, or with a precision finer than its
//! float type holds; `delta` beside the byte-layout options that a delta cannot carry (`magic`,
//! `bit_order`, `to_end`, `byte_len`, `transform`, `computed`, `pad_before`); `delta` on a
//! container written as another type (`from`, `into`) whose two types differ. A field type
//! without deltas, or a container that is not `Clone`, fails at the trait bound, at the field.
//!
//! [`DeltaEncode`]: crate::DeltaEncode
//! [`DeltaDecode`]: crate::DeltaDecode
