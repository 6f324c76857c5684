//! Parsing `#[rabbit(...)]`, `#[bits(N)]` and `#[doc]` attributes into typed options.
//!
//! Every item (container, variant, field) is parsed into the same [`Attrs`]: which options are
//! allowed where is decided later, in `valid.rs`, so that a misplaced option gets a message that
//! says where it belongs instead of "unknown attribute". Malformed values are recorded in the
//! [`Ctxt`] and parsing goes on, so that one build shows every mistake.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, LitInt, LitStr, Token, WherePredicate};

use crate::ctxt::Ctxt;

/// An option's value with the span of the option's name (for "misplaced" and "conflicts"
/// errors).
pub struct Attr<T> {
    pub value: T,
    pub span: Span,
}

/// A `#[rabbit(if = "...")]` condition.
pub struct Cond {
    pub expr: Expr,
    pub lit: LitStr,
}

/// Everything that can be written on an item.
#[derive(Default)]
pub struct Attrs {
    /// `crate = "path"` (container).
    pub krate: Option<Attr<syn::Path>>,
    /// `bound = "T: Trait, ..."` (container).
    pub bound: Option<Attr<Vec<WherePredicate>>>,
    /// `tag = "varint"` (enum).
    pub tag_varint: Option<Attr<()>>,
    /// `#[bits(N)]` (enum: tag width; field: fixed width), with the span of `N`.
    pub bits: Option<Attr<(u32, Span)>>,
    /// `index = K` (variant), with the span of `K`.
    pub index: Option<Attr<(u64, Span)>>,
    /// `varint` (field).
    pub varint: Option<Attr<()>>,
    /// `zigzag` (field).
    pub zigzag: Option<Attr<()>>,
    /// `range = "A..=B"` (field), with the literal.
    pub range: Option<Attr<(i128, i128, LitStr)>>,
    /// `with = "path"` (field).
    pub with: Option<Attr<(syn::Path, LitStr)>>,
    /// `if = "expr"` (field).
    pub cond: Option<Attr<Cond>>,
    /// `max_len = N` (field): an integer literal or a constant's path.
    pub max_len: Option<Attr<Expr>>,
    /// `skip` (field).
    pub skip: Option<Attr<()>>,
    /// The doc comment, lines trimmed and joined with `\n`.
    pub doc: String,
}

const KNOWN: &str =
    "crate, bound, tag, index, varint, zigzag, range, with, if, max_len, skip (and #[bits(N)])";

/// Parses the attributes of one item.
pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Attrs {
    let mut out = Attrs::default();
    let mut doc = Vec::new();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("doc") {
            if let syn::Meta::NameValue(nv) = &attr.meta
                && let Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) = &nv.value
            {
                doc.extend(s.value().split('\n').map(|l| l.trim().to_owned()));
            }
        } else if path.is_ident("bits") {
            parse_bits(cx, attr, &mut out);
        } else if path.is_ident("rabbit") {
            let result = attr.parse_nested_meta(|meta| parse_one(cx, &meta, &mut out));
            if let Err(err) = result {
                cx.push(err);
            }
        }
    }
    out.doc = doc.join("\n").trim().to_owned();
    out
}

fn parse_bits(cx: &Ctxt, attr: &Attribute, out: &mut Attrs) {
    let lit = match attr.parse_args::<LitInt>() {
        Ok(lit) => lit,
        Err(_) => {
            cx.error_spanned(
                attr,
                "expected a bit width: `#[bits(N)]` with N an integer from 1 to 64",
            );
            return;
        }
    };
    let n = match lit.base10_parse::<u32>() {
        Ok(n) if (1..=64).contains(&n) => n,
        _ => {
            cx.error(
                lit.span(),
                format_args!(
                    "`#[bits({})]`: the width must be from 1 to 64 bits",
                    lit.base10_digits()
                ),
            );
            return;
        }
    };
    set(
        cx,
        &mut out.bits,
        "bits",
        attr.path().span(),
        (n, lit.span()),
    );
}

/// Stores `value` in `slot`, or reports a duplicate.
fn set<T>(cx: &Ctxt, slot: &mut Option<Attr<T>>, name: &str, span: Span, value: T) {
    if slot.is_some() {
        cx.error(span, format_args!("duplicate `{name}` attribute"));
    } else {
        *slot = Some(Attr { value, span });
    }
}

