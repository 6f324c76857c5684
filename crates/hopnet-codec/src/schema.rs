//! The wire layout of a type as data.
//!
//! Every derived type describes itself: its fields in order with their encodings, widths,
//! conditions and bounds, its variants with their indices and tag width. Tools walk this to print
//! documentation in the spec's notation or to decode captures without the Rust types.

/// How one value is laid out on the wire.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Encoding {
    /// Nothing at all: `()`, `PhantomData`, skipped fields.
    Empty,
    /// One bit.
    Bool,
    /// `bits` plain bits; two's complement when `signed`.
    Fixed {
        /// Width in bits.
        bits: u32,
        /// Whether the bits are two's complement.
        signed: bool,
    },
    /// The spec's variable-length integer of a `bytes`-byte type, after zig-zag when `zigzag`.
    Varint {
        /// Width of the integer type in bytes (2, 4, 8, 16).
        bytes: u32,
        /// Whether the value is zig-zag interleaved first (signed types).
        zigzag: bool,
    },
    /// `value - min` in the fewest bits that hold `max - min`.
    Range {
        /// Smallest allowed value.
        min: i128,
        /// Largest allowed value.
        max: i128,
        /// Bits used.
        bits: u32,
    },
    /// A float's index on the grid `min, min + step, ...` up to `max`, in `bits` bits.
    Quantized {
        /// The grid's first point.
        min: f64,
        /// The grid's end.
        max: f64,
        /// The distance between grid points.
        step: f64,
        /// Bits used.
        bits: u32,
    },
    /// A unit quaternion by "smallest three" (`quaternion(bits = B)`): the index of its
    /// largest component in 2 bits, then the other three, in order, each the index of its
    /// nearest point on a grid of `2^bits - 1` points from `-1/√2` to `1/√2` (the index
    /// `2^bits - 1` reads as the last point), with the signs that make the largest positive;
    /// the largest is `√(1 - a² - b² - c²)` (zero if that is negative), then all four are
    /// normalized.
    SmallestThree {
        /// Bits of each of the three components.
        bits: u32,
    },
    /// A unit vector by the octahedral mapping (`unit_vector(bits = B)`): `u` then `v`, each
    /// the index of its nearest point on a grid of `2^bits - 1` points from -1 to 1 (the index
    /// `2^bits - 1` reads as 1); `z` is
    /// `1 - |u| - |v|`, and where that is negative `(x, y)` is
    /// `((1 - |v|)·sign u, (1 - |u|)·sign v)`; then normalized.
    Octahedral {
        /// Bits of each of the two coordinates.
        bits: u32,
    },
    /// IEEE-754 bits, least significant first.
    Float {
        /// 32 or 64.
        bits: u32,
    },
    /// A presence bit, then the value if present.
    Option(Box<Encoding>),
    /// A `u32` count, then the items.
    List {
        /// The encoding of each item.
        item: Box<Encoding>,
        /// The longest list allowed, if bounded.
        max_len: Option<u64>,
    },
    /// A `u32` byte count, then UTF-8 bytes.
    String {
        /// The longest string allowed, in bytes, if bounded.
        max_len: Option<u64>,
    },
    /// Exactly `len` items, no count.
    Array {
        /// The encoding of each item.
        item: Box<Encoding>,
        /// How many items.
        len: u64,
    },
    /// The items one after another.
    Tuple(Vec<Encoding>),
    /// A number in `len` whole bytes (`endian`, `bytes = N`).
    Bytes {
        /// How many bytes.
        len: u32,
        /// Most significant byte first; least significant first when `false`.
        big_endian: bool,
        /// What the bytes hold.
        number: Number,
    },
    /// Exactly `len` bytes, no length on the wire (`bytes = N` on a string or byte list).
    FixedLen {
        /// How many bytes.
        len: u64,
        /// Whether they are UTF-8 text.
        text: bool,
    },
    /// UTF-8 bytes ended by a zero byte (`cstring`).
    CString,
    /// A LEB128 integer of a `bits`-bit type (`leb128`, `leb128_zigzag`): seven bits a byte,
    /// least significant first, the high bit set on all but the last byte.
    Leb128 {
        /// Width of the integer type in bits.
        bits: u32,
        /// How the value becomes the groups.
        form: Leb128Form,
    },
    /// Items with no count on the wire, as many as an expression of earlier fields says
    /// (`count = "expr"`).
    Counted {
        /// The expression, as written.
        count: &'static str,
        /// The encoding of each item.
        item: Box<Encoding>,
        /// The most items allowed, if bounded.
        max_len: Option<u64>,
    },
    /// Items up to a terminator, which is written after them and read but not kept
    /// (`until = B`, `until = "predicate"`).
    Until {
        /// What ends the items.
        end: Terminator,
        /// The encoding of each item.
        item: Box<Encoding>,
        /// The most items allowed before the terminator, if bounded.
        max_len: Option<u64>,
    },
    /// Items with no count, to the end of the input (`to_end`).
    ToEnd {
        /// The encoding of each item.
        item: Box<Encoding>,
        /// The most items allowed, if bounded.
        max_len: Option<u64>,
    },
    /// A field whose length in bytes an earlier field holds (`byte_len = "field"`): its
    /// items, or its transformed bytes, fill exactly that many bytes.
    ByteLen {
        /// The earlier field that holds the length.
        field: &'static str,
        /// What the bytes hold.
        inner: Box<Encoding>,
    },
    /// Bytes a transform made of the value (`transform = "expr"`).
    Transformed {
        /// The transform, as written.
        transform: &'static str,
    },
    /// A field computed from the others (`computed = "expr"`, or the length of the field that
    /// names it in `byte_len`), checked when decoding.
    Computed {
        /// How the value is written.
        value: Box<Encoding>,
        /// What it is computed from: the expression as written, or "byte length of `field`".
        from: String,
    },
    /// Bits with a fixed value: a magic number, or reserved bits that are zero.
    Constant {
        /// Width in bits.
        bits: u32,
        /// The value, as the bits are read (see `msb_first`).
        value: u64,
    },
    /// A field of a `bit_order = "msb"` container: its bits go most significant first, from
    /// the high bit of each byte.
    MsbFirst(Box<Encoding>),
    /// A derived type, described by its own schema.
    Type(TypeRef),
    /// A field encoded by a user's codec module.
    Custom {
        /// The module path given to `#[rabbit(with = ...)]`.
        codec: &'static str,
    },
    /// A type with a hand-written impl that does not describe itself.
    Opaque {
        /// `std::any::type_name` of the type.
        type_name: &'static str,
    },
}

