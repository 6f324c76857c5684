//! The three impls (`Encode`, `Decode`, `Describe`) around their bodies, and the attributes
//! every generated impl carries.

use proc_macro2::TokenStream;
use quote::quote;

use super::names::Names;
use crate::bound::{self, Which};
use crate::plan::{Body, Plan};

/// `#[inline(always)]` for the encode and decode of a struct (a run of field writes or reads
/// that belongs inside its caller's loop, where the writer's accumulator stays in registers);
/// plain `#[inline]` for an enum, whose variants may be large.
pub fn hot_inline(input: &Plan<'_>) -> TokenStream {
    match &input.body {
        Body::Struct(..) => quote!(#[inline(always)]),
        // An enum of unit variants is a tag and nothing else: as small as a field.
        Body::Enum { variants, .. } if variants.iter().all(|v| v.fields.list.is_empty()) => {
            quote!(#[inline(always)])
        }
        Body::Enum { .. } => quote!(#[inline]),
    }
}

/// The attributes of every generated impl: derived, and quiet about the shapes generated code
/// takes (unit values, single-arm matches, casts that are no-ops for some types).
pub fn allow() -> TokenStream {
    quote! {
        #[automatically_derived]
        #[allow(
            unused_braces,
            unreachable_code,
            clippy::identity_op,
            clippy::let_unit_value,
            clippy::match_single_binding,
            clippy::needless_question_mark,
            clippy::unit_arg,
            clippy::unnecessary_cast,
            clippy::redundant_closure_call,
            clippy::blocks_in_conditions,
            clippy::nonminimal_bool,
            clippy::precedence,
            unused_mut,
            unused_assignments,
            unused_variables,
        )]
    }
}

/// What the three impls hold, per kind of input: the rest of them is the same for all.
pub struct Impls {
    /// Items beside the impls (the codec types of `with` fields).
    pub helpers: TokenStream,
    /// `MIN_BITS`, `MAX_BITS`, `WORD_BITS`.
    pub sizes: [TokenStream; 3],
    /// The bodies of `encode`, `encode_word`, `encoded_bits`, of `decode` and
    /// `decode_window` (one body over either reader), and of `type_schema`.
    pub encode: TokenStream,
    pub encode_word: TokenStream,
    pub encoded_bits: TokenStream,
    pub decode: TokenStream,
    pub type_schema: TokenStream,
    /// The inline attribute of `encode`, `decode` and `decode_window`.
    pub hot: TokenStream,
}

/// The `Encode`, `Decode` and `Describe` impls around their bodies, in an anonymous `const`
/// block with the helper items and the delta impls, if any.
pub fn assemble(
    input: &Plan<'_>,
    names: &Names,
    impls: Impls,
    delta: Option<TokenStream>,
) -> TokenStream {
    let k = &names.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let enc_where = bound::where_clause(input, Which::Encode, k);
    let dec_where = bound::where_clause(input, Which::Decode, k);
    let Impls {
        helpers,
        sizes: [min, max, word_bits],
        encode,
        encode_word,
        encoded_bits,
        decode,
        type_schema,
        hot,
    } = impls;
    let name = ident.to_string();
    let (w, r) = (&names.w, &names.r);
    let allow = allow();
    quote! {
        const _: () = {
            #helpers

            #allow
            impl #impl_generics #k::Encode for #ident #ty_generics #enc_where {
                const MIN_BITS: u64 = #min;
                const MAX_BITS: #k::Option<u64> = #max;
                const WORD_BITS: #k::Option<u32> = #word_bits;

                #hot
                fn encode(&self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                    #encode
                }

                #[inline(always)]
                fn encode_word(&self) -> #k::Result<(u64, u32)> {
                    #encode_word
                }

                #[inline]
                fn encoded_bits(&self) -> u64 {
                    #encoded_bits
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
                #hot
                fn decode(#r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                    #decode
                }

                #hot
                fn decode_window(#r: &mut #k::BitWindow<'_>) -> #k::Result<Self> {
                    #decode
                }
            }

            #allow
            impl #impl_generics #k::Describe for #ident #ty_generics #enc_where {
                fn type_schema() -> #k::TypeSchema {
                    #type_schema
                }
            }

            #delta
        };
    }
}
