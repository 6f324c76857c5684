//! Byte layouts (`guide::layouts`): the container's byte order, bit order and magic bytes,
//! and each field's `bytes`, `endian`, `to_end`, `byte_len`, `transform`, `computed` and
//! `pad_before`, checked against each other and against the field's type; the codec they
//! select goes into the field's plan.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::{Ident, Type};

use super::cond::{looks_like_field, mentioned};
use super::types::{Kind, classify, computed_inner, is_list, ty_string};
use crate::ast;
use crate::attr::{Attr, Attrs, Value};
use crate::ctxt::Ctxt;
use crate::plan::{Codec, ComputedBy, Condition, Field, FieldLayout, Framed};

/// A container's layout options, as its fields' checks need them.
#[derive(Default)]
pub struct Container {
    /// `endian`: the byte order of its numbers without an encoding (`true`: big-endian).
    pub endian: Option<bool>,
    /// `bit_order = "msb"`.
    pub msb: bool,
    /// `magic = b"..."`: bytes before everything else (an enum's tag included).
    pub magic: Option<Vec<u8>>,
}

/// The container's layout.
pub fn container(cx: &Ctxt, attrs: &Attrs) -> Container {
    let endian = match attrs.get("endian").map(|a| &a.value) {
        Some(Value::Endian(big)) => Some(*big),
        _ => None,
    };
    let msb = attrs.get("bit_order").is_some();
    if let (true, Some(tag)) = (msb, attrs.get("tag")) {
        cx.error(
            tag.span,
            "an enum with `bit_order = \"msb\"` has a tag of plain bits, at the top of its first byte: use `#[bits(N)]`",
        );
    }
    Container {
        endian,
        msb,
        magic: magic(attrs),
    }
}

/// `magic = b"..."` on an item.
pub fn magic(attrs: &Attrs) -> Option<Vec<u8>> {
    match attrs.get("magic").map(|a| &a.value) {
        Some(Value::Magic(bytes)) => Some(bytes.clone()),
        _ => None,
    }
}

