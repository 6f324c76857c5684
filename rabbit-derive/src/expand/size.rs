//! `MIN_BITS`, `MAX_BITS` (constants built from the codecs' constants) and `encoded_bits`
//! (computed from the values without encoding).

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, pattern};
use crate::ast::{Body, Field, Input, Tag};

/// `(MIN_BITS, MAX_BITS)` expressions.
pub fn consts(input: &Input<'_>, n: &Names) -> (TokenStream, TokenStream) {
    let k = &n.krate;
    match &input.body {
        Body::Struct(_, fields) => {
            let (min, max) = fields_consts(fields, n);
            (
                quote!(#k::sum_min(&[#(#min),*])),
                quote!(#k::sum_max(&[#(#max),*])),
            )
        }
        Body::Enum(e) => {
            let (mins, maxs): (Vec<_>, Vec<_>) = e
                .variants
                .iter()
                .map(|v| {
                    let tag = tag_bits(e.tag, v.index, n);
                    let (min, max) = fields_consts(&v.fields, n);
                    (
                        quote!(#k::sum_min(&[#tag, #(#min),*])),
                        quote!(#k::sum_max(&[#k::Some(#tag), #(#max),*])),
                    )
                })
                .unzip();
            (
                quote!(#k::min_over(&[#(#mins),*])),
                quote!(#k::max_over(&[#(#maxs),*])),
            )
        }
    }
}

/// The bits of a variant's tag (`u64`).
fn tag_bits(tag: Tag, index: u64, n: &Names) -> TokenStream {
    let t = n.tag_index(tag, index);
    quote!((#t::BITS as u64))
}

fn fields_consts(fields: &[Field<'_>], n: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut min = Vec::new();
    let mut max = Vec::new();
    for f in fields.iter().filter(|f| !f.plan.skip) {
        // An `if` field may be absent (no presence bit): it adds nothing to the minimum.
        if f.plan.cond.is_none() {
            min.push(n.enc(f, "MIN_BITS"));
        }
        max.push(n.enc(f, "MAX_BITS"));
    }
    (min, max)
}

/// The body of `encoded_bits`.
pub fn encoded_bits(input: &Input<'_>, n: &Names) -> TokenStream {
    match &input.body {
        Body::Struct(style, fields) => {
            let sum = fields_sum(fields, n, None);
            let pat = pattern(&quote!(Self), *style, fields, |f| !f.plan.skip);
            quote! {
                let #pat = self;
                #sum
            }
        }
        Body::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, |f| !f.plan.skip);
                let sum = fields_sum(&v.fields, n, Some(tag_bits(e.tag, v.index, n)));
                quote!(#pat => #sum,)
            });
            quote! {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// `tag + field + field`, each field's bits from its codec.
fn fields_sum(fields: &[Field<'_>], n: &Names, tag: Option<TokenStream>) -> TokenStream {
    let k = &n.krate;
    let v = &n.v;
    let terms = fields.iter().filter(|f| !f.plan.skip).map(|f| {
        let b = &f.binding;
        let bits = n.enc(f, "encoded_bits");
        match &f.plan.cond {
            None => quote!(#bits(#b)),
            Some(_) => quote!(match #b {
                #k::Some(#v) => #bits(#v),
                #k::None => 0u64,
            }),
        }
    });
    let terms: Vec<TokenStream> = tag.into_iter().chain(terms).collect();
    if terms.is_empty() {
        return quote!(0u64);
    }
    quote!(#(#terms)+*)
}
