//! The vocabulary every generator shares: the runtime's module under its versioned name, the
//! hygienic locals, the codec type of each encoding and the calls on it, and the patterns
//! that bind a struct's or a variant's fields.

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::Ident;
use syn::spanned::Spanned;

use crate::plan::{Body, Codec, Field, Fields, Plan, Style, Tag, Wire};

/// The runtime's module for generated code, named after this crate's version
/// (`__derive_v0_1_0`). The runtime's build script names it after the runtime's version the
/// same way, and the runtime pins this crate with `=`: a derive and a runtime from different
/// releases fail to compile instead of disagreeing about the contract.
pub fn contract() -> Ident {
    let version: String = env!("CARGO_PKG_VERSION")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Ident::new(&format!("__derive_v{version}"), Span::call_site())
}

/// Names shared by the generators.
pub struct Names {
    /// The runtime's module for generated code: `<crate path>::__derive_v0_1_0`.
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
    /// The group plan (the contract's `word_plan`) and one item's word.
    pub plan: Ident,
    pub x: Ident,
    pub xn: Ident,
    /// The type parameters of the input, as the helper types of `with` fields repeat them.
    ty_generics: TokenStream,
}

impl Names {
    pub fn new(input: &Plan<'_>) -> Self {
        let krate = &input.krate;
        let hidden = |s: &str| Ident::new(s, Span::mixed_site());
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let contract = contract();
        Names {
            krate: quote!(#krate::#contract),
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
        let label = format!("{owner}.{}", field.name);
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
            Codec::CString => quote!(#k::CString),
            Codec::Leb128 => quote!(#k::Leb128),
            Codec::Leb128Signed => quote!(#k::Leb128Signed),
            Codec::Leb128ZigZag => quote!(#k::Leb128ZigZag),
            Codec::Range { min, max } => {
                let (min, max) = (i128_lit(*min), i128_lit(*max));
                quote!(#k::Range<#min, #max>)
            }
            Codec::MaxLen(n) => quote!(#k::MaxLen<{ #n as u64 }>),
            Codec::With(_) => {
                let helper = with_helper(field);
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
            Codec::Counted(None) => quote!(#k::Counted),
            Codec::Counted(Some(n)) => quote!(#k::Counted<{ #n as u64 }>),
            Codec::UntilByte(b, None) => {
                let b = Literal::u8_suffixed(*b);
                quote!(#k::UntilByte<#b>)
            }
            Codec::UntilByte(b, Some(n)) => {
                let b = Literal::u8_suffixed(*b);
                quote!(#k::UntilByte<#b, { #n as u64 }>)
            }
            Codec::UntilItem(None) => quote!(#k::UntilItem),
            Codec::UntilItem(Some(n)) => quote!(#k::UntilItem<{ #n as u64 }>),
            // Written through its transform (`layout.rs`); the codec gives its sizes.
            Codec::Transformed => quote!(#k::Transformed),
            Codec::Quantize { min, max, step } => {
                // Floats cannot be const generic arguments: their bits are.
                let [min, max, step] = [min, max, step].map(|v| Literal::u64_suffixed(v.to_bits()));
                quote!(#k::Quantize<#min, #max, #step>)
            }
            Codec::QuantizeAxes(grids) => {
                let axes = grids.iter().map(|(min, max, step)| {
                    let [min, max, step] =
                        [min, max, step].map(|v| Literal::u64_suffixed(v.to_bits()));
                    quote!(#k::Quantize<#min, #max, #step>)
                });
                quote!(#k::QuantizeAxes<(#(#axes,)*)>)
            }
            Codec::Quaternion(bits) => {
                let bits = Literal::u32_suffixed(*bits);
                quote!(#k::SmallestThree<#bits>)
            }
            Codec::UnitVector(bits) => {
                let bits = Literal::u32_suffixed(*bits);
                quote!(#k::Octahedral<#bits>)
            }
        }
    }

    /// `<C as FieldCodec<T>>::item`: an item of the encoding half of the field's codec, for
    /// its wire type.
    ///
    /// Spanned at the type: a type the codec does not take is reported at the field.
    pub fn enc(&self, field: &Field<'_>, wire: &Wire<'_>, item: &str) -> TokenStream {
        let k = &self.krate;
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
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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
pub fn earlier_fields(uses: &[Ident]) -> TokenStream {
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
/// `match self`: `arm` gets the variant's fields and its name for errors.
pub fn each_variant(
    input: &Plan<'_>,
    arm: impl Fn(&Fields<'_>, &str) -> TokenStream,
) -> TokenStream {
    let type_name = input.ident.to_string();
    let on_wire = |f: &Field<'_>| f.wire.is_some();
    match &input.body {
        Body::Struct(fields) => {
            let body = arm(fields, &type_name);
            let pat = pattern(&quote!(Self), fields.style, &fields.list, on_wire);
            quote! {
                let #pat = self;
                #body
            }
        }
        Body::Enum { variants, .. } => {
            let arms = variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.fields.style, &v.fields.list, on_wire);
                let owner = format!("{type_name}::{vi}");
                let body = arm(&v.fields, &owner);
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

/// The name of the codec type of a `with` field (`with.rs` declares it).
pub fn with_helper(field: &Field<'_>) -> Ident {
    format_ident!("__RabbitWith{}", field.uid, span = Span::mixed_site())
}
