//! The message definitions in the spec's own notation, generated from the schema data that
//! `#[derive(Rabbit)]` records.
//!
//! The spec defines each message as a bullet list of components, `` - `name` (type): what it
//! is ``, in wire order, with conditions such as `` (if `variant` = 1 then `Response`) ``.
//! [`Definition::of`] turns any type's [`TypeSchema`] into such a list, and [`Definition`]'s
//! `Display` prints it as Markdown in the spec's layout. `rabbit-msg schema` prints these.
//!
//! How the schema maps onto the notation:
//!
//! | schema | notation |
//! |---|---|
//! | `u32` and other variable-length integers | `(u32)` |
//! | fixed `N` bits | `(uN)`, `(iN)` when signed |
//! | `f32` | `(f32)` |
//! | a derived type | ``(`Type`)`` |
//! | `Option<T>` | `` `is_x` (u1) `` then `` `x` (if `is_x` = 1 then T) `` |
//! | list | `` `count` (u32) `` then `` `x` (`count` * T) `` |
//! | string | `` `length` (u32) `` then `` `x` (`length` * u8) `` |
//! | enum | `` `variant` (uN) `` then `` `body` (if `variant` = i then T) `` per variant |
//!
//! An enum whose variants all have no body is one line, `` `variant` (uN): 0 = A, 1 = B ``.

use rabbit::schema::{Body, Encoding, FieldSchema, Tag, TypeSchema, VariantSchema};
use std::fmt;

/// One component of a message: one bullet of the spec's notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The component's name, e.g. `time` or `is_holding`.
    pub name: String,
    /// The condition under which it is present, e.g. `` `variant` = 1 ``.
    pub condition: Option<String>,
    /// Its type, e.g. `u32`, `` `Point` `` or `` `count` * `Entity` ``.
    pub ty: String,
    /// What it means (may be empty).
    pub doc: String,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "- `{}` (", self.name)?;
        if let Some(cond) = &self.condition {
            write!(f, "if {cond} then ")?;
        }
        write!(f, "{})", self.ty)?;
        if !self.doc.is_empty() {
            write!(f, ": {}", self.doc)?;
        }
        Ok(())
    }
}

/// One message in the spec's notation: its name, what it means, and its components in wire
/// order (none for an empty message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The message's name.
    pub name: String,
    /// What the message means: the first paragraph of its doc comment.
    pub doc: String,
    /// The components, in wire order; empty for a message without any.
    pub lines: Vec<Line>,
}

impl Definition {
    /// The definition of a derived type.
    pub fn of(schema: &TypeSchema) -> Definition {
        let lines = match &schema.body {
            Body::Struct(fields) => fields_lines(fields, None),
            Body::Enum { tag, variants } => enum_lines(*tag, variants),
        };
        Definition {
            name: schema.name.to_string(),
            doc: first_paragraph(schema.doc),
            lines,
        }
    }

    /// The definition of an enum variant without a body, as the empty message the spec makes of
    /// it (the spec's `Dead` and `Pong`).
    pub fn of_unit_variant(variant: &VariantSchema) -> Definition {
        Definition {
            name: variant.name.to_string(),
            doc: first_paragraph(variant.doc),
            lines: Vec::new(),
        }
    }
}

