//! A guide to `#[derive(Rabbit)]`: every attribute, with an example.
//!
//! `#[derive(Rabbit)]` implements [`Encode`](crate::Encode), [`Decode`](crate::Decode) and
//! [`schema::Describe`](crate::schema::Describe) (and, with `#[rabbit(delta)]`,
//! [`DeltaEncode`](crate::DeltaEncode) and [`DeltaDecode`](crate::DeltaDecode)) for a struct
//! (named, tuple or unit) or an enum (unit, tuple and struct variants), generic or not. A struct is its fields, in declaration
//! order, with nothing between them; an enum is a variant index (the *tag*), then the fields of
//! that variant. Each field is written with its type's own encoding unless an attribute says
//! otherwise. Every example below asserts the exact bytes or size.
//!
//! ```
//! use hopnet_codec::{Encode, Rabbit};
//!
//! #[derive(Rabbit, Debug, PartialEq)]
//! struct Hello {
//!     version: u8,   // 8 plain bits
//!     player: u32,   // the spec's variable-length integer: 10 bits below 256
//!     ready: bool,   // 1 bit
//! }
//!
//! let msg = Hello { version: 2, player: 7, ready: true };
//! let bytes = hopnet_codec::to_bytes(&msg)?;
//! assert_eq!(msg.encoded_bits(), 8 + 10 + 1);
//! assert_eq!(bytes, [0x02, 0x1c, 0x04]);
//! assert_eq!(hopnet_codec::from_bytes::<Hello>(&bytes)?, msg);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Attributes at a glance
//!
//! | Where | Attribute | Effect |
//! |---|---|---|
//! | enum | [`#[bits(N)]`](tags) | the tag is N plain bits |
//! | enum | [`#[rabbit(tag = "varint")]`](tags) | the tag is a `u32` variable-length integer |
//! | variant | [`#[rabbit(index = K)]`](tags) | pins the variant's index |
//! | field | [`#[bits(N)]`](integers#bitsn-fixed-width-integers-and-bools) | fixed width, two's complement for signed types |
//! | field | [`#[rabbit(range = "A..=B")]`](integers#rabbitrange--ab-bounded-integers) | `value - A` in the fewest bits that hold `B - A` |
//! | field | [`#[rabbit(varint)]`, `#[rabbit(zigzag)]`](integers#rabbitvarint-and-rabbitzigzag) | variable-length integers |
//! | field | [`#[rabbit(with = "path")]`](fields#rabbitwith--path-custom-codecs) | a custom codec module |
//! | field | [`#[rabbit(if = "expr")]`](fields#rabbitif--expr-conditional-fields) | an `Option` present exactly when `expr` holds, no presence bit |
//! | field | [`#[rabbit(max_len = N)]`](fields#rabbitmax_len--n-bounded-lists-and-strings) | bounds a list or string |
//! | field | [`#[rabbit(skip)]`](fields#rabbitskip-fields-off-the-wire) | not on the wire, `Default` on decode |
//! | container | [`#[rabbit(crate = "path")]`](containers#rabbitcrate--path) | where the `hopnet-codec` crate is |
//! | container | [`#[rabbit(bound = "...")]`](containers#generics-and-rabbitbound--) | replaces the inferred where-clause |
//! | container | [`#[rabbit(from = "W", into = "W")]`, `try_from`](containers#rabbitfrom--w-into--w-written-as-another-type) | written as another type, through conversions |
//! | container, field | [`#[rabbit(endian = "big")]`, `bytes = N`](layouts) | numbers in whole bytes; exact-length strings |
//! | container | [`#[rabbit(bit_order = "msb")]`](layouts) | fields fill each byte from its high bit |
//! | container, variant, field | [`magic = b"..."`, `pad_before = N`](layouts) | constant bytes, reserved zero bits |
//! | field | [`to_end`, `byte_len = "len"`](layouts) | lists with no count: to the end, or framed by a length field |
//! | field | [`cstring`](terminated#cstring-strings-ended-by-a-zero-byte) | a string ended by a zero byte |
//! | field | [`leb128`, `leb128_signed`, `leb128_zigzag`](terminated#leb128-leb128_signed-and-leb128_zigzag-variable-length-integers-of-other-formats) | LEB128 integers: the type's bits unsigned, sign-extended or zig-zag |
//! | field | [`count = "expr"`](lists#count--expr-a-count-from-earlier-fields) | a list or string as long as an expression of earlier fields says |
//! | field | [`until = B`](lists#until--b-a-string-ended-by-a-byte) | a string or byte list ended by the byte `B` |
//! | field | [`until = "predicate"`](lists#until--predicate-a-list-ended-by-an-item) | a list ended by an item the predicate accepts |
//! | field | [`computed = "expr"`, `transform = "expr"`](layouts) | lengths and checksums computed from the others; bytes through a transform |
//! | container | [`#[rabbit(delta)]`, `delta = "per_field"`](delta) | also `DeltaEncode` / `DeltaDecode`: the value against a baseline |
//! | field | [`#[rabbit(key = "id")]`](delta#rabbitkey--field-lists-of-things-with-an-identity) | with `delta`, a `Vec<T>` keyed by its items' `id` |
//! | field | [`#[rabbit(quantize(range = "A..=B", precision = P))]`](delta#rabbitquantizerange--ab-precision--p-floats-on-a-grid) | a float as the index of its point on a grid |
//! | field | [`quantize(..., x(...), y(...), z(...))`](quantize#rabbitquantize-on-vectors-one-grid-or-one-per-axis) | a vector of floats on one grid, or a grid per axis |
//! | field | [`#[rabbit(quaternion(bits = B))]`](quantize#rabbitquaternionbits--b-smallest-three) | a rotation in `2 + 3B` bits (smallest three) |
//! | field | [`#[rabbit(unit_vector(bits = B))]`](quantize#rabbitunit_vectorbits--b-octahedral-directions) | a direction in `2B` bits (octahedral) |
//!
//! Several options can share one attribute: `#[rabbit(range = "0..=9", if = "*on")]`. A field
//! has at most one encoding (`bits`, `range`, `varint`, `zigzag`, `with`, `max_len`); `if` and
//! an encoding combine, the encoding then applying to the `T` inside the `Option<T>`. Every
//! misuse (an unknown option, a malformed value, `#[bits(0)]`, `bits` on a `f32`, two
//! encodings on one field, a condition naming a later field, a tag too narrow for its
//! variants, ...) is a compile error pointing at the offending token, and all of a type's
//! errors are reported in one build.
//!
//! # The pages
//!
//! - [`tags`]: enum tags, `#[bits(N)]` on an enum, `tag = "varint"`, `index`;
//! - [`integers`]: `#[bits(N)]` on a field, `range`, `varint`, `zigzag`;
//! - [`fields`]: `with`, `if`, `max_len`, `skip`;
//! - [`containers`]: `crate`, `bound`, `from` / `try_from` / `into`;
//! - [`layouts`]: other formats byte for byte: `endian`, `bytes`, `bit_order`, `magic`,
//!   `pad_before`, `to_end`, `byte_len`, `computed`, `transform`;
//! - [`terminated`]: `cstring`, `leb128`, `leb128_signed`, `leb128_zigzag`;
//! - [`lists`]: lists counted by earlier fields or ended by a terminator: `count`, `until`;
//! - [`delta`]: deltas against a baseline: `delta`, `key`, `quantize`;
//! - [`quantize`]: lossy floats, each with its maximum error: `quantize` on vectors,
//!   `quaternion`, `unit_vector`;
//! - [`sizes`]: the size constants, `encoded_bits`, merged writes, hand-written impls;
//! - [`schema`]: the layout as data;
//! - [`errors`]: errors at run time, and every compile error;
//! - [`generated`]: the generated code and the runtime contract it relies on.

pub mod containers;
pub mod delta;
pub mod errors;
pub mod fields;
pub mod generated;
pub mod integers;
pub mod layouts;
pub mod lists;
pub mod quantize;
pub mod schema;
pub mod sizes;
pub mod tags;
pub mod terminated;