/// What ends an [`Encoding::Until`] list.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Terminator {
    /// This byte (`until = B`, on a string or a byte list).
    Byte(u8),
    /// An item the predicate accepts (`until = "predicate"`): the item type's default value is
    /// written as the terminator.
    Item {
        /// The predicate, as written.
        predicate: &'static str,
    },
}

/// What the bytes of an [`Encoding::Bytes`] hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    /// An unsigned integer.
    Unsigned,
    /// A two's complement integer.
    Signed,
    /// 0 or 1.
    Bool,
    /// IEEE-754 bits.
    Float,
}

/// A reference to a derived type's schema, built on demand so that recursive types terminate.
#[derive(Clone, Copy)]
pub struct TypeRef {
    /// The type's name.
    pub name: &'static str,
    /// Builds the type's schema.
    pub schema: fn() -> TypeSchema,
}

impl TypeRef {
    /// The referenced type's schema.
    pub fn resolve(&self) -> TypeSchema {
        (self.schema)()
    }
}

impl PartialEq for TypeRef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for TypeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TypeRef({})", self.name)
    }
}

/// The layout of a derived struct or enum.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSchema {
    /// The type's name, without generics.
    pub name: &'static str,
    /// Its doc comment, trimmed.
    pub doc: &'static str,
    /// Fields or variants.
    pub body: Body,
    /// `Encode::MIN_BITS`.
    pub min_bits: u64,
    /// `Encode::MAX_BITS`.
    pub max_bits: Option<u64>,
    /// `#[rabbit(delta)]`: how the type's deltas are laid out; `None` for a type without
    /// deltas. It decides the bytes of every delta that holds the type.
    pub delta: Option<DeltaLayout>,
}

/// How a `#[rabbit(delta)]` type's deltas are laid out (`hopnet_codec::delta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaLayout {
    /// `delta`, or `delta = "per_struct"`: one changed bit for the whole value, then its
    /// fields' deltas.
    PerStruct,
    /// `delta = "per_field"`: only the fields' deltas, no bit of its own.
    PerField,
}

/// What a type consists of.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A struct's fields in wire order.
    Struct(Vec<FieldSchema>),
    /// An enum's tag and variants.
    Enum {
        /// How the variant index is written.
        tag: Tag,
        /// The variants, in declaration order.
        variants: Vec<VariantSchema>,
    },
}

/// How an enum's variant index is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// Plain bits (0 for a single-variant enum).
    Bits(u32),
    /// Plain bits at the top of the first byte, most significant first (`bit_order = "msb"`).
    MsbBits(u32),
    /// The spec's variable-length integer of a `bytes`-byte type.
    Varint {
        /// 4 for a `u32` tag.
        bytes: u32,
    },
}

/// One variant of an enum.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSchema {
    /// The variant's name.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// The index written in the tag.
    pub index: u64,
    /// Its fields, in wire order (none for a unit variant).
    pub fields: Vec<FieldSchema>,
}

/// One field of a struct or variant.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSchema {
    /// The field's name; `"0"`, `"1"`, … for tuple fields.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its Rust type as written.
    pub ty: &'static str,
    /// How it is written.
    pub encoding: Encoding,
    /// For `#[rabbit(if = "...")]`: the condition, as written.
    pub condition: Option<&'static str>,
    /// For `#[rabbit(skip)]`: the field is not on the wire.
    pub skipped: bool,
    /// For `#[rabbit(key = "...")]` on a list of a delta type: the path of the items' key,
    /// as written (`"id"`, `"meta.id"`); its deltas are keyed.
    pub key: Option<&'static str>,
}

/// Types that describe their own layout: every `#[derive(Rabbit)]` type.
///
/// A derived type's [`crate::Encode::schema`] is `Encoding::Type` pointing here.
pub trait Describe {
    /// The type's layout.
    fn type_schema() -> TypeSchema;
}

/// How a LEB128 integer's value becomes its seven-bit groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Leb128Form {
    /// An unsigned value as it is (ULEB128).
    Unsigned,
    /// Two's complement, the sign extended from bit 6 of the last group (SLEB128,
    /// `leb128_signed`).
    SignExtended,
    /// A signed value's two's complement bits at the type's width, as an unsigned number
    /// (`leb128` on a signed type: Minecraft's VarInt and VarLong).
    TwosComplement,
    /// Zig-zag interleaved, then unsigned (protobuf's `sint32`, `sint64`).
    ZigZagged,
}
