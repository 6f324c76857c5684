//! The fields of a struct or a variant together: their flags, the baseline's pattern, and
//! the statements writing and reading them all.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Gen, Inner};
use crate::ast::Style;
use crate::expand::pattern;
use crate::plan::{DeltaMode, Field};

impl Gen<'_> {
    /// `let __u_a: bool = ...;` for every field on the wire: each compared once.
    pub(super) fn flags(&self, fields: &[Field<'_>]) -> TokenStream {
        let lets = fields.iter().filter_map(|f| {
            let test = self.unchanged(f, f.wire.as_ref()?);
            let flag = self.flag_of(f);
            Some(quote!(let #flag: bool = #test;))
        });
        quote!(#(#lets)*)
    }

    /// `true && __u_a && __u_b`: every field on the wire unchanged, from the flags.
    pub(super) fn all_flags(&self, fields: &[Field<'_>]) -> TokenStream {
        let flags = fields
            .iter()
            .filter(|f| f.wire.is_some())
            .map(|f| self.flag_of(f));
        quote!(true #(&& #flags)*)
    }

    /// `Self { a: __base_a, b: __base_b }`: every field of the baseline, by name.
    pub(super) fn base_pattern(
        &self,
        path: &TokenStream,
        style: Style,
        fields: &[Field<'_>],
    ) -> TokenStream {
        match style {
            Style::Unit => quote!(#path),
            Style::Named => {
                let parts = fields.iter().map(|f| {
                    let (m, b) = (&f.member, self.base_of(f));
                    quote!(#m: #b)
                });
                quote!(#path { #(#parts),* })
            }
            Style::Tuple => {
                let parts = fields.iter().map(|f| self.base_of(f));
                quote!(#path(#(#parts),*))
            }
        }
    }

    /// What the fields of a struct or variant write when the value changed, given the layout.
    pub(super) fn inner(&self, fields: &[Field<'_>]) -> Inner {
        let on_wire = fields.iter().filter(|f| f.wire.is_some()).count();
        if self.delta.mode == DeltaMode::PerStruct && on_wire == 1 {
            Inner::Changes
        } else {
            Inner::Deltas
        }
    }

    /// `true && a && b`: every field on the wire unchanged.
    pub(super) fn all_unchanged(&self, fields: &[Field<'_>]) -> TokenStream {
        let terms = fields
            .iter()
            .filter_map(|f| Some(self.unchanged(f, f.wire.as_ref()?)));
        quote!(true #(&& #terms)*)
    }

    /// What the fields write: each one's delta (from its flag), or the one field's changes.
    pub(super) fn encode_fields(
        &self,
        fields: &[Field<'_>],
        inner: Inner,
        owner: &str,
    ) -> TokenStream {
        match inner {
            Inner::Changes => {
                let stmts = fields
                    .iter()
                    .filter_map(|f| Some(self.changes(f, f.wire.as_ref()?, owner)));
                quote!(#(#stmts)*)
            }
            Inner::Deltas => {
                let (flags, parts) = (self.flags(fields), self.parts(fields, owner));
                quote! {
                    #flags
                    #parts
                }
            }
        }
    }

    /// Every field's part, from the flags.
    pub(super) fn parts(&self, fields: &[Field<'_>], owner: &str) -> TokenStream {
        let parts = fields
            .iter()
            .filter_map(|f| Some(self.part(f, f.wire.as_ref()?, owner)));
        quote!(#(#parts)*)
    }

    /// Reads the fields in order, then builds `path` of them.
    pub(super) fn decode_fields(
        &self,
        path: &TokenStream,
        style: Style,
        fields: &[Field<'_>],
        inner: Inner,
        owner: &str,
    ) -> TokenStream {
        let k = &self.n.krate;
        let stmts = fields.iter().map(|f| self.decode(f, inner, owner));
        let value = pattern(path, style, fields, |_| true);
        quote! {
            #(#stmts)*
            #k::Ok(#value)
        }
    }
}
