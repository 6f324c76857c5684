//! Every check that can fail, each reported at the offending token; all of an input's errors
//! are collected in the [`Ctxt`] and shown together. What the checks establish is returned as
//! the [`Plan`] that expansion consumes: validation reads the input, it never writes to it.

mod cond;
mod delta;
mod ends;
mod field;
mod items;
mod layout;
mod place;
mod quantize;
mod tag;
mod types;
mod via;

use crate::ast::{self, Input};
use crate::attr::Value;
use crate::attr::rules::Place;
use crate::ctxt::Ctxt;
use crate::plan::{Body, Fields, Item, Plan, Style, Variant};

/// The plan of `input`; `None` if it cannot be built (already reported). Errors recorded in
/// `cx` make the plan unusable even when it is returned.
pub fn plan<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Plan<'a>> {
    let place = match input.body {
        ast::Body::Struct(..) => Place::Struct,
        ast::Body::Enum(_) => Place::Enum,
    };
    place::check(cx, &input.attrs, place);
    let via = via::resolve(cx, input);
    let container = layout::container(cx, &input.attrs);
    let body = match &input.body {
        _ if via.is_some() => Body::Struct(Fields {
            style: Style::Unit,
            list: Vec::new(),
            items: Vec::new(),
        }),
        ast::Body::Struct(style, fields) => {
            let (list, pads) = field::plan(cx, fields, &container);
            let lead = items::magic(container.magic.as_deref());
            Body::Struct(items::fields(*style, list, &pads, lead))
        }
        ast::Body::Enum(variants) => {
            if variants.is_empty() {
                cx.error(
                    input.ident.span(),
                    "#[derive(Rabbit)] needs at least one variant: an enum without variants has no value to encode",
                );
                return None;
            }
            let fields: Vec<_> = variants
                .iter()
                .map(|v| {
                    place::check(cx, &v.attrs, Place::Variant);
                    field::plan(cx, &v.fields, &container)
                })
                .collect();
            let (tag, indices) = tag::resolve(cx, &input.attrs, variants);
            let variants = variants
                .iter()
                .zip(fields)
                .zip(indices)
                .map(|((v, (list, pads)), index)| {
                    let mut lead = vec![Item::Tag(tag, index)];
                    lead.extend(items::magic(layout::magic(&v.attrs).as_deref()));
                    Variant {
                        ident: v.ident,
                        doc: &v.attrs.doc,
                        index,
                        fields: items::fields(v.style, list, &pads, lead),
                    }
                })
                .collect();
            Body::Enum {
                magic: items::magic(container.magic.as_deref()),
                tag,
                variants,
            }
        }
    };
    let krate = match input.attrs.get("crate").map(|a| &a.value) {
        Some(Value::Path(path)) => path.clone(),
        _ => syn::parse_quote!(::hopnet_codec),
    };
    let bound = match input.attrs.get("bound").map(|a| &a.value) {
        Some(Value::Bound(preds)) => Some(preds.as_slice()),
        _ => None,
    };
    let delta = delta::resolve(cx, input, &body);
    Some(Plan {
        ident: input.ident,
        generics: input.generics,
        krate,
        bound,
        doc: &input.attrs.doc,
        via,
        msb: container.msb,
        body,
        delta,
    })
}