/// Resolves the layout options of a struct's or variant's fields (`src` as declared,
/// `fields` as planned so far), in place; returns the zero bits before each field.
pub fn fields(
    cx: &Ctxt,
    layout: &Container,
    src: &[ast::Field<'_>],
    fields: &mut [Field<'_>],
) -> Vec<u32> {
    let names: Vec<Ident> = fields.iter().map(|f| f.binding.clone()).collect();
    let skipped: HashSet<String> = fields
        .iter()
        .filter(|f| f.wire.is_none())
        .map(|f| f.binding.to_string())
        .collect();
    let last_on_wire = fields.iter().rposition(|f| f.wire.is_some());
    let mut pads = vec![0; fields.len()];
    // Which field each `byte_len` names, by index: (length field, framed field).
    let mut frames: Vec<(usize, usize)> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if let Some(a) = src[i].attrs.get("byte_len")
            && let Value::Name(name) = &a.value
        {
            match names.iter().position(|n| n == name) {
                Some(j) if j < i => frames.push((j, i)),
                Some(j) if j == i => cx.error(name.span(), "a field cannot hold its own length"),
                Some(_) => cx.error(
                    name.span(),
                    format_args!(
                        "`{name}` comes after `{}`: the length must come first, since the decoder reads it first",
                        f.name
                    ),
                ),
                None => cx.error(
                    name.span(),
                    format_args!("unknown field `{name}` in `byte_len`"),
                ),
            }
        }
    }
    let computed: Vec<bool> = fields
        .iter()
        .map(|f| computed_inner(f.ty).is_some())
        .collect();
    #[allow(clippy::needless_range_loop)] // each field's plan is updated at the end of its turn
    for i in 0..fields.len() {
        let f = &fields[i];
        if f.wire.is_none() {
            continue;
        }
        let mut field_layout = FieldLayout::default();
        let mut codec = f
            .wire
            .as_ref()
            .map(|w| w.codec.clone())
            .unwrap_or(Codec::Native);
        let mut ty = f.wire.as_ref().map_or(f.ty, |w| w.ty);
        let attrs = &src[i].attrs;

        // A computed field writes its `T`.
        if let Some(inner) = computed_inner(f.ty) {
            ty = inner;
            let by_expr = attrs.get("computed");
            let by_length = frames.iter().find(|(len, _)| *len == i);
            field_layout.computed = match (by_expr, by_length) {
                (Some(a), Some((_, framed))) => {
                    cx.error(
                        a.span,
                        format_args!(
                            "`{}` is the byte length of `{}`, which the derive computes: it takes no `computed` expression",
                            f.name,
                            names[*framed]
                        ),
                    );
                    None
                }
                (Some(a), None) => {
                    expression(cx, a, &names, &computed, i, true).map(ComputedBy::Expr)
                }
                (None, Some((_, framed))) => Some(ComputedBy::LengthOf(names[*framed].clone())),
                (None, None) => {
                    cx.error_spanned(
                        f.ty,
                        format_args!(
                            "`{}` is computed: give it `#[rabbit(computed = \"expr\")]`, or name it in a later field's `byte_len`",
                            f.name
                        ),
                    );
                    None
                }
            };
            if let Some(a) = attrs.get("if") {
                cx.error(
                    a.span,
                    "a computed field is always on the wire: it takes no `if`",
                );
            }
        } else if attrs.get("computed").is_some() {
            cx.error_spanned(
                f.ty,
                format_args!(
                    "`computed` needs a `Computed<T>` field (`hopnet_codec::layout::Computed`): the value holds nothing, the wire a `T` (`{}` is not one)",
                    ty_string(f.ty)
                ),
            );
        } else if frames.iter().any(|(len, _)| *len == i) {
            cx.error_spanned(
                f.ty,
                format_args!(
                    "`{}` holds a byte length, which the derive computes: declare it as `Computed<{}>`",
                    f.name,
                    ty_string(f.ty)
                ),
            );
        }

        // Numbers in whole bytes.
        let field_endian = match attrs.get("endian").map(|a| &a.value) {
            Some(Value::Endian(big)) => Some(*big),
            _ => None,
        };
        if layout.msb
            && let Some(a) = attrs.get("endian").or_else(|| attrs.get("bytes"))
        {
            cx.error(
                a.span,
                "in a `bit_order = \"msb\"` container a number of several bytes is a big-endian bit field: write `#[bits(N)]`",
            );
        }
        let order = field_endian.or(layout.endian);
        if let Some(a) = attrs.get("bytes")
            && let Value::Int(n, lit) = &a.value
        {
            codec = bytes_codec(cx, a, *n, *lit, ty, order, field_endian.is_some());
        } else if let Some(big) = order
            && matches!(codec, Codec::Native)
            && !layout.msb
            && let Some(width) = number_width(cx, ty, field_endian.is_some(), attrs)
        {
            codec = Codec::Bytes { n: width, big };
        } else if let Some(a) = attrs.get("endian")
            && !matches!(codec, Codec::Native)
        {
            cx.error(
                a.span,
                "`endian` sets the byte order of a number in whole bytes: it does not combine with another encoding",
            );
        }

        // Lists with no count.
        let frame = attrs.get("to_end").or_else(|| attrs.get("byte_len"));
        if let Some(a) = frame {
            if !is_list(ty) && !matches!(classify(ty), Kind::Unknown) {
                cx.error(
                    a.span,
                    format_args!(
                        "`{}` applies to a `Vec<T>`, a `String`{}, not `{}`",
                        a.rule.name,
                        if a.rule.name == "byte_len" {
                            " or a type of its own"
                        } else {
                            ""
                        },
                        ty_string(ty)
                    ),
                );
            }
            codec = match codec {
                // A type of its own framed by a byte length (a packet in its frame): its own
                // encoding, which must fill exactly those bytes.
                Codec::Native if a.rule.name == "byte_len" && !is_list(ty) => Codec::Native,
                Codec::Native => Codec::ToEnd(None),
                Codec::MaxLen(n) => Codec::ToEnd(Some(n)),
                _ => {
                    cx.error(
                        a.span,
                        format_args!(
                            "`{}` lists have no encoding of their own: their items use theirs, and only `max_len` may bound them",
                            a.rule.name
                        ),
                    );
                    Codec::ToEnd(None)
                }
            };
        }
        let around = super::ends::Around {
            names: &names,
            skipped: &skipped,
            at: i,
            name: &f.name,
        };
        if let Some((ends_codec, ends)) = super::ends::resolve(cx, attrs, ty, &codec, &around) {
            codec = ends_codec;
            field_layout.ends = ends;
        }
        if let Some(a) = attrs.get("to_end")
            && Some(i) != last_on_wire
        {
            cx.error(
                a.span,
                "a list to the end of the input must be the last field: nothing after it could be read",
            );
        }
        if let Some((len, _)) = frames.iter().find(|(_, framed)| *framed == i) {
            let transform = attrs
                .get("transform")
                .and_then(|a| expression(cx, a, &names, &computed, i, false));
            if transform.is_some() {
                codec = Codec::Transformed;
            }
            field_layout.framed = Some(Framed {
                len: names[*len].clone(),
                transform,
            });
        } else if let Some(a) = attrs.get("transform") {
            cx.error(
                a.span,
                "a transformed field is framed by its length in bytes: add `byte_len = \"field\"` naming an earlier `Computed<u32>` (or any width) field",
            );
        }

        if let Some(a) = attrs.get("pad_before")
            && let Value::Int(n, lit) = &a.value
        {
            if *n > 64 {
                cx.error(
                    *lit,
                    "`pad_before` takes at most 64 bits; split wider padding",
                );
            } else {
                pads[i] = *n as u32;
            }
        }

        if let Some(wire) = fields[i].wire.as_mut() {
            wire.codec = codec;
            wire.ty = ty;
            wire.layout = field_layout;
        }
    }
    pads
}

/// The codec of `bytes = N` on a field of type `ty`.
fn bytes_codec(
    cx: &Ctxt,
    attr: &Attr,
    n: u64,
    lit: Span,
    ty: &Type,
    order: Option<bool>,
    field_endian: bool,
) -> Codec {
    let number = |bits: u32| {
        if n > 8 || n * 8 > bits as u64 {
            cx.error(
                lit,
                format_args!(
                    "`{}` has {} bytes; `bytes = {n}` is wider than the type",
                    ty_string(ty),
                    bits / 8
                ),
            );
        }
        match order {
            Some(big) => Codec::Bytes { n: n as u32, big },
            None => {
                cx.error(
                    attr.span,
                    "a number in bytes needs a byte order: `endian = \"big\"` or `\"little\"`, on the field or its container",
                );
                Codec::Bytes {
                    n: n as u32,
                    big: true,
                }
            }
        }
    };
    match classify(ty) {
        Kind::Int { bits, .. } => number(bits),
        Kind::Bool => number(8),
        Kind::Float { bits } => {
            if n * 8 != bits as u64 {
                cx.error(
                    lit,
                    format_args!("a float takes its whole width: `bytes = {}`", bits / 8),
                );
            }
            number(bits)
        }
        Kind::Unknown => number(64),
        Kind::Wide => {
            cx.error(
                attr.span,
                "a 16-byte integer does not fit a word of bytes: use `with`",
            );
            Codec::Native
        }
        Kind::NotInt if is_list(ty) => {
            if field_endian {
                cx.error(attr.span, "a string or byte list has no byte order");
            }
            Codec::FixedLen(n)
        }
        Kind::NotInt => {
            cx.error(
                attr.span,
                format_args!(
                    "`bytes = N` applies to numbers (their width) and to `String` or `Vec<u8>` (their exact length), not `{}`",
                    ty_string(ty)
                ),
            );
            Codec::Native
        }
    }
}

/// The width of a number field in a container (or with a field) that sets a byte order:
/// `None` for fields it does not apply to (their own encoding stays).
fn number_width(cx: &Ctxt, ty: &Type, field_endian: bool, attrs: &Attrs) -> Option<u32> {
    match classify(ty) {
        Kind::Int { bits, .. } => Some(bits / 8),
        Kind::Bool => Some(1),
        Kind::Float { bits } => Some(bits / 8),
        Kind::Wide => {
            cx.error_spanned(
                ty,
                "a 16-byte integer does not fit a word of bytes: use `with`",
            );
            None
        }
        _ if field_endian => {
            if let Some(a) = attrs.get("endian") {
                cx.error(
                    a.span,
                    format_args!(
                        "`endian` applies to integers, `bool` and floats, not `{}`",
                        ty_string(ty)
                    ),
                );
            }
            None
        }
        _ => None,
    }
}

/// A `computed` expression (`computed_field`) or a `transform` one: the fields it names.
///
/// A computed value may use every field but itself and computed fields after it (the encoder
/// computes them in order; the decoder checks them once everything is read). A transform is
/// evaluated before its field is read, so it may use earlier fields only.
fn expression(
    cx: &Ctxt,
    attr: &Attr,
    names: &[Ident],
    computed: &[bool],
    at: usize,
    computed_field: bool,
) -> Option<Condition> {
    let Value::Cond(expr, lit) = &attr.value else {
        return None;
    };
    let what = attr.rule.name;
    let mut uses: Vec<Ident> = Vec::new();
    for (ident, is_path) in mentioned(expr) {
        let name = ident.to_string();
        match names.iter().position(|n| *n == name) {
            Some(j) if j == at => cx.error(
                ident.span(),
                format_args!("the {what} expression of `{name}` cannot use the field itself"),
            ),
            Some(j) if j > at && (!computed_field || computed[j]) => cx.error(
                ident.span(),
                if computed_field {
                    format!(
                        "`{name}` is computed after this field: a computed value may use the computed fields before it"
                    )
                } else {
                    format!(
                        "`{name}` comes after this field: a transform is made before the field is read, from earlier fields"
                    )
                },
            ),
            Some(_) if !uses.iter().any(|u| *u == name) => {
                uses.push(Ident::new(&name, ident.span()));
            }
            Some(_) => {}
            None if is_path && name == "self" => cx.error(
                ident.span(),
                format_args!("`self` is not available in a {what} expression: name the fields"),
            ),
            None if is_path && looks_like_field(&name) => cx.error(
                ident.span(),
                format_args!("unknown field `{name}` in the {what} expression"),
            ),
            None => {}
        }
    }
    Some(Condition {
        expr: expr.clone(),
        text: lit.value(),
        uses,
    })
}
