//! The whole schema of a set of messages as one JSON document (`rabbit-msg schema --json`), for
//! diffing two versions of a game ([`crate::compat`]) and for the fingerprint two peers compare
//! at connect time ([`SchemaDoc::fingerprints`]).
//!
//! The document is stable: its keys are sorted, fields and variants stay in wire order, and it
//! carries its version under `"format"`, so two exports of the same schema are the same bytes
//! and two versions diff line by line. It holds what decides the bytes (every field's name,
//! encoding, widths, bounds, tags, conditions, and the delta markers: a type's delta layout
//! and a list's delta key), and nothing else: doc comments and Rust type
//! names are left out.
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit)]
//! struct Hello {
//!     #[bits(5)]
//!     level: u8,
//!     name: String,
//! }
//!
//! let json = hopnet_msg::export::Schema::new().message::<Hello>("Hello").to_json()?;
//! assert!(json.contains(r#""format": "hopnet-schema/1""#));
//! assert!(json.contains(r#""bits": 5"#));
//! # Ok::<(), hopnet_msg::export::ExportError>(())
//! ```

mod fingerprint;
mod model;
mod walk;

pub use fingerprint::TypeFingerprint;
pub use model::{
    DeltaDoc, EncodingDoc, FORMAT, FieldDoc, Int, SchemaDoc, TagDoc, TypeDoc, VariantDoc,
};

use hopnet_codec::Encode;
use hopnet_codec::schema::Encoding;

/// A set of messages whose schema is exported together.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    messages: Vec<(String, Encoding)>,
}

impl Schema {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `T` as the message `name`, with every type it reaches.
    pub fn message<T: Encode + ?Sized>(self, name: impl Into<String>) -> Self {
        self.message_encoding(name, T::schema())
    }

    /// Adds the message `name` by its encoding (`<T as Encode>::schema()`).
    pub fn message_encoding(mut self, name: impl Into<String>, encoding: Encoding) -> Self {
        self.messages.push((name.into(), encoding));
        self
    }

    /// The messages, by name, in the order they were added.
    pub(crate) fn messages(&self) -> &[(String, Encoding)] {
        &self.messages
    }

    /// The document.
    pub fn document(&self) -> Result<SchemaDoc, ExportError> {
        let mut walk = walk::Walk::default();
        let mut messages = std::collections::BTreeMap::new();
        for (name, encoding) in &self.messages {
            let doc = walk.encoding(encoding)?;
            if messages.insert(name.clone(), doc).is_some() {
                return Err(ExportError::DuplicateMessage(name.clone()));
            }
        }
        Ok(SchemaDoc {
            format: FORMAT.to_string(),
            messages,
            types: walk.types,
        })
    }

    /// The document as pretty-printed JSON, ending with a newline.
    pub fn to_json(&self) -> Result<String, ExportError> {
        self.document()?.to_json()
    }
}

/// Snow Fight's schema: its two top-level messages, `ServerMessage` and `ClientMessage`, and
/// every type they reach.
pub fn snow_fight() -> Schema {
    Schema::new()
        .message::<hopnet_snow_fight::ServerMessage>("ServerMessage")
        .message::<hopnet_snow_fight::ClientMessage>("ClientMessage")
}

impl SchemaDoc {
    /// Pretty-printed JSON, ending with a newline.
    pub fn to_json(&self) -> Result<String, ExportError> {
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| ExportError::Json(e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Reads a document that [`SchemaDoc::to_json`] wrote, refusing another `"format"`.
    pub fn from_json(text: &str) -> Result<SchemaDoc, ExportError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ExportError::Json(e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(ExportError::Format(format!(
                    "format `{other}`, this tool reads `{FORMAT}`"
                )));
            }
            None => {
                return Err(ExportError::Format(format!(
                    "no \"format\" key: not a schema export (`{FORMAT}`)"
                )));
            }
        }
        serde_json::from_value(value).map_err(|e| ExportError::Json(e.to_string()))
    }
}

/// Why a schema cannot be exported or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// Two different types share a name; the document names types by name alone.
    #[error("two different types are named `{0}`: export them separately or rename one")]
    NameClash(String),
    /// A message name given twice.
    #[error("the message `{0}` is given twice")]
    DuplicateMessage(String),
    /// An encoding this version of the tool does not know.
    #[error("an encoding this tool does not know: {0}")]
    Unknown(String),
    /// The JSON could not be written or read.
    #[error("invalid schema JSON: {0}")]
    Json(String),
    /// The document is not an export of this format.
    #[error("not a schema export this tool reads: {0}")]
    Format(String),
}
