//! Fields: each one's wire plan (skipped, or its codec, the type the codec writes and its
//! condition), and the checks of an encoding against the field's type.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::{Ident, Type};

use super::cond::condition_uses;
use super::layout::Container;
use super::place;
use super::quantize::codec as lossy;
use super::types::{Kind, classify, is_list, option_inner, ty_string};
use crate::ast;
use crate::attr::rules::{Group, Place};
use crate::attr::{Attr, Encoding, Value};
use crate::ctxt::Ctxt;
use crate::plan::{Codec, Condition, Field, Wire};

/// The plans of a struct's or variant's fields, in a container laid out as `container`, and
/// the padding before each field.
pub fn plan<'a>(
    cx: &Ctxt,
    fields: &'a [ast::Field<'a>],
    container: &Container,
) -> (Vec<Field<'a>>, Vec<u32>) {
    let names: Vec<Ident> = fields.iter().map(|f| f.binding.clone()).collect();
    let skipped: HashSet<String> = fields
        .iter()
        .filter(|f| f.attrs.get("skip").is_some())
        .map(|f| f.binding.to_string())
        .collect();
    let mut planned: Vec<Field<'a>> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            place::check(cx, &f.attrs, Place::Field);
            let wire = f.attrs.get("skip").is_none().then(|| {
                let mut wire = wire(cx, f);
                if let Some(Value::Cond(expr, lit)) = f.attrs.get("if").map(|a| &a.value) {
                    let uses = condition_uses(
                        cx,
                        expr,
                        &names[..i],
                        &names[i..],
                        &skipped,
                        &f.name(),
                        "condition",
                    );
                    wire.cond = Some(Condition {
                        expr: expr.clone(),
                        text: lit.value(),
                        uses,
                    });
                }
                wire
            });
            Field {
                member: f.member.clone(),
                binding: f.binding.clone(),
                ty: f.ty,
                name: f.name(),
                ty_text: ty_string(f.ty),
                doc: &f.attrs.doc,
                uid: f.uid,
                wire,
            }
        })
        .collect();
    let pads = super::layout::fields(cx, container, fields, &mut planned);
    (planned, pads)
}

/// The codec and the type it writes: `T` of an `if` field's `Option<T>`.
fn wire<'a>(cx: &Ctxt, f: &'a ast::Field<'a>) -> Wire<'a> {
    let mut ty = f.ty;
    if f.attrs.get("if").is_some() {
        match option_inner(f.ty) {
            Some(inner) => ty = inner,
            None => cx.error_spanned(
                f.ty,
                format_args!(
                    "`if` needs an `Option<T>` field: the value is `Some` exactly when the condition is true (`{}` is not an Option)",
                    ty_string(f.ty)
                ),
            ),
        }
    }
    let encoding = f
        .attrs
        .list
        .iter()
        // `bytes` depends on the container's byte order: `valid/layout.rs` resolves it.
        .find(|a| {
            a.rule.groups.contains(&(Place::Field, Group::Encoding)) && a.rule.name != "bytes"
        });
    let codec = match encoding.map(|a| (a, &a.value)) {
        Some((a, Value::Int(n, lit))) => {
            let codec = Codec::Fixed(*n as u32);
            check(cx, &codec, a, *lit, ty);
            codec
        }
        Some((a, Value::Encoding(encoding, span))) => {
            if let Some(codec) = lossy(cx, a, encoding, ty) {
                return Wire {
                    codec,
                    ty,
                    cond: None,
                    layout: Default::default(),
                };
            }
            let codec = codec(encoding);
            check(cx, &codec, a, *span, ty);
            codec
        }
        _ => Codec::Native,
    };
    Wire {
        codec,
        ty,
        cond: None,
        layout: Default::default(),
    }
}

/// The codec an encoding option selects.
fn codec(encoding: &Encoding) -> Codec {
    match encoding {
        Encoding::Varint => Codec::Varint,
        Encoding::ZigZag => Codec::ZigZag,
        Encoding::CString => Codec::CString,
        Encoding::Leb128 => Codec::Leb128,
        Encoding::Leb128Signed => Codec::Leb128Signed,
        Encoding::Leb128ZigZag => Codec::Leb128ZigZag,
        Encoding::Range { min, max } => Codec::Range {
            min: *min,
            max: *max,
        },
        Encoding::MaxLen(n) => Codec::MaxLen(n.clone()),
        Encoding::With(path) => Codec::With(path.clone()),
        // Resolved against the type in `valid/quantize.rs`.
        Encoding::Quantize { .. } | Encoding::Quaternion { .. } | Encoding::UnitVector { .. } => {
            Codec::Native
        }
    }
}

