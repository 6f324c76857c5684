//! Schema: the layout as data.
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
//! `Encoding::Type`, a reference resolved on demand. The delta markers, which decide the bytes
//! of deltas only, are there too: a `#[rabbit(delta)]` type's
//! [`DeltaLayout`](crate::schema::DeltaLayout) in `delta`, and a list's `key = "..."` path in
//! its field's `key`.
//!
//! ```
//! use hopnet_codec::Rabbit;
//! use hopnet_codec::schema::{Body, Describe, Encoding};
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
