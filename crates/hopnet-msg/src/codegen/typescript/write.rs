//! The generated writers: one `writeX(w, value)` per type, which checks a value in the JSON
//! form against the schema (whatever its static type claims) as it writes it.

use super::super::condition::Operand;
use super::super::model::{FieldDef, Fields, TagWire, TypeBody, TypeDef};
use super::super::names::string_literal;
use super::super::wire::Wire;
use super::read::uses;
use super::varint_method;

/// The expression that checks `value` and gives it typed, for the wires a condition can read
/// (booleans and numbers); `None` for the others.
fn checked(wire: &Wire, value: &str, path: &str) -> Option<String> {
    let path = string_literal(path);
    Some(match wire {
        Wire::Bool => format!("Expect.bool({value}, {path})"),
        Wire::Float { .. } => format!("Expect.float({value}, {path})"),
        w if w.is_number() => {
            let (min, max) = bounds(w);
            if w.is_wide() {
                format!("Expect.wide({value}, {min}n, {max}n, {path})")
            } else {
                format!("Expect.integer({value}, {min}, {max}, {path})")
            }
        }
        _ => return None,
    })
}

/// The statement that writes a value `checked` gave.
fn put(wire: &Wire, value: &str) -> String {
    match wire {
        Wire::Bool => format!("w.bool({value});"),
        Wire::Float { bits } => format!("w.f{bits}({value});"),
        Wire::Bits { bits, signed, wide } => match (signed, wide) {
            (false, false) => format!("w.bits({value}, {bits});"),
            (true, false) => format!("w.signedBits({value}, {bits});"),
            (_, true) => format!("w.bigBits({value}, {bits});"),
        },
        Wire::Varint { bytes, zigzag } => {
            format!("w.{}({value}, {bytes});", varint_method(*bytes, *zigzag))
        }
        Wire::Range {
            min, bits, wide, ..
        } => {
            if *wide {
                format!("w.wideRange({value}, {min}n, {bits});")
            } else {
                format!("w.range({value}, {min}, {bits});")
            }
        }
        _ => unreachable!("put is only called for the wires `checked` takes"),
    }
}

/// The values an integer wire holds (its Rust type's, or its range), as literals.
fn bounds(wire: &Wire) -> (String, String) {
    let signed = |bits: u32| (i128::MIN >> (128 - bits), i128::MAX >> (128 - bits));
    let unsigned = |bits: u32| (0, u128::MAX >> (128 - bits));
    match *wire {
        Wire::Bits { bits: 0, .. } => ("0".into(), "0".into()),
        Wire::Bits {
            bits,
            signed: false,
            ..
        } => text(unsigned(bits)),
        Wire::Bits {
            bits, signed: true, ..
        } => text(signed(bits)),
        Wire::Varint {
            bytes,
            zigzag: false,
        } => text(unsigned(8 * bytes)),
        Wire::Varint {
            bytes,
            zigzag: true,
        } => text(signed(8 * bytes)),
        Wire::Range { min, max, .. } => text((min, max)),
        _ => unreachable!("bounds of a wire that is not an integer"),
    }
}

fn text(bounds: (impl ToString, impl ToString)) -> (String, String) {
    (bounds.0.to_string(), bounds.1.to_string())
}

/// The statements that check and write `value` (an expression read once) as `wire`.
fn write(wire: &Wire, value: &str, path: &str, indent: &str, out: &mut Vec<String>) {
    if let Some(checked) = checked(wire, value, path) {
        out.push(format!("{indent}{}", put(wire, &checked)));
        return;
    }
    let quoted = string_literal(path);
    let line = match wire {
        Wire::Null => format!("Expect.null({value}, {quoted});"),
        Wire::Option(inner) => {
            if is_simple(value) {
                out.push(format!("{indent}w.bool(!Expect.absent({value}));"));
                out.push(format!("{indent}if (!Expect.absent({value})) {{"));
                write(inner, value, path, &format!("{indent}  "), out);
                out.push(format!("{indent}}}"));
            } else {
                // A block of its own, so that its local cannot meet another.
                let local = format!("$some{}", indent.len() / 2);
                out.push(format!("{indent}{{"));
                out.push(format!("{indent}  const {local} = {value};"));
                write(wire, &local, path, &format!("{indent}  "), out);
                out.push(format!("{indent}}}"));
            }
            return;
        }
        Wire::List {
            item,
            item_min_bits,
            max_len,
        } => format!(
            "w.list({value}, {item_min_bits}, {}, {quoted}, {});",
            max_len.map_or("null".into(), |n| n.to_string()),
            item_fn(item, &format!("{path}[]"))
        ),
        Wire::String { max_len } => format!(
            "w.string({value}, {}, {quoted});",
            max_len.map_or("null".into(), |n| n.to_string())
        ),
        Wire::Array { item, len } => format!(
            "w.array({value}, {len}, {quoted}, {});",
            item_fn(item, &format!("{path}[]"))
        ),
        Wire::Tuple(items) => {
            let local = format!("$items{}", indent.len() / 2);
            let inner = format!("{indent}  ");
            out.push(format!("{indent}{{"));
            out.push(format!(
                "{inner}const {local} = Expect.tuple({value}, {}, {quoted});",
                items.len()
            ));
            for (i, item) in items.iter().enumerate() {
                write(
                    item,
                    &format!("{local}[{i}]"),
                    &format!("{path}.{i}"),
                    &inner,
                    out,
                );
            }
            out.push(format!("{indent}}}"));
            return;
        }
        Wire::Type(name) => format!("write{name}(w, {value});"),
        _ => unreachable!("`checked` takes the other wires"),
    };
    out.push(format!("{indent}{line}"));
}

