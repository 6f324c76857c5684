//! The resolved plan of an input, built by `valid/` once every check passed and consumed by
//! `expand/`: per item only what generation needs (the codec chosen for each field, its
//! condition, the tag, the variant indices), nothing left to look up in the attributes.

use syn::{Expr, Generics, Ident, Type, WherePredicate};

use crate::ast::{self, Style};
use crate::layout::{FieldLayout, Layout};

pub struct Plan<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    /// The crate path used in generated code (`::hopnet_codec` unless `crate = "..."`).
    pub krate: syn::Path,
    /// `bound = "..."`: replaces the inferred predicates.
    pub bound: Option<&'a [WherePredicate]>,
    pub doc: &'a str,
    /// `from`/`try_from` and `into`: written as another type. The body is then empty: none of
    /// it is on the wire.
    pub via: Option<Via<'a>>,
    /// Byte order, bit order, magic bytes.
    pub layout: Layout,
    pub body: Body<'a>,
    /// `delta`: the delta impls are generated too.
    pub delta: Option<Delta>,
}

pub enum Body<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Tag, Vec<Variant<'a>>),
}

/// The conversions of a container written as another type.
pub struct Via<'a> {
    /// `into = "W"`: the type it is written as.
    pub into: &'a Type,
    /// `from = "W"` or `try_from = "W"`: the type it is read as.
    pub from: &'a Type,
    /// `try_from`: the conversion back can refuse a value.
    pub fallible: bool,
}

/// How an enum's tag is written.
#[derive(Clone, Copy)]
pub enum Tag {
    /// `#[bits(N)]`.
    Bits(u32),
    /// The default: the fewest bits that hold the largest index (the runtime's rule).
    Fewest { max_index: u64 },
    /// `tag = "varint"`: a `u32` variable-length integer.
    Varint,
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    pub doc: &'a str,
    pub style: Style,
    /// The index written in the tag.
    pub index: u64,
    /// `magic = b"..."`: bytes after the tag, before the fields.
    pub magic: Option<Vec<u8>>,
    pub fields: Vec<Field<'a>>,
}

/// A field as written, and how it goes on the wire.
pub struct Field<'a> {
    pub src: &'a ast::Field<'a>,
    /// How it is written; `None` for a skipped field.
    pub wire: Option<Wire<'a>>,
}

/// A planned field reads as the field it plans: its binding, type, attributes.
impl<'a> std::ops::Deref for Field<'a> {
    type Target = ast::Field<'a>;

    fn deref(&self) -> &ast::Field<'a> {
        self.src
    }
}

/// How a field on the wire is written.
pub struct Wire<'a> {
    pub codec: Codec,
    /// The type the codec writes: `T` of an `if` field's `Option<T>`, else the field's.
    pub ty: &'a Type,
    pub cond: Option<Condition>,
    /// Padding, computed value, byte-length frame.
    pub layout: FieldLayout,
}

/// A field encoding: each is one codec type of the runtime (`expand::Names::codec_ty`).
#[derive(Clone)]
pub enum Codec {
    /// The type's own encoding.
    Native,
    /// `#[bits(N)]`.
    Fixed(u32),
    Varint,
    ZigZag,
    Range {
        min: i128,
        max: i128,
    },
    /// `max_len = N`, a literal or a constant's path.
    MaxLen(Expr),
    /// `with = "path"`.
    With(syn::Path),
    /// A number in `n` whole bytes (`bytes = N`, `endian`), big-endian when `big`.
    Bytes {
        n: u32,
        big: bool,
    },
    /// `bytes = N` on a string or byte list: exactly N bytes.
    FixedLen(u64),
    /// `to_end` or `byte_len`: the items with no count, with `max_len` if given.
    ToEnd(Option<Expr>),
    /// `transform`: bytes the transform makes, framed by a byte length.
    Transformed,
    /// `quantize(range = "A..=B", precision = P)`.
    Quantize {
        min: f64,
        max: f64,
        step: f64,
    },
}

impl Codec {
    /// Whether the field's type parameters get inferred bounds: not for a custom codec, which
    /// decides what it needs.
    pub fn infers_bounds(&self) -> bool {
        !matches!(self, Codec::With(_) | Codec::Transformed)
    }
}

/// An `if` field's condition.
pub struct Condition {
    pub expr: Expr,
    pub text: String,
    /// Earlier fields the expression names, bound as references before it is evaluated.
    pub uses: Vec<Ident>,
}

impl Plan<'_> {
    /// Every field of the input, in every variant.
    pub fn all_fields(&self) -> Box<dyn Iterator<Item = &Field<'_>> + '_> {
        match &self.body {
            Body::Struct(_, fields) => Box::new(fields.iter()),
            Body::Enum(_, variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
        }
    }
}

impl Field<'_> {
    /// An `if` field's condition.
    pub fn cond(&self) -> Option<&Condition> {
        self.wire.as_ref().and_then(|w| w.cond.as_ref())
    }
}

/// `#[rabbit(delta)]`: how the value's deltas are laid out, and its keyed lists.
pub struct Delta {
    pub mode: DeltaMode,
    /// `key = "..."` fields, by `uid`: the path of their items' key.
    pub keys: Vec<(usize, Vec<syn::Member>)>,
}

impl Delta {
    /// The key path of a keyed list field.
    pub fn key(&self, field: &Field<'_>) -> Option<&[syn::Member]> {
        self.keys
            .iter()
            .find(|(uid, _)| *uid == field.uid)
            .map(|(_, path)| path.as_slice())
    }
}

/// Whether a struct (or an enum) writes a changed bit of its own before its fields' deltas.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DeltaMode {
    /// The default: one bit for the whole value, then (if it changed) each field's delta.
    PerStruct,
    /// `delta = "per_field"`: each field's delta, nothing of its own.
    PerField,
}
