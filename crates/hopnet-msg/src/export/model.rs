//! The export's document: plain data that serde writes as JSON and reads back, so that
//! `rabbit-msg compat` can compare two exports without the Rust types that made them.
//!
//! Only what decides the bytes is kept: names, wire order, encodings, widths, bounds, tags,
//! conditions. Doc comments and Rust type names are left out, so that editing a comment or
//! renaming a type alias shows as no change.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The value of the document's `"format"` key; a reader refuses any other.
pub const FORMAT: &str = "hopnet-schema/1";

/// A whole export: the message types it was made from and every type they reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaDoc {
    /// Always [`FORMAT`].
    pub format: String,
    /// The messages, by the name the game gives them, each naming its type in `types` (or
    /// holding a bare encoding, for a message that is not a derived type).
    pub messages: BTreeMap<String, EncodingDoc>,
    /// Every derived type the messages reach, by its name.
    pub types: BTreeMap<String, TypeDoc>,
}

/// A derived struct or enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TypeDoc {
    /// Fields in wire order.
    Struct {
        /// The fields.
        fields: Vec<FieldDoc>,
        /// `#[rabbit(delta)]`: how its deltas are laid out; absent without deltas.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<DeltaDoc>,
    },
    /// A tag, then one variant's fields.
    Enum {
        /// How the variant index is written.
        tag: TagDoc,
        /// The variants, by index.
        variants: Vec<VariantDoc>,
        /// `#[rabbit(delta)]`: how its deltas are laid out; absent without deltas.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<DeltaDoc>,
    },
}

impl TypeDoc {
    /// How its deltas are laid out, if it has any.
    pub fn delta(&self) -> Option<DeltaDoc> {
        match self {
            TypeDoc::Struct { delta, .. } | TypeDoc::Enum { delta, .. } => *delta,
        }
    }
}

/// How a `#[rabbit(delta)]` type's deltas are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaDoc {
    /// One changed bit for the whole value, then its fields' deltas.
    PerStruct,
    /// Only the fields' deltas.
    PerField,
}

/// How an enum's variant index is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TagDoc {
    /// Plain bits, least significant first.
    Bits {
        /// Width.
        bits: u32,
    },
    /// Plain bits, most significant first.
    MsbBits {
        /// Width.
        bits: u32,
    },
    /// The spec's variable-length integer of a `bytes`-byte type.
    Varint {
        /// The integer type's width in bytes.
        bytes: u32,
    },
}

/// One variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDoc {
    /// Its name.
    pub name: String,
    /// The index written in the tag.
    pub index: u64,
    /// Its fields in wire order.
    pub fields: Vec<FieldDoc>,
}

/// One field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDoc {
    /// Its name (`"0"`, `"1"`, … in a tuple struct).
    pub name: String,
    /// How it is written; `{"kind": "empty"}` for a skipped field.
    pub encoding: EncodingDoc,
    /// `#[rabbit(if = "...")]`, as written.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "if")]
    pub condition: Option<String>,
    /// `#[rabbit(skip)]`: not on the wire.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// `#[rabbit(key = "...")]` in a delta type: the items' key, whose deltas are keyed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// An integer of up to 128 bits: a JSON number when it fits 64 bits, else a decimal string
/// (JSON readers lose precision past 2^53 anyway, and none read 128 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Int(pub i128);

impl Serialize for Int {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(v) = i64::try_from(self.0) {
            s.serialize_i64(v)
        } else if let Ok(v) = u64::try_from(self.0) {
            s.serialize_u64(v)
        } else {
            s.serialize_str(&self.0.to_string())
        }
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Signed(i64),
            Unsigned(u64),
            Text(String),
        }
        match Repr::deserialize(d)? {
            Repr::Signed(v) => Ok(Int(v.into())),
            Repr::Unsigned(v) => Ok(Int(v.into())),
            Repr::Text(t) => t
                .parse()
                .map(Int)
                .map_err(|_| serde::de::Error::custom(format!("not an integer: {t:?}"))),
        }
    }
}

/// How one value is written: `hopnet_codec::schema::Encoding` as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)]
pub enum EncodingDoc {
    Empty,
    Bool,
    Fixed {
        bits: u32,
        signed: bool,
    },
    Varint {
        bytes: u32,
        zigzag: bool,
    },
    Range {
        min: Int,
        max: Int,
        bits: u32,
    },
    Quantized {
        min: f64,
        max: f64,
        step: f64,
        bits: u32,
    },
    SmallestThree {
        bits: u32,
    },
    Octahedral {
        bits: u32,
    },
    Float {
        bits: u32,
    },
    Option {
        item: Box<EncodingDoc>,
    },
    List {
        item: Box<EncodingDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_len: Option<u64>,
    },
    String {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_len: Option<u64>,
    },
    Array {
        item: Box<EncodingDoc>,
        len: u64,
    },
    Tuple {
        items: Vec<EncodingDoc>,
    },
    Bytes {
        len: u32,
        big_endian: bool,
        number: String,
    },
    FixedLen {
        len: u64,
        text: bool,
    },
    CString,
    Leb128 {
        bits: u32,
        form: String,
    },
    Counted {
        count: String,
        item: Box<EncodingDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_len: Option<u64>,
    },
    Until {
        end: String,
        item: Box<EncodingDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_len: Option<u64>,
    },
    ToEnd {
        item: Box<EncodingDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_len: Option<u64>,
    },
    ByteLen {
        field: String,
        item: Box<EncodingDoc>,
    },
    Transformed {
        transform: String,
    },
    Computed {
        value: Box<EncodingDoc>,
        from: String,
    },
    Constant {
        bits: u32,
        value: u64,
    },
    MsbFirst {
        item: Box<EncodingDoc>,
    },
    /// A derived type, by its name in the document's `types`.
    Type {
        name: String,
    },
    Custom {
        codec: String,
    },
    Opaque {
        type_name: String,
    },
}

impl EncodingDoc {
    /// The `kind` key's value, for messages that name what changed.
    pub fn kind(&self) -> &'static str {
        use EncodingDoc::*;
        match self {
            Empty => "nothing",
            Bool => "a bool",
            Fixed { .. } => "plain bits",
            Varint { .. } => "a varint",
            Range { .. } => "a range",
            Quantized { .. } => "a quantized float",
            SmallestThree { .. } => "a smallest-three quaternion",
            Octahedral { .. } => "an octahedral unit vector",
            Float { .. } => "a float",
            Option { .. } => "an option",
            List { .. } => "a list",
            String { .. } => "a string",
            Array { .. } => "an array",
            Tuple { .. } => "a tuple",
            Bytes { .. } => "whole bytes",
            FixedLen { .. } => "fixed-length bytes",
            CString => "a C string",
            Leb128 { .. } => "a LEB128 integer",
            Counted { .. } => "a counted list",
            Until { .. } => "a terminated list",
            ToEnd { .. } => "a list to the end",
            ByteLen { .. } => "a byte-length field",
            Transformed { .. } => "transformed bytes",
            Computed { .. } => "a computed field",
            Constant { .. } => "constant bits",
            MsbFirst { .. } => "msb-first bits",
            Type { .. } => "a derived type",
            Custom { .. } => "a custom codec",
            Opaque { .. } => "an opaque type",
        }
    }
}
