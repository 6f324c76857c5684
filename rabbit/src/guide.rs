//! A guide to `#[derive(Rabbit)]`: every attribute, with an example.
//!
//! `#[derive(Rabbit)]` implements [`Encode`](crate::Encode), [`Decode`](crate::Decode) and
//! [`schema::Describe`](crate::schema::Describe) for a struct (named, tuple or unit) or an enum
//! (unit, tuple and struct variants), generic or not. A struct is its fields, in declaration
//! order, with nothing between them; an enum is a variant index (the *tag*), then the fields of
//! that variant. Each field is written with its type's own encoding unless an attribute says
//! otherwise. Every example below asserts the exact bytes or size.
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Hello {
//!     version: u8,   // 8 plain bits
//!     player: u32,   // the spec's variable-length integer: 10 bits below 256
//!     ready: bool,   // 1 bit
//! }
//!
//! let msg = Hello { version: 2, player: 7, ready: true };
//! let bytes = rabbit::to_bytes(&msg)?;
//! assert_eq!(msg.encoded_bits(), 8 + 10 + 1);
//! assert_eq!(bytes, [0x02, 0x1c, 0x04]);
//! assert_eq!(rabbit::from_bytes::<Hello>(&bytes)?, msg);
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # Attributes at a glance
//!
//! | Where | Attribute | Effect |
//! |---|---|---|
//! | enum | [`#[bits(N)]`](#the-tag) | the tag is N plain bits |
//! | enum | [`#[rabbit(tag = "varint")]`](#the-tag) | the tag is a `u32` variable-length integer |
//! | variant | [`#[rabbit(index = K)]`](#the-tag) | pins the variant's index |
//! | field | [`#[bits(N)]`](#bitsn-fixed-width-integers-and-bools) | fixed width, two's complement for signed types |
//! | field | [`#[rabbit(range = "A..=B")]`](#rabbitrange--ab-bounded-integers) | `value - A` in the fewest bits that hold `B - A` |
//! | field | [`#[rabbit(varint)]`, `#[rabbit(zigzag)]`](#rabbitvarint-and-rabbitzigzag) | variable-length integers |
//! | field | [`#[rabbit(with = "path")]`](#rabbitwith--path-custom-codecs) | a custom codec module |
//! | field | [`#[rabbit(if = "expr")]`](#rabbitif--expr-conditional-fields) | an `Option` present exactly when `expr` holds, no presence bit |
//! | field | [`#[rabbit(max_len = N)]`](#rabbitmax_len--n-bounded-lists-and-strings) | bounds a list or string |
//! | field | [`#[rabbit(skip)]`](#rabbitskip-fields-off-the-wire) | not on the wire, `Default` on decode |
//! | container | [`#[rabbit(crate = "path")]`](#rabbitcrate--path) | where the `rabbit` crate is |
//! | container | [`#[rabbit(bound = "...")]`](#generics-and-rabbitbound--) | replaces the inferred where-clause |
//!
//! Several options can share one attribute: `#[rabbit(range = "0..=9", if = "*on")]`. A field
//! has at most one encoding (`bits`, `range`, `varint`, `zigzag`, `with`, `max_len`); `if` and
//! an encoding combine, the encoding then applying to the `T` inside the `Option<T>`. Every
//! misuse (an unknown option, a malformed value, `#[bits(0)]`, `bits` on a `f32`, two
//! encodings on one field, a condition naming a later field, a tag too narrow for its
//! variants, ...) is a compile error pointing at the offending token, and all of a type's
//! errors are reported in one build.
//!
//! # The tag
//!
//! Variants are numbered from 0 in declaration order. By default the tag has the fewest bits
//! that hold the largest index: no bits at all for a single variant, 1 bit for two, 2 bits for
//! three or four, and so on.
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! enum Direction { North, East, South, West }
//!
//! assert_eq!(rabbit::to_bytes(&Direction::West)?, [0b11]);
//! assert_eq!((Direction::MIN_BITS, Direction::MAX_BITS), (2, Some(2)));
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! enum Only { It(u8) }
//!
//! assert_eq!(rabbit::to_bytes(&Only::It(9))?, [9]); // no tag
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! `#[bits(N)]` on the enum fixes the width (1 to 64 bits); it is a compile error if N bits
//! cannot hold every index. `#[rabbit(tag = "varint")]` writes the index as a `u32`
//! variable-length integer instead, as the spec's `ClientMessage` does (10 bits for indices
//! below 256). `#[rabbit(index = K)]` pins a variant's index; the variants after it continue
//! from K + 1, like Rust discriminants. Indices must be unique (a compile error otherwise).
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[bits(4)]
//! enum Kind { Rock, Tree }
//!
//! assert_eq!(rabbit::to_bytes(&Kind::Tree)?, [0b0001]);
//! assert_eq!(Kind::MAX_BITS, Some(4));
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! #[rabbit(tag = "varint")]
//! enum ClientMessage {
//!     Join { name: String },
//!     Leave,
//!     #[rabbit(index = 300)]
//!     Ping,
//!     Pong, // 301
//! }
//!
//! // Index 1: `00` (one byte follows), then 0000_0001, least significant bit first.
//! assert_eq!(rabbit::to_bytes(&ClientMessage::Leave)?, [0x04, 0x00]);
//! assert_eq!(ClientMessage::Pong.encoded_bits(), 2 + 16);
//!
//! // An index that names no variant is an error, never a panic.
//! let err = rabbit::from_bytes::<ClientMessage>(&rabbit::to_bytes(&7u32)?).unwrap_err();
//! assert!(matches!(err, rabbit::Error::UnknownVariant { type_name: "ClientMessage", index: 7, .. }));
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # `#[bits(N)]`: fixed-width integers and bools
//!
//! On a field of type `u8`..`u64`, `usize`, `i8`..`i64`, `isize` or `bool`: exactly N bits
//! (1 to 64, at most the type's own width), two's complement for the signed types (the spec's
//! `i12`). A value that does not fit is an encode error, never a silent truncation; the error
//! names the field.
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Cell {
//!     #[bits(3)]
//!     column: u8,
//!     #[bits(5)]
//!     height: i8,
//! }
//!
//! // 101, then -3 as 11101: both least significant bit first.
//! let bytes = rabbit::to_bytes(&Cell { column: 5, height: -3 })?;
//! assert_eq!(bytes, [0b11101_101]);
//! assert_eq!(Cell::MAX_BITS, Some(8));
//!
//! let err = rabbit::to_bytes(&Cell { column: 8, height: 0 }).unwrap_err();
//! assert_eq!(err.to_string(), "Cell.column: value 8 does not fit 3 bits");
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # `#[rabbit(range = "A..=B")]`: bounded integers
//!
//! On an integer field: `value - A` in the fewest bits that hold `B - A` (nothing at all when
//! `A == B`). Encoding a value outside the range is an error, and so is decoding one (the bits
//! may say more than `B - A`). `A` and `B` are integer literals, possibly negative, and must fit
//! the field's type; an empty range (`A > B`) is a compile error.
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Level {
//!     #[rabbit(range = "10..=20")]
//!     level: u8,
//!     #[rabbit(range = "-8..=7")]
//!     tilt: i32,
//! }
//!
//! // 15 - 10 = 5 in 4 bits, then 0 - (-8) = 8 in 4 bits.
//! assert_eq!(rabbit::to_bytes(&Level { level: 15, tilt: 0 })?, [0x85]);
//! assert_eq!(Level::MAX_BITS, Some(8));
//! assert!(rabbit::to_bytes(&Level { level: 21, tilt: 0 }).is_err());
//! assert!(rabbit::from_bytes::<Level>(&[0x0f]).is_err()); // 10 + 15 = 25 > 20
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # `#[rabbit(varint)]` and `#[rabbit(zigzag)]`
//!
//! `varint` writes an integer as the spec's variable-length integer of its own width (`m - 1`
//! in `log2(bytes)` bits, then the `m` low bytes), without zig-zag: a signed value is written
//! as its two's complement bits, so small negative numbers are long. `zigzag` (signed types
//! only) interleaves first, so small magnitudes stay short. They restate the defaults of
//! `u16`..`u64` and `i16`..`i64` respectively, and change `u8` / `i8` to the 1-byte form
//! (8 bits, no length prefix).
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Delta {
//!     #[rabbit(varint)]
//!     raw: i32,
//!     #[rabbit(zigzag)]
//!     dx: i32,
//! }
//!
//! let v = Delta { raw: -1, dx: -1 };
//! assert_eq!(v.encoded_bits(), (2 + 32) + (2 + 8));
//! assert_eq!(Delta::MIN_BITS, 10 + 10);
//! assert_eq!(Delta::MAX_BITS, Some(34 + 34));
//! assert_eq!(rabbit::from_bytes::<Delta>(&rabbit::to_bytes(&v)?)?, v);
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # `#[rabbit(with = "path")]`: custom codecs
//!
//! `path` names a module (or type) with two functions:
//!
//! ```text
//! pub fn encode(value: &T, w: &mut rabbit::BitWriter<'_>) -> rabbit::Result<()>;
//! pub fn decode(r: &mut rabbit::BitReader<'_>) -> rabbit::Result<T>;
//! ```
//!
//! A custom codec declares no size, so the field counts 0 towards `MIN_BITS` and makes
//! `MAX_BITS` `None`; `encoded_bits` runs `encode` into a scratch buffer to count the bits,
//! which allocates. No trait bounds are inferred for the field's type. The schema shows the
//! field as [`Encoding::Custom`](crate::schema::Encoding::Custom) with the path.
//!
//! ```
//! use rabbit::{Encode, Rabbit};
//!
//! mod angle {
//!     use rabbit::{BitReader, BitWriter, Result};
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
//! let bytes = rabbit::to_bytes(&Heading { degrees: 270.0 })?;
//! assert_eq!(bytes, [0x0e, 0x01]); // 270 = 1_0000_1110
//! assert_eq!(Heading { degrees: 270.0 }.encoded_bits(), 9);
//! assert_eq!((Heading::MIN_BITS, Heading::MAX_BITS), (0, None));
//! # Ok::<(), rabbit::Error>(())
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
//! use rabbit::{Encode, Error, Rabbit};
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
//! assert_eq!(rabbit::to_bytes(&rock)?, [0b0000_0010, 0x00]); // 0, then 1 in 8 bits
//!
//! let crate_ = Object { breakable: true, health: Some(200), distance: 0, warning: None };
//! assert_eq!(rabbit::to_bytes(&crate_)?, [0x91, 0x01, 0x00]); // 1, 200, 0
//! assert_eq!(rabbit::from_bytes::<Object>(&[0x91, 0x01, 0x00])?, crate_);
//! assert_eq!((Object::MIN_BITS, Object::MAX_BITS), (1 + 8, Some(1 + 8 + 8 + 4)));
//!
//! let wrong = Object { breakable: false, health: Some(3), distance: 0, warning: None };
//! assert_eq!(
//!     rabbit::to_bytes(&wrong).unwrap_err(),
//!     Error::ConditionMismatch { field: "Object.health", condition: false, present: true },
//! );
//! # Ok::<(), rabbit::Error>(())
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
//! use rabbit::{Encode, Error, Rabbit};
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
//! assert_eq!(rabbit::to_bytes(&long).unwrap_err().root(), &Error::TooLong { len: 17, max: 16 });
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # `#[rabbit(skip)]`: fields off the wire
//!
//! The field is not encoded; decoding sets it to `Default::default()`. It takes no other
//! option, and no condition may read it.
//!
//! ```
//! use rabbit::Rabbit;
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Seen {
//!     id: u8,
//!     #[rabbit(skip)]
//!     cached_name: Option<String>,
//! }
//!
//! let bytes = rabbit::to_bytes(&Seen { id: 4, cached_name: Some("x".into()) })?;
//! assert_eq!(bytes, [4]);
//! assert_eq!(rabbit::from_bytes::<Seen>(&bytes)?, Seen { id: 4, cached_name: None });
//! # Ok::<(), rabbit::Error>(())
//! ```
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
//!
//! # Sizes
//!
//! Every derived type has `MIN_BITS` and `MAX_BITS` constants computed at compile time from its
//! fields' constants (`MAX_BITS` is `None` when some field is unbounded: a list or string
//! without `max_len`, a `with` field), and an `encoded_bits` that adds up the fields' sizes
//! without encoding (except for `with` fields, see above). For an enum, the tag's bits are added
//! to each variant's fields, and the minimum and maximum are taken over the variants. Because
//! the constants are usable in `const` items, a build can prove that a message always fits one
//! 504-byte chunk:
//!
//! ```
//! use rabbit::Rabbit;
//!
//! #[derive(Rabbit)]
//! struct Chat {
//!     #[rabbit(max_len = 400)]
//!     text: String,
//!     #[bits(7)]
//!     channel: u8,
//! }
//!
//! const _: () = assert!(matches!(<Chat as rabbit::Encode>::MAX_BITS, Some(b) if b <= 504 * 8));
//! ```
//!
//! A type that contains itself (through `Box` or `Option`) cannot derive: its `MAX_BITS` would
//! be defined in terms of itself. Write its impls by hand.
//!
//! Sizes also make the derived `encode` fast. A type whose encoding always fits one 64-bit word
//! says so in `WORD_BITS` (numbers up to `u32`, `f32`, `f64`, `bool`, `char`, `Option`s of
//! them, and derived structs and enums made of them, up to 64 bits), and a derived `encode`
//! merges each run of such fields (an enum's tag included) into one write of at most 64 bits,
//! chosen at compile time. The bytes are the same as one write per field. A hand-written impl
//! of a small type takes part by setting `WORD_BITS` and overriding `encode_word`:
//!
//! ```
//! use rabbit::{BitWriter, Encode, Rabbit, Result};
//!
//! struct Heading(u16); // 0..360, in nine bits
//!
//! impl Encode for Heading {
//!     const MIN_BITS: u64 = 9;
//!     const MAX_BITS: Option<u64> = Some(9);
//!     const WORD_BITS: Option<u32> = Some(9);
//!     fn encode_word(&self) -> Result<(u64, u32)> {
//!         Ok((u64::from(self.0 % 360), 9))
//!     }
//!     fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
//!         w.write_bits(u64::from(self.0 % 360), 9);
//!         Ok(())
//!     }
//!     fn encoded_bits(&self) -> u64 {
//!         9
//!     }
//! }
//!
//! #[derive(Rabbit)]
//! struct Turn {
//!     #[bits(3)]
//!     speed: u8,
//!     heading: Heading, // written with `speed` and `running`: one write of 13 bits
//!     running: bool,
//! }
//! # impl rabbit::Decode for Heading {
//! #     fn decode(r: &mut rabbit::BitReader<'_>) -> Result<Self> {
//! #         Ok(Heading(r.read_bits(9)? as u16))
//! #     }
//! # }
//! assert_eq!(<Turn as Encode>::WORD_BITS, Some(13));
//! let bytes = rabbit::to_bytes(&Turn { speed: 5, heading: Heading(270), running: true })?;
//! assert_eq!(bytes, [0x75, 0x18]);
//! # Ok::<(), rabbit::Error>(())
//! ```
//!
//! # Schema
//!
//! [`Describe::type_schema`](crate::schema::Describe::type_schema) gives the layout as data:
//! the type's name and doc comment (the `///` lines, each trimmed, joined with `\n`), its fields
//! in wire order (name, doc, Rust type as written, [`Encoding`](crate::schema::Encoding),
//! condition, whether skipped) or its tag and variants (with their indices), and the sizes. A
//! field's encoding is its type's [`Encode::schema`](crate::Encode::schema) unless an attribute
//! sets it: `Fixed` for `bits`, `Range`, `Varint` (with `zigzag` set or not), `Custom` for
//! `with`, `List` / `String` with `max_len`, `Empty` for a skipped field; an `if` field has its
//! `T`'s encoding and `condition: Some(expr)`. A derived field type appears as
//! `Encoding::Type`, a reference resolved on demand.
//!
//! ```
//! use rabbit::Rabbit;
//! use rabbit::schema::{Body, Describe, Encoding};
//!
//! /// Where an entity is.
//! #[derive(Rabbit)]
//! struct Position {
//!     /// Column, from the left.
//!     #[rabbit(range = "0..=99")]
//!     x: u8,
//!     visible: bool,
//!     #[rabbit(if = "*visible")]
//!     #[bits(3)]
//!     layer: Option<u8>,
//! }
//!
//! let schema = Position::type_schema();
//! assert_eq!((schema.name, schema.doc), ("Position", "Where an entity is."));
//! assert_eq!((schema.min_bits, schema.max_bits), (8, Some(11)));
//! let Body::Struct(fields) = schema.body else { unreachable!() };
//! assert_eq!(fields[0].doc, "Column, from the left.");
//! assert_eq!(fields[0].encoding, Encoding::Range { min: 0, max: 99, bits: 7 });
//! assert_eq!(fields[2].ty, "Option<u8>");
//! assert_eq!(fields[2].encoding, Encoding::Fixed { bits: 3, signed: false });
//! assert_eq!(fields[2].condition, Some("*visible"));
//! ```
//!
//! # Errors at run time
//!
//! Encode and decode errors raised inside a field are wrapped in
//! [`Error::InField`](crate::Error::InField) with the field's name (`Type.field`,
//! `Enum::Variant.field`, `Type.0` for tuple fields), one wrapper per level of nesting;
//! [`Error::root`](crate::Error::root) gives the original error.
//!
//! ```
//! use rabbit::Rabbit;
//!
//! #[derive(Rabbit, Debug)]
//! struct Inner { #[bits(2)] a: u8 }
//!
//! #[derive(Rabbit, Debug)]
//! enum Outer { Wrap { inner: Inner } }
//!
//! let err = rabbit::to_bytes(&Outer::Wrap { inner: Inner { a: 4 } }).unwrap_err();
//! assert_eq!(err.to_string(), "Outer::Wrap.inner: Inner.a: value 4 does not fit 2 bits");
//! ```
//!
//! # Compile errors
//!
//! The derive checks everything it can before generating code, and reports every problem of a
//! type in one build, each at the token at fault (`rabbit-derive/tests/ui/` has a case for each):
//!
//! - unknown options, options given twice, options in the wrong place (`index` on a field,
//!   `skip` on a container, `#[bits(N)]` on a struct or variant, `tag` on a struct), malformed
//!   values (`range = 5`, `index = "one"`, `#[bits(x)]`, `varint = true`), unions and enums
//!   without variants;
//! - `#[bits(N)]` outside 1..=64, wider than the field's type, or on a type that is not an
//!   integer or `bool`; `varint`, `zigzag` (signed only) and `range` on the wrong types; an
//!   empty range or one the type cannot hold; two encodings on one field; `skip` with any
//!   other option; `max_len` on something that is not a list or string;
//! - a tag too narrow for its variants, a duplicate variant index, an index a `u32` varint
//!   tag cannot hold;
//! - `if` on a field that is not an `Option`, a condition that does not parse, or that names
//!   the field itself, a later field, a skipped field, `self` or an unknown field.
//!
//! Types the derive cannot judge by their spelling (an alias, your own type under
//! `#[bits(N)]`) are left to the trait bounds, and the compiler's error points at the field's
//! type; a condition that is not a `bool` is a type error at the condition.
//!
//! # What the generated code looks like
//!
//! `encode` writes the tag and then each field, in order, as straight-line calls on the
//! [`BitWriter`](crate::BitWriter); `decode` reads each field into a local, in order, and then
//! builds the value; `encoded_bits` folds the fixed-width fields into one constant and adds the
//! variable ones. Nothing allocates (except `with` fields in `encoded_bits`) and nothing is
//! cloned; `encode` and `decode` are `#[inline]`. The impls carry `#[automatically_derived]`
//! and rely on nothing the user imported.
