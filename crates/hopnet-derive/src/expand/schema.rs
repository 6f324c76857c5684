//! `Describe::type_schema`: the layout as data.

use proc_macro2::TokenStream;
use quote::quote;

use super::names::Names;
use super::{items, layout};
use crate::plan::{Body, DeltaMode, Field, Fields, Item, Plan};

pub fn type_schema(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let name = input.ident.to_string();
    let doc = input.doc;
    let body = match &input.body {
        Body::Struct(fields) => {
            let fields = fields_vec(input, fields, n);
            quote!(#k::Body::Struct(#fields))
        }
        Body::Enum {
            tag: plan_tag,
            variants,
            ..
        } => {
            let codec = n.tag_ty(*plan_tag);
            let variants = variants.iter().map(|v| {
                let name = v.ident.to_string();
                let doc = v.doc;
                let index = v.index;
                let fields = fields_vec(input, &v.fields, n);
                quote!(#k::VariantSchema {
                    name: #name,
                    doc: #doc,
                    index: #index,
                    fields: #fields,
                })
            });
            let schema = if input.msb {
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
    let delta = match input.delta.as_ref().map(|d| d.mode) {
        None => quote!(#k::None),
        Some(DeltaMode::PerStruct) => quote!(#k::Some(#k::DeltaLayout::PerStruct)),
        Some(DeltaMode::PerField) => quote!(#k::Some(#k::DeltaLayout::PerField)),
    };
    quote! {
        #k::TypeSchema {
            name: #name,
            doc: #doc,
            body: #body,
            min_bits: <Self as #k::Encode>::MIN_BITS,
            max_bits: <Self as #k::Encode>::MAX_BITS,
            delta: #delta,
        }
    }
}

/// The fields in declaration order, with magic bytes and padding as fields of their own
/// where they are written: magic bytes first, padding just before its field (after the
/// skipped fields declared before that one).
fn fields_vec(input: &Plan<'_>, fields: &Fields<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let constant = |name: &str, item: &Item| {
        let (bits, value) = items::constant(item, input.msb, n)?;
        Some(quote!(#k::FieldSchema {
            name: #name,
            doc: "",
            ty: "",
            encoding: #k::Encoding::Constant { bits: #bits, value: #value },
            condition: #k::None,
            skipped: false,
            key: #k::None,
        }))
    };
    let mut out = Vec::new();
    let mut pads = Vec::new();
    // The fields listed so far.
    let mut listed = 0;
    for item in &fields.items {
        match item {
            Item::Magic(_) => out.extend(constant("magic", item)),
            Item::Pad(_) => pads.extend(constant("padding", item)),
            Item::Tag(..) => {}
            Item::Field(i) => {
                let skipped = &fields.list[listed..*i];
                out.extend(skipped.iter().map(|f| field(input, f, n)));
                out.append(&mut pads);
                out.push(field(input, &fields.list[*i], n));
                listed = i + 1;
            }
        }
    }
    let skipped = &fields.list[listed..];
    out.extend(skipped.iter().map(|f| field(input, f, n)));
    quote!(#k::list::<#k::FieldSchema, _>([#(#out),*]))
}

fn field(input: &Plan<'_>, f: &Field<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let (name, doc, ty_str) = (&f.name, f.doc, &f.ty_text);
    let skipped = f.wire.is_none();
    let encoding = match &f.wire {
        None => quote!(#k::Encoding::Empty),
        Some(w) => {
            let schema = n.enc(f, w, "schema");
            layout::field_schema(f, w, quote!(#schema()), input.msb, n)
        }
    };
    let condition = match f.cond() {
        Some(c) => {
            let text = &c.text;
            quote!(#k::Some(#text))
        }
        None => quote!(#k::None),
    };
    let key = match input.delta.as_ref().and_then(|d| d.key(f)) {
        Some(path) => {
            let text = path
                .iter()
                .map(|m| match m {
                    syn::Member::Named(ident) => ident.to_string(),
                    syn::Member::Unnamed(index) => index.index.to_string(),
                })
                .collect::<Vec<_>>()
                .join(".");
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
        key: #key,
    })
}
