//! The generated half of the dissector: one Lua reader per type of the schema, each building the
//! value in the JSON form `rabbit-msg decode` prints, and one Wireshark field per named field.

use super::DissectorError;
use crate::codegen::model::{FieldDef, Fields, Model, TagWire, TypeBody, TypeDef};
use crate::codegen::wire::Wire;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The Wireshark fields of named fields: `(key, abbreviation, label)`.
pub(super) type Registered = BTreeSet<(String, String, String)>;

/// `text` as a Lua 5.2 string literal (Wireshark's Lua): printable ASCII as it is, every
/// other byte as a decimal escape, which Lua 5.2 reads whatever the byte (it has no `\u`).
pub(super) fn lua_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for &b in text.as_bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\{b:03}");
            }
        }
    }
    out.push('"');
    out
}

/// The Lua that defines `R`, every type's reader, and `READERS`, every message's reader by
/// name; the fields it shows values in are added to `fields`.
pub(super) fn readers(model: &Model, fields: &mut Registered) -> Result<String, DissectorError> {
    let mut out = String::new();
    for t in &model.types {
        out.push_str(&reader(t, fields)?);
    }
    for m in &model.messages {
        let expr = expr(&m.wire, &m.name)?;
        let _ = writeln!(
            out,
            "READERS[{}] = function(r) return {expr} end",
            lua_string(&m.name)
        );
    }
    Ok(out)
}

/// The Lua that declares the readers' tables and registers `fields`, to go before the readers.
pub(super) fn prelude(fields: &Registered) -> String {
    let mut registered = String::new();
    for (key, abbrev, label) in fields {
        let _ = writeln!(
            registered,
            "F[{}] = ProtoField.string({}, {})",
            lua_string(key),
            lua_string(abbrev),
            lua_string(label)
        );
    }
    format!("local F = {{}}\nlocal R = {{}}\nlocal READERS = {{}}\n\n{registered}\n")
}

/// The expression that reads one `wire` value from `r` as a node.
pub(super) fn expr(wire: &Wire, path: &str) -> Result<String, DissectorError> {
    let refuse = |what: &str| {
        Err(DissectorError::new(
            path,
            format!("{what} has no Lua reader"),
        ))
    };
    Ok(match wire {
        Wire::Null => "null(r)".into(),
        Wire::Bool => "boolean(r)".into(),
        Wire::Bits {
            bits,
            signed: false,
            ..
        } => format!("uint(r, {bits})"),
        Wire::Bits {
            bits, signed: true, ..
        } => {
            if *bits > 53 && *bits != 64 {
                return refuse(&format!("a signed integer of {bits} plain bits"));
            }
            format!("sint(r, {bits})")
        }
        Wire::Varint { bytes, zigzag } => {
            if *bytes > 8 {
                return refuse("a 128-bit integer");
            }
            format!("varint(r, {bytes}, {zigzag})")
        }
        Wire::Range {
            min, bits, wide, ..
        } => {
            if *wide {
                return refuse("a range beyond 53 bits");
            }
            format!("range(r, {min}, {bits})")
        }
        Wire::Float { bits } => format!("f{bits}(r)"),
        Wire::Option(inner) => format!("option(r, {})", item_fn(inner, path)?),
        Wire::List {
            item,
            item_min_bits,
            max_len,
        } => format!(
            "list(r, {item_min_bits}, {}, {})",
            max_len.map_or("nil".into(), |n| n.to_string()),
            item_fn(item, path)?
        ),
        Wire::String { max_len } => format!(
            "str(r, {})",
            max_len.map_or("nil".into(), |n| n.to_string())
        ),
        Wire::Array { item, len } => format!("fixed(r, {len}, {})", item_fn(item, path)?),
        Wire::Tuple(items) => {
            let mut body = String::from("(function(r) local a = array(r.pos) ");
            for (i, item) in items.iter().enumerate() {
                let _ = write!(body, "a.items[{}] = {} ", i + 1, expr(item, path)?);
            }
            body.push_str("a.to = r.pos return a end)(r)");
            body
        }
        Wire::Type(name) => format!("R[{}](r)", lua_string(name)),
    })
}

/// A function that reads one item.
pub(super) fn item_fn(item: &Wire, path: &str) -> Result<String, DissectorError> {
    Ok(match item {
        Wire::Type(name) => format!("R[{}]", lua_string(name)),
        item => format!("function(r) return {} end", expr(item, path)?),
    })
}

