//! `Encode::encode`: the tag, then each field on the wire, in order, as straight-line code.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Names, pattern};
use crate::ast::{Body, Field, Input, Tag};

pub fn body(input: &Input<'_>, n: &Names<'_>) -> TokenStream {
    let k = n.krate;
    let w = &n.w;
    let p = quote!(#k::__private);
    let type_name = input.ident.to_string();
    match &input.body {
        Body::Struct(style, fields) => {
            let stmts = fields.iter().map(|f| field(f, n, &type_name));
            let destructure = if fields.iter().any(|f| !f.plan.skip) {
                let pat = pattern(&quote!(Self), *style, fields, |f| !f.plan.skip);
                quote!(let #pat = self;)
            } else {
                quote!()
            };
            quote! {
                #destructure
                #(#stmts)*
                #p::Ok(())
            }
        }
        Body::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, |f| !f.plan.skip);
                let index = Literal::u64_suffixed(v.index);
                let tag = match e.tag {
                    Tag::Bits(0) => quote!(),
                    Tag::Bits(bits) => quote!(#w.write_bits(#index, #bits);),
                    Tag::Varint => quote!(#w.write_varint(#index, 4);),
                };
                let owner = format!("{type_name}::{vi}");
                let stmts = v.fields.iter().map(|f| field(f, n, &owner));
                quote! {
                    #pat => {
                        #tag
                        #(#stmts)*
                    }
                }
            });
            quote! {
                match self {
                    #(#arms)*
                }
                #p::Ok(())
            }
        }
    }
}

fn field(f: &Field<'_>, n: &Names<'_>, owner: &str) -> TokenStream {
    if f.plan.skip {
        return quote!();
    }
    let k = n.krate;
    let p = quote!(#k::__private);
    let b = &f.binding;
    let in_field = n.in_field(owner, f);
    match &f.plan.cond {
        None => {
            let enc = n.encode_value(f, &quote!(#b));
            quote!(#enc #in_field?;)
        }
        Some(cond) => {
            // Earlier fields are already bound as references by the destructuring.
            let expr = &cond.expr;
            let (c, v) = (&n.c, &n.v);
            let enc = n.encode_value(f, &quote!(#v));
            let label = format!("{owner}.{}", f.name());
            quote! {
                let #c: bool = #expr;
                match #b {
                    #p::Some(#v) if #c => { #enc #in_field?; }
                    #p::None if !#c => {}
                    _ => return #p::Err(#k::derive_support::condition_mismatch(#label, #c)),
                }
            }
        }
    }
}
