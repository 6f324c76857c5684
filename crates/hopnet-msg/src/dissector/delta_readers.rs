//! The generated readers of deltas: for every `#[rabbit(delta)]` type of the schema, `D[name]`
//! reads its delta against a baseline node and `C[name]` what follows its changed bit, laid out
//! as the derive writes them (`hopnet_codec::delta`; the rules' Lua is `deltas.lua`).
//!
//! What decides the layout is in the schema: the type's [`DeltaLayout`], a list's `key`, a
//! field's condition, and whether a field has an encoding attribute (then a change is the
//! value whole, as its codec writes it: [`FieldDelta`]).

use super::DissectorError;
use super::readers::{Registered, expr, item_fn, lua_string, register, whole_value};
use crate::codegen::model::{FieldDef, FieldDelta, Fields, Model, TypeBody, TypeDef};
use crate::codegen::wire::Wire;
use hopnet_codec::schema::DeltaLayout;
use std::collections::HashMap;
use std::fmt::Write as _;

/// What a struct's or variant's fields write when the value changed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inner {
    /// Each field's delta (its changed bit, then its changes).
    Deltas,
    /// The one field's changes, its bit being the whole value's.
    Changes,
}

struct Gen<'m> {
    types: HashMap<&'m str, &'m TypeDef>,
}

/// The Lua of `D[name]` and `C[name]` for every delta type of `model`.
pub(super) fn readers(model: &Model, fields: &mut Registered) -> Result<String, DissectorError> {
    let g = Gen {
        types: model.types.iter().map(|t| (t.name.as_str(), t)).collect(),
    };
    let mut out = String::new();
    for t in &model.types {
        if let Some(layout) = t.delta {
            out.push_str(&g.type_readers(t, layout, fields)?);
        }
    }
    Ok(out)
}

