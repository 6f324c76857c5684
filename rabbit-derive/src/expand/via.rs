//! The impls of a container written as another type (`from`/`try_from` and `into`): each
//! method converts and hands over to the wire type's, through the `Native` codec like any
//! field, so that the wire type's word merging and window decoding carry over.

use proc_macro2::TokenStream;
use quote::quote;
use syn::WhereClause;
use syn::spanned::Spanned;

use super::{Names, allow, respan};
use crate::plan::{Plan, Via};
use crate::valid::ty_string;

/// The `Encode`, `Decode` and `Describe` items of `input`, written as `via.into`.
pub fn impls(
    input: &Plan<'_>,
    via: &Via<'_>,
    n: &Names,
    enc_where: &Option<WhereClause>,
    dec_where: &Option<WhereClause>,
) -> TokenStream {
    let k = &n.krate;
    let (w, r, v) = (&n.w, &n.r, &n.v);
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let (into, from) = (via.into, via.from);
    let enc = quote!(<#k::Native as #k::FieldCodec<#into>>);
    // The conversions are spanned at the types named: a missing impl is reported there.
    let to_wire = respan(quote!(<Self as #k::Into<#into>>::into), into.span());
    let wire = quote!(#to_wire(<Self as #k::Clone>::clone(self)));
    let back = if via.fallible {
        let back = respan(quote!(<Self as #k::TryFrom<#from>>::try_from), from.span());
        quote!(#back(#v).map_err(#k::via_error))
    } else {
        let back = respan(quote!(<Self as #k::From<#from>>::from), from.span());
        quote!(#k::Ok(#back(#v)))
    };
    let decode = quote! {
        <#k::Native as #k::FieldDecode<#from>>::decode(#r).and_then(|#v| #back)
    };
    let name = ident.to_string();
    let doc = input.doc;
    let wire_ty = ty_string(into);
    let allow = allow();
    quote! {
        #allow
        impl #impl_generics #k::Encode for #ident #ty_generics #enc_where {
            const MIN_BITS: u64 = #enc::MIN_BITS;
            const MAX_BITS: #k::Option<u64> = #enc::MAX_BITS;
            const WORD_BITS: #k::Option<u32> = #enc::WORD_BITS;

            #[inline(always)]
            fn encode(&self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #enc::encode(&#wire, #w)
            }

            #[inline(always)]
            fn encode_word(&self) -> #k::Result<(u64, u32)> {
                #enc::encode_word(&#wire)
            }

            #[inline]
            fn encoded_bits(&self) -> u64 {
                #enc::encoded_bits(&#wire)
            }

            fn schema() -> #k::Encoding {
                #k::Encoding::Type(#k::TypeRef {
                    name: #name,
                    schema: <Self as #k::Describe>::type_schema,
                })
            }
        }

        #allow
        impl #impl_generics #k::Decode for #ident #ty_generics #dec_where {
            #[inline(always)]
            fn decode(#r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #decode
            }

            #[inline(always)]
            fn decode_window(#r: &mut #k::BitWindow<'_>) -> #k::Result<Self> {
                #decode
            }
        }

        #allow
        impl #impl_generics #k::Describe for #ident #ty_generics #enc_where {
            fn type_schema() -> #k::TypeSchema {
                #k::via_schema(
                    #enc::schema(),
                    #name,
                    #doc,
                    #wire_ty,
                    (<Self as #k::Encode>::MIN_BITS, <Self as #k::Encode>::MAX_BITS),
                )
            }
        }
    }
}
