//! `#[rabbit(from = "W", into = "W")]` (or `try_from`): a container written as another type.
//! Both directions are needed, and nothing of the body is on the wire, so options on it
//! would have no effect.

use crate::ast::{self, Input};
use crate::attr::rules::Place;
use crate::attr::{Attr, Value};
use crate::ctxt::Ctxt;
use crate::plan::Via;

/// The conversions, if the container is written as another type.
pub fn resolve<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Via<'a>> {
    let into = input.attrs.get("into");
    let from = input
        .attrs
        .get("from")
        .or_else(|| input.attrs.get("try_from"));
    let (into, from) = match (into, from) {
        (None, None) => return None,
        (Some(into), Some(from)) => (into, from),
        (Some(one), None) | (None, Some(one)) => {
            cx.error(
                one.span,
                format_args!(
                    "`{}` needs its other half: a type written as another one needs `into = \"W\"`, and `from = \"W\"` or `try_from = \"W\"` to read it back",
                    one.rule.name
                ),
            );
            return None;
        }
    };
    let no_effect = |a: &Attr| {
        cx.error(
            a.span,
            format_args!(
                "`{}` has no effect: `{}` is written as its `into` type",
                a.rule.name, input.ident
            ),
        )
    };
    let container = input.attrs.list.iter();
    container
        .filter(|a| !a.rule.places.contains(&Place::Struct))
        .for_each(no_effect);
    let fields = |fields: &'a [ast::Field<'a>]| fields.iter().flat_map(|f| &f.attrs.list);
    match &input.body {
        ast::Body::Struct(_, list) => fields(list).for_each(no_effect),
        ast::Body::Enum(variants) => variants
            .iter()
            .flat_map(|v| v.attrs.list.iter().chain(fields(&v.fields)))
            .for_each(no_effect),
    }
    Some(Via {
        into: ty(into)?,
        from: ty(from)?,
        fallible: from.rule.name == "try_from",
    })
}

fn ty(attr: &Attr) -> Option<&syn::Type> {
    match &attr.value {
        Value::Type(ty) => Some(ty),
        _ => None,
    }
}
