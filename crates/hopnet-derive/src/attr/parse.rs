//! The parsers of the attributes' values, one per row of the table in `rules.rs`. A malformed
//! value is recorded in the [`Ctxt`] at its token and gives `None`; parsing goes on.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Token, WherePredicate};

use super::value::{Encoding, Value};
use crate::ctxt::Ctxt;

type Parsed = syn::Result<Option<Value>>;

/// A flag without a value: `skip`.
pub fn flag(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        cx.error(
            meta.path.span(),
            format_args!("`{name}` takes no value: write `{name}`"),
        );
        skip_value(meta)?;
    }
    Ok(Some(Value::Flag))
}

/// A flag that names its encoding outright (`varint`, `leb128`, ...; [`Encoding::named`]).
pub fn named_encoding(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let Some(encoding) = Encoding::named(name) else {
        return Err(meta.error(format_args!("no encoding is named `{name}`")));
    };
    Ok(flag(cx, meta, name)?.map(|_| Value::Encoding(encoding, meta.path.span())))
}

pub fn crate_path(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    string_of(
        cx,
        meta,
        name,
        "crate = \"path\"",
        |path, _| Value::Path(path),
        |_| "expected a crate path, e.g. `crate = \"::hopnet_codec\"`".into(),
    )
}

pub fn bound(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, "bound = \"T: Trait\"")? else {
        return Ok(None);
    };
    Ok(
        match lit.parse_with(Punctuated::<WherePredicate, Token![,]>::parse_terminated) {
            Ok(preds) => Some(Value::Bound(preds.into_iter().collect())),
            Err(err) => {
                cx.error(
                    lit.span(),
                    format_args!(
                        "expected where-clause predicates, e.g. `bound = \"T: hopnet_codec::Encode\"`: {err}"
                    ),
                );
                None
            }
        },
    )
}

/// A type: `from = "u8"`.
pub fn ty(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let example = format!("{name} = \"Type\"");
    string_of(
        cx,
        meta,
        name,
        &example,
        |ty, _| Value::Type(ty),
        |_| format!("expected a type: `{example}`"),
    )
}

pub fn tag(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    only_word(
        cx,
        meta,
        name,
        "varint",
        "unknown tag encoding: the only one is `tag = \"varint\"` (a `u32` variable-length integer); use `#[bits(N)]` for a fixed width",
    )
}

pub fn index(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    let value: Expr = meta.value()?.parse()?;
    let Expr::Lit(ExprLit {
        lit: Lit::Int(lit), ..
    }) = &value
    else {
        cx.error_spanned(&value, "expected an integer literal: `index = K`");
        return Ok(None);
    };
    Ok(match lit.base10_parse::<u64>() {
        Ok(k) => Some(Value::Int(k, lit.span())),
        Err(_) => {
            cx.error(lit.span(), "a variant index must fit a u64");
            None
        }
    })
}

/// `bits` inside `#[rabbit(...)]`: the width is an attribute of its own.
pub fn bits_in_rabbit(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    cx.error(
        meta.path.span(),
        "write the width as its own attribute: `#[bits(N)]`",
    );
    skip_value(meta)?;
    Ok(None)
}

/// `#[bits(N)]`: `N` from 1 to 64.
pub fn bits(cx: &Ctxt, attr: &syn::Attribute) -> Option<Value> {
    let Ok(lit) = attr.parse_args::<syn::LitInt>() else {
        cx.error_spanned(
            attr,
            "expected a bit width: `#[bits(N)]` with N an integer from 1 to 64",
        );
        return None;
    };
    match lit.base10_parse::<u32>() {
        Ok(n) if (1..=64).contains(&n) => Some(Value::Int(n.into(), lit.span())),
        _ => {
            cx.error(
                lit.span(),
                format_args!(
                    "`#[bits({})]`: the width must be from 1 to 64 bits",
                    lit.base10_digits()
                ),
            );
            None
        }
    }
}

pub fn range(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, "range = \"A..=B\"")? else {
        return Ok(None);
    };
    Ok(match parse_range(&lit) {
        Ok((min, max)) if min > max => {
            cx.error(
                lit.span(),
                format_args!("empty range: {min} is greater than {max}"),
            );
            None
        }
        Ok((min, max)) => Some(Value::Encoding(Encoding::Range { min, max }, lit.span())),
        Err(msg) => {
            cx.error(lit.span(), msg);
            None
        }
    })
}

pub fn with(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let codec = |path, lit: &LitStr| Value::Encoding(Encoding::With(path), lit.span());
    string_of(cx, meta, name, "with = \"module::path\"", codec, |_| {
        "expected the path of a module with `encode` and `decode` functions".into()
    })
}