fn parse_one(cx: &Ctxt, meta: &ParseNestedMeta<'_>, out: &mut Attrs) -> syn::Result<()> {
    let span = meta.path.span();
    let Some(ident) = meta.path.get_ident() else {
        cx.error_spanned(
            &meta.path,
            format_args!("unknown rabbit attribute; expected one of: {KNOWN}"),
        );
        return skip_value(meta);
    };
    let name = ident.to_string();
    match name.as_str() {
        "varint" | "zigzag" | "skip" => {
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                cx.error(
                    span,
                    format_args!("`{name}` takes no value: write `{name}`"),
                );
                skip_value(meta)?;
            }
            let slot = match name.as_str() {
                "varint" => &mut out.varint,
                "zigzag" => &mut out.zigzag,
                _ => &mut out.skip,
            };
            set(cx, slot, &name, span, ());
        }
        "crate" => {
            if let Some(lit) = string_value(cx, meta, &name, "crate = \"path\"")? {
                match lit.parse::<syn::Path>() {
                    Ok(path) => set(cx, &mut out.krate, &name, span, path),
                    Err(_) => cx.error(
                        lit.span(),
                        "expected a crate path, e.g. `crate = \"::rabbit\"`",
                    ),
                }
            }
        }
        "bound" => {
            if let Some(lit) = string_value(cx, meta, &name, "bound = \"T: Trait\"")? {
                match lit.parse_with(Punctuated::<WherePredicate, Token![,]>::parse_terminated) {
                    Ok(preds) => set(cx, &mut out.bound, &name, span, preds.into_iter().collect()),
                    Err(err) => cx.error(
                        lit.span(),
                        format_args!("expected where-clause predicates, e.g. `bound = \"T: rabbit::Encode\"`: {err}"),
                    ),
                }
            }
        }
        "tag" => {
            if let Some(lit) = string_value(cx, meta, &name, "tag = \"varint\"")? {
                if lit.value() == "varint" {
                    set(cx, &mut out.tag_varint, &name, span, ());
                } else {
                    cx.error(
                        lit.span(),
                        "unknown tag encoding: the only one is `tag = \"varint\"` (a `u32` variable-length integer); use `#[bits(N)]` for a fixed width",
                    );
                }
            }
        }
        "index" => {
            let value: Expr = meta.value()?.parse()?;
            match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(lit), ..
                }) => match lit.base10_parse::<u64>() {
                    Ok(k) => set(cx, &mut out.index, &name, span, (k, lit.span())),
                    Err(_) => cx.error(lit.span(), "a variant index must fit a u64"),
                },
                _ => cx.error_spanned(&value, "expected an integer literal: `index = K`"),
            }
        }
        "range" => {
            if let Some(lit) = string_value(cx, meta, &name, "range = \"A..=B\"")? {
                match parse_range(&lit) {
                    Ok((min, max)) => {
                        if min > max {
                            cx.error(
                                lit.span(),
                                format_args!("empty range: {min} is greater than {max}"),
                            );
                        } else {
                            set(cx, &mut out.range, &name, span, (min, max, lit));
                        }
                    }
                    Err(msg) => cx.error(lit.span(), msg),
                }
            }
        }
        "with" => {
            if let Some(lit) = string_value(cx, meta, &name, "with = \"module::path\"")? {
                match lit.parse::<syn::Path>() {
                    Ok(path) => set(cx, &mut out.with, &name, span, (path, lit)),
                    Err(_) => cx.error(
                        lit.span(),
                        "expected the path of a module with `encode` and `decode` functions",
                    ),
                }
            }
        }
        "if" => {
            if let Some(lit) = string_value(cx, meta, &name, "if = \"expression\"")? {
                match lit.parse::<Expr>() {
                    Ok(expr) => set(cx, &mut out.cond, &name, span, Cond { expr, lit }),
                    Err(err) => cx.error(
                        lit.span(),
                        format_args!("the condition is not a Rust expression: {err}"),
                    ),
                }
            }
        }
        "max_len" => {
            let value: Expr = meta.value()?.parse()?;
            match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(lit), ..
                }) if lit.base10_parse::<u64>().is_ok() => {
                    set(cx, &mut out.max_len, &name, span, value)
                }
                Expr::Path(p) if p.qself.is_none() => {
                    set(cx, &mut out.max_len, &name, span, value)
                }
                _ => cx.error_spanned(
                    &value,
                    "expected an integer literal or a constant: `max_len = 32` or `max_len = MAX_NAME`",
                ),
            }
        }
        "bits" => {
            cx.error(span, "write the width as its own attribute: `#[bits(N)]`");
            skip_value(meta)?;
        }
        _ => {
            cx.error(
                span,
                format_args!("unknown rabbit attribute `{name}`; expected one of: {KNOWN}"),
            );
            skip_value(meta)?;
        }
    }
    Ok(())
}

/// Reads `= "..."`; a missing `=` or a non-string value is recorded and gives `None`.
fn string_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &str,
    example: &str,
) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(Token![=]) {
        cx.error(
            meta.path.span(),
            format_args!("`{name}` needs a value: `{example}`"),
        );
        skip_value(meta)?;
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
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
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
