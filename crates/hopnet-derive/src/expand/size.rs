//! `MIN_BITS`, `MAX_BITS`, `WORD_BITS` (constants built from the codecs' constants) and
//! `encoded_bits` (computed from the values without encoding).

use proc_macro2::TokenStream;
use quote::quote;

use super::items::{self, Part, parts};
use super::layout;
use super::names::{Names, each_variant};
use crate::plan::{Body, Item, Plan, Tag};

/// The `MIN_BITS`, `MAX_BITS` and `WORD_BITS` expressions.
pub fn consts(input: &Plan<'_>, n: &Names) -> [TokenStream; 3] {
    let k = &n.krate;
    let word_bits = word_bits(input, n);
    let (min, max) = match &input.body {
        Body::Struct(fields) => {
            let (min, max) = parts_consts(&parts(fields, input.msb, n), n);
            (
                quote!(#k::sum_min(&[#(#min),*])),
                quote!(#k::sum_max(&[#(#max),*])),
            )
        }
        Body::Enum {
            magic, variants, ..
        } => {
            let (mins, maxs): (Vec<_>, Vec<_>) = variants
                .iter()
                .map(|v| {
                    let (min, max) = parts_consts(&parts(&v.fields, input.msb, n), n);
                    (
                        quote!(#k::sum_min(&[#(#min),*])),
                        quote!(#k::sum_max(&[#(#max),*])),
                    )
                })
                .unzip();
            // An enum's own magic bytes come before any variant.
            let magic = magic_bits(magic);
            (
                quote!(#k::sum_min(&[#magic, #k::min_over(&[#(#mins),*])])),
                quote!(#k::sum_max(&[#k::Some(#magic), #k::max_over(&[#(#maxs),*])])),
            )
        }
    };
    [min, max, word_bits]
}

/// The `WORD_BITS` constant of the type.
fn word_bits(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    // An msb container is written as bytes of its own, never merged into its parent's words;
    // so is an enum with magic bytes before its tag.
    if input.msb || matches!(&input.body, Body::Enum { magic, .. } if !magic.is_empty()) {
        return quote!(#k::None::<u32>);
    }
    let sum = |parts: &[Part<'_, '_>]| {
        let words = parts.iter().map(|i| items::word_bits(i, n));
        quote!(#k::word_sum(&[#(#words),*]))
    };
    match &input.body {
        Body::Struct(fields) => sum(&parts(fields, input.msb, n)),
        Body::Enum { variants, .. } => {
            let variants = variants
                .iter()
                .map(|v| sum(&parts(&v.fields, input.msb, n)));
            quote!(#k::word_over(&[#(#variants),*]))
        }
    }
}

/// The bits of a variant's tag (`u64`).
fn tag_bits(tag: Tag, index: u64, n: &Names) -> TokenStream {
    let t = n.tag_index(tag, index);
    quote!((#t::BITS as u64))
}

/// The bits of magic bytes (`u64`).
fn magic_bits(magic: &[Item]) -> u64 {
    magic
        .iter()
        .map(|item| match item {
            Item::Magic(bytes) => 8 * bytes.len() as u64,
            _ => 0,
        })
        .sum()
}

/// Each part's minimum and maximum.
fn parts_consts(parts: &[Part<'_, '_>], n: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let k = &n.krate;
    let mut min = Vec::new();
    let mut max = Vec::new();
    for part in parts {
        match part {
            Part::Tag(tag, index) => {
                let bits = tag_bits(*tag, *index, n);
                min.push(bits.clone());
                max.push(quote!(#k::Some(#bits)));
            }
            Part::Const(bits, _) => {
                min.push(quote!(#bits as u64));
                max.push(quote!(#k::Some(#bits as u64)));
            }
            Part::Field(f, w) => {
                // An `if` field may be absent (no presence bit): it adds nothing to the minimum.
                if w.cond.is_none() {
                    min.push(n.enc(f, w, "MIN_BITS"));
                }
                max.push(n.enc(f, w, "MAX_BITS"));
            }
        }
    }
    (min, max)
}

/// The body of `encoded_bits`.
pub fn encoded_bits(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let counted = input
        .all_fields()
        .any(|f| layout::counts_by_encoding(std::slice::from_ref(f)));
    if counted {
        // A computed or transformed field's size needs its computation: count what `encode`
        // writes.
        let w = &n.w;
        return quote!(#k::count_bits(|#w| <Self as #k::Encode>::encode(self, #w)));
    }
    let magic: u64 = match &input.body {
        Body::Enum { magic, .. } => magic_bits(magic),
        Body::Struct(..) => 0,
    };
    let body = each_variant(input, |fields, _| {
        parts_sum(&parts(fields, input.msb, n), n)
    });
    quote!(#magic + { #body })
}

/// `tag + field + field`, each field's bits from its codec.
fn parts_sum(parts: &[Part<'_, '_>], n: &Names) -> TokenStream {
    let k = &n.krate;
    let v = &n.v;
    let terms: Vec<TokenStream> = parts
        .iter()
        .map(|part| match part {
            Part::Tag(tag, index) => tag_bits(*tag, *index, n),
            Part::Const(bits, _) => quote!((#bits as u64)),
            Part::Field(f, w) => {
                let b = &f.binding;
                let bits = n.enc(f, w, "encoded_bits");
                match &w.cond {
                    None => quote!(#bits(#b)),
                    Some(_) => quote!(match #b {
                        #k::Some(#v) => #bits(#v),
                        #k::None => 0u64,
                    }),
                }
            }
        })
        .collect();
    if terms.is_empty() {
        return quote!(0u64);
    }
    quote!(#(#terms)+*)
}
