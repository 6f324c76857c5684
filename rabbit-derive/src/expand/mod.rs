//! Code generation: the `Encode`, `Decode` and `Describe` impls.
//!
//! Generated code names everything through one module of the runtime, `__derive` under the
//! crate path (`::rabbit` unless `#[rabbit(crate = "...")]`), standard items included, never
//! through the user's imports. Internal locals (`__w`, `__r`, `__c`, `__v`, `__e`, `__tag`) are `mixed_site`
//! hygienic, so they cannot clash with field names; field bindings keep the fields' own names,
//! which is what lets `if` conditions name earlier fields.

mod decode;
mod encode;
mod schema;
mod size;

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::ast::{Codec, Field, Input, Style};
use crate::bound::{self, Which};

/// Names shared by the generators.
pub struct Names {
    /// The runtime's module for generated code: `<crate path>::__derive`.
    pub krate: TokenStream,
    pub w: Ident,
    pub r: Ident,
    pub c: Ident,
    pub v: Ident,
    pub e: Ident,
    pub tag: Ident,
    /// The merged-write group of derived `encode`: its bits and their count.
    pub gv: Ident,
    pub gn: Ident,
    /// The group plan (`__derive::word_plan`) and one item's word.
    pub plan: Ident,
    pub x: Ident,
    pub xn: Ident,
}

