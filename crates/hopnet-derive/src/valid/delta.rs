//! Delta encoding: `delta` on the container and `key` on its list fields, checked against the
//! types as far as their spelling tells.

use syn::Type;

use super::types::ty_string;
use crate::ast::{self, Input};
use crate::attr::{Attrs, Value};
use crate::ctxt::Ctxt;
use crate::plan::{Body, Delta, DeltaMode, Field};

/// The delta plan, if the container asks for one; reports every misplaced `key`.
pub fn resolve(cx: &Ctxt, input: &Input<'_>, body: &Body<'_>) -> Option<Delta> {
    let mode = match input.attrs.get("delta").map(|a| &a.value) {
        Some(Value::Delta { per_field: true }) => Some(DeltaMode::PerField),
        Some(Value::Delta { per_field: false }) => Some(DeltaMode::PerStruct),
        _ => None,
    };
    if let (Some(attr), Some(into), Some(from)) = (
        input.attrs.get("delta"),
        input.attrs.get("into"),
        input
            .attrs
            .get("from")
            .or_else(|| input.attrs.get("try_from")),
    ) && let (Value::Type(into), Value::Type(from)) = (&into.value, &from.value)
        && ty_string(into) != ty_string(from)
    {
        cx.error(
            attr.span,
            format_args!(
                "the deltas of a value written as another type are that type's: `into` and `{}` must name the same type",
                input.attrs.get("from").map_or("try_from", |_| "from")
            ),
        );
    }
    if mode.is_some() {
        refuse_layouts(cx, input);
    }
    // The fields as planned, beside the same fields as declared (none if the container is
    // written as another type).
    let planned: Vec<&Field<'_>> = match body {
        Body::Struct(fields) => fields.list.iter().collect(),
        Body::Enum { variants, .. } => variants.iter().flat_map(|v| &v.fields.list).collect(),
    };
    let declared: Vec<&ast::Field<'_>> = match &input.body {
        ast::Body::Struct(_, fields) => fields.iter().collect(),
        ast::Body::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    };
    let mut keys = Vec::new();
    for (field, src) in planned.into_iter().zip(declared) {
        let Some(attr) = src.attrs.get("key") else {
            continue;
        };
        let Value::Key(path, span) = &attr.value else {
            continue;
        };
        if mode.is_none() {
            cx.error(
                attr.span,
                "`key` is for delta encoding: the container needs `#[rabbit(delta)]`",
            );
        } else if !is_vec(field.ty) {
            cx.error(
                *span,
                format_args!(
                    "`key` applies to a `Vec<T>` field, not `{}`",
                    ty_string(field.ty)
                ),
            );
        } else if let Some(other) = src
            .attrs
            .list
            .iter()
            .find(|a| a.rule.name != "key" && a.rule.name != "skip")
        {
            cx.error(
                other.span,
                format_args!(
                    "`{}` cannot stand beside `key`: a keyed list is written as its own type, a `u32` count and the items",
                    other.rule.name
                ),
            );
        } else {
            keys.push((field.uid, path.clone()));
        }
    }
    mode.map(|mode| Delta { mode, keys })
}

fn is_vec(ty: &Type) -> bool {
    match ty {
        Type::Group(g) => is_vec(&g.elem),
        Type::Paren(p) => is_vec(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| s.ident == "Vec")
        }
        _ => false,
    }
}

/// The byte-layout options a delta cannot carry: its bits are its own format, read in order
/// against a baseline, so nothing in it may be framed by a length, run to the end of the
/// input, be counted by other fields or ended by a terminator, be computed from the rest, or be
/// read most significant bit first.
const NOT_WITH_DELTA: &[&str] = &[
    "bit_order",
    "magic",
    "to_end",
    "byte_len",
    "transform",
    "computed",
    "pad_before",
    "count",
    "until",
];

fn refuse_layouts(cx: &Ctxt, input: &Input<'_>) {
    let mut items: Vec<&Attrs> = vec![&input.attrs];
    match &input.body {
        ast::Body::Struct(_, fields) => items.extend(fields.iter().map(|f| &f.attrs)),
        ast::Body::Enum(variants) => {
            for v in variants {
                items.push(&v.attrs);
                items.extend(v.fields.iter().map(|f| &f.attrs));
            }
        }
    }
    for attr in items.iter().flat_map(|a| &a.list) {
        if NOT_WITH_DELTA.contains(&attr.rule.name) {
            cx.error(
                attr.span,
                format_args!(
                    "`{}` does not go with `delta`: a delta is read bit by bit against its baseline, so its fields are neither framed, computed, padded nor read most significant bit first",
                    attr.rule.name
                ),
            );
        }
    }
}