/// Whether `value` is a plain name, which can be read twice.
fn is_simple(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A function that writes one item: the type's writer, or an arrow function.
pub(super) fn item_fn(item: &Wire, path: &str) -> String {
    if let Wire::Type(name) = item {
        return format!("write{name}");
    }
    let mut body = Vec::new();
    write(item, "item", path, "", &mut body);
    let body: Vec<&str> = body.iter().map(|line| line.trim()).collect();
    // An item that writes nothing (`()`) leaves the writer unused.
    let w = if body.iter().any(|line| uses(line, 'w')) {
        "w"
    } else {
        "_w"
    };
    if body.len() == 1 {
        format!("({w}, item) => {}", body[0].trim_end_matches(';'))
    } else {
        format!("({w}, item) => {{ {} }}", body.join(" "))
    }
}

/// `writeX`: the writer of a type.
pub(super) fn writer(t: &TypeDef) -> String {
    let name = &t.name;
    let mut out = String::new();
    match &t.body {
        TypeBody::Struct(fields) => {
            let mut lines = Vec::new();
            write_fields(fields, "value", name, "  ", &mut lines);
            for line in lines {
                out.push_str(&format!("{line}\n"));
            }
        }
        TypeBody::Enum { tag, variants } => {
            out.push_str(&format!(
                "  const [variant, body, bare] = Expect.variant(value, {});\n  switch (variant) {{\n",
                string_literal(name)
            ));
            for v in variants {
                let path = format!("{name}::{}", v.name);
                let quoted = string_literal(&path);
                out.push_str(&format!("    case {}: {{\n", string_literal(&v.name)));
                let tag = match tag {
                    TagWire::Bits(bits) => format!("w.bits({}, {bits});", v.index),
                    TagWire::Varint => format!("w.varint({}, 4);", v.index),
                };
                let mut lines = vec![format!("      {tag}")];
                match &v.fields {
                    Fields::Unit => {
                        lines.push(format!("      Expect.noBody(body, bare, {quoted});"))
                    }
                    fields => {
                        lines.push(format!("      Expect.body(body, bare, {quoted});"));
                        write_fields(fields, "body", &path, "      ", &mut lines);
                    }
                }
                for line in lines {
                    out.push_str(&format!("{line}\n"));
                }
                out.push_str("      return;\n    }\n");
            }
            out.push_str(&format!(
                "    default:\n      throw Expect.unknownVariant(variant, {});\n  }}\n",
                string_literal(name)
            ));
        }
    }
    // A type that writes nothing (a unit struct) leaves its writer unused.
    let w = if uses(&out, 'w') { "w" } else { "_w" };
    format!("function write{name}({w}: BitWriter, value: unknown): void {{\n{out}}}\n")
}

/// The statements that check and write the fields of the struct or variant `label`, whose
/// value is `value`.
fn write_fields(fields: &Fields, value: &str, label: &str, indent: &str, out: &mut Vec<String>) {
    let quoted = string_literal(label);
    // How each field's value is reached from the whole's.
    match fields {
        Fields::Unit => out.push(format!("{indent}Expect.null({value}, {quoted});")),
        Fields::Inline(f) => write_field(f, value, &[], indent, out),
        Fields::Tuple(fs) => {
            out.push(format!(
                "{indent}const fields = Expect.tuple({value}, {}, {quoted});",
                fs.len()
            ));
            for (i, f) in fs.iter().enumerate() {
                write_field(f, &format!("fields[{i}]"), &fs[..i], indent, out);
            }
        }
        Fields::Named(fs) => {
            let names: Vec<String> = fs.iter().map(|f| string_literal(&f.name)).collect();
            out.push(format!(
                "{indent}const fields = Expect.record({value}, {quoted}, [{}]);",
                names.join(", ")
            ));
            for (i, f) in fs.iter().enumerate() {
                let value = format!("fields[{}]", string_literal(&f.name));
                write_field(f, &value, &fs[..i], indent, out);
            }
        }
    }
}

/// The statements of one field: a field a later condition reads is bound to its local first.
fn write_field(
    f: &FieldDef,
    value: &str,
    before: &[FieldDef],
    indent: &str,
    out: &mut Vec<String>,
) {
    let Some(cond) = &f.condition else {
        if f.referenced {
            if let Some(checked) = checked(&f.wire, value, &f.path) {
                out.push(format!("{indent}const {} = {checked};", f.local));
                out.push(format!("{indent}{}", put(&f.wire, &f.local)));
                return;
            }
            // An optional field, which a condition asks `is_some()` of.
            out.push(format!("{indent}const {} = {value};", f.local));
            write(&f.wire, &f.local, &f.path, indent, out);
            return;
        }
        if matches!(f.wire, Wire::Option(_) | Wire::Tuple(_)) {
            // Read more than once: bound to the field's local first.
            out.push(format!("{indent}const {} = {value};", f.local));
            write(&f.wire, &f.local, &f.path, indent, out);
            return;
        }
        write(&f.wire, value, &f.path, indent, out);
        return;
    };
    debug_assert!(matches!(f.operand, Operand::Optional));
    let scope = FieldDef::scope(before);
    let condition = cond.to_ts(&scope, &|i| before[i].local.clone());
    let path = string_literal(&f.path);
    let local = &f.local;
    out.push(format!("{indent}const {local} = {value};"));
    out.push(format!("{indent}if ({condition}) {{"));
    out.push(format!(
        "{indent}  if (Expect.absent({local})) throw Expect.conditionMismatch({path}, true);"
    ));
    write(&f.wire, local, &f.path, &format!("{indent}  "), out);
    out.push(format!("{indent}}} else if (!Expect.absent({local})) {{"));
    out.push(format!(
        "{indent}  throw Expect.conditionMismatch({path}, false);"
    ));
    out.push(format!("{indent}}}"));
}
