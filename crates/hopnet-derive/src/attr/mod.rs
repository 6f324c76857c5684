//! Parsing `#[rabbit(...)]`, `#[bits(N)]` and `#[doc]` attributes into [`Attrs`]: each option
//! found, with its rule (`rules.rs`), the span of its name and its parsed value.
//!
//! Every item (container, variant, field) is parsed the same way: which options are allowed
//! where is checked afterwards, from the table (`valid/place.rs`), so that a misplaced option
//! gets a message that says where it belongs instead of "unknown attribute". Malformed values
//! are recorded in the [`Ctxt`] and parsing goes on, so that one build shows every mistake.

mod delta;
mod layout_values;
mod parse;
pub mod quantize;
pub mod rules;
mod value;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit};

use crate::ctxt::Ctxt;
use rules::Rule;
pub use value::{Encoding, Grid, Value};

/// One option as written.
pub struct Attr {
    pub rule: &'static Rule,
    /// The option's name, where "misplaced" and "conflicts" errors point.
    pub span: Span,
    pub value: Value,
}

/// Everything written on one item, in the order written.
#[derive(Default)]
pub struct Attrs {
    pub list: Vec<Attr>,
    /// The doc comment, lines trimmed and joined with `\n`.
    pub doc: String,
}

impl Attrs {
    /// The option `name`, if written.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.list.iter().find(|a| a.rule.name == name)
    }

    fn push(&mut self, cx: &Ctxt, rule: &'static Rule, span: Span, value: Value) {
        if self.get(rule.name).is_some() {
            cx.error(span, format_args!("duplicate `{}` attribute", rule.name));
        } else {
            self.list.push(Attr { rule, span, value });
        }
    }
}

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
            if let (Some(value), Some(rule)) = (parse::bits(cx, attr), rules::find("bits")) {
                out.push(cx, rule, path.span(), value);
            }
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

fn parse_one(cx: &Ctxt, meta: &ParseNestedMeta<'_>, out: &mut Attrs) -> syn::Result<()> {
    let span = meta.path.span();
    let rule = meta
        .path
        .get_ident()
        .and_then(|ident| rules::find(&ident.to_string()));
    let Some(rule) = rule else {
        let name = match meta.path.get_ident() {
            Some(ident) => format!(" `{ident}`"),
            None => String::new(),
        };
        cx.error_spanned(
            &meta.path,
            format_args!(
                "unknown rabbit attribute{name}; expected one of: {}",
                rules::known()
            ),
        );
        return parse::skip_value(meta);
    };
    if let Some(value) = (rule.parse)(cx, meta, rule.name)? {
        out.push(cx, rule, span, value);
    }
    Ok(())
}
