//! `Describe::type_schema`: the layout as data.

use proc_macro2::TokenStream;
use quote::quote;

use super::Names;
use crate::ast::{Body, Codec, Field, Input, Tag};
use crate::valid::ty_string;

pub fn type_schema(input: &Input<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let s = quote!(#k::schema);
    let name = input.ident.to_string();
    let doc = &input.attrs.doc;
    let body = match &input.body {
        Body::Struct(_, fields) => {
            let fields = fields_vec(fields, n);
            quote!(#s::Body::Struct(#fields))
        }
        Body::Enum(e) => {
            let tag = match e.tag {
                Tag::Bits(bits) => quote!(#s::Tag::Bits(#bits)),
                Tag::Varint => quote!(#s::Tag::Varint { bytes: 4 }),
            };
            let variants = e.variants.iter().map(|v| {
                let name = v.ident.to_string();
                let doc = &v.attrs.doc;
                let index = v.index;
                let fields = fields_vec(&v.fields, n);
                quote!(#s::VariantSchema {
                    name: #name,
                    doc: #doc,
                    index: #index,
                    fields: #fields,
                })
            });
            quote!(#s::Body::Enum {
                tag: #tag,
                variants: #k::list([#(#variants),*]),
            })
        }
    };
    quote! {
        #s::TypeSchema {
            name: #name,
            doc: #doc,
            body: #body,
            min_bits: <Self as #k::Encode>::MIN_BITS,
            max_bits: <Self as #k::Encode>::MAX_BITS,
        }
    }
}

fn fields_vec(fields: &[Field<'_>], n: &Names) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    if fields.is_empty() {
        return quote!(#p::Vec::new());
    }
    let items = fields.iter().map(|f| field(f, n));
    quote!(#k::list([#(#items),*]))
}

fn field(f: &Field<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    let s = quote!(#k::schema);
    let name = f.name();
    let doc = &f.attrs.doc;
    let ty_str = ty_string(f.ty);
    let skipped = f.plan.skip;
    let ty = f.plan.wire_ty;
    let encoding = if skipped {
        quote!(#s::Encoding::Empty)
    } else {
        match &f.plan.codec {
            Codec::Default => quote!(<#ty as #k::Encode>::schema()),
            Codec::Bits(bits) => quote!(#s::Encoding::Fixed {
                bits: #bits,
                signed: <#ty as #k::codec::FixedBits>::SIGNED,
            }),
            Codec::Varint => quote!(#s::Encoding::Varint {
                bytes: <#ty as #k::codec::Varint>::BYTES,
                zigzag: false,
            }),
            Codec::ZigZag => quote!(#s::Encoding::Varint {
                bytes: <#ty as #k::codec::ZigZag>::BYTES,
                zigzag: true,
            }),
            Codec::Range { min, max, bits } => {
                let (min, max) = (super::i128_lit(*min), super::i128_lit(*max));
                quote!(#s::Encoding::Range { min: #min, max: #max, bits: #bits })
            }
            Codec::With(path) => {
                let text = quote!(#path).to_string().replace(' ', "");
                quote!(#s::Encoding::Custom { codec: #text })
            }
            Codec::MaxLen(len) => quote!(#k::with_max_len(
                <#ty as #k::Encode>::schema(),
                (#len) as u64,
            )),
        }
    };
    let condition = match &f.plan.cond {
        Some(c) => {
            let text = &c.text;
            quote!(#p::Some(#text))
        }
        None => quote!(#p::None),
    };
    quote!(#s::FieldSchema {
        name: #name,
        doc: #doc,
        ty: #ty_str,
        encoding: #encoding,
        condition: #condition,
        skipped: #skipped,
    })
}
