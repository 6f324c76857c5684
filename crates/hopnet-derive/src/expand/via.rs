//! The impls of a container written as another type (`from`/`try_from` and `into`): each
//! method converts and hands over to the wire type's, through the `Native` codec like any
//! field, so that the wire type's word merging and window decoding carry over.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Type;
use syn::spanned::Spanned;

use super::{Impls, Names, respan};
use crate::plan::{Plan, Via};
use crate::valid::ty_string;

/// The bodies of `input`'s impls, written as `via.into`.
pub fn impls(input: &Plan<'_>, via: &Via<'_>, n: &Names) -> Impls {
    let k = &n.krate;
    let (w, r, v) = (&n.w, &n.r, &n.v);
    let (into, from) = (via.into, via.from);
    let enc = quote!(<#k::Native as #k::FieldCodec<#into>>);
    let wire = to_wire(n, into, quote!(self));
    let back = from_wire(n, from, via.fallible);
    let (name, doc, wire_ty) = (input.ident.to_string(), input.doc, ty_string(into));
    Impls {
        helpers: quote!(),
        sizes: [
            quote!(#enc::MIN_BITS),
            quote!(#enc::MAX_BITS),
            quote!(#enc::WORD_BITS),
        ],
        encode: quote!(#enc::encode(&#wire, #w)),
        encode_word: quote!(#enc::encode_word(&#wire)),
        encoded_bits: quote!(#enc::encoded_bits(&#wire)),
        decode: quote! {
            <#k::Native as #k::FieldDecode<#from>>::decode(#r).and_then(|#v| #back)
        },
        type_schema: quote! {
            #k::via_schema(
                #enc::schema(),
                #name,
                #doc,
                #wire_ty,
                (<Self as #k::Encode>::MIN_BITS, <Self as #k::Encode>::MAX_BITS),
            )
        },
        hot: quote!(#[inline(always)]),
    }
}

/// `of` converted to the wire type `into` (through a clone). The conversions are spanned at
/// the types named: a missing impl is reported there.
pub fn to_wire(n: &Names, into: &Type, of: TokenStream) -> TokenStream {
    let k = &n.krate;
    let to_wire = respan(quote!(<Self as #k::Into<#into>>::into), into.span());
    quote!(#to_wire(<Self as #k::Clone>::clone(#of)))
}

/// The value back from `__v` of the wire type `from`, as a `Result`: `try_from`'s refusal is
/// a decode error.
pub fn from_wire(n: &Names, from: &Type, fallible: bool) -> TokenStream {
    let (k, v) = (&n.krate, &n.v);
    if fallible {
        let back = respan(quote!(<Self as #k::TryFrom<#from>>::try_from), from.span());
        quote!(#back(#v).map_err(#k::via_error))
    } else {
        let back = respan(quote!(<Self as #k::From<#from>>::from), from.span());
        quote!(#k::Ok(#back(#v)))
    }
}
