//! `Describe::type_schema`: the layout as data.

use proc_macro2::TokenStream;
use quote::quote;

use super::Names;
use crate::ast::{Body, Field, Input};
use crate::valid::ty_string;

pub fn type_schema(input: &Input<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = input.ident.to_string();
    let doc = &input.attrs.doc;
    let body = match &input.body {
        Body::Struct(_, fields) => {
            let fields = fields_vec(fields, n);
            quote!(#k::Body::Struct(#fields))
        }
        Body::Enum(e) => {
            let tag = n.tag_ty(e.tag);
            let variants = e.variants.iter().map(|v| {
                let name = v.ident.to_string();
                let doc = &v.attrs.doc;
                let index = v.index;
                let fields = fields_vec(&v.fields, n);
                quote!(#k::VariantSchema {
                    name: #name,
                    doc: #doc,
                    index: #index,
                    fields: #fields,
                })
            });
            quote!(#k::Body::Enum {
                tag: <#tag as #k::TagCodec>::SCHEMA,
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

fn fields_vec(fields: &[Field<'_>], n: &Names) -> TokenStream {
    let k = &n.krate;
    let items = fields.iter().map(|f| field(f, n));
    quote!(#k::list::<#k::FieldSchema, _>([#(#items),*]))
}

fn field(f: &Field<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = f.name();
    let doc = &f.attrs.doc;
    let ty_str = ty_string(f.ty);
    let skipped = f.plan.skip;
    let encoding = if skipped {
        quote!(#k::Encoding::Empty)
    } else {
        let schema = n.enc(f, "schema");
        quote!(#schema())
    };
    let condition = match &f.plan.cond {
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
