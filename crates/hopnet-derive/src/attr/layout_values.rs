//! The parsers of the byte-layout attributes' values (`endian`, `bit_order`, `magic`,
//! `bytes`, `byte_len`, `computed`, `transform`, `pad_before`); rows in `rules.rs`.

use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Lit, LitStr};

use super::Value;
use super::values::{only_word, string_of, string_value};
use crate::ctxt::Ctxt;

type Parsed = syn::Result<Option<Value>>;

/// `endian = "big"` or `"little"`.
pub fn endian(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let Some(lit) = string_value(cx, meta, name, "endian = \"big\"")? else {
        return Ok(None);
    };
    Ok(match lit.value().as_str() {
        "big" => Some(Value::Endian(true)),
        "little" => Some(Value::Endian(false)),
        _ => {
            cx.error(
                lit.span(),
                "unknown byte order: `endian = \"big\"` (most significant byte first) or `endian = \"little\"`",
            );
            None
        }
    })
}

/// `bit_order = "msb"`: the only order besides the default (least significant bit first).
pub fn bit_order(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    only_word(
        cx,
        meta,
        name,
        "msb",
        "unknown bit order: the only one to ask for is `bit_order = \"msb\"` (most significant bit first); least significant first is the default",
    )
}

/// `magic = b"..."`: one or more bytes.
pub fn magic(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    let value: Expr = meta.value()?.parse()?;
    match &value {
        Expr::Lit(ExprLit {
            lit: Lit::ByteStr(lit),
            ..
        }) if !lit.value().is_empty() => Ok(Some(Value::Magic(lit.value()))),
        _ => {
            cx.error_spanned(
                &value,
                "expected a non-empty byte string: `magic = b\"W\"` or `magic = b\"\\x57\"`",
            );
            Ok(None)
        }
    }
}

/// `bytes = N`: 1 to 8 for a number, any length for a string.
pub fn bytes(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    positive(cx, meta, "bytes = N", "a byte count")
}

/// `pad_before = N`: a number of zero bits.
pub fn pad_before(cx: &Ctxt, meta: &ParseNestedMeta<'_>, _: &'static str) -> Parsed {
    positive(cx, meta, "pad_before = N", "a number of bits")
}

fn positive(cx: &Ctxt, meta: &ParseNestedMeta<'_>, example: &str, what: &str) -> Parsed {
    let value: Expr = meta.value()?.parse()?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Int(lit), ..
    }) = &value
        && let Ok(n) = lit.base10_parse::<u64>()
        && n > 0
    {
        return Ok(Some(Value::Int(n, lit.span())));
    }
    cx.error_spanned(
        &value,
        format_args!("expected {what}, a positive integer literal: `{example}`"),
    );
    Ok(None)
}

/// `byte_len = "field"`: the name of an earlier field.
pub fn byte_len(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    string_of(
        cx,
        meta,
        name,
        "byte_len = \"field\"",
        |ident: syn::Ident, lit: &LitStr| {
            Value::Name(syn::Ident::new(&ident.to_string(), lit.span()))
        },
        |_| "expected the name of an earlier field: `byte_len = \"size\"`".into(),
    )
}

/// `computed = "expr"`, `transform = "expr"`: a Rust expression.
pub fn expression(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &'static str) -> Parsed {
    let example = format!("{name} = \"expression\"");
    let cond = |expr, lit: &LitStr| Value::Cond(expr, lit.clone());
    string_of(cx, meta, name, &example, cond, |err| {
        format!("the {name} value is not a Rust expression: {err}")
    })
}
