//! Field options: custom codecs (`with`), conditions (`if`), bounded lists (`max_len`), `skip`.
//!
//! # `#[rabbit(with = "path")]`: custom codecs
//!
//! `path` names a module (or type) with two functions:
//!
//! ```text
//! pub fn encode(value: &T, w: &mut hopnet_codec::BitWriter<'_>) -> hopnet_codec::Result<()>;
//! pub fn decode(r: &mut hopnet_codec::BitReader<'_>) -> hopnet_codec::Result<T>;
//! ```
//!
//! A custom codec declares no size, so the field counts 0 towards `MIN_BITS` and makes
//! `MAX_BITS` `None`; `encoded_bits` runs `encode` into a scratch buffer to count the bits,
//! which allocates. No trait bounds are inferred for the field's type. The schema shows the
//! field as [`Encoding::Custom`](crate::schema::Encoding::Custom) with the path.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! mod angle {
//!     use hopnet_codec::{BitReader, BitWriter, Result};
//!
//!     /// Degrees in 9 bits.
//!     pub fn encode(value: &f32, w: &mut BitWriter<'_>) -> Result<()> {
//!         w.write_bits(value.rem_euclid(360.0) as u64, 9);
//!         Ok(())
//!     }
//!
//!     pub fn decode(r: &mut BitReader<'_>) -> Result<f32> {
//!         Ok(r.read_bits(9)? as f32)
//!     }
//! }
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Heading {
//!     #[rabbit(with = "angle")]
//!     degrees: f32,
//! }
//!
//! let bytes = hopnet_codec::to_bytes(&Heading { degrees: 270.0 })?;
//! assert_eq!(bytes, [0x0e, 0x01]); // 270 = 1_0000_1110
//! assert_eq!(Heading { degrees: 270.0 }.encoded_bits(), 9);
//! assert_eq!((Heading::MIN_BITS, Heading::MAX_BITS), (0, None));
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(if = "expr")]`: conditional fields
//!
//! On a field of type `Option<T>`: there is no presence bit. The field is on the wire, as a
//! `T`, exactly when the boolean expression `expr` is true; the decoder evaluates the same
//! expression over the fields it has already read. This is the spec's
//! `health (if breakable = 1 then u8)`. Encoding fails with
//! [`Error::ConditionMismatch`](crate::Error::ConditionMismatch) if the value is `Some` while
//! the condition is false, or `None` while it is true.
//!
//! The rules of the expression:
//!
//! - It is a Rust expression of type `bool`, written as a string.
//! - It can name the fields declared **before** its field, and only those: each is a local
//!   variable holding a **reference** to the field's value, so a `bool` field is read as
//!   `*breakable`, an integer compared as `*count > 3`, and an `Option` tested with
//!   `kind.is_some()`. Encode and decode see exactly the same references, so the condition
//!   cannot disagree between the two sides.
//! - In tuple structs and tuple variants the fields are named `_0`, `_1`, … .
//! - Naming the field itself, a later field, a skipped field (it is not on the wire), `self`,
//!   or an unknown lowercase name is a compile error at the condition.
//! - Anything else in scope at the type's definition can be used: constants (`*distance >=
//!   FAR`), functions, methods, macros (`matches!(kind, Some(Kind::Rock))`).
//! - A codec attribute on the same field (`#[bits(7)]`, `range`, ...) applies to the `T`.
//! - In the sizes, the field counts 0 towards `MIN_BITS` and `T`'s maximum towards
//!   `MAX_BITS`; in the schema it has `T`'s encoding and its `condition` set to the text.
//!
//! ```
//! use hopnet_codec::{Encode, Error, Rabbit};
//!
//! const FAR: u8 = 100;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Object {
//!     breakable: bool,
//!     #[rabbit(if = "*breakable")]
//!     health: Option<u8>,
//!     distance: u8,
//!     #[rabbit(if = "*distance >= FAR && health.is_some()")]
//!     #[bits(4)]
//!     warning: Option<u8>,
//! }
//!
//! let rock = Object { breakable: false, health: None, distance: 1, warning: None };
//! assert_eq!(hopnet_codec::to_bytes(&rock)?, [0b0000_0010, 0x00]); // 0, then 1 in 8 bits
//!
//! let crate_ = Object { breakable: true, health: Some(200), distance: 0, warning: None };
//! assert_eq!(hopnet_codec::to_bytes(&crate_)?, [0x91, 0x01, 0x00]); // 1, 200, 0
//! assert_eq!(hopnet_codec::from_bytes::<Object>(&[0x91, 0x01, 0x00])?, crate_);
//! assert_eq!((Object::MIN_BITS, Object::MAX_BITS), (1 + 8, Some(1 + 8 + 8 + 4)));
//!
//! let wrong = Object { breakable: false, health: Some(3), distance: 0, warning: None };
//! assert_eq!(
//!     hopnet_codec::to_bytes(&wrong).unwrap_err(),
//!     Error::ConditionMismatch { field: "Object.health", condition: false, present: true },
//! );
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(max_len = N)]`: bounded lists and strings
//!
//! On a `Vec<T>`, `String`, `str` or slice (also behind `&`, `Box`, `Rc`, `Arc`): a list of
//! more than N items, or a string of more than N bytes, is an error when encoding, and when
//! decoding as soon as the count is read, before anything is allocated. N is an integer literal
//! or the path of an integer constant. It bounds the type: `MAX_BITS` becomes the count's bits
//! plus N times the item's maximum.
//!
//! ```
//! use hopnet_codec::{Encode, Error, Rabbit};
//!
//! const NAME: usize = 16;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Join {
//!     #[rabbit(max_len = NAME)]
//!     name: String,
//!     #[rabbit(max_len = 4)]
//!     friends: Vec<u16>,
//! }
//!
//! // A count below 256 takes 10 bits; a u16 at most 17.
//! assert_eq!(Join::MAX_BITS, Some((10 + 16 * 8) + (10 + 4 * 17)));
//! let long = Join { name: "x".repeat(17), friends: vec![] };
//! assert_eq!(hopnet_codec::to_bytes(&long).unwrap_err().root(), &Error::TooLong { len: 17, max: 16 });
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # `#[rabbit(skip)]`: fields off the wire
//!
//! The field is not encoded; decoding sets it to `Default::default()`. It takes no other
//! option, and no condition may read it.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Seen {
//!     id: u8,
//!     #[rabbit(skip)]
//!     cached_name: Option<String>,
//! }
//!
//! let bytes = hopnet_codec::to_bytes(&Seen { id: 4, cached_name: Some("x".into()) })?;
//! assert_eq!(bytes, [4]);
//! assert_eq!(hopnet_codec::from_bytes::<Seen>(&bytes)?, Seen { id: 4, cached_name: None });
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
