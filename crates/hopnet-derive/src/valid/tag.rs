//! Variant indices and the enum's tag: pinned indices, the rest counting on from the previous
//! one; indices unique and within what the tag can hold.

use std::collections::HashMap;

use crate::ast::Variant;
use crate::attr::{Attrs, Value};
use crate::ctxt::Ctxt;
use crate::plan::Tag;

/// The index of each variant, in order, and the tag.
pub fn resolve(cx: &Ctxt, attrs: &Attrs, variants: &[Variant<'_>]) -> (Tag, Vec<u64>) {
    let mut seen: HashMap<u64, String> = HashMap::new();
    let mut next: Option<u64> = Some(0);
    let mut indices = Vec::with_capacity(variants.len());
    for v in variants {
        let (index, span) = match pinned(v) {
            Some(pinned) => pinned,
            None => match next {
                Some(n) => (n, v.ident.span()),
                None => {
                    cx.error(v.ident.span(), "variant index overflows u64");
                    indices.push(0);
                    continue;
                }
            },
        };
        if let Some(other) = seen.get(&index) {
            cx.error(
                span,
                format_args!("variant index {index} is already used by `{other}`"),
            );
        }
        seen.insert(index, v.ident.to_string());
        indices.push(index);
        next = index.checked_add(1);
    }
    let max_index = indices.iter().copied().max().unwrap_or(0);
    let tag = if attrs.get("tag").is_some() {
        for (v, &index) in variants.iter().zip(&indices) {
            if index > u32::MAX as u64 {
                let span = pinned(v).map_or(v.ident.span(), |(_, span)| span);
                cx.error(
                    span,
                    format_args!("variant index {index} does not fit the `u32` varint tag"),
                );
            }
        }
        Tag::Varint
    } else if let Some(Value::Int(n, lit_span)) = attrs.get("bits").map(|a| &a.value) {
        let n = *n as u32;
        let limit = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut reported = false;
        for (v, &index) in variants.iter().zip(&indices) {
            if index <= limit {
                continue;
            }
            match pinned(v) {
                Some((_, span)) => cx.error(
                    span,
                    format_args!(
                        "variant `{}` has index {index}, which does not fit the {n}-bit tag (indices 0..={limit})",
                        v.ident
                    ),
                ),
                None if !reported => {
                    reported = true;
                    cx.error(
                        *lit_span,
                        format_args!(
                            "a {n}-bit tag holds indices 0..={limit}, but `{}` has index {index} ({} variants need at least {} bits)",
                            v.ident,
                            variants.len(),
                            bits_to_hold(max_index)
                        ),
                    );
                }
                None => {}
            }
        }
        Tag::Bits(n)
    } else {
        Tag::Fewest { max_index }
    };
    (tag, indices)
}

/// A variant's pinned index and the span of its number.
fn pinned(v: &Variant<'_>) -> Option<(u64, proc_macro2::Span)> {
    match v.attrs.get("index").map(|a| &a.value) {
        Some(Value::Int(k, span)) => Some((*k, *span)),
        _ => None,
    }
}

/// The bits that hold `n`.
pub fn bits_to_hold(n: u64) -> u32 {
    64 - n.leading_zeros()
}
