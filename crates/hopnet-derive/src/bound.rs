//! Where-clauses of the generated impls.
//!
//! As in serde: every type parameter that appears in the type of a field on the wire gets the
//! trait (`T: Encode` for `Encode` and `Describe`, `T: Encode + Decode` for `Decode`, since list
//! decoding reads `MIN_BITS`); a parameter that appears in a skipped field gets `T: Default` for
//! `Decode`. Fields with `with = "..."` add nothing (their codec decides). Parameters that only
//! appear inside `PhantomData<...>` add nothing. `#[rabbit(bound = "...")]` replaces all of this
//! with the given predicates.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::Visit;
use syn::{Ident, WhereClause};

use crate::plan::Plan;

pub enum Which {
    Encode,
    Decode,
    DeltaEncode,
    DeltaDecode,
}

pub fn where_clause(input: &Plan<'_>, which: Which) -> Option<WhereClause> {
    let mut clause = input.generics.where_clause.clone();
    let krate = &input.krate;
    let krate = quote!(#krate::__derive);
    let preds: Vec<TokenStream> = if let Some(bound) = input.bound {
        bound.iter().map(|p| quote!(#p)).collect()
    } else {
        let params: Vec<&Ident> = input.generics.type_params().map(|p| &p.ident).collect();
        if params.is_empty() {
            return clause;
        }
        let mut wire = BTreeSet::new();
        let mut skipped = BTreeSet::new();
        for field in input.all_fields() {
            if field
                .wire
                .as_ref()
                .is_some_and(|w| !w.codec.infers_bounds())
            {
                continue;
            }
            let mut finder = Uses {
                params: &params,
                found: BTreeSet::new(),
            };
            finder.visit_type(field.ty);
            if field.wire.is_none() {
                skipped.extend(finder.found);
            } else {
                wire.extend(finder.found);
            }
        }
        let mut preds = Vec::new();
        for p in &params {
            let name = p.to_string();
            let on_wire = wire.contains(&name);
            let in_skip = skipped.contains(&name);
            match which {
                Which::Encode if on_wire => preds.push(quote!(#p: #krate::Encode)),
                Which::Decode if on_wire && in_skip => {
                    preds.push(quote!(#p: #krate::Encode + #krate::Decode + #krate::Default))
                }
                Which::Decode if on_wire => preds.push(quote!(#p: #krate::Encode + #krate::Decode)),
                Which::Decode if in_skip => preds.push(quote!(#p: #krate::Default)),
                // Deltas: the parameter's own deltas; a skipped field is the baseline's, or
                // `Default` in a value decoded whole.
                Which::DeltaEncode if on_wire => preds.push(quote!(#p: #krate::DeltaEncode)),
                Which::DeltaDecode if on_wire && in_skip => preds
                    .push(quote!(#p: #krate::DeltaEncode + #krate::DeltaDecode + #krate::Default)),
                Which::DeltaDecode if on_wire => {
                    preds.push(quote!(#p: #krate::DeltaEncode + #krate::DeltaDecode))
                }
                Which::DeltaDecode if in_skip => {
                    preds.push(quote!(#p: #krate::Default + #krate::Clone))
                }
                _ => {}
            }
        }
        preds
    };
    if preds.is_empty() {
        return clause;
    }
    let clause = clause.get_or_insert_with(|| syn::parse_quote!(where));
    for pred in preds {
        clause.predicates.push(syn::parse_quote!(#pred));
    }
    Some(clause.clone())
}

struct Uses<'p> {
    params: &'p [&'p Ident],
    found: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
        if ty.qself.is_none()
            && let Some(first) = ty.path.segments.first()
            && self.params.iter().any(|p| **p == first.ident)
        {
            self.found.insert(first.ident.to_string());
        }
        if ty
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "PhantomData")
        {
            return;
        }
        syn::visit::visit_type_path(self, ty);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}
