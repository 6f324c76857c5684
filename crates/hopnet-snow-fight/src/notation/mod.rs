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

mod lines;
mod messages;
#[cfg(test)]
mod tests;
mod text;

pub use messages::{MESSAGES, definition, definitions};

use hopnet_codec::schema::{Body, TypeSchema, VariantSchema};
use lines::{enum_lines, fields_lines};
use std::fmt;
use text::{first_paragraph, wrap};

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
