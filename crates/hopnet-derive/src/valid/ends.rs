//! Lists and strings without a count of their own (`guide::lists`): `count = "expr"`, a count
//! that an expression of earlier fields gives, and `until`, a terminating byte or an item a
//! predicate accepts. Checked against the field's type and its other attributes; the codec
//! they select goes into the field's plan, and what only generated code can evaluate (the
//! count, the predicate) into its layout.

use std::collections::HashSet;

use syn::{Ident, Type};

use super::cond::{condition_uses, mentioned};
use super::types::{Kind, classify, is_list, ty_string};
use crate::attr::{Attr, Attrs, Value};
use crate::ctxt::Ctxt;
use crate::plan::{Codec, Condition, Ends};

/// The fields around the one checked: what a count may name.
pub struct Around<'n> {
    pub names: &'n [Ident],
    pub skipped: &'n HashSet<String>,
    /// The field's position in `names`.
    pub at: usize,
    pub name: &'n str,
}

/// The codec and the run-time end of a field with `count` or `until` (`codec` is what its
/// other attributes chose); `None` without either.
pub fn resolve(
    cx: &Ctxt,
    attrs: &Attrs,
    ty: &Type,
    codec: &Codec,
    around: &Around<'_>,
) -> Option<(Codec, Option<Ends>)> {
    let attr = attrs.get("count").or_else(|| attrs.get("until"))?;
    if attrs.get("to_end").is_some() || attrs.get("byte_len").is_some() {
        // Reported as a conflict of the group already.
        return None;
    }
    if let Some(a) = attrs.get("if") {
        cx.error(
            a.span,
            format_args!(
                "a list with `{}` is always on the wire: it takes no `if` (an empty list is its absence)",
                attr.rule.name
            ),
        );
    }
    if !is_list(ty) && !matches!(classify(ty), Kind::Unknown) {
        cx.error(
            attr.span,
            format_args!(
                "`{}` applies to a `Vec<T>` or a `String`, not `{}`",
                attr.rule.name,
                ty_string(ty)
            ),
        );
        return None;
    }
    let max = match codec {
        Codec::Native => None,
        Codec::MaxLen(n) => Some(n.clone()),
        _ => {
            cx.error(
                attr.span,
                format_args!(
                    "a list with `{}` has no encoding of its own: its items use theirs, and only `max_len` may bound them",
                    attr.rule.name
                ),
            );
            None
        }
    };
    match &attr.value {
        Value::Cond(expr, lit) if attr.rule.name == "count" => {
            let (earlier, later) = around.names.split_at(around.at);
            let uses = condition_uses(
                cx,
                expr,
                earlier,
                later,
                around.skipped,
                around.name,
                "count",
            );
            let count = Condition {
                expr: expr.clone(),
                text: lit.value(),
                uses,
            };
            Some((Codec::Counted(max), Some(Ends::Count(count))))
        }
        Value::Cond(expr, lit) => {
            predicate(cx, attr, ty, around, expr)?;
            let end = Condition {
                expr: expr.clone(),
                text: lit.value(),
                uses: Vec::new(),
            };
            Some((Codec::UntilItem(max), Some(Ends::Until(end))))
        }
        Value::Int(b, lit) => {
            if !is_byte_string(ty) {
                cx.error(
                    *lit,
                    format_args!(
                        "`until = {b}` ends a `String` or a `Vec<u8>` at a byte, not `{}`: a list of other items ends at an item, `until = \"|item: &T| ...\"`",
                        ty_string(ty)
                    ),
                );
                return None;
            }
            Some((Codec::UntilByte(*b as u8, max), None))
        }
        _ => None,
    }
}

/// Checks a predicate: on a `Vec<T>` only, and seeing nothing but the item.
fn predicate(
    cx: &Ctxt,
    attr: &Attr,
    ty: &Type,
    around: &Around<'_>,
    expr: &syn::Expr,
) -> Option<()> {
    if ty_string(ty) == "String" {
        cx.error(
            attr.span,
            "a string ends at a byte, not at an item a predicate accepts: `until = 0`",
        );
        return None;
    }
    for (ident, _) in mentioned(expr) {
        if around.names.contains(&ident) {
            cx.error(
                ident.span(),
                format_args!(
                    "the `until` predicate of `{}` sees only the item: it cannot use the field `{ident}`",
                    around.name
                ),
            );
            return None;
        }
    }
    Some(())
}

/// `String` or `Vec<u8>`, as spelled.
fn is_byte_string(ty: &Type) -> bool {
    matches!(ty_string(ty).as_str(), "String" | "Vec<u8>")
}