impl Names {
    fn new(krate: &syn::Path) -> Self {
        let hidden = |s: &str| Ident::new(s, Span::mixed_site());
        Names {
            krate: quote!(#krate::__derive),
            w: hidden("__w"),
            r: hidden("__r"),
            c: hidden("__c"),
            v: hidden("__v"),
            e: hidden("__e"),
            tag: hidden("__tag"),
            gv: hidden("__gv"),
            gn: hidden("__gn"),
            plan: hidden("__plan"),
            x: hidden("__x"),
            xn: hidden("__xn"),
        }
    }

    /// `.map_err(|e| e.in_field("Type.field"))`.
    pub fn in_field(&self, owner: &str, field: &Field<'_>) -> TokenStream {
        let e = &self.e;
        let label = format!("{owner}.{}", field.name());
        quote!(.map_err(|#e| #e.in_field(#label)))
    }

    /// Encodes `value` (a `&T`, `T` the field's wire type) with the field's codec.
    pub fn encode_value(&self, field: &Field<'_>, value: &TokenStream) -> TokenStream {
        let k = &self.krate;
        let w = &self.w;
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Encode>::encode(#value, #w)),
            // Through the same helper as the merged write, so that a type without `FixedBits`
            // gets one error for the encode side, not one per helper.
            Codec::Bits(n) => {
                let (x, xn) = (&self.x, &self.xn);
                quote!(#k::codec::fixed_word::<#ty>(#value, #n)
                    .map(|(#x, #xn)| #w.write_word(#x, #xn)))
            }
            Codec::Varint => quote!(#k::codec::encode_varint::<#ty>(#value, #w)),
            Codec::ZigZag => quote!(#k::codec::encode_zigzag::<#ty>(#value, #w)),
            Codec::Range { min, max, .. } => {
                let (min, max) = (i128_lit(*min), i128_lit(*max));
                let (x, xn) = (&self.x, &self.xn);
                quote!(#k::codec::range_word::<#ty>(#value, #min, #max)
                    .map(|(#x, #xn)| #w.write_word(#x, #xn)))
            }
            Codec::With(path) => quote!(#path::encode(#value, #w)),
            Codec::MaxLen(n) => {
                quote!(#k::codec::encode_max_len::<#ty>(#value, (#n) as u64, #w))
            }
        }
    }

    /// `WORD_BITS` of the field's wire type under its codec (an `Option<u32>` constant
    /// expression), `None` for codecs that never fit a word and for `if` fields.
    pub fn word_bits(&self, field: &Field<'_>) -> TokenStream {
        let k = &self.krate;
        let p = quote!(#k);
        let ty = field.plan.wire_ty;
        if field.plan.cond.is_some() {
            return quote!(#p::None::<u32>);
        }
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Encode>::WORD_BITS),
            Codec::Bits(n) => quote!(#p::Some(#n)),
            Codec::Range { bits, .. } => quote!(#p::Some(#bits)),
            Codec::Varint => {
                quote!(#k::codec::varint_word_bits(<#ty as #k::codec::Varint>::BYTES))
            }
            Codec::ZigZag => {
                quote!(#k::codec::varint_word_bits(<#ty as #k::codec::ZigZag>::BYTES))
            }
            Codec::With(_) | Codec::MaxLen(_) => quote!(#p::None::<u32>),
        }
    }

    /// Whether the field can never be a word, whatever its type.
    pub fn never_word(&self, field: &Field<'_>) -> bool {
        field.plan.skip
            || field.plan.cond.is_some()
            || matches!(field.plan.codec, Codec::With(_) | Codec::MaxLen(_))
    }

    /// The field's encoding as one word (`Result<(u64, u32)>`), meaningful when
    /// [`Names::word_bits`] is `Some`.
    pub fn word_value(&self, field: &Field<'_>, value: &TokenStream) -> TokenStream {
        let k = &self.krate;
        let p = quote!(#k);
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Encode>::encode_word(#value)),
            Codec::Bits(n) => quote!(#k::codec::fixed_word::<#ty>(#value, #n)),
            Codec::Varint => quote!(#k::codec::varint_word::<#ty>(#value)),
            Codec::ZigZag => quote!(#k::codec::zigzag_word::<#ty>(#value)),
            Codec::Range { min, max, .. } => {
                let (min, max) = (i128_lit(*min), i128_lit(*max));
                quote!(#k::codec::range_word::<#ty>(#value, #min, #max))
            }
            Codec::With(_) | Codec::MaxLen(_) => {
                quote!(#p::Ok::<(u64, u32), #k::Error>((0u64, 0u32)))
            }
        }
    }

    /// Decodes one value of the field's wire type with its codec: an expression of type
    /// `Result<T>`.
    pub fn decode_value(&self, field: &Field<'_>) -> TokenStream {
        let k = &self.krate;
        let r = &self.r;
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Decode>::decode(#r)),
            Codec::Bits(n) => quote!(#k::codec::decode_fixed::<#ty>(#n, #r)),
            Codec::Varint => quote!(#k::codec::decode_varint::<#ty>(#r)),
            Codec::ZigZag => quote!(#k::codec::decode_zigzag::<#ty>(#r)),
            Codec::Range { min, max, .. } => {
                let (min, max) = (i128_lit(*min), i128_lit(*max));
                quote!(#k::codec::decode_range::<#ty>(#min, #max, #r))
            }
            Codec::With(path) => quote!(#path::decode(#r)),
            Codec::MaxLen(n) => quote!(#k::codec::decode_max_len::<#ty>((#n) as u64, #r)),
        }
    }

    /// [`Names::decode_value`] from a `BitWindow`: the type's own `decode_window` for a field
    /// with its default codec; the codec's decoder on a reader at the window's cursor for the
    /// others.
    pub fn decode_value_window(&self, field: &Field<'_>) -> TokenStream {
        let k = &self.krate;
        let r = &self.r;
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Decode>::decode_window(#r)),
            _ => {
                let dec = self.decode_value(field);
                quote!(#r.with_reader(|#r| #dec))
            }
        }
    }

    /// The bits `value` takes with the field's codec (`u64`), or `None` when the width is a
    /// constant that does not need the value.
    pub fn value_bits(&self, field: &Field<'_>, value: &TokenStream) -> Option<TokenStream> {
        let k = &self.krate;
        let ty = field.plan.wire_ty;
        Some(match &field.plan.codec {
            Codec::Default | Codec::MaxLen(_) => {
                quote!(<#ty as #k::Encode>::encoded_bits(#value))
            }
            Codec::Bits(_) | Codec::Range { .. } => return None,
            Codec::Varint => quote!(#k::codec::varint_bits::<#ty>(#value)),
            Codec::ZigZag => quote!(#k::codec::zigzag_bits::<#ty>(#value)),
            Codec::With(path) => {
                let w = &self.w;
                quote!(#k::custom_bits(|#w| #path::encode(#value, #w)))
            }
        })
    }

    /// The constant width of a fixed codec.
    pub fn fixed_bits(&self, field: &Field<'_>) -> Option<u64> {
        match &field.plan.codec {
            Codec::Bits(n) => Some(*n as u64),
            Codec::Range { bits, .. } => Some(*bits as u64),
            _ => None,
        }
    }

    /// `MIN_BITS` of the field's wire type under its codec (a `u64` constant expression).
    pub fn codec_min(&self, field: &Field<'_>) -> TokenStream {
        let k = &self.krate;
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default | Codec::MaxLen(_) => quote!(<#ty as #k::Encode>::MIN_BITS),
            Codec::Bits(_) | Codec::Range { .. } => {
                let n = Literal::u64_suffixed(self.fixed_bits(field).unwrap_or(0));
                quote!(#n)
            }
            Codec::Varint => quote!(#k::varint::min_bits(<#ty as #k::codec::Varint>::BYTES)),
            Codec::ZigZag => quote!(#k::varint::min_bits(<#ty as #k::codec::ZigZag>::BYTES)),
            Codec::With(_) => quote!(0u64),
        }
    }

    /// `MAX_BITS` of the field's wire type under its codec (an `Option<u64>` constant
    /// expression).
    pub fn codec_max(&self, field: &Field<'_>) -> TokenStream {
        let k = &self.krate;
        let p = quote!(#k);
        let ty = field.plan.wire_ty;
        match &field.plan.codec {
            Codec::Default => quote!(<#ty as #k::Encode>::MAX_BITS),
            Codec::Bits(_) | Codec::Range { .. } => {
                let n = Literal::u64_suffixed(self.fixed_bits(field).unwrap_or(0));
                quote!(#p::Some(#n))
            }
            Codec::Varint => {
                quote!(#p::Some(#k::varint::max_bits(<#ty as #k::codec::Varint>::BYTES)))
            }
            Codec::ZigZag => {
                quote!(#p::Some(#k::varint::max_bits(<#ty as #k::codec::ZigZag>::BYTES)))
            }
            Codec::With(_) => quote!(#p::None),
            Codec::MaxLen(n) => quote!(#k::size::list_max(
                (#n) as u64,
                <#ty as #k::ListItems>::ITEM_MAX_BITS
            )),
        }
    }
}

/// A `(-5i128)`-style literal that survives being an argument.
fn i128_lit(v: i128) -> TokenStream {
    let lit = Literal::i128_suffixed(v.unsigned_abs() as i128);
    if v < 0 {
        if v == i128::MIN {
            return quote!(i128::MIN);
        }
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

/// `Self { a, b: _ }`, `Self::V(_0, _)`, `Self`: binds the fields for which `used` is true.
pub fn pattern(
    path: &TokenStream,
    style: Style,
    fields: &[Field<'_>],
    used: impl Fn(&Field<'_>) -> bool,
) -> TokenStream {
    match style {
        Style::Unit => quote!(#path),
        Style::Named => {
            let parts = fields.iter().map(|f| {
                let b = &f.binding;
                if used(f) { quote!(#b) } else { quote!(#b: _) }
            });
            quote!(#path { #(#parts),* })
        }
        Style::Tuple => {
            let parts = fields.iter().map(|f| {
                let b = &f.binding;
                if used(f) { quote!(#b) } else { quote!(_) }
            });
            quote!(#path(#(#parts),*))
        }
    }
}

/// The tag's width for an index: a literal number of bits.
pub fn tag_bits(tag: crate::ast::Tag, index: u64) -> u64 {
    match tag {
        crate::ast::Tag::Bits(n) => n as u64,
        crate::ast::Tag::Varint => {
            let significant = 64 - (index | 1).leading_zeros() as u64;
            2 + 8 * significant.div_ceil(8)
        }
    }
}

/// `#[inline(always)]` for the encode and decode of a struct (a run of field writes or reads
/// that belongs inside its caller's loop, where the writer's accumulator stays in registers);
/// plain `#[inline]` for an enum, whose variants may be large.
fn hot_inline(input: &Input<'_>) -> TokenStream {
    match input.body {
        crate::ast::Body::Struct(..) => quote!(#[inline(always)]),
        crate::ast::Body::Enum(_) => quote!(#[inline]),
    }
}

pub fn expand(input: &Input<'_>) -> TokenStream {
    let names = Names::new(&input.krate);
    let k = &names.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let enc_where = bound::where_clause(input, Which::Encode);
    let dec_where = bound::where_clause(input, Which::Decode);

    let (min, max) = size::consts(input, &names);
    let encode_body = encode::body(input, &names);
    let word_bits = encode::word_bits(input, &names);
    let word_body = encode::word_body(input, &names);
    let bits_body = size::encoded_bits(input, &names);
    let decode_body = decode::body(input, &names, decode::Source::Reader);
    let window_body = decode::body(input, &names, decode::Source::Window);
    let type_schema = schema::type_schema(input, &names);
    let hot = hot_inline(input);
    let name = ident.to_string();
    let w = &names.w;
    let r = &names.r;

    let allow = quote! {
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
    };

    quote! {
        #allow
        impl #impl_generics #k::Encode for #ident #ty_generics #enc_where {
            const MIN_BITS: u64 = #min;
            const MAX_BITS: #k::Option<u64> = #max;
            const WORD_BITS: #k::Option<u32> = #word_bits;

            #hot
            fn encode(&self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #encode_body
            }

            #[inline(always)]
            fn encode_word(&self) -> #k::Result<(u64, u32)> {
                #word_body
            }

            #[inline]
            fn encoded_bits(&self) -> u64 {
                #bits_body
            }

            fn schema() -> #k::schema::Encoding {
                #k::schema::Encoding::Type(#k::schema::TypeRef {
                    name: #name,
                    schema: <Self as #k::schema::Describe>::type_schema,
                })
            }
        }

        #allow
        impl #impl_generics #k::Decode for #ident #ty_generics #dec_where {
            #hot
            fn decode(#r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #decode_body
            }

            #hot
            fn decode_window(#r: &mut #k::BitWindow<'_>) -> #k::Result<Self> {
                #window_body
            }
        }

        #allow
        impl #impl_generics #k::schema::Describe for #ident #ty_generics #enc_where {
            fn type_schema() -> #k::schema::TypeSchema {
                #type_schema
            }
        }
    }
}