/// `R[name]`: the reader of a type.
fn reader(t: &TypeDef, fields: &mut Registered) -> Result<String, DissectorError> {
    let name = &t.name;
    let mut out = format!(
        "R[{}] = function(r)\n  local from = r.pos\n",
        lua_string(name)
    );
    match &t.body {
        TypeBody::Struct(body) => {
            let value = read_fields(&mut out, body, name, fields)?;
            let _ = writeln!(out, "  return {value}");
        }
        TypeBody::Enum { tag, variants } => {
            let tag = match tag {
                TagWire::Bits(bits) => format!("bits(r, {bits})"),
                TagWire::Varint => "varint_raw(r, 4)".into(),
            };
            let _ = writeln!(out, "  local index = {tag}");
            for (i, v) in variants.iter().enumerate() {
                let keyword = if i == 0 { "if" } else { "elseif" };
                let _ = writeln!(out, "  {keyword} index == {} then", v.index);
                if let Fields::Unit = v.fields {
                    let _ = writeln!(
                        out,
                        "    local u = leaf({}, nil, from, r.pos)\n    u.variant = {}\n    return u",
                        lua_string(&format!("\"{}\"", v.name)),
                        v.index
                    );
                    continue;
                }
                let label = format!("{name}.{}", v.name);
                let value = read_fields(&mut out, &v.fields, &label, fields)?;
                let field = register(fields, name, &v.name);
                let _ = writeln!(
                    out,
                    "    local o = object(from)\n    member(o, {}, {value}, {field})\n    \
                     o.variant = {}\n    o.to = r.pos\n    return o",
                    lua_string(&v.name),
                    v.index
                );
            }
            if variants.is_empty() {
                let _ = writeln!(out, "  do");
            } else {
                let _ = writeln!(out, "  else");
            }
            let _ = writeln!(
                out,
                "    fail(r, \"unknown variant \" .. index .. \" of \" .. {})\n  end",
                lua_string(name)
            );
        }
    }
    out.push_str("end\n\n");
    Ok(out)
}

/// The Wireshark field of `label.name` (registered once), as a Lua expression.
pub(super) fn register(fields: &mut Registered, label: &str, name: &str) -> String {
    let key = format!("{label}.{name}");
    let abbrev: String = format!("hopnet.{key}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    fields.insert((key.clone(), abbrev, name.to_string()));
    format!("F[{}]", lua_string(&key))
}

/// Reads the fields of a struct or variant into locals `v0`, `v1`, … (indented for a variant's
/// branch), and returns the expression of the whole value.
fn read_fields(
    out: &mut String,
    body: &Fields,
    label: &str,
    fields: &mut Registered,
) -> Result<String, DissectorError> {
    let list: &[FieldDef] = body.list();
    for (i, f) in list.iter().enumerate() {
        let read = expr(&f.wire, &f.path)?;
        match &f.condition {
            None => {
                let _ = writeln!(out, "    local v{i} = {read}");
            }
            Some(cond) => {
                let test = cond.to_lua(&|j| format!("v{j}.raw"), &|j| format!("(not v{j}.none)"));
                let _ = writeln!(
                    out,
                    "    local v{i}\n    if {test} then v{i} = {read} else \
                     v{i} = leaf(\"null\", nil, r.pos, r.pos) v{i}.none = true end"
                );
            }
        }
    }
    Ok(whole_value(
        out,
        body,
        label,
        fields,
        "leaf(\"null\", nil, from, r.pos)",
        "    ",
    ))
}

/// Builds the value of a struct or variant from its fields' locals `v0`, `v1`, … (`unit` for
/// one without fields), each named field in its Wireshark field; the value's expression.
pub(super) fn whole_value(
    out: &mut String,
    body: &Fields,
    label: &str,
    fields: &mut Registered,
    unit: &str,
    indent: &str,
) -> String {
    match body {
        Fields::Unit => unit.into(),
        Fields::Inline(_) => "v0".into(),
        Fields::Tuple(items) => {
            let _ = writeln!(out, "{indent}local a = array(from)");
            for i in 0..items.len() {
                let _ = writeln!(out, "{indent}a.items[{}] = v{i}", i + 1);
            }
            let _ = writeln!(out, "{indent}a.to = r.pos");
            "a".into()
        }
        Fields::Named(named) => {
            let _ = writeln!(out, "{indent}local s = object(from)");
            for (i, f) in named.iter().enumerate() {
                let field = register(fields, label, &f.name);
                let _ = writeln!(
                    out,
                    "{indent}member(s, {}, v{i}, {field})",
                    lua_string(&f.name)
                );
            }
            let _ = writeln!(out, "{indent}s.to = r.pos");
            "s".into()
        }
    }
}
