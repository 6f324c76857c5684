//! The generated readers: one `readX(r)` per type, building the value in its JSON form.

use super::super::condition::Cond;
use super::super::model::{FieldDef, Fields, TagWire, TypeBody, TypeDef};
use super::super::names::{property, string_literal};
use super::super::wire::Wire;
use super::varint_method;

/// The expression that reads one `wire` value from `r`.
pub(super) fn expr(wire: &Wire) -> String {
    match wire {
        Wire::Null => "null".into(),
        Wire::Bool => "r.bool()".into(),
        Wire::Bits { bits, signed, wide } => {
            let method = match (signed, wide) {
                (false, false) => "bits",
                (true, false) => "signedBits",
                (false, true) => "wideBits",
                (true, true) => "wideSignedBits",
            };
            format!("r.{method}({bits})")
        }
        Wire::Varint { bytes, zigzag } => format!("r.{}({bytes})", varint_method(*bytes, *zigzag)),
        Wire::Range {
            min,
            max,
            bits,
            wide,
        } => {
            if *wide {
                format!("r.wideRange({min}n, {max}n, {bits})")
            } else {
                format!("r.range({min}, {max}, {bits})")
            }
        }
        Wire::Float { bits } => format!("r.f{bits}()"),
        Wire::Option(inner) => format!("r.bool() ? {} : null", expr(inner)),
        Wire::List {
            item,
            item_min_bits,
            max_len,
        } => format!(
            "r.list({item_min_bits}, {}, {})",
            max_len.map_or("null".into(), |n| n.to_string()),
            item_fn(item)
        ),
        Wire::String { max_len } => {
            format!(
                "r.string({})",
                max_len.map_or("null".into(), |n| n.to_string())
            )
        }
        Wire::Array { item, len } => format!("r.array({len}, {})", item_fn(item)),
        Wire::Tuple(items) => {
            let items: Vec<String> = items.iter().map(expr).collect();
            format!("[{}]", items.join(", "))
        }
        Wire::Type(name) => format!("read{name}(r)"),
    }
}

/// A function that reads one item: the type's reader itself, or an arrow function (typed, so
/// that a tuple stays a tuple).
pub(super) fn item_fn(item: &Wire) -> String {
    match item {
        Wire::Type(name) => format!("read{name}"),
        item => {
            let body = expr(item);
            // An item that reads nothing (`()`) leaves the reader unused.
            let r = if uses(&body, 'r') { "r" } else { "_r" };
            format!("({r}: BitReader): {} => {body}", item.ts_type())
        }
    }
}

/// `readX`: the reader of a type.
pub(super) fn reader(t: &TypeDef) -> String {
    let name = &t.name;
    let mut out = String::new();
    match &t.body {
        TypeBody::Struct(fields) => {
            let (statements, result) = read_fields(fields);
            for s in statements {
                out.push_str(&format!("  {s}\n"));
            }
            out.push_str(&format!("  return {result};\n"));
        }
        TypeBody::Enum { tag, variants } => {
            let tag = match tag {
                TagWire::Bits(bits) => format!("r.bits({bits})"),
                TagWire::Varint => "r.varint(4)".into(),
            };
            out.push_str(&format!("  const index = {tag};\n  switch (index) {{\n"));
            for v in variants {
                let (statements, result) = read_fields(&v.fields);
                let value = match &v.fields {
                    Fields::Unit => string_literal(&v.name),
                    _ => format!("{{ {}: {result} }}", property(&v.name)),
                };
                if statements.is_empty() {
                    out.push_str(&format!("    case {}:\n      return {value};\n", v.index));
                } else {
                    out.push_str(&format!("    case {}: {{\n", v.index));
                    for s in statements {
                        out.push_str(&format!("      {s}\n"));
                    }
                    out.push_str(&format!("      return {value};\n    }}\n"));
                }
            }
            out.push_str(&format!(
                "    default:\n      throw r.unknownVariant({}, index);\n  }}\n",
                string_literal(name)
            ));
        }
    }
    // A type that reads nothing (a unit struct) leaves its reader unused.
    let r = if uses(&out, 'r') { "r" } else { "_r" };
    format!("function read{name}({r}: BitReader): {name} {{\n{out}}}\n")
}

/// Whether generated code uses the parameter `name` (`r` or `w`): calls a method of it or
/// passes it on.
pub(super) fn uses(code: &str, name: char) -> bool {
    [
        format!("{name}."),
        format!("({name})"),
        format!("({name},"),
        format!(" {name})"),
    ]
    .iter()
    .any(|pattern| code.contains(pattern.as_str()))
}

/// The statements that read the fields into locals, and the expression of the value.
fn read_fields(fields: &Fields) -> (Vec<String>, String) {
    let list = fields.list();
    // One field without a condition needs no local.
    if let Fields::Inline(f) = fields
        && f.condition.is_none()
    {
        return (Vec::new(), expr(&f.wire));
    }
    let statements = list
        .iter()
        .enumerate()
        .map(|(i, f)| read_field(f, &list[..i]))
        .collect();
    let result = match fields {
        Fields::Unit => "null".into(),
        Fields::Inline(f) => f.local.clone(),
        Fields::Tuple(fs) => {
            let locals: Vec<&str> = fs.iter().map(|f| f.local.as_str()).collect();
            format!("[{}]", locals.join(", "))
        }
        Fields::Named(fs) => {
            let props: Vec<String> = fs
                .iter()
                .map(|f| {
                    if property(&f.name) == f.local {
                        f.local.clone()
                    } else {
                        format!("{}: {}", property(&f.name), f.local)
                    }
                })
                .collect();
            format!("{{ {} }}", props.join(", "))
        }
    };
    (statements, result)
}

/// `const field = ...;`: a field read into its local.
fn read_field(f: &FieldDef, before: &[FieldDef]) -> String {
    let value = expr(&f.wire);
    let value = match &f.condition {
        None => value,
        Some(cond) => format!("{} ? {value} : null", condition(cond, before)),
    };
    if needs_type(&f.wire) {
        format!("const {}: {} = {value};", f.local, f.ts_type())
    } else {
        format!("const {} = {value};", f.local)
    }
}

/// Whether a local needs its type written: an array literal is a tuple only where its type
/// says so.
fn needs_type(wire: &Wire) -> bool {
    match wire {
        Wire::Tuple(_) => true,
        Wire::Option(inner) => needs_type(inner),
        _ => false,
    }
}

/// A condition over the locals already read.
fn condition(cond: &Cond, before: &[FieldDef]) -> String {
    let scope = FieldDef::scope(before);
    let text = cond.to_ts(&scope, &|i| before[i].local.clone());
    if text.contains(' ') {
        format!("({text})")
    } else {
        text
    }
}
