//! `MIN_BITS`, `MAX_BITS` (constants built from the codecs' constants) and `encoded_bits`
//! (computed from the values without encoding).

use proc_macro2::TokenStream;
use quote::quote;

use super::encode::{Item, items};
use super::{Names, each_variant, layout};
use crate::plan::{Body, Plan, Tag};

/// The `MIN_BITS`, `MAX_BITS` and `WORD_BITS` expressions.
pub fn consts(input: &Plan<'_>, n: &Names) -> [TokenStream; 3] {
    let k = &n.krate;
    let word_bits = super::encode::word_bits(input, n);
    let (min, max) = match &input.body {
        Body::Struct(_, fields) => {
            let (min, max) = items_consts(&items(input, None, fields, n), n);
            (
                quote!(#k::sum_min(&[#(#min),*])),
                quote!(#k::sum_max(&[#(#max),*])),
            )
        }
        Body::Enum(tag, variants) => {
            let (mins, maxs): (Vec<_>, Vec<_>) = variants
                .iter()
                .map(|v| {
                    let items = items(input, Some((*tag, v.index)), &v.fields, n);
                    let (min, max) = items_consts(&items, n);
                    (
                        quote!(#k::sum_min(&[#(#min),*])),
                        quote!(#k::sum_max(&[#(#max),*])),
                    )
                })
                .unzip();
            // An enum's own magic bytes come before any variant.
            let magic: u64 = input
                .layout
                .magic
                .as_ref()
                .map_or(0, |m| 8 * m.len() as u64);
            (
                quote!(#k::sum_min(&[#magic, #k::min_over(&[#(#mins),*])])),
                quote!(#k::sum_max(&[#k::Some(#magic), #k::max_over(&[#(#maxs),*])])),
            )
        }
    };
    [min, max, word_bits]
}

/// The bits of a variant's tag (`u64`).
fn tag_bits(tag: Tag, index: u64, n: &Names) -> TokenStream {
    let t = n.tag_index(tag, index);
    quote!((#t::BITS as u64))
}

/// Each item's minimum and maximum.
fn items_consts(items: &[Item<'_, '_>], n: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let k = &n.krate;
    let mut min = Vec::new();
    let mut max = Vec::new();
    for item in items {
        match item {
            Item::Tag(tag, index) => {
                let bits = tag_bits(*tag, *index, n);
                min.push(bits.clone());
                max.push(quote!(#k::Some(#bits)));
            }
            Item::Const(bits, _) => {
                min.push(quote!(#bits as u64));
                max.push(quote!(#k::Some(#bits as u64)));
            }
            Item::Field(f, w) => {
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
    let magic: u64 = match input.body {
        Body::Enum(..) => input
            .layout
            .magic
            .as_ref()
            .map_or(0, |m| 8 * m.len() as u64),
        Body::Struct(..) => 0,
    };
    let body = each_variant(input, |tag, fields, _| {
        items_sum(&items(input, tag, fields, n), n)
    });
    quote!(#magic + { #body })
}

/// `tag + field + field`, each field's bits from its codec.
fn items_sum(items: &[Item<'_, '_>], n: &Names) -> TokenStream {
    let k = &n.krate;
    let v = &n.v;
    let terms: Vec<TokenStream> = items
        .iter()
        .map(|item| match item {
            Item::Tag(tag, index) => tag_bits(*tag, *index, n),
            Item::Const(bits, _) => quote!((#bits as u64)),
            Item::Field(f, w) => {
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
