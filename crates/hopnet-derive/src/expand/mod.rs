//! Code generation: the `Encode`, `Decode` and `Describe` impls.
//!
//! Generated code names everything through one module of the runtime, `__derive` under the
//! crate path (`::hopnet_codec` unless `#[rabbit(crate = "...")]`), standard items included, never
//! through the user's imports. Each field is written by a codec type (`Native`, `Fixed<N>`,
//! `Range<A, B>`, ..., see [`Names::codec_ty`]) and every field gets the same calls on it:
//! `<C as FieldCodec<T>>::encode`, `::encode_word`, `::encoded_bits`, its constants, and
//! `<C as FieldDecode<T>>::decode`. An enum's tag is a codec type too. The impls sit in an
//! anonymous `const _: () = { ... };` block with the helper types of `with` fields.
//!
//! Internal locals (`__w`, `__r`, `__c`, `__v`, `__e`, `__tag`) are `mixed_site` hygienic, so
//! they cannot clash with field names; field bindings keep the fields' own names, which is
//! what lets `if` conditions name earlier fields.

mod decode;
mod delta;
mod encode;
mod layout;
mod schema;
mod size;
mod via;
mod with;

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::quote;
use syn::Ident;
use syn::spanned::Spanned;

use crate::ast::Style;
use crate::bound::{self, Which};
use crate::plan::{Body, Codec, Field, Plan, Tag, Wire};

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
    /// The type parameters of the input, as the helper types of `with` fields repeat them.
    ty_generics: TokenStream,
}

impl Names {
    fn new(input: &Plan<'_>) -> Self {
        let krate = &input.krate;
        let hidden = |s: &str| Ident::new(s, Span::mixed_site());
        let (_, ty_generics, _) = input.generics.split_for_impl();
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
            ty_generics: quote!(#ty_generics),
        }
    }

