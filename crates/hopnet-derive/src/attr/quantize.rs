//! The parsers of the lossy float encodings: `quantize` (a grid, for a float or a vector, one
//! for all axes or one per axis), `quaternion(bits = B)` and `unit_vector(bits = B)`. Rows of
//! the table in `rules.rs` like the others; a malformed value is recorded in the [`Ctxt`] at
//! its token and gives `None`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

use super::parse::{skip_value, string_value};
use super::value::{Encoding, Grid, Value};
use crate::ctxt::Ctxt;

type Parsed = syn::Result<Option<Value>>;

const EXAMPLE: &str = "`quantize(range = \"-512.0..=512.0\", precision = 0.01)`";

/// The axes a vector's grid can be given for, in order.
pub const AXES: [&str; 4] = ["x", "y", "z", "w"];

/// A grid as written: either half may be missing (an axis takes the whole's).
#[derive(Default)]
struct Partial {
    range: Option<(f64, f64)>,
    step: Option<(f64, Span)>,
}

/// `quantize(range = "A..=B", precision = P)`, on a float or a vector; for a vector also
/// `x(...)`, `y(...)`, `z(...)`, `w(...)`, each axis's own range or precision or both, the
/// rest from the whole's.
pub fn quantize(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    if !meta.input.peek(syn::token::Paren) {
        cx.error(meta.path.span(), format_args!("expected {EXAMPLE}"));
        skip_value(meta)?;
        return Ok(None);
    }
    let span = meta.path.span();
    let mut whole = Partial::default();
    let mut axes: Vec<(usize, Partial, Span)> = Vec::new();
    let mut ok = true;
    meta.parse_nested_meta(|inner| {
        if let Some(axis) = AXES.iter().position(|a| inner.path.is_ident(a)) {
            let at = inner.path.span();
            if axes.iter().any(|(i, ..)| *i == axis) {
                cx.error(at, format_args!("duplicate axis `{}`", AXES[axis]));
                skip_value(&inner)?;
                ok = false;
            } else if !inner.input.peek(syn::token::Paren) {
                cx.error(
                    at,
                    format_args!(
                        "expected the axis's own grid: `{}(range = \"0.0..=8.0\", precision = 0.01)`",
                        AXES[axis]
                    ),
                );
                skip_value(&inner)?;
                ok = false;
            } else {
                let mut own = Partial::default();
                inner.parse_nested_meta(|option| {
                    ok &= grid_option(cx, &option, &mut own, "`quantize` axis")?;
                    Ok(())
                })?;
                axes.push((axis, own, at));
            }
        } else {
            ok &= grid_option(cx, &inner, &mut whole, "`quantize`")?;
        }
        Ok(())
    })?;
    if !ok {
        return Ok(None);
    }
    let all = complete(cx, &whole, &whole)?;
    if axes.is_empty() {
        let Some(all) = all else {
            cx.error(
                span,
                format_args!("`quantize` needs both a range and a precision: {EXAMPLE}"),
            );
            return Ok(None);
        };
        return Ok(Some(Value::Encoding(
            Encoding::Quantize {
                all: Some(all),
                axes: Vec::new(),
            },
            span,
        )));
    }
    let mut grids = Vec::new();
    for (axis, own, at) in &axes {
        let name = format!("axis `{}`", AXES[*axis]);
        match complete(cx, own, &whole)? {
            Some(grid) => grids.push((*axis, grid, *at)),
            None => {
                cx.error(
                    *at,
                    format_args!(
                        "{name} needs a range and a precision, its own or the whole's: `{}(range = \"0.0..=8.0\", precision = 0.01)`",
                        AXES[*axis]
                    ),
                );
                ok = false;
            }
        }
    }
    Ok(ok.then_some(Value::Encoding(
        Encoding::Quantize { all, axes: grids },
        span,
    )))
}

