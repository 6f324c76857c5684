//! Codecs for other languages, generated from the schema that `#[derive(Rabbit)]` records: for
//! now TypeScript, for a browser or Node to speak the game's messages (`rabbit-msg codegen
//! typescript`).
//!
//! [`TypeScript`] writes one module: for each message a type (its value in the canonical JSON
//! form that `rabbit-msg` prints and reads, `hopnet_snow_fight::json`), `encodeX(value): Uint8Array` and
//! `decodeX(bytes): X`, and `encode(name, value)` / `decode(name, bytes)` by the message's name.
//! The module has no dependencies; one bit reader and one bit writer serve every message. The
//! decoders reject what the Rust decoders reject; the encoders check every value against its
//! schema, since a value in TypeScript may be anything at run time.
//!
//! ```
//! let module = hopnet_msg::codegen::typescript().generate()?;
//! assert!(module.contains("export function decodeServerMessage(bytes: Uint8Array): ServerMessage"));
//! # Ok::<(), hopnet_msg::codegen::CodegenError>(())
//! ```
//!
//! What it writes: plain bits, the spec's variable-length integers and zig-zag (numbers, or
//! bigints where 64 bits need them), `f32` and `f64`, `bool`, options, lists and strings (with
//! `max_len`), arrays and tuples, ranges, enums with plain-bit or `u32` tags, and conditional
//! fields whose condition uses fields, literals, comparisons, `!`, `&&`, `||` and `is_some()`.
//! What it cannot write is an error that names the field: byte layouts (`endian`, `bytes`,
//! `to_end`, `byte_len`, `magic`, `bit_order = "msb"`), computed and transformed fields, custom
//! codecs, quantized floats, quaternions and unit vectors (`quaternion`, `unit_vector`), skipped
//! fields, and conditions that call Rust code.
//!
//! The JSON shape of each type is serde's for a derive without renaming: named fields are an
//! object, a newtype is its one field, other tuples are arrays, a unit struct is `null`; a
//! missing optional field is `null`, and an unknown field is refused (as this crate's types do
//! with `#[serde(deny_unknown_fields)]`). A type
//! whose JSON form is its one field (`#[serde(transparent)]`) is named with
//! [`TypeScript::transparent`], since the schema does not know serde's attributes.

pub(crate) mod condition;
mod messages;
pub(crate) mod model;
mod names;
mod typescript;
pub(crate) mod wire;

pub use messages::typescript;
pub use messages::typescript_for;

use hopnet_codec::Encode;
use hopnet_codec::schema::Encoding;

use crate::export::Schema;

/// A TypeScript module of codecs for a set of messages, generated from their schema.
///
/// Its messages are gathered as the [export](crate::export)'s are, so that the module and the
/// exported document always agree on what a message list means.
#[derive(Debug, Clone, Default)]
pub struct TypeScript {
    schema: Schema,
    transparent: Vec<String>,
}

impl TypeScript {
    /// A module with no messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `T` as the message `name` of `encode` and `decode`, with every type it uses.
    pub fn message<T: Encode + ?Sized>(self, name: impl Into<String>) -> Self {
        self.message_encoding(name, T::schema())
    }

    /// Adds the message `name` by its encoding (`<T as Encode>::schema()`).
    pub fn message_encoding(mut self, name: impl Into<String>, encoding: Encoding) -> Self {
        self.schema = self.schema.message_encoding(name, encoding);
        self
    }

    /// Marks the struct `type_name` as one whose JSON form is its one field's
    /// (`#[serde(transparent)]`). A name no message uses changes nothing.
    pub fn transparent(mut self, type_name: impl Into<String>) -> Self {
        self.transparent.push(type_name.into());
        self
    }

    /// The module's source text.
    pub fn generate(&self) -> Result<String, CodegenError> {
        let model = model::build(self.schema.messages(), &self.transparent)?;
        Ok(typescript::module(&model))
    }
}

/// Something the generator cannot write, with the message, type or field it is in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate TypeScript for `{item}`: {reason}")]
pub struct CodegenError {
    /// The message, type or field, as `Type.field` or `Enum::Variant.field`.
    pub item: String,
    /// Why.
    pub reason: String,
}

impl CodegenError {
    fn new(item: impl Into<String>, reason: impl Into<String>) -> Self {
        CodegenError {
            item: item.into(),
            reason: reason.into(),
        }
    }
}