    /// `.map_err(|e| e.in_field("Type.field"))`.
    pub fn in_field(&self, owner: &str, field: &Field<'_>) -> TokenStream {
        let e = &self.e;
        let label = format!("{owner}.{}", field.name());
        quote!(.map_err(|#e| #e.in_field(#label)))
    }

    /// The codec type of a field: the one place that knows which type each encoding
    /// attribute selects.
    pub fn codec_ty(&self, field: &Field<'_>, wire: &Wire<'_>) -> TokenStream {
        let k = &self.krate;
        match &wire.codec {
            Codec::Native => quote!(#k::Native),
            Codec::Fixed(n) => quote!(#k::Fixed<#n>),
            Codec::Varint => quote!(#k::Varint),
            Codec::ZigZag => quote!(#k::ZigZag),
            Codec::Range { min, max } => {
                let (min, max) = (i128_lit(*min), i128_lit(*max));
                quote!(#k::Range<#min, #max>)
            }
            Codec::MaxLen(n) => quote!(#k::MaxLen<{ #n as u64 }>),
            Codec::With(_) => {
                let helper = with::helper_ident(field);
                let g = &self.ty_generics;
                quote!(#helper #g)
            }
            Codec::Bytes { n, big: true } => quote!(#k::BigEndian<#n>),
            Codec::Bytes { n, big: false } => quote!(#k::LittleEndian<#n>),
            Codec::FixedLen(n) => {
                let n = Literal::u64_suffixed(*n);
                quote!(#k::FixedLen<#n>)
            }
            Codec::ToEnd(None) => quote!(#k::ToEnd),
            Codec::ToEnd(Some(n)) => quote!(#k::ToEnd<{ #n as u64 }>),
            // Written through its transform (`layout.rs`); the codec only gives the sizes of
            // a value of unknown length.
            Codec::Transformed => quote!(#k::ToEnd),
            Codec::Quantize { min, max, step } => {
                // Floats cannot be const generic arguments: their bits are.
                let [min, max, step] = [min, max, step].map(|v| Literal::u64_suffixed(v.to_bits()));
                quote!(#k::Quantize<#min, #max, #step>)
            }
        }
    }

    /// `<C as FieldCodec<T>>::item`: an item of the encoding half of the field's codec, for
    /// its wire type.
    ///
    /// Spanned at the type: a type the codec does not take is reported at the field.
    pub fn enc(&self, field: &Field<'_>, wire: &Wire<'_>, item: &str) -> TokenStream {
        let k = &self.krate;
        if let Some(sizes) = layout::transformed_sizes(wire, item, k) {
            return sizes;
        }
        let (c, ty) = (self.codec_ty(field, wire), wire.ty);
        let item = Ident::new(item, ty.span());
        respan(quote!(<#c as #k::FieldCodec<#ty>>::#item), ty.span())
    }

    /// `<C as FieldDecode<T>>::decode`: the decoding half.
    pub fn dec(&self, field: &Field<'_>, wire: &Wire<'_>) -> TokenStream {
        let k = &self.krate;
        let (c, ty) = (self.codec_ty(field, wire), wire.ty);
        respan(quote!(<#c as #k::FieldDecode<#ty>>::decode), ty.span())
    }

    /// The codec type of an enum's tag.
    pub fn tag_ty(&self, tag: Tag) -> TokenStream {
        let k = &self.krate;
        match tag {
            Tag::Bits(n) => quote!(#k::Fixed<#n>),
            Tag::Fewest { max_index } => {
                let max_index = Literal::u64_suffixed(max_index);
                quote!(#k::Fixed<{ #k::fewest_tag_bits(#max_index) }>)
            }
            Tag::Varint => quote!(#k::Varint),
        }
    }

    /// `<C as TagIndex<I>>`: the tag of the variant with index `index`, as constants.
    pub fn tag_index(&self, tag: Tag, index: u64) -> TokenStream {
        let k = &self.krate;
        let c = self.tag_ty(tag);
        let index = Literal::u64_suffixed(index);
        quote!(<#c as #k::TagIndex<#index>>)
    }
}

/// `tokens` with every span set to `span`, so that errors in them point there.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// `let a = &a;` for each earlier field an expression names: the view of them that a
/// condition, a computed field's expression or a transform sees when decoding, the same as
/// when encoding (where the fields are references already).
fn earlier_fields(uses: &[Ident]) -> TokenStream {
    quote!(#(#[allow(unused_variables)] let #uses = &#uses;)*)
}

/// A `(-5i128)`-style literal that survives being a generic argument.
fn i128_lit(v: i128) -> TokenStream {
    let lit = Literal::i128_suffixed(v.unsigned_abs() as i128);
    if v < 0 {
        if v == i128::MIN {
            return quote!({ i128::MIN });
        }
        quote!({ -#lit })
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

/// The code for the struct (its wire fields bound by a `let`), or for each variant in a
/// `match self`: `arm` gets the variant's tag and index, its fields and its name for errors.
pub fn each_variant(
    input: &Plan<'_>,
    arm: impl Fn(Option<(Tag, u64)>, &[Field<'_>], &str) -> TokenStream,
) -> TokenStream {
    let type_name = input.ident.to_string();
    let on_wire = |f: &Field<'_>| f.wire.is_some();
    match &input.body {
        Body::Struct(style, fields) => {
            let body = arm(None, fields, &type_name);
            let pat = pattern(&quote!(Self), *style, fields, on_wire);
            quote! {
                let #pat = self;
                #body
            }
        }
        Body::Enum(tag, variants) => {
            let arms = variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, on_wire);
                let owner = format!("{type_name}::{vi}");
                let body = arm(Some((*tag, v.index)), &v.fields, &owner);
                quote!(#pat => { #body })
            });
            quote! {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// `#[inline(always)]` for the encode and decode of a struct (a run of field writes or reads
/// that belongs inside its caller's loop, where the writer's accumulator stays in registers);
/// plain `#[inline]` for an enum, whose variants may be large.
fn hot_inline(input: &Plan<'_>) -> TokenStream {
    match &input.body {
        Body::Struct(..) => quote!(#[inline(always)]),
        // An enum of unit variants is a tag and nothing else: as small as a field.
        Body::Enum(_, variants) if variants.iter().all(|v| v.fields.is_empty()) => {
            quote!(#[inline(always)])
        }
        Body::Enum(..) => quote!(#[inline]),
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

pub fn expand(input: &Plan<'_>) -> TokenStream {
    let names = Names::new(input);
    let impls = match &input.via {
        Some(via) => via::impls(input, via, &names),
        None => Impls {
            helpers: with::helpers(input, &names),
            sizes: size::consts(input, &names),
            encode: encode::body(input, &names),
            encode_word: encode::word_body(input, &names),
            encoded_bits: size::encoded_bits(input, &names),
            decode: decode::body(input, &names),
            type_schema: schema::type_schema(input, &names),
            hot: hot_inline(input),
        },
    };
    let delta = input.delta.as_ref().map(|d| delta::impls(input, d, &names));
    assemble(input, &names, impls, delta)
}

/// The `Encode`, `Decode` and `Describe` impls around their bodies, in an anonymous `const`
/// block with the helper items and the delta impls, if any.
fn assemble(
    input: &Plan<'_>,
    names: &Names,
    impls: Impls,
    delta: Option<TokenStream>,
) -> TokenStream {
    let k = &names.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let enc_where = bound::where_clause(input, Which::Encode);
    let dec_where = bound::where_clause(input, Which::Decode);
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
