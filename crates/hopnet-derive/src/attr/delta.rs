//! The parsers of the delta attributes' values (`delta`, `key`) and of `quantize`, rows of the
//! table in `rules.rs` like the others. A malformed value is recorded in the [`Ctxt`] at its
//! token and gives `None`; parsing goes on.

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Member, Token, UnOp};

use super::Value;
use super::values::{skip_value, string_value};
use crate::ctxt::Ctxt;
use crate::plan::{Codec, DeltaMode};

type Parsed = syn::Result<Option<Value>>;

/// `delta`, or `delta = "per_field"`.
pub fn delta(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    if !meta.input.peek(Token![=]) {
        if meta.input.peek(syn::token::Paren) {
            cx.error(
                meta.path.span(),
                "write `delta`, or `delta = \"per_field\"`",
            );
            skip_value(meta)?;
            return Ok(None);
        }
        return Ok(Some(Value::Delta(DeltaMode::PerStruct)));
    }
    let Some(lit) = string_value(cx, meta, name, "delta = \"per_field\"")? else {
        return Ok(None);
    };
    match lit.value().as_str() {
        "per_field" => Ok(Some(Value::Delta(DeltaMode::PerField))),
        "per_struct" => Ok(Some(Value::Delta(DeltaMode::PerStruct))),
        other => {
            cx.error(
                lit.span(),
                format_args!(
                    "unknown delta layout `{other}`: `per_struct` (the default: one changed bit for the whole value, then its fields) or `per_field` (no bit of its own, only its fields')"
                ),
            );
            Ok(None)
        }
    }
}

/// `key = "id"`: the field of a list's items that identifies them, a path of members
/// (`"id"`, `"meta.id"`, `"0"`).
pub fn key(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, "key = \"id\"")? else {
        return Ok(None);
    };
    match members(&lit) {
        Some(path) => Ok(Some(Value::Key(path, lit.span()))),
        None => {
            cx.error(
                lit.span(),
                "expected the items' key field: `key = \"id\"` (or a path of fields, `key = \"meta.id\"`, `key = \"0\"`)",
            );
            Ok(None)
        }
    }
}

fn members(lit: &LitStr) -> Option<Vec<Member>> {
    let text = lit.value();
    text.split('.')
        .map(|part| {
            let part = part.trim();
            if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                let index = part.parse().ok()?;
                Some(Member::Unnamed(syn::Index {
                    index,
                    span: lit.span(),
                }))
            } else {
                let mut ident = syn::parse_str::<syn::Ident>(part).ok()?;
                ident.set_span(lit.span());
                Some(Member::Named(ident))
            }
        })
        .collect()
}

/// `quantize(range = "A..=B", precision = P)`: a float on a grid.
pub fn quantize(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    const EXAMPLE: &str = "`quantize(range = \"-512.0..=512.0\", precision = 0.01)`";
    if !meta.input.peek(syn::token::Paren) {
        cx.error(meta.path.span(), format_args!("expected {EXAMPLE}"));
        skip_value(meta)?;
        return Ok(None);
    }
    let span = meta.path.span();
    let mut range = None;
    let mut precision = None;
    let mut ok = true;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("range") {
            match string_value(cx, &inner, "range", "range = \"-512.0..=512.0\"")? {
                Some(lit) => match float_range(&lit) {
                    Ok(r) => range = Some(r),
                    Err(msg) => {
                        cx.error(lit.span(), msg);
                        ok = false;
                    }
                },
                None => ok = false,
            }
        } else if inner.path.is_ident("precision") {
            let value: Expr = inner.value()?.parse()?;
            match number(&value) {
                Some(p) if p > 0.0 && p.is_finite() => precision = Some((p, value.span())),
                _ => {
                    cx.error_spanned(
                        &value,
                        "the precision is the grid's step: a positive number, e.g. `precision = 0.01`",
                    );
                    ok = false;
                }
            }
        } else {
            cx.error_spanned(
                &inner.path,
                format_args!("unknown `quantize` option; expected {EXAMPLE}"),
            );
            skip_value(&inner)?;
            ok = false;
        }
        Ok(())
    })?;
    let (Some((min, max)), Some((step, step_span))) = (range, precision) else {
        if ok {
            cx.error(
                span,
                format_args!("`quantize` needs both a range and a precision: {EXAMPLE}"),
            );
        }
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
    Ok(Some(Value::Codec(Codec::Quantize { min, max, step }, span)))
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
