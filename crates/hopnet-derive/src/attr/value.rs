//! What an option holds once parsed: the attribute stage's own types. Nothing here knows
//! the plan; `valid/` maps these values into it.

use proc_macro2::Span;
use syn::{Expr, LitStr, WherePredicate};

/// An option's parsed value.
pub enum Value {
    /// No value (`skip`, `tag = "varint"`).
    Flag,
    /// `crate = "path"`.
    Path(syn::Path),
    /// `bound = "T: Trait, ..."`.
    Bound(Vec<WherePredicate>),
    /// `from = "Type"`, `try_from`, `into`.
    Type(syn::Type),
    /// `#[bits(N)]`, `index = K`, `bytes = N`, `pad_before = N`, `until = B`, with the span of
    /// the number.
    Int(u64, Span),
    /// A field encoding named by its own option, with the span of its value (for errors
    /// about the value).
    Encoding(Encoding, Span),
    /// `if = "expr"`; also `computed`, `transform`, `count` and `until = "predicate"`: an
    /// expression, as written.
    Cond(Expr, LitStr),
    /// `delta`, `delta = "per_struct"` (`false`) or `delta = "per_field"` (`true`).
    Delta { per_field: bool },
    /// `key = "id"`: the path of the items' key field, with the span of the value.
    Key(Vec<syn::Member>, Span),
    /// `endian = "big"` (true) or `"little"`.
    Endian(bool),
    /// `magic = b"..."`.
    Magic(Vec<u8>),
    /// `byte_len = "field"`: the field named.
    Name(syn::Ident),
}

/// The encodings an option names outright (`#[bits(N)]` and `bytes = N` are numbers, whose
/// meaning depends on the field's type and container).
pub enum Encoding {
    /// `varint`.
    Varint,
    /// `zigzag`.
    ZigZag,
    /// `cstring`.
    CString,
    /// `leb128`.
    Leb128,
    /// `leb128_signed`.
    Leb128Signed,
    /// `leb128_zigzag`.
    Leb128ZigZag,
    /// `range = "A..=B"`.
    Range { min: i128, max: i128 },
    /// `max_len = N`, a literal or a constant's path.
    MaxLen(Expr),
    /// `with = "path"`.
    With(syn::Path),
    /// `quantize(range = "A..=B", precision = P)`: `all` the grid of every axis not in
    /// `axes` (`x(...)`, `y(...)`, ... by index, each with the span of its name).
    Quantize {
        all: Option<Grid>,
        axes: Vec<(usize, Grid, Span)>,
    },
    /// `quaternion(bits = B)`.
    Quaternion { bits: u32 },
    /// `unit_vector(bits = B)`.
    UnitVector { bits: u32 },
}

/// A float grid: `min`, `min + step`, ... up to `max`.
#[derive(Clone, Copy)]
pub struct Grid {
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

impl Encoding {
    /// The encoding a flag names outright, by the flag's name.
    pub fn named(name: &str) -> Option<Self> {
        Some(match name {
            "varint" => Self::Varint,
            "zigzag" => Self::ZigZag,
            "cstring" => Self::CString,
            "leb128" => Self::Leb128,
            "leb128_signed" => Self::Leb128Signed,
            "leb128_zigzag" => Self::Leb128ZigZag,
            _ => return None,
        })
    }
}
