//! The plan's parts for byte layouts (`guide::layouts`), resolved by `valid/layout.rs`: the
//! container's byte or bit order and magic bytes, and per field its padding, how it is
//! computed, and how a byte length frames it.

use syn::Ident;

use crate::plan::Condition;

/// A container's layout.
#[derive(Default)]
pub struct Layout {
    /// `endian`: the byte order of its numbers without an encoding (`true`: big-endian).
    pub endian: Option<bool>,
    /// `bit_order = "msb"`.
    pub msb: bool,
    /// `magic = b"..."`: bytes before everything else (an enum's tag included).
    pub magic: Option<Vec<u8>>,
}

/// A field's layout.
#[derive(Default)]
pub struct FieldLayout {
    /// `pad_before = N`: zero bits before the field.
    pub pad_before: u32,
    /// A `Computed<T>` field: how its value is found.
    pub computed: Option<ComputedBy>,
    /// `byte_len = "field"`: the earlier field that holds this one's length in bytes.
    pub framed: Option<Framed>,
}

/// How a computed field's value is found.
pub enum ComputedBy {
    /// `computed = "expr"`.
    Expr(Condition),
    /// The byte length of the later field bound to this name, which names it in `byte_len`.
    LengthOf(Ident),
}

/// A field framed by a byte length.
pub struct Framed {
    /// The binding of the field that holds the length.
    pub len: Ident,
    /// `transform = "expr"`: its bytes are what the transform makes of the value.
    pub transform: Option<Condition>,
}
