//! `Describe::type_schema`: the layout as data.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, layout};
use crate::plan::{Body, Field, Plan, Tag};
use crate::valid::ty_string;

pub fn type_schema(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = input.ident.to_string();
    let doc = input.doc;
    let body = match &input.body {
        Body::Struct(_, fields) => {
            let fields = fields_vec(input, None, fields, n);
            quote!(#k::Body::Struct(#fields))
        }
        Body::Enum(plan_tag, variants) => {
            let codec = n.tag_ty(*plan_tag);
            let variants = variants.iter().map(|v| {
                let name = v.ident.to_string();
                let doc = v.doc;
                let index = v.index;
                let fields = fields_vec(input, Some((*plan_tag, v.index)), &v.fields, n);
                quote!(#k::VariantSchema {
                    name: #name,
                    doc: #doc,
                    index: #index,
                    fields: #fields,
                })
            });
            let schema = if input.layout.msb {
                quote!(#k::msb_tag(<#codec as #k::TagCodec>::SCHEMA))
            } else {
                quote!(<#codec as #k::TagCodec>::SCHEMA)
            };
            quote!(#k::Body::Enum {
                tag: #schema,
                variants: #k::list([#(#variants),*]),
            })
        }
    };
    quote! {
        #k::TypeSchema {
            name: #name,
            doc: #doc,
            body: #body,
            min_bits: <Self as #k::Encode>::MIN_BITS,
            max_bits: <Self as #k::Encode>::MAX_BITS,
        }
    }
}

/// The fields in wire order, with magic bytes and padding as fields of their own.
fn fields_vec(
    input: &Plan<'_>,
    tag: Option<(Tag, u64)>,
    fields: &[Field<'_>],
    n: &Names,
) -> TokenStream {
    let k = &n.krate;
    let (first, pads) = layout::constant_schemas(input, tag, fields, n);
    let mut items = first;
    for (i, f) in fields.iter().enumerate() {
        items.extend(
            pads.iter()
                .filter(|(at, _)| *at == i)
                .map(|(_, s)| s.clone()),
        );
        items.push(field(input, f, n));
    }
    quote!(#k::list::<#k::FieldSchema, _>([#(#items),*]))
}

fn field(input: &Plan<'_>, f: &Field<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = f.name();
    let doc = &f.attrs.doc;
    let ty_str = ty_string(f.ty);
    let skipped = f.wire.is_none();
    let encoding = match &f.wire {
        None => quote!(#k::Encoding::Empty),
        Some(w) => {
            let schema = n.enc(f, w, "schema");
            layout::field_schema(f, w, quote!(#schema()), input.layout.msb, n)
        }
    };
    let condition = match f.cond() {
        Some(c) => {
            let text = &c.text;
            quote!(#k::Some(#text))
        }
        None => quote!(#k::None),
    };
    quote!(#k::FieldSchema {
        name: #name,
        doc: #doc,
        ty: #ty_str,
        encoding: #encoding,
        condition: #condition,
        skipped: #skipped,
    })
}
