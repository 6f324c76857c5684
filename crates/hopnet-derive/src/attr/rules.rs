//! The attributes, one row each: where an attribute may stand, which others it excludes, and
//! how its value is parsed. Placement and combinations are checked from this table
//! (`valid/place.rs`); adding an attribute is a row here, its parser, and what the plan and the
//! expansion make of its value.

use syn::meta::ParseNestedMeta;

use super::delta as parse_delta;
use super::layout_values as layout;
use super::parse;
use super::quantize as lossy;
use super::value::Value;
use crate::ctxt::Ctxt;

/// Where an item stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Struct,
    Enum,
    Variant,
    Field,
}

const CONTAINER: &[Place] = &[Place::Struct, Place::Enum];
const FIELD: &[Place] = &[Place::Field];

/// Attributes of one group exclude each other on one item (the first one written wins).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// A field has one encoding.
    Encoding,
    /// An enum's tag is a fixed width or a varint.
    Tag,
    /// A container converts from its wire type one way.
    From,
    /// A container sets its byte order or its bit order, not both.
    Order,
    /// A list without a count of its own ends at the end of the input or of a byte length,
    /// after as many items as an expression says, or at a terminator.
    Frame,
}

impl Group {
    /// Why two attributes of the group conflict.
    pub fn reason(self) -> &'static str {
        match self {
            Group::Encoding => "a field has one encoding",
            Group::Tag => "the tag is either a fixed width or a varint",
            Group::From => "the value is converted one way",
            Group::Order => {
                "`bit_order = \"msb\"` writes multi-byte fields as big-endian `#[bits(N)]`, with no byte order of its own"
            }
            Group::Frame => "a list ends one way",
        }
    }
}

/// A parser of an attribute's value (after its name): `None` when the value was malformed
/// (the error is recorded and parsing goes on).
pub type Parser = fn(&Ctxt, &ParseNestedMeta<'_>, &'static str) -> syn::Result<Option<Value>>;

/// One attribute.
pub struct Rule {
    pub name: &'static str,
    /// Where it may stand.
    pub places: &'static [Place],
    /// What the error says when it stands elsewhere.
    pub belongs: &'static str,
    /// The groups it belongs to, each where it stands in it: the other members of a group
    /// are excluded on the same item.
    pub groups: &'static [(Place, Group)],
    /// If no other attribute may stand beside it (`skip`): what the item then is, for the
    /// error on the others.
    pub alone: Option<&'static str>,
    pub parse: Parser,
}

const fn row(
    name: &'static str,
    places: &'static [Place],
    belongs: &'static str,
    parse: Parser,
) -> Rule {
    Rule {
        name,
        places,
        belongs,
        groups: &[],
        alone: None,
        parse,
    }
}

const fn encoding(name: &'static str, parse: Parser) -> Rule {
    Rule {
        groups: &[(Place::Field, Group::Encoding)],
        ..row(name, FIELD, IN_FIELD, parse)
    }
}

/// A field attribute that says where a list ends: at most one of them on a field.
const fn list_end(name: &'static str, parse: Parser) -> Rule {
    Rule {
        groups: &[(Place::Field, Group::Frame)],
        ..row(name, FIELD, IN_FIELD, parse)
    }
}

const IN_CONTAINER: &str = "it is a container attribute";
const IN_FIELD: &str = "it is a field attribute";

/// Every attribute, in the order the "unknown attribute" error lists them.
pub const RULES: &[Rule] = &[
    row("crate", CONTAINER, IN_CONTAINER, parse::crate_path),
    row("bound", CONTAINER, IN_CONTAINER, parse::bound),
    Rule {
        groups: &[(Place::Struct, Group::From), (Place::Enum, Group::From)],
        ..row("from", CONTAINER, IN_CONTAINER, parse::ty)
    },
    Rule {
        groups: &[(Place::Struct, Group::From), (Place::Enum, Group::From)],
        ..row("try_from", CONTAINER, IN_CONTAINER, parse::ty)
    },
    row("into", CONTAINER, IN_CONTAINER, parse::ty),
    Rule {
        groups: &[(Place::Enum, Group::Tag)],
        ..row("tag", &[Place::Enum], "it goes on an enum", parse::tag)
    },
    row(
        "index",
        &[Place::Variant],
        "it goes on an enum variant",
        parse::index,
    ),
    // `#[bits(N)]`, an attribute of its own: the tag's width on an enum, a field's encoding.
    Rule {
        groups: &[(Place::Enum, Group::Tag), (Place::Field, Group::Encoding)],
        ..row(
            "bits",
            &[Place::Enum, Place::Field],
            "`#[bits(N)]` goes on a field, or on an enum to set its tag width",
            parse::bits_in_rabbit,
        )
    },
    encoding("varint", parse::named_encoding),
    encoding("zigzag", parse::named_encoding),
    encoding("leb128", parse::named_encoding),
    encoding("leb128_signed", parse::named_encoding),
    encoding("leb128_zigzag", parse::named_encoding),
    encoding("cstring", parse::named_encoding),
    encoding("range", parse::range),
    encoding("with", parse::with),
    row("if", FIELD, IN_FIELD, parse::condition),
    encoding("max_len", parse::max_len),
    Rule {
        alone: Some("a skipped field: `skip` keeps it off the wire"),
        ..row("skip", FIELD, IN_FIELD, parse::flag)
    },
    // Byte layouts (`guide::layouts`): their parsers are in `layout_values.rs`, their checks
    // in `valid/layout.rs`.
    Rule {
        groups: &[(Place::Struct, Group::Order), (Place::Enum, Group::Order)],
        ..row(
            "endian",
            &[Place::Struct, Place::Enum, Place::Field],
            "it goes on a container or a field",
            layout::endian,
        )
    },
    Rule {
        groups: &[(Place::Struct, Group::Order), (Place::Enum, Group::Order)],
        ..row("bit_order", CONTAINER, IN_CONTAINER, layout::bit_order)
    },
    row(
        "magic",
        &[Place::Struct, Place::Enum, Place::Variant],
        "it goes on a container or an enum variant",
        layout::magic,
    ),
    encoding("bytes", layout::bytes),
    list_end("to_end", parse::flag),
    list_end("byte_len", layout::byte_len),
    // Lists counted by earlier fields or ended by a terminator (`guide::lists`): checked in
    // `valid/ends.rs`.
    list_end("count", parse::count),
    list_end("until", parse::until),
    row("transform", FIELD, IN_FIELD, layout::expression),
    row("computed", FIELD, IN_FIELD, layout::expression),
    row("pad_before", FIELD, IN_FIELD, layout::pad_before),
    // Delta encoding (`guide::delta`).
    row("delta", CONTAINER, IN_CONTAINER, parse_delta::delta),
    row(
        "key",
        FIELD,
        "it goes on a list field, naming its items' key",
        parse_delta::key,
    ),
    // Lossy floats (`guide::quantize`): their checks are in `valid/quantize.rs`.
    encoding("quantize", lossy::quantize),
    encoding("quaternion", lossy::quaternion),
    encoding("unit_vector", lossy::unit_vector),
];

/// The rule of the attribute `name`.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The names, for the "unknown attribute" error.
pub fn known() -> String {
    let names: Vec<&str> = RULES
        .iter()
        .filter(|r| r.name != "bits")
        .map(|r| r.name)
        .collect();
    format!("{} (and #[bits(N)])", names.join(", "))
}
