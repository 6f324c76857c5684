//! `Describe::type_schema`: the layout as data.

use proc_macro2::TokenStream;
use quote::quote;

use super::Names;
use crate::plan::{Body, Field, Plan};
use crate::valid::ty_string;

pub fn type_schema(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = input.ident.to_string();
    let doc = input.doc;
    let body = match &input.body {
        Body::Struct(_, fields) => {
            let fields = fields_vec(fields, n);
            quote!(#k::Body::Struct(#fields))
        }
        Body::Enum(tag, variants) => {
            let tag = n.tag_ty(*tag);
            let variants = variants.iter().map(|v| {
                let name = v.ident.to_string();
                let doc = v.doc;
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
    let skipped = f.wire.is_none();
    let encoding = match &f.wire {
        None => quote!(#k::Encoding::Empty),
        Some(w) => {
            let schema = n.enc(f, w, "schema");
            quote!(#schema())
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
