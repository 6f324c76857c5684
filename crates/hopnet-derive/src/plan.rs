//! The resolved plan of an input, built by `valid/` once every check passed and consumed by
//! `expand/`: per item only what generation needs (the codec chosen for each field, its
//! condition, the tag, the variant indices, and in order what each struct or variant writes),
//! nothing left to look up in the attributes. Plain data: it names the input's shape
//! ([`Style`]) and nothing else of the stages before it.

use syn::{Expr, Generics, Ident, Member, Type, WherePredicate};

pub use crate::ast::Style;

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
    /// `bit_order = "msb"`: numbers most significant bit first, in groups of whole bytes.
    pub msb: bool,
    pub body: Body<'a>,
    /// `delta`: the delta impls are generated too.
    pub delta: Option<Delta>,
}

pub enum Body<'a> {
    Struct(Fields<'a>),
    Enum {
        /// The enum's own magic bytes, written before its tag.
        magic: Vec<Item>,
        tag: Tag,
        variants: Vec<Variant<'a>>,
    },
}

/// The conversions of a container written as another type.
pub struct Via<'a> {
    /// `into = "W"`: the type it is written as.
    pub into: &'a Type,
    /// `into`'s type as written, for the schema.
    pub into_text: String,
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
    /// The index written in the tag.
    pub index: u64,
    pub fields: Fields<'a>,
}

/// The fields of a struct or a variant, and what they write.
pub struct Fields<'a> {
    pub style: Style,
    /// Every field, in declaration order, skipped ones too.
    pub list: Vec<Field<'a>>,
    /// What is written, in order: a struct's magic bytes, or a variant's tag and its magic
    /// bytes; then each field on the wire, after its padding. Encoding, decoding, the sizes
    /// and the schema all read this list.
    pub items: Vec<Item>,
}

/// One thing a struct or a variant writes.
pub enum Item {
    /// Magic bytes, at most eight (longer magic is several items).
    Magic(Vec<u8>),
    /// The enum tag of the variant with this index.
    Tag(Tag, u64),
    /// `pad_before = N`: this many zero bits.
    Pad(u32),
    /// The field at this position in [`Fields::list`]; always one on the wire.
    Field(usize),
}

/// A field as declared, and how it goes on the wire.
pub struct Field<'a> {
    /// `a` or `0`.
    pub member: Member,
    /// The local the field is bound to in generated code: its name, or `_0`, `_1`, ….
    pub binding: Ident,
    /// The type as declared.
    pub ty: &'a Type,
    /// The name shown in errors and the schema: `a`, or `0` for a tuple field.
    pub name: String,
    /// The declared type as written, for the schema.
    pub ty_text: String,
    pub doc: &'a str,
    /// The field's number among all of the input's fields.
    pub uid: usize,
    /// How it is written; `None` for a skipped field.
    pub wire: Option<Wire<'a>>,
}

/// How a field on the wire is written.
pub struct Wire<'a> {
    pub codec: Codec,
    /// The type the codec writes: `T` of an `if` field's `Option<T>` or of a `Computed<T>`,
    /// else the field's.
    pub ty: &'a Type,
    pub cond: Option<Condition>,
    /// A computed value, a byte-length frame.
    pub layout: FieldLayout,
}

/// A field encoding: each is one codec type of the runtime (`Names::codec_ty` in
/// `expand/names.rs`).
#[derive(Clone)]
pub enum Codec {
    /// The type's own encoding.
    Native,
    /// `#[bits(N)]`.
    Fixed(u32),
    Varint,
    ZigZag,
    /// `cstring`: UTF-8 bytes then a zero byte.
    CString,
    /// `leb128`: unsigned, of a signed type's two's complement bits.
    Leb128,
    /// `leb128_signed`: sign-extended.
    Leb128Signed,
    /// `leb128_zigzag`.
    Leb128ZigZag,
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
    /// `count = "expr"`: the items with no count on the wire, with `max_len` if given.
    Counted(Option<Expr>),
    /// `until = B`: the bytes, then the byte `B`, with `max_len` if given.
    UntilByte(u8, Option<Expr>),
    /// `until = "predicate"`: the items, then the item type's default, with `max_len` if given.
    UntilItem(Option<Expr>),
    /// `transform`: bytes the transform makes, framed by a byte length.
    Transformed,
    /// `quantize(range = "A..=B", precision = P)`.
    Quantize {
        min: f64,
        max: f64,
        step: f64,
    },
    /// `quantize(...)` with a grid per axis: `(min, max, step)` of each, `x` first.
    QuantizeAxes(Vec<(f64, f64, f64)>),
    /// `quaternion(bits = B)`.
    Quaternion(u32),
    /// `unit_vector(bits = B)`.
    UnitVector(u32),
}

impl Codec {
    /// Whether the field's type parameters get inferred bounds: not for a custom codec, which
    /// decides what it needs.
    pub fn infers_bounds(&self) -> bool {
        !matches!(self, Codec::With(_) | Codec::Transformed)
    }
}

/// An expression over the fields: an `if` field's condition, a `computed` value, a
/// `transform`.
pub struct Condition {
    pub expr: Expr,
    pub text: String,
    /// Fields the expression names, bound as references before it is evaluated.
    pub uses: Vec<Ident>,
}

/// A field's byte layout (`guide::layouts`) beyond its codec.
#[derive(Default)]
pub struct FieldLayout {
    /// A `Computed<T>` field: how its value is found.
    pub computed: Option<ComputedBy>,
    /// `byte_len = "field"`: the earlier field that holds this one's length in bytes.
    pub framed: Option<Framed>,
    /// `count = "expr"` or `until = "predicate"`: what ends the list, found at run time.
    pub ends: Option<Ends>,
}

/// How a list without a count of its own ends, when only generated code can tell.
pub enum Ends {
    /// `count = "expr"`: after as many items as the expression of earlier fields says.
    Count(Condition),
    /// `until = "predicate"`: at an item the predicate accepts.
    Until(Condition),
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

impl Plan<'_> {
    /// Every field of the input, in every variant.
    pub fn all_fields(&self) -> Box<dyn Iterator<Item = &Field<'_>> + '_> {
        match &self.body {
            Body::Struct(fields) => Box::new(fields.list.iter()),
            Body::Enum { variants, .. } => {
                Box::new(variants.iter().flat_map(|v| v.fields.list.iter()))
            }
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
    pub keys: Vec<(usize, Vec<Member>)>,
}

impl Delta {
    /// The key path of a keyed list field.
    pub fn key(&self, field: &Field<'_>) -> Option<&[Member]> {
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
