//! The codec types of `#[rabbit(with = "path")]` fields: one private zero-sized type per field,
//! forwarding to `path::encode` and `path::decode`, so that these fields are written like every
//! other, through `FieldCodec` and `FieldDecode`.
//!
//! The type repeats the input's generic parameters (held in `PhantomData`), so that its impls
//! may use them and carry the input's where-clauses.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{GenericParam, Ident};

use super::Names;
use crate::bound::{self, Which};
use crate::plan::{Codec, Plan};

/// The name of the codec type of a `with` field.
pub fn helper_ident(field: &crate::plan::Field<'_>) -> Ident {
    format_ident!("__RabbitWith{}", field.uid, span = Span::mixed_site())
}

/// Every `with` field's codec type and its impls.
pub fn helpers(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let enc_where = bound::where_clause(input, Which::Encode);
    let dec_where = bound::where_clause(input, Which::Decode);
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let decl = declaration(input, n);
    let marker = marker(input, n);
    let items = input.all_fields().filter_map(|f| {
        let wire = f.wire.as_ref()?;
        let Codec::With(path) = &wire.codec else {
            return None;
        };
        let helper = helper_ident(f);
        let ty = wire.ty;
        let text = ty_string_of_path(path);
        let (w, r) = (&n.w, &n.r);
        // The value bears the field's span: a signature mismatch is reported at the field.
        let v = Ident::new("__v", f.binding.span());
        let reader = Ident::new("__RabbitReader", Span::mixed_site());
        Some(quote! {
            #[allow(dead_code)]
            struct #helper #decl #marker;

            impl #impl_generics #k::FieldCodec<#ty> for #helper #ty_generics #enc_where {
                const MIN_BITS: u64 = 0;
                const MAX_BITS: #k::Option<u64> = #k::None;

                #[inline]
                fn encode(#v: &#ty, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                    #path::encode(#v, #w)
                }

                fn schema() -> #k::Encoding {
                    #k::Encoding::Custom { codec: #text }
                }
            }

            impl #impl_generics #k::FieldDecode<#ty> for #helper #ty_generics #dec_where {
                #[inline]
                fn decode<#reader: #k::BitRead>(#r: &mut #reader) -> #k::Result<#ty> {
                    #k::BitRead::with_reader(#r, |#r| #path::decode(#r))
                }
            }
        })
    });
    quote!(#(#items)*)
}

/// `<'a, T: ?Sized, const N: usize>`: the input's parameters without bounds or defaults
/// (every type parameter may be unsized, as the marker only points at it).
fn declaration(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let params = input.generics.params.iter().map(|p| match p {
        GenericParam::Lifetime(l) => {
            let l = &l.lifetime;
            quote!(#l)
        }
        GenericParam::Type(t) => {
            let t = &t.ident;
            quote!(#t: ?#k::Sized)
        }
        GenericParam::Const(c) => {
            let (ident, ty) = (&c.ident, &c.ty);
            quote!(const #ident: #ty)
        }
    });
    if input.generics.params.is_empty() {
        quote!()
    } else {
        quote!(<#(#params),*>)
    }
}

/// `(PhantomData<(&'a (), *const T)>)`, or nothing without lifetime or type parameters.
fn marker(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let parts: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Lifetime(l) => {
                let l = &l.lifetime;
                Some(quote!(&#l ()))
            }
            GenericParam::Type(t) => {
                let t = &t.ident;
                Some(quote!(*const #t))
            }
            GenericParam::Const(_) => None,
        })
        .collect();
    if parts.is_empty() {
        quote!()
    } else {
        quote!((#k::PhantomData<(#(#parts,)*)>))
    }
}

fn ty_string_of_path(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}