/// Checks an encoding against the type it writes, as far as the type's spelling tells; a type
/// it cannot judge is left to the codec's trait bounds.
fn check(cx: &Ctxt, codec: &Codec, attr: &Attr, value_span: Span, ty: &Type) {
    let name = attr.rule.name;
    let not_for = |what: &str| cx.error(attr.span, format_args!("{what}, not `{}`", ty_string(ty)));
    match (codec, classify(ty)) {
        // The lossy encodings are checked in `valid/quantize.rs`.
        (_, Kind::Unknown)
        | (
            Codec::Native
            | Codec::With(_)
            | Codec::Quantize { .. }
            | Codec::QuantizeAxes(_)
            | Codec::Quaternion(_)
            | Codec::UnitVector(_),
            _,
        ) => {}
        (Codec::Fixed(n), Kind::Int { bits, .. }) if *n > bits => cx.error(
            value_span,
            format_args!(
                "`{}` has only {bits} bits; `#[bits({n})]` is wider than the type",
                ty_string(ty)
            ),
        ),
        (Codec::Fixed(n), Kind::Bool) if *n != 1 => cx.error(
            value_span,
            format_args!("a `bool` takes one bit; `#[bits({n})]` must be `#[bits(1)]`"),
        ),
        (Codec::Fixed(_), Kind::Int { .. } | Kind::Bool) => {}
        (Codec::Fixed(_), _) => not_for(
            "`#[bits(N)]` applies to integer (u8..u64, i8..i64, usize, isize) and bool fields",
        ),
        (Codec::Varint, Kind::Int { .. }) => {}
        (Codec::Varint, _) => {
            not_for("`varint` applies to integer fields (u8..u64, i8..i64, usize)")
        }
        (Codec::Leb128, Kind::Int { .. }) => {}
        (Codec::Leb128, _) => {
            not_for("`leb128` applies to integer fields (u8..u64, i8..i64, usize, isize)")
        }
        (
            Codec::ZigZag | Codec::Leb128Signed | Codec::Leb128ZigZag,
            Kind::Int { signed: true, .. },
        ) => {}
        (
            Codec::ZigZag | Codec::Leb128Signed | Codec::Leb128ZigZag,
            Kind::Int { signed: false, .. },
        ) => {
            let instead = if matches!(codec, Codec::ZigZag) {
                "varint"
            } else {
                "leb128"
            };
            cx.error(
                attr.span,
                format_args!(
                    "`{name}` is for signed integers; `{}` is unsigned (use `{instead}`)",
                    ty_string(ty)
                ),
            )
        }
        (Codec::ZigZag | Codec::Leb128Signed | Codec::Leb128ZigZag, _) => not_for(&format!(
            "`{name}` applies to signed integer fields (i8..i64, isize)"
        )),
        (Codec::CString, _) if ty_string(ty) == "String" => {}
        (Codec::CString, _) => not_for("`cstring` applies to `String` fields"),
        (Codec::Range { min, max }, Kind::Int { bits, signed }) => {
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if *min < lo || *max > hi {
                cx.error(
                    value_span,
                    format_args!(
                        "the range {min}..={max} does not fit `{}` ({lo}..={hi})",
                        ty_string(ty)
                    ),
                );
            }
        }
        (Codec::Range { .. }, _) => not_for(&format!("`{name}` applies to integer fields")),
        (Codec::MaxLen(_), _) if is_list(ty) => {}
        (Codec::MaxLen(_), _) => not_for(
            "`max_len` applies to `Vec<T>`, `String`, `str` and slices (also behind `&`, `Box`, `Rc`, `Arc`)",
        ),
        // Chosen and checked by `valid/layout.rs`.
        (
            Codec::Bytes { .. }
            | Codec::FixedLen(_)
            | Codec::ToEnd(_)
            | Codec::Transformed
            | Codec::Counted(_)
            | Codec::UntilByte(..)
            | Codec::UntilItem(_),
            _,
        ) => {}
    }
}