/// One of `range = "A..=B"` and `precision = P`, into `grid`; `false` if malformed.
fn grid_option(
    cx: &Ctxt,
    option: &ParseNestedMeta<'_>,
    grid: &mut Partial,
    whose: &str,
) -> syn::Result<bool> {
    if option.path.is_ident("range") {
        match string_value(cx, option, "range", "range = \"-512.0..=512.0\"")? {
            Some(lit) => match float_range(&lit) {
                Ok(r) => grid.range = Some(r),
                Err(msg) => {
                    cx.error(lit.span(), msg);
                    return Ok(false);
                }
            },
            None => return Ok(false),
        }
    } else if option.path.is_ident("precision") {
        let value: Expr = option.value()?.parse()?;
        match number(&value) {
            Some(p) if p > 0.0 && p.is_finite() => grid.step = Some((p, value.span())),
            _ => {
                cx.error_spanned(
                    &value,
                    "the precision is the grid's step: a positive number, e.g. `precision = 0.01`",
                );
                return Ok(false);
            }
        }
    } else {
        cx.error_spanned(
            &option.path,
            format_args!(
                "unknown {whose} option; expected {EXAMPLE}, with `x(...)`, `y(...)`, `z(...)`, `w(...)` for a vector's own axes"
            ),
        );
        skip_value(option)?;
        return Ok(false);
    }
    Ok(true)
}

/// The grid of `own`, its missing half from `whole`; `None` if still incomplete. A grid of
/// more than 2^64 points is an error at the precision.
fn complete(cx: &Ctxt, own: &Partial, whole: &Partial) -> syn::Result<Option<Grid>> {
    let (Some((min, max)), Some((step, step_span))) =
        (own.range.or(whole.range), own.step.or(whole.step))
    else {
        return Ok(None);
    };
    let steps = (max - min) / step;
    if steps >= u64::MAX as f64 {
        cx.error(
            step_span,
            format_args!("{steps:e} steps from {min} to {max}: a grid holds at most 2^64 points"),
        );
        return Ok(None);
    }
    Ok(Some(Grid { min, max, step }))
}

/// `quaternion(bits = B)`: smallest three, `B` bits a component.
pub fn quaternion(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    Ok(bits_option(cx, meta, name, 9, 4..=20)?
        .map(|(bits, span)| Value::Encoding(Encoding::Quaternion { bits }, span)))
}

/// `unit_vector(bits = B)`: octahedral, `B` bits a coordinate.
pub fn unit_vector(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    Ok(bits_option(cx, meta, name, 12, 4..=24)?
        .map(|(bits, span)| Value::Encoding(Encoding::UnitVector { bits }, span)))
}

/// `name(bits = B)` with `B` in `allowed`, and the span of the option's name.
fn bits_option(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &str,
    example: u32,
    allowed: std::ops::RangeInclusive<u32>,
) -> syn::Result<Option<(u32, Span)>> {
    let span = meta.path.span();
    let expected = format!("`{name}(bits = {example})`");
    if !meta.input.peek(syn::token::Paren) {
        cx.error(span, format_args!("expected {expected}"));
        skip_value(meta)?;
        return Ok(None);
    }
    let mut bits = None;
    let mut ok = true;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("bits") {
            let value: Expr = inner.value()?.parse()?;
            match number(&value) {
                Some(b) if b.fract() == 0.0 && allowed.contains(&(b as u32)) && b >= 0.0 => {
                    bits = Some(b as u32);
                }
                _ => {
                    cx.error_spanned(
                        &value,
                        format_args!(
                            "`{name}` takes {} to {} bits per component",
                            allowed.start(),
                            allowed.end()
                        ),
                    );
                    ok = false;
                }
            }
        } else {
            cx.error_spanned(
                &inner.path,
                format_args!("unknown `{name}` option; expected {expected}"),
            );
            skip_value(&inner)?;
            ok = false;
        }
        Ok(())
    })?;
    match bits {
        Some(bits) => Ok(Some((bits, span))),
        None => {
            if ok {
                cx.error(
                    span,
                    format_args!("`{name}` needs its bits per component: {expected}"),
                );
            }
            Ok(None)
        }
    }
}

/// `A..=B`, floats with optional signs.
fn float_range(lit: &LitStr) -> Result<(f64, f64), String> {
    let text = lit.value();
    let (a, b) = text
        .split_once("..=")
        .ok_or_else(|| format!("expected an inclusive range `A..=B`, found `{text}`"))?;
    let num = |s: &str| -> Result<f64, String> {
        let s = s.trim().replace('_', "");
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(format!("`{s}` is not a finite number; expected `A..=B`")),
        }
    };
    let (min, max) = (num(a)?, num(b)?);
    if min >= max {
        return Err(format!(
            "empty range: {min} is not less than {max}; a grid needs room"
        ));
    }
    Ok((min, max))
}

/// A number literal, maybe negated.
fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<u64>().ok().map(|v| v as f64),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|v| -v),
        _ => None,
    }
}
