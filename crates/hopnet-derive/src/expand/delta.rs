//! `DeltaEncode` and `DeltaDecode` for `#[rabbit(delta)]` (the layout is in `hopnet_codec::delta`).
//!
//! Each field on the wire is one of four kinds, each with the same four operations (is it
//! unchanged, its delta, its changes when it is known to have changed, and the reads of both):
//! a field without an encoding attribute recurses into its type's own `DeltaEncode`; a field with
//! one is written whole by its codec when it changed (`coded_*`); an `if` field likewise, its
//! presence its condition's (`cond_*`); a `key` list goes through `keyed`. A struct with two or
//! more fields on the wire writes a changed bit of its own (`per_struct`, the default) unless
//! `per_field`; one with a single field lets that field's bit speak for it. An enum writes
//! whether the variant is the baseline's, then that variant's fields' deltas, or the whole
//! value. Skipped fields keep the baseline's value.
//!
//! Here: the impls and the generator's shared vocabulary; one field's operations in `field`,
//! a struct's or variant's fields together in `field_list`, each shape of container in
//! `container`.

mod container;
mod field;
mod field_list;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Ident, Member};

use super::{Names, respan};
use crate::bound::{self, Which};
use crate::plan::{Body, Codec, Delta, Field, Plan, Wire};

/// The two impls, to sit beside the others in their `const` block.
pub fn impls(input: &Plan<'_>, delta: &Delta, n: &Names) -> TokenStream {
    let k = &n.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let enc_where = bound::where_clause(input, Which::DeltaEncode);
    let dec_where = bound::where_clause(input, Which::DeltaDecode);
    let d = Gen {
        n,
        delta,
        base: Ident::new("__base", Span::mixed_site()),
        type_name: input.ident.to_string(),
    };
    let Bodies {
        delta_bit,
        unchanged,
        encode_delta,
        encode_changes,
        decode_delta,
        decode_changes,
    } = match &input.via {
        Some(via) => d.via(via),
        None => match &input.body {
            Body::Struct(style, fields) => d.structure(*style, fields),
            Body::Enum(_, variants) => d.enumeration(variants),
        },
    };
    let (w, r, base) = (&n.w, &n.r, &d.base);
    let encode_delta = encode_delta.map(|body| {
        quote! {
            #[inline]
            fn encode_delta(&self, #base: &Self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #body
            }
        }
    });
    let decode_delta = decode_delta.map(|body| {
        quote! {
            #[inline]
            fn decode_delta(#base: &Self, #r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #body
            }
        }
    });
    let allow = super::allow();
    quote! {
        #allow
        impl #impl_generics #k::DeltaEncode for #ident #ty_generics #enc_where {
            const DELTA_BIT: bool = #delta_bit;

            #[inline]
            fn unchanged(&self, #base: &Self) -> bool {
                #unchanged
            }

            #encode_delta

            fn encode_changes(&self, #base: &Self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #encode_changes
            }
        }

        #allow
        impl #impl_generics #k::DeltaDecode for #ident #ty_generics #dec_where {
            #decode_delta

            fn decode_changes(#base: &Self, #r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #decode_changes
            }
        }
    }
}

/// The methods' bodies; `None` keeps the trait's provided method (a changed bit, then the
/// changes).
struct Bodies {
    /// `DeltaEncode::DELTA_BIT`.
    delta_bit: TokenStream,
    unchanged: TokenStream,
    encode_delta: Option<TokenStream>,
    encode_changes: TokenStream,
    decode_delta: Option<TokenStream>,
    decode_changes: TokenStream,
}

struct Gen<'g> {
    n: &'g Names,
    delta: &'g Delta,
    base: Ident,
    type_name: String,
}

/// How a field's delta is written.
enum Kind<'f> {
    /// Its type's own `DeltaEncode`.
    Native,
    /// Whole, by its codec, when it changed.
    Coded,
    /// An `if` field: whole by its codec when it changed and is present.
    Cond,
    /// `key = "..."`: a keyed list, its items' key at this path.
    Keyed(&'f [Member]),
}

/// What a struct or a variant writes when its value changed: a changed bit per field, or (a
/// single field on the wire, `per_struct`) that field's changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inner {
    Deltas,
    Changes,
}

impl Gen<'_> {
    /// The binding of the baseline's field `f`.
    fn base_of(&self, f: &Field<'_>) -> Ident {
        format_ident!("__base_{}", f.binding, span = Span::mixed_site())
    }

    fn kind<'f>(&'f self, f: &Field<'_>, wire: &Wire<'_>) -> Kind<'f> {
        if let Some(path) = self.delta.key(f) {
            Kind::Keyed(path)
        } else if wire.cond.is_some() {
            Kind::Cond
        } else if matches!(wire.codec, Codec::Native) {
            Kind::Native
        } else {
            Kind::Coded
        }
    }

    /// `<T as DeltaEncode>::item`, spanned at the type so that a type without deltas is
    /// reported at the field.
    fn native(&self, wire: &Wire<'_>, tr: &str, item: &str) -> TokenStream {
        let k = &self.n.krate;
        let ty = wire.ty;
        let (tr, item) = (Ident::new(tr, ty.span()), Ident::new(item, ty.span()));
        respan(quote!(<#ty as #k::#tr>::#item), ty.span())
    }

    /// `__derive::helper::<C, T>`.
    fn coded(&self, f: &Field<'_>, wire: &Wire<'_>, helper: &str) -> TokenStream {
        let k = &self.n.krate;
        let (c, ty) = (self.n.codec_ty(f, wire), wire.ty);
        let helper = Ident::new(helper, ty.span());
        respan(quote!(#k::#helper::<#c, #ty>), ty.span())
    }

    /// `|__e| &__e.path`: a keyed list's key.
    fn key(&self, path: &[Member]) -> TokenStream {
        let e = &self.n.e;
        quote!(|#e| &#e #(.#path)*)
    }

    fn label(&self, owner: &str, f: &Field<'_>) -> String {
        format!("{owner}.{}", f.name())
    }
}
