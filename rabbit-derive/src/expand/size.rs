//! `MIN_BITS`, `MAX_BITS` (constants built from the codecs' constants) and `encoded_bits`
//! (computed from the values without encoding).

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, each_variant};
use crate::plan::{Body, Field, Plan, Tag, Wire};

/// The `MIN_BITS`, `MAX_BITS` and `WORD_BITS` expressions.
pub fn consts(input: &Plan<'_>, n: &Names) -> [TokenStream; 3] {
    let k = &n.krate;
    let word_bits = super::encode::word_bits(input, n);
    let (min, max) = match &input.body {
        Body::Struct(_, fields) => {
            let (min, max) = fields_consts(fields, n);
            (
                quote!(#k::sum_min(&[#(#min),*])),
                quote!(#k::sum_max(&[#(#max),*])),
            )
        }
        Body::Enum(tag, variants) => {
            let (mins, maxs): (Vec<_>, Vec<_>) = variants
                .iter()
                .map(|v| {
                    let tag = tag_bits(*tag, v.index, n);
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
    };
    [min, max, word_bits]
}

/// The bits of a variant's tag (`u64`).
fn tag_bits(tag: Tag, index: u64, n: &Names) -> TokenStream {
    let t = n.tag_index(tag, index);
    quote!((#t::BITS as u64))
}

fn fields_consts(fields: &[Field<'_>], n: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut min = Vec::new();
    let mut max = Vec::new();
    for (f, w) in wire_fields(fields) {
        // An `if` field may be absent (no presence bit): it adds nothing to the minimum.
        if w.cond.is_none() {
            min.push(n.enc(f, w, "MIN_BITS"));
        }
        max.push(n.enc(f, w, "MAX_BITS"));
    }
    (min, max)
}

/// The body of `encoded_bits`.
pub fn encoded_bits(input: &Plan<'_>, n: &Names) -> TokenStream {
    each_variant(input, |tag, fields, _| {
        fields_sum(fields, n, tag.map(|(tag, index)| tag_bits(tag, index, n)))
    })
}

/// `tag + field + field`, each field's bits from its codec.
fn fields_sum(fields: &[Field<'_>], n: &Names, tag: Option<TokenStream>) -> TokenStream {
    let k = &n.krate;
    let v = &n.v;
    let terms = wire_fields(fields).map(|(f, w)| {
        let b = &f.binding;
        let bits = n.enc(f, w, "encoded_bits");
        match &w.cond {
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

/// The fields on the wire, with how each is written.
fn wire_fields<'f, 'a>(
    fields: &'f [Field<'a>],
) -> impl Iterator<Item = (&'f Field<'a>, &'f Wire<'a>)> {
    fields.iter().filter_map(|f| Some((f, f.wire.as_ref()?)))
}
