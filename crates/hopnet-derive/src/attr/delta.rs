//! The parsers of the delta attributes' values (`delta`, `key`), rows of the table in
//! `rules.rs` like the others. A malformed value is recorded in the [`Ctxt`] at its
//! token and gives `None`; parsing goes on.

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitStr, Member, Token};

use super::parse::{skip_value, string_value};
use super::value::Value;
use crate::ctxt::Ctxt;

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
        return Ok(Some(Value::Delta { per_field: false }));
    }
    let Some(lit) = string_value(cx, meta, name, "delta = \"per_field\"")? else {
        return Ok(None);
    };
    match lit.value().as_str() {
        "per_field" => Ok(Some(Value::Delta { per_field: true })),
        "per_struct" => Ok(Some(Value::Delta { per_field: false })),
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