impl Gen<'_> {
    /// A Lua expression reading the delta of a `wire` value against the node `b`.
    fn delta_expr(&self, wire: &Wire, b: &str, path: &str) -> Result<String, DissectorError> {
        Ok(match wire {
            Wire::Null => b.to_string(),
            Wire::Type(name) => self.typed("D", name, b),
            _ => format!("delta_bit(r, {b}, {})", self.changes_fn(wire, path)?),
        })
    }

    /// A Lua function `(r, b)` reading the delta of a `wire` value.
    fn delta_fn(&self, wire: &Wire, path: &str) -> Result<String, DissectorError> {
        Ok(match wire {
            Wire::Type(name) if self.has_delta(name) => format!("D[{}]", lua_string(name)),
            _ => format!(
                "function(r, b) return {} end",
                self.delta_expr(wire, "b", path)?
            ),
        })
    }

    /// A Lua function `(r, b)` reading the changes of a `wire` value after its changed bit.
    fn changes_fn(&self, wire: &Wire, path: &str) -> Result<String, DissectorError> {
        Ok(match wire {
            Wire::Null => "function(r, b) return b end".into(),
            Wire::Type(name) if self.has_delta(name) => format!("C[{}]", lua_string(name)),
            Wire::Type(name) => format!("function(r, b) return {} end", self.typed("C", name, "b")),
            Wire::Float { bits: 32 } => "f32_changes".into(),
            Wire::Float { .. } => "f64_changes".into(),
            Wire::Option(inner) => format!(
                "function(r, b) return option_changes(r, b, {}, {}) end",
                item_fn(inner, path)?,
                self.changes_fn(inner, path)?
            ),
            Wire::List {
                item,
                item_min_bits,
                ..
            } => format!(
                "function(r, b) return list_changes(r, b, {item_min_bits}, {}, {}) end",
                item_fn(item, path)?,
                self.delta_fn(item, path)?
            ),
            Wire::Array { item, len } => format!(
                "function(r, b) return fixed_changes(r, b, {len}, {}) end",
                self.delta_fn(item, path)?
            ),
            Wire::Tuple(items) => {
                let mut body = String::from("function(r, b) local a = array(r.pos) ");
                for (i, item) in items.iter().enumerate() {
                    let base = format!("b.items[{}]", i + 1);
                    let _ = write!(
                        body,
                        "a.items[{}] = {} ",
                        i + 1,
                        self.delta_expr(item, &base, path)?
                    );
                }
                body.push_str("a.to = r.pos return a end");
                body
            }
            // A value that changes as a whole: the value again.
            leaf => format!("function(r) return {} end", expr(leaf, path)?),
        })
    }

    fn has_delta(&self, name: &str) -> bool {
        self.types.get(name).is_some_and(|t| t.delta.is_some())
    }

    /// `D[name](r, b)` or `C[name](r, b)`; a type without deltas cannot be in one (the derive
    /// would not compile it), so that is a decoding error rather than a refused schema.
    fn typed(&self, table: &str, name: &str, b: &str) -> String {
        if self.has_delta(name) {
            format!("{table}[{}](r, {b})", lua_string(name))
        } else {
            let why = format!("{name} has no delta layout (`#[rabbit(delta)]`)");
            format!("fail(r, {})", lua_string(&why))
        }
    }

    fn type_readers(
        &self,
        t: &TypeDef,
        layout: DeltaLayout,
        registered: &mut Registered,
    ) -> Result<String, DissectorError> {
        let name = lua_string(&t.name);
        let mut out = String::new();
        match &t.body {
            TypeBody::Struct(fields) => {
                let one = fields.list().len() == 1;
                let (changes, delta) = match layout {
                    DeltaLayout::PerStruct if one => (Inner::Changes, Some(Inner::Deltas)),
                    DeltaLayout::PerStruct => (Inner::Deltas, None),
                    DeltaLayout::PerField => (Inner::Deltas, Some(Inner::Deltas)),
                };
                let body = self.fields("b", fields, changes, &t.name, registered)?;
                let _ = write!(
                    out,
                    "C[{name}] = function(r, b)\n  local from = r.pos\n{body}end\n\n"
                );
                match delta {
                    Some(inner) => {
                        let body = self.fields("b", fields, inner, &t.name, registered)?;
                        let _ = write!(
                            out,
                            "D[{name}] = function(r, b)\n  local from = r.pos\n{body}end\n\n"
                        );
                    }
                    None => {
                        let _ = write!(
                            out,
                            "D[{name}] = function(r, b) return delta_bit(r, b, C[{name}]) end\n\n"
                        );
                    }
                }
            }
            TypeBody::Enum { variants, .. } => {
                let several = variants.len() > 1;
                let mut body = String::from("  local from = r.pos\n");
                if several {
                    // `0`: another variant than the baseline's, whole.
                    let _ = writeln!(body, "  if bits(r, 1) == 0 then return R[{name}](r) end");
                }
                body.push_str("  local index = b.variant\n");
                for (i, v) in variants.iter().enumerate() {
                    let keyword = if i == 0 { "if" } else { "elseif" };
                    let _ = writeln!(body, "  {keyword} index == {} then", v.index);
                    if let Fields::Unit = v.fields {
                        body.push_str("    return b\n");
                        continue;
                    }
                    let inner = match layout {
                        DeltaLayout::PerStruct if v.fields.list().len() == 1 => Inner::Changes,
                        _ => Inner::Deltas,
                    };
                    let label = format!("{}.{}", t.name, v.name);
                    let _ = writeln!(body, "    local bv = b.items[1]");
                    let fields_body = self.fields("bv", &v.fields, inner, &label, registered)?;
                    // The variant's value, then the object naming the variant.
                    let fields_body = match fields_body.rsplit_once("  return ") {
                        Some((reads, value)) => format!("{reads}  local value = {value}"),
                        None => fields_body,
                    };
                    body.push_str(&indent(&fields_body));
                    let field = register(registered, &t.name, &v.name);
                    let _ = writeln!(
                        body,
                        "    local o = object(from)\n    member(o, {}, value, {field})\n    \
                         o.variant = index\n    o.to = r.pos\n    return o",
                        lua_string(&v.name)
                    );
                }
                if variants.is_empty() {
                    body.push_str("  do\n");
                } else {
                    body.push_str("  else\n");
                }
                let _ = writeln!(
                    body,
                    "    fail(r, \"a baseline that is no variant of \" .. {name})\n  end"
                );
                let _ = write!(out, "C[{name}] = function(r, b)\n{body}end\n\n");
                match layout {
                    DeltaLayout::PerStruct => {
                        let _ = write!(
                            out,
                            "D[{name}] = function(r, b) return delta_bit(r, b, C[{name}]) end\n\n"
                        );
                    }
                    DeltaLayout::PerField => {
                        let _ = write!(out, "D[{name}] = C[{name}]\n\n");
                    }
                }
            }
        }
        Ok(out)
    }

    /// Reads the fields of a struct or variant against the baseline node `b` into `v0`, `v1`,
    /// … (each field's baseline in `b0`, `b1`, …), then returns the value.
    fn fields(
        &self,
        b: &str,
        body: &Fields,
        inner: Inner,
        label: &str,
        registered: &mut Registered,
    ) -> Result<String, DissectorError> {
        let mut out = String::new();
        let list = body.list();
        for (i, f) in list.iter().enumerate() {
            let base = match body {
                Fields::Inline(_) => b.to_string(),
                _ => format!("{b}.items[{}]", i + 1),
            };
            let _ = writeln!(out, "  local b{i} = {base}");
            let _ = writeln!(out, "  local v{i} = {}", self.field(f, i, inner)?);
        }
        let value = whole_value(&mut out, body, label, registered, b, "  ");
        let _ = writeln!(out, "  return {value}");
        Ok(out)
    }

    /// The expression reading field `f` (the `i`th) against its baseline `b{i}`.
    fn field(&self, f: &FieldDef, i: usize, inner: Inner) -> Result<String, DissectorError> {
        let b = format!("b{i}");
        let path = &f.path;
        let whole = format!("function(r) return {} end", expr(&f.wire, path)?);
        if let Some(cond) = &f.condition {
            let test = cond.to_lua(&|j| format!("v{j}.raw"), &|j| format!("(not v{j}.none)"));
            let present = format!("(({test}) and true or false)");
            return Ok(match inner {
                Inner::Deltas => format!(
                    "cond_delta(r, {b}, {present}, {whole}, {})",
                    lua_string(path)
                ),
                Inner::Changes => format!("cond_changes(r, {present}, {whole})"),
            });
        }
        if f.delta == FieldDelta::Keyed {
            let Wire::List {
                item,
                item_min_bits,
                ..
            } = &f.wire
            else {
                return Err(DissectorError::new(
                    path,
                    "a key on a value that is not a list",
                ));
            };
            let changes = format!(
                "keyed_changes(r, {{b}}, {item_min_bits}, {}, {})",
                item_fn(item, path)?,
                self.delta_fn(item, path)?
            );
            return Ok(match inner {
                Inner::Deltas => format!(
                    "delta_bit(r, {b}, function(r, b) return {} end)",
                    changes.replace("{b}", "b")
                ),
                Inner::Changes => changes.replace("{b}", &b),
            });
        }
        if f.delta == FieldDelta::Whole {
            // An encoding attribute: a change is the value whole, as its codec writes it.
            return Ok(match inner {
                Inner::Deltas => format!("delta_bit(r, {b}, {whole})"),
                Inner::Changes => format!("({whole})(r)"),
            });
        }
        match inner {
            Inner::Deltas => self.delta_expr(&f.wire, &b, path),
            Inner::Changes => Ok(format!("({})(r, {b})", self.changes_fn(&f.wire, path)?)),
        }
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}
