//! `Decode::decode`: the tag, then each field in order into a local, then the value.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Names, pattern};
use crate::ast::{Body, Field, Input, Style, Tag};

pub fn body(input: &Input<'_>, n: &Names<'_>) -> TokenStream {
    let k = n.krate;
    let r = &n.r;
    let p = quote!(#k::__private);
    let type_name = input.ident.to_string();
    match &input.body {
        Body::Struct(style, fields) => build(&quote!(Self), *style, fields, n, &type_name),
        Body::Enum(e) => {
            if e.variants.len() == 1 && e.tag == Tag::Bits(0) {
                let v = &e.variants[0];
                let vi = v.ident;
                return build(
                    &quote!(Self::#vi),
                    v.style,
                    &v.fields,
                    n,
                    &format!("{type_name}::{vi}"),
                );
            }
            let tag = &n.tag;
            let read = match e.tag {
                Tag::Bits(bits) => quote!(#r.read_bits(#bits)?),
                Tag::Varint => quote!(#r.read_varint(4)?),
            };
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let index = Literal::u64_suffixed(v.index);
                let body = build(
                    &quote!(Self::#vi),
                    v.style,
                    &v.fields,
                    n,
                    &format!("{type_name}::{vi}"),
                );
                quote!(#index => { #body })
            });
            quote! {
                let #tag: u64 = #read;
                match #tag {
                    #(#arms)*
                    _ => #p::Err(#k::derive_support::unknown_variant(#type_name, #tag, #r.position())),
                }
            }
        }
    }
}

/// Decodes the fields into locals named after them, then builds `path`.
fn build(
    path: &TokenStream,
    style: Style,
    fields: &[Field<'_>],
    n: &Names<'_>,
    owner: &str,
) -> TokenStream {
    let k = n.krate;
    let p = quote!(#k::__private);
    let stmts = fields.iter().map(|f| field(f, n, owner));
    let value = pattern(path, style, fields, |_| true);
    quote! {
        #(#stmts)*
        #p::Ok(#value)
    }
}

fn field(f: &Field<'_>, n: &Names<'_>, owner: &str) -> TokenStream {
    let k = n.krate;
    let p = quote!(#k::__private);
    let b = &f.binding;
    let ty = f.ty;
    if f.plan.skip {
        return quote!(let #b: #ty = #p::Default::default(););
    }
    let dec = n.decode_value(f);
    let in_field = n.in_field(owner, f);
    match &f.plan.cond {
        None => quote!(let #b: #ty = #dec #in_field?;),
        Some(cond) => {
            // The same view as in `encode`: each earlier field the condition names is a
            // reference.
            let expr = &cond.expr;
            let c = &n.c;
            let binds = cond
                .uses
                .iter()
                .map(|u| quote!(#[allow(unused_variables)] let #u = &#u;));
            quote! {
                let #c: bool = {
                    #(#binds)*
                    #expr
                };
                let #b: #ty = if #c {
                    #p::Some(#dec #in_field?)
                } else {
                    #p::None
                };
            }
        }
    }
}
