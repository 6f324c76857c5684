//! The lossy float encodings against the field's type: `quantize` on a float or an array of
//! them (a grid per axis needs an array of one to four), each grid fine enough and no finer
//! than its float type holds; `quaternion` on `[f32; 4]` and `unit_vector` on `[f32; 3]` (or
//! a type the spelling cannot judge, left to the codec's trait bound).

use proc_macro2::Span;
use syn::{Expr, ExprLit, Lit, Type};

use super::types::{Kind, classify, ty_string};
use crate::attr::quantize::AXES;
use crate::attr::{Attr, Encoding, Grid};
use crate::ctxt::Ctxt;
use crate::plan::Codec;

/// The codec of a lossy encoding on a field of type `ty`, every misuse reported; `None` for
/// the other encodings.
pub fn codec(cx: &Ctxt, attr: &Attr, encoding: &Encoding, ty: &Type) -> Option<Codec> {
    Some(match encoding {
        Encoding::Quaternion { bits } => {
            shape(
                cx,
                attr,
                ty,
                4,
                "`[f32; 4]` or a type implementing `Quaternion`",
            );
            Codec::Quaternion(*bits)
        }
        Encoding::UnitVector { bits } => {
            shape(
                cx,
                attr,
                ty,
                3,
                "`[f32; 3]` or a type implementing `UnitVector`",
            );
            Codec::UnitVector(*bits)
        }
        Encoding::Quantize { all, axes } => quantize(cx, attr, all, axes, ty),
        _ => return None,
    })
}

fn quantize(
    cx: &Ctxt,
    attr: &Attr,
    all: &Option<Grid>,
    axes: &[(usize, Grid, Span)],
    ty: &Type,
) -> Codec {
    let as_codec = |g: &Grid| (g.min, g.max, g.step);
    let (elem, len) = match array(ty) {
        Some((elem, len)) => (elem, len),
        None => (ty, None),
    };
    let significand = significand(elem);
    if significand == Some(None) {
        cx.error(
            attr.span,
            format_args!(
                "`quantize` applies to `f32` and `f64` fields and arrays of them, not `{}`",
                ty_string(ty)
            ),
        );
    }
    let check = |g: &Grid, at: Span| {
        if let Some(Some(bits)) = significand {
            check_grid(cx, at, elem, g, bits);
        }
    };
    if axes.is_empty() {
        // The parser gives the whole's grid when no axis has one of its own.
        let Some(all) = all else {
            return Codec::Native;
        };
        check(all, attr.span);
        let (min, max, step) = as_codec(all);
        return Codec::Quantize { min, max, step };
    }
    let Some(Some(n)) = len else {
        cx.error(
            attr.span,
            format_args!(
                "a grid per axis (`x(...)`, `y(...)`, ...) needs an array field of one to four floats, `[f32; 3]`, not `{}`",
                ty_string(ty)
            ),
        );
        return Codec::Native;
    };
    if !(1..=4).contains(&n) {
        cx.error(
            attr.span,
            format_args!("a grid per axis is for vectors of one to four axes, not {n}"),
        );
        return Codec::Native;
    }
    let mut grids = Vec::new();
    for (i, axis) in AXES.iter().enumerate().take(n) {
        match axes.iter().find(|(a, ..)| *a == i) {
            Some((_, g, at)) => {
                check(g, *at);
                grids.push(as_codec(g));
            }
            None => match all {
                Some(g) => {
                    check(g, attr.span);
                    grids.push(as_codec(g));
                }
                None => cx.error(
                    attr.span,
                    format_args!(
                        "axis `{axis}` has no grid: give it `{axis}(range = ..., precision = ...)` or give the whole a range and a precision"
                    ),
                ),
            },
        }
    }
    for (a, _, at) in axes.iter().filter(|(a, ..)| *a >= n) {
        cx.error(
            *at,
            format_args!(
                "`{}` is past the last axis of `{}`",
                AXES[*a],
                ty_string(ty)
            ),
        );
    }
    if grids.len() != n {
        return Codec::Native;
    }
    Codec::QuantizeAxes(grids)
}

/// `[f32; N]` for `quaternion` and `unit_vector`, or a type left to the trait bound.
fn shape(cx: &Ctxt, attr: &Attr, ty: &Type, n: usize, needs: &str) {
    let name = attr.rule.name;
    let fits = match array(ty) {
        Some((elem, len)) => {
            matches!(classify(elem), Kind::Float { bits: 32 }) && len.is_none_or(|l| l == Some(n))
        }
        None => matches!(classify(ty), Kind::Unknown),
    };
    if !fits {
        cx.error(
            attr.span,
            format_args!("`{name}` needs {needs}, not `{}`", ty_string(ty)),
        );
    }
}

/// An array type's item and length: `Some(Some(n))` for a literal length, `Some(None)` for
/// one we cannot read (a constant's name).
fn array(ty: &Type) -> Option<(&Type, Option<Option<usize>>)> {
    match ty {
        Type::Group(g) => array(&g.elem),
        Type::Paren(p) => array(&p.elem),
        Type::Array(a) => {
            let len = match &a.len {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(i), ..
                }) => i.base10_parse::<usize>().ok(),
                _ => None,
            };
            Some((&a.elem, Some(len)))
        }
        _ => None,
    }
}

/// Significand bits of `f32` and `f64`, `Some(None)` for a type that is surely not a float,
/// `None` for one we cannot judge.
fn significand(ty: &Type) -> Option<Option<u32>> {
    match classify(ty) {
        Kind::Float { bits: 32 } => Some(Some(f32::MANTISSA_DIGITS)),
        Kind::Float { .. } => Some(Some(f64::MANTISSA_DIGITS)),
        Kind::Unknown => None,
        _ => Some(None),
    }
}

/// A grid the float type can hold: a grid point, rounded to the type, must re-encode as itself
/// (the runtime's rule, `Quantize::fits`, reported here at the attribute).
fn check_grid(cx: &Ctxt, at: Span, ty: &Type, g: &Grid, bits: u32) {
    let largest = g.min.abs().max(g.max.abs());
    let finest = largest / (1u64 << (bits - 2)) as f64;
    if g.step < finest {
        cx.error(
            at,
            format_args!(
                "precision {} is too fine for `{}` at {largest}: its values there are about {:.2e} apart; use at least {finest:.2e}",
                g.step,
                ty_string(ty),
                largest / (1u64 << (bits - 1)) as f64,
            ),
        );
    }
}
