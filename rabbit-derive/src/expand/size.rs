//! `MIN_BITS`, `MAX_BITS` (constants built from the fields' constants) and `encoded_bits`
//! (computed from the values without encoding).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Names, pattern, tag_bits};
use crate::ast::{Body, Field, Input};

/// `(MIN_BITS, MAX_BITS)` expressions.
pub fn consts(input: &Input<'_>, n: &Names) -> (TokenStream, TokenStream) {
    let k = &n.krate;
    let s = quote!(#k);
    match &input.body {
        Body::Struct(_, fields) => {
            let (min, max) = fields_consts(fields, n);
            (
                quote!(#s::sum_min(&[#(#min),*])),
                quote!(#s::sum_max(&[#(#max),*])),
            )
        }
        Body::Enum(e) => {
            let mut mins = Vec::new();
            let mut maxs = Vec::new();
            for v in &e.variants {
                let tag = Literal::u64_suffixed(tag_bits(e.tag, v.index));
                let (min, max) = fields_consts(&v.fields, n);
                mins.push(quote!(#s::sum_min(&[#tag, #(#min),*])));
                maxs.push(quote!(#s::sum_max(&[#k::Some(#tag), #(#max),*])));
            }
            (
                quote!(#s::min_over(&[#(#mins),*])),
                quote!(#s::max_over(&[#(#maxs),*])),
            )
        }
    }
}

fn fields_consts(fields: &[Field<'_>], n: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut min = Vec::new();
    let mut max = Vec::new();
    for f in fields.iter().filter(|f| !f.plan.skip) {
        // An `if` field may be absent (no presence bit): it adds nothing to the minimum.
        if f.plan.cond.is_none() {
            min.push(n.codec_min(f));
        }
        max.push(n.codec_max(f));
    }
    (min, max)
}

/// The body of `encoded_bits`.
pub fn encoded_bits(input: &Input<'_>, n: &Names) -> TokenStream {
    match &input.body {
        Body::Struct(style, fields) => {
            let sum = fields_sum(fields, n, 0);
            if fields.iter().any(|f| uses_value(f, n)) {
                let pat = pattern(&quote!(Self), *style, fields, |f| uses_value(f, n));
                quote! {
                    let #pat = self;
                    #sum
                }
            } else {
                sum
            }
        }
        Body::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, |f| uses_value(f, n));
                let sum = fields_sum(&v.fields, n, tag_bits(e.tag, v.index));
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

fn uses_value(f: &Field<'_>, n: &Names) -> bool {
    !f.plan.skip && (f.plan.cond.is_some() || n.fixed_bits(f).is_none())
}

/// `constant + term + term`, the constant gathering the fixed-width fields.
fn fields_sum(fields: &[Field<'_>], n: &Names, mut constant: u64) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    let v = &n.v;
    let mut terms = Vec::new();
    for f in fields.iter().filter(|f| !f.plan.skip) {
        let b = &f.binding;
        match (&f.plan.cond, n.fixed_bits(f)) {
            (None, Some(bits)) => constant += bits,
            (None, None) => terms.push(n.value_bits(f, &quote!(#b)).unwrap_or_default()),
            (Some(_), fixed) => {
                let inner = match fixed {
                    Some(bits) => {
                        let bits = Literal::u64_suffixed(bits);
                        quote!(#bits)
                    }
                    None => n.value_bits(f, &quote!(#v)).unwrap_or_default(),
                };
                let pat_v = if fixed.is_some() {
                    quote!(_)
                } else {
                    quote!(#v)
                };
                terms.push(quote!(match #b { #p::Some(#pat_v) => #inner, #p::None => 0u64 }));
            }
        }
    }
    if constant > 0 || terms.is_empty() {
        terms.insert(0, {
            let c = Literal::u64_suffixed(constant);
            quote!(#c)
        });
    }
    quote!(#(#terms)+*)
}