pub fn condition(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let cond = |expr, lit: &LitStr| Value::Cond(expr, lit.clone());
    string_of(cx, meta, name, "if = \"expression\"", cond, |err| {
        format!("the condition is not a Rust expression: {err}")
    })
}

/// `count = "expr"`: an expression of earlier fields.
pub fn count(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let cond = |expr, lit: &LitStr| Value::Cond(expr, lit.clone());
    string_of(cx, meta, name, "count = \"field\"", cond, |err| {
        format!("the count is not a Rust expression: {err}")
    })
}

/// `until = B` (a byte, 0 to 255) or `until = "predicate"` (a closure or function on an item).
pub fn until(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    const EXAMPLE: &str = "until = 0` or `until = \"|item: &T| ...\"";
    if !has_value(cx, meta, name, EXAMPLE)? {
        return Ok(None);
    }
    let value: Expr = meta.value()?.parse()?;
    match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => Ok(match lit.base10_parse::<u8>() {
            Ok(b) => Some(Value::Int(b.into(), lit.span())),
            Err(_) => {
                cx.error(
                    lit.span(),
                    format_args!(
                        "`until = {}`: a terminating byte is from 0 to 255",
                        lit.base10_digits()
                    ),
                );
                None
            }
        }),
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(match lit.parse::<Expr>() {
            Ok(expr) => Some(Value::Cond(expr, lit.clone())),
            Err(err) => {
                cx.error(
                    lit.span(),
                    format_args!("the predicate is not a Rust expression: {err}"),
                );
                None
            }
        }),
        other => {
            cx.error_spanned(
                other,
                format_args!("expected a byte or a predicate in a string: `{EXAMPLE}`"),
            );
            Ok(None)
        }
    }
}

pub fn max_len(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    let value: Expr = meta.value()?.parse()?;
    let ok = match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit.base10_parse::<u64>().is_ok(),
        Expr::Path(p) => p.qself.is_none(),
        _ => false,
    };
    if !ok {
        cx.error_spanned(
            &value,
            "expected an integer literal or a constant: `max_len = 32` or `max_len = MAX_NAME`",
        );
        return Ok(None);
    }
    let span = value.span();
    Ok(Some(Value::Encoding(Encoding::MaxLen(value), span)))
}

/// A string literal holding a `T`: the value made of it, or the error `expected` describes
/// at the literal.
pub(super) fn string_of<T: syn::parse::Parse>(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &str,
    example: &str,
    make: impl FnOnce(T, &LitStr) -> Value,
    expected: impl FnOnce(syn::Error) -> String,
) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, example)? else {
        return Ok(None);
    };
    Ok(match lit.parse::<T>() {
        Ok(value) => Some(make(value, &lit)),
        Err(err) => {
            cx.error(lit.span(), expected(err));
            None
        }
    })
}

/// Whether `= ...` follows the attribute's name. If not, the error says what `name` needs
/// (`example`) and the rest of the attribute is skipped, so the caller gives `None`.
fn has_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &str,
    example: &str,
) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        return Ok(true);
    }
    cx.error(
        meta.path.span(),
        format_args!("`{name}` needs a value: `{example}`"),
    );
    skip_value(meta)?;
    Ok(false)
}

/// Reads `= "..."`; a missing `=` or a non-string value is recorded and gives `None`.
pub(super) fn string_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &str,
    example: &str,
) -> syn::Result<Option<LitStr>> {
    if !has_value(cx, meta, name, example)? {
        return Ok(None);
    }
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(Some(lit)),
        other => {
            cx.error_spanned(
                &other,
                format_args!("expected a string literal: `{example}`"),
            );
            Ok(None)
        }
    }
}

/// Consumes whatever value follows an option's name (`= expr` or `(...)`).
pub fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: TokenStream = content.parse()?;
    }
    Ok(())
}

/// `A..=B` with optional signs, integers only.
fn parse_range(lit: &LitStr) -> Result<(i128, i128), String> {
    let text = lit.value();
    let (a, b) = text.split_once("..=").ok_or_else(|| {
        if text.contains("..") {
            "expected an inclusive range `A..=B`".to_owned()
        } else {
            format!("expected an integer range `A..=B`, found `{text}`")
        }
    })?;
    let num = |s: &str| -> Result<i128, String> {
        let s = s.trim().replace('_', "");
        s.parse::<i128>()
            .map_err(|_| format!("`{s}` is not an integer; expected `A..=B`"))
    };
    Ok((num(a)?, num(b)?))
}

/// `name = "word"`, a string with one accepted value: a flag, or `unknown` reported at the
/// string.
pub(super) fn only_word(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &'static str,
    word: &str,
    unknown: &str,
) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, &format!("{name} = \"{word}\""))? else {
        return Ok(None);
    };
    if lit.value() == word {
        return Ok(Some(Value::Flag));
    }
    cx.error(lit.span(), unknown);
    Ok(None)
}