impl fmt::Display for Definition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "## {}", self.name)?;
        writeln!(f)?;
        if !self.doc.is_empty() {
            for line in wrap(&self.doc, "", "") {
                writeln!(f, "{line}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "### Encoding")?;
        writeln!(f)?;
        if self.lines.is_empty() {
            writeln!(f, "Empty")?;
        }
        for line in &self.lines {
            for text in wrap(&line.to_string(), "", "  ") {
                writeln!(f, "{text}")?;
            }
        }
        Ok(())
    }
}

/// Prints definitions one after the other, separated by the spec's `---` rule.
pub fn render(definitions: &[Definition]) -> String {
    let mut out = String::new();
    for (i, def) in definitions.iter().enumerate() {
        if i > 0 {
            out.push_str("\n---\n\n");
        }
        out.push_str(&def.to_string());
    }
    out
}

/// The first paragraph of a doc comment, on one line.
fn first_paragraph(doc: &str) -> String {
    let para = doc.trim().split("\n\n").next().unwrap_or("");
    para.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Word-wraps `text` at 100 columns; continuation lines get `indent`.
fn wrap(text: &str, first: &str, indent: &str) -> Vec<String> {
    const WIDTH: usize = 100;
    let mut lines = Vec::new();
    let mut current = first.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && current.len() + 1 + word.len() > WIDTH {
            lines.push(std::mem::replace(&mut current, indent.to_string()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    lines.push(current);
    lines
}

fn enum_lines(tag: Tag, variants: &[VariantSchema]) -> Vec<Line> {
    let tag_ty = match tag {
        Tag::Bits(n) => format!("u{n}"),
        Tag::Varint { bytes } => format!("u{}", bytes * 8),
    };
    if variants.iter().all(|v| v.fields.iter().all(|f| f.skipped)) {
        let doc = variants
            .iter()
            .map(|v| format!("{} = {}", v.index, v.name))
            .collect::<Vec<_>>()
            .join(", ");
        return vec![Line {
            name: "variant".into(),
            condition: None,
            ty: tag_ty,
            doc,
        }];
    }
    let tag_doc = match tag {
        Tag::Bits(_) => String::new(),
        Tag::Varint { .. } => "a variable-length integer: 10 bits for an index below 256".into(),
    };
    let mut lines = vec![Line {
        name: "variant".into(),
        condition: None,
        ty: tag_ty,
        doc: tag_doc,
    }];
    for variant in variants {
        let cond = format!("`variant` = {}", variant.index);
        let fields: Vec<&FieldSchema> = variant.fields.iter().filter(|f| !f.skipped).collect();
        match fields.as_slice() {
            [] => lines.push(Line {
                name: "body".into(),
                condition: Some(cond),
                ty: format!("`{}`", variant.name),
                doc: first_paragraph(variant.doc),
            }),
            [only] if only.name == "0" => {
                let doc = first_paragraph(variant.doc);
                field_lines(&mut lines, "body", &only.encoding, &doc, Some(&cond));
            }
            _ => {
                for field in fields {
                    let doc = first_paragraph(field.doc);
                    field_lines(&mut lines, field.name, &field.encoding, &doc, Some(&cond));
                }
            }
        }
    }
    lines
}

fn fields_lines(fields: &[FieldSchema], cond: Option<&str>) -> Vec<Line> {
    let mut lines = Vec::new();
    for field in fields.iter().filter(|f| !f.skipped) {
        let doc = first_paragraph(field.doc);
        let cond = match (field.condition, cond) {
            (Some(own), Some(outer)) => Some(format!("{outer} and {own}")),
            (Some(own), None) => Some(own.to_string()),
            (None, outer) => outer.map(str::to_string),
        };
        field_lines(
            &mut lines,
            field.name,
            &field.encoding,
            &doc,
            cond.as_deref(),
        );
    }
    lines
}

/// The lines of one component named `name` with this encoding.
fn field_lines(lines: &mut Vec<Line>, name: &str, enc: &Encoding, doc: &str, cond: Option<&str>) {
    let mut push = |name: String, cond: Option<String>, ty: String, doc: String| {
        lines.push(Line {
            name,
            condition: cond,
            ty,
            doc,
        })
    };
    let cond_owned = cond.map(str::to_string);
    match enc {
        Encoding::Empty => {}
        Encoding::Option(inner) => {
            let flag = format!("is_{name}");
            push(
                flag.clone(),
                cond_owned,
                "u1".into(),
                format!("1 if `{name}` follows"),
            );
            let inner_cond = match cond {
                Some(c) => format!("{c} and `{flag}` = 1"),
                None => format!("`{flag}` = 1"),
            };
            field_lines(lines, name, inner, doc, Some(&inner_cond));
        }
        Encoding::List { item, max_len } => {
            let count = "count".to_string();
            let count_doc = match max_len {
                Some(max) => format!("the number of items, at most {max}"),
                None => "the number of items".to_string(),
            };
            push(count.clone(), cond_owned.clone(), "u32".into(), count_doc);
            push(
                name.to_string(),
                cond_owned,
                format!("`{count}` * {}", type_name(item)),
                doc.to_string(),
            );
        }
        Encoding::String { max_len } => {
            let length = "length".to_string();
            let length_doc = match max_len {
                Some(max) => format!("the length in bytes, at most {max}"),
                None => "the length in bytes".to_string(),
            };
            push(length.clone(), cond_owned.clone(), "u32".into(), length_doc);
            let doc = if doc.is_empty() {
                "UTF-8 text".to_string()
            } else {
                doc.to_string()
            };
            push(
                name.to_string(),
                cond_owned,
                format!("`{length}` * u8"),
                doc,
            );
        }
        Encoding::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                field_lines(lines, &format!("{name}.{i}"), item, doc, cond);
            }
        }
        other => push(
            name.to_string(),
            cond_owned,
            type_name(other),
            doc.to_string(),
        ),
    }
}

/// The notation of a single-line encoding.
fn type_name(enc: &Encoding) -> String {
    match enc {
        Encoding::Empty => "empty".into(),
        Encoding::Bool => "u1".into(),
        Encoding::Fixed { bits, signed } => format!("{}{bits}", if *signed { 'i' } else { 'u' }),
        Encoding::Varint { bytes, zigzag } => {
            format!("{}{}", if *zigzag { 'i' } else { 'u' }, bytes * 8)
        }
        Encoding::Range { min, max, bits } => format!("u{bits} ({min}..={max}, minus {min})"),
        Encoding::Float { bits } => format!("f{bits}"),
        Encoding::Option(inner) => format!("optional {}", type_name(inner)),
        Encoding::List { item, .. } => format!("`count` * {}", type_name(item)),
        Encoding::String { .. } => "`length` * u8".into(),
        Encoding::Array { item, len } => format!("{len} * {}", type_name(item)),
        Encoding::Tuple(items) => items.iter().map(type_name).collect::<Vec<_>>().join(", "),
        Encoding::Type(r) => format!("`{}`", r.name),
        Encoding::Custom { codec } => format!("custom ({codec})"),
        Encoding::Opaque { type_name } => format!("opaque ({type_name})"),
        _ => "unknown".into(),
    }
}

/// Every message of the spec, by the spec's name, in the spec's order (plus `ObjectKind`, which
/// this crate gives its own name, after `Object`).
///
/// `Error` is [`ErrorMessage`](crate::ErrorMessage) here; `Dead` and `Pong` are variants without
/// a body ([`EntityKind::Dead`](crate::EntityKind::Dead),
/// [`ResponseKind::Pong`](crate::ResponseKind::Pong)).
pub const MESSAGES: &[&str] = &[
    "ServerMessage",
    "Event",
    "EventKind",
    "GameOver",
    "Snapshot",
    "Entity",
    "EntityKind",
    "Object",
    "ObjectKind",
    "Player",
    "Dead",
    "Direction",
    "Point",
    "Response",
    "ResponseKind",
    "Error",
    "Pong",
    "Connect",
    "ClientMessage",
    "Request",
    "RequestKind",
    "Action",
    "Break",
    "Throw",
    "Move",
];

/// The definition of the message with this name: a name of [`MESSAGES`], or the Rust name of a
/// type (`ErrorMessage`).
pub fn definition(name: &str) -> Option<Definition> {
    use crate::*;
    use rabbit::schema::Describe;
    fn of<T: Describe>() -> Definition {
        Definition::of(&T::type_schema())
    }
    fn unit_variant<T: Describe>(name: &str) -> Definition {
        let schema = T::type_schema();
        let Body::Enum { variants, .. } = &schema.body else {
            unreachable!("{} is an enum", schema.name)
        };
        let variant = variants
            .iter()
            .find(|v| v.name == name)
            .expect("the variant exists");
        Definition::of_unit_variant(variant)
    }
    Some(match name {
        "ServerMessage" => of::<ServerMessage>(),
        "Event" => of::<Event>(),
        "EventKind" => of::<EventKind>(),
        "GameOver" => of::<GameOver>(),
        "Snapshot" => of::<Snapshot>(),
        "Entity" => of::<Entity>(),
        "EntityKind" => of::<EntityKind>(),
        "Object" => of::<Object>(),
        "ObjectKind" => of::<ObjectKind>(),
        "Player" => of::<Player>(),
        "Dead" => unit_variant::<EntityKind>("Dead"),
        "Direction" => of::<Direction>(),
        "Point" => of::<Point>(),
        "Response" => of::<Response>(),
        "ResponseKind" => of::<ResponseKind>(),
        "Error" | "ErrorMessage" => of::<ErrorMessage>(),
        "Pong" => unit_variant::<ResponseKind>("Pong"),
        "Connect" => of::<Connect>(),
        "ClientMessage" => of::<ClientMessage>(),
        "Request" => of::<Request>(),
        "RequestKind" => of::<RequestKind>(),
        "Action" => of::<Action>(),
        "Break" => of::<Break>(),
        "Throw" => of::<Throw>(),
        "Move" => of::<Move>(),
        _ => return None,
    })
}

/// The definitions of all [`MESSAGES`], in order.
pub fn definitions() -> Vec<Definition> {
    MESSAGES
        .iter()
        .map(|name| definition(name).expect("every listed message has a definition"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &'static str, encoding: Encoding) -> FieldSchema {
        FieldSchema {
            name,
            doc: "",
            ty: "",
            encoding,
            condition: None,
            skipped: false,
        }
    }

    #[test]
    fn options_lists_and_strings() {
        let schema = TypeSchema {
            name: "Thing",
            doc: "A thing.\n\nMore text.",
            body: Body::Struct(vec![
                field(
                    "holding",
                    Encoding::Option(Box::new(Encoding::Varint {
                        bytes: 4,
                        zigzag: false,
                    })),
                ),
                field(
                    "names",
                    Encoding::List {
                        item: Box::new(Encoding::Float { bits: 32 }),
                        max_len: None,
                    },
                ),
                field("text", Encoding::String { max_len: Some(5) }),
                field(
                    "y",
                    Encoding::Fixed {
                        bits: 12,
                        signed: true,
                    },
                ),
            ]),
            min_bits: 0,
            max_bits: None,
        };
        let text = Definition::of(&schema).to_string();
        assert_eq!(
            text,
            "## Thing\n\nA thing.\n\n### Encoding\n\n\
             - `is_holding` (u1): 1 if `holding` follows\n\
             - `holding` (if `is_holding` = 1 then u32)\n\
             - `count` (u32): the number of items\n\
             - `names` (`count` * f32)\n\
             - `length` (u32): the length in bytes, at most 5\n\
             - `text` (`length` * u8): UTF-8 text\n\
             - `y` (i12)\n"
        );
    }

    #[test]
    fn enums() {
        let unit = |name, index| VariantSchema {
            name,
            doc: "",
            index,
            fields: vec![],
        };
        let all_unit = TypeSchema {
            name: "GameOver",
            doc: "",
            body: Body::Enum {
                tag: Tag::Bits(1),
                variants: vec![unit("Lost", 0), unit("Won", 1)],
            },
            min_bits: 1,
            max_bits: Some(1),
        };
        assert_eq!(
            Definition::of(&all_unit).lines[0].to_string(),
            "- `variant` (u1): 0 = Lost, 1 = Won"
        );
        let mixed = TypeSchema {
            name: "K",
            doc: "",
            body: Body::Enum {
                tag: Tag::Varint { bytes: 4 },
                variants: vec![
                    VariantSchema {
                        name: "A",
                        doc: "an a",
                        index: 0,
                        fields: vec![field("0", Encoding::Float { bits: 32 })],
                    },
                    unit("B", 1),
                ],
            },
            min_bits: 0,
            max_bits: None,
        };
        let lines: Vec<String> = Definition::of(&mixed)
            .lines
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(
            lines,
            [
                "- `variant` (u32): a variable-length integer: 10 bits for an index below 256",
                "- `body` (if `variant` = 0 then f32): an a",
                "- `body` (if `variant` = 1 then `B`)",
            ]
        );
    }

    #[test]
    fn wraps_long_lines() {
        let words = vec!["word"; 40].join(" ");
        let lines = wrap(&words, "", "  ");
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.len() <= 100));
        assert!(lines[1].starts_with("  word"));
    }
}
