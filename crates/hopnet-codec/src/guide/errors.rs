//! Errors: at run time, and at compile time.
//!
//! # Errors at run time
//!
//! Encode and decode errors raised inside a field are wrapped in
//! [`Error::InField`](crate::Error::InField) with the field's name (`Type.field`,
//! `Enum::Variant.field`, `Type.0` for tuple fields), one wrapper per level of nesting;
//! [`Error::root`](crate::Error::root) gives the original error.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug)]
//! struct Inner { #[bits(2)] a: u8 }
//!
//! #[derive(Rabbit, Debug)]
//! enum Outer { Wrap { inner: Inner } }
//!
//! let err = hopnet_codec::to_bytes(&Outer::Wrap { inner: Inner { a: 4 } }).unwrap_err();
//! assert_eq!(err.to_string(), "Outer::Wrap.inner: Inner.a: value 4 does not fit 2 bits");
//! ```
//!
//! # Compile errors
//!
//! The derive checks everything it can before generating code, and reports every problem of a
//! type in one build, each at the token at fault (`crates/hopnet-derive/tests/ui/` has a case for each):
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
//!   the field itself, a later field, a skipped field, `self` or an unknown field;
//! - the lossy floats' misuses (`quantize`, `quaternion`, `unit_vector`): listed on the
//!   [`quantize`](super::quantize#misuse) page.
//!
//! Types the derive cannot judge by their spelling (an alias, your own type under
//! `#[bits(N)]`) are left to the trait bounds, and the compiler's error points at the field's
//! type; a condition that is not a `bool` is a type error at the condition.
