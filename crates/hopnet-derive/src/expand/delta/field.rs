//! One field's four operations on the wire, by its [`Kind`]: whether it is unchanged, its
//! changes, its delta from its flag, and the reads of both.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::{Gen, Inner, Kind};
use crate::expand::earlier_fields;
use crate::plan::{Field, Wire};

impl Gen<'_> {
    /// Whether the field is unchanged (`bool`): the field and its baseline bound by name.
    pub(super) fn unchanged(&self, f: &Field<'_>, wire: &Wire<'_>) -> TokenStream {
        let k = &self.n.krate;
        let (a, b) = (&f.binding, self.base_of(f));
        match self.kind(f, wire) {
            Kind::Native => {
                let call = self.native(wire, "DeltaEncode", "unchanged");
                quote!(#call(#a, #b))
            }
            Kind::Coded => {
                let call = self.coded(f, wire, "coded_unchanged");
                quote!(#call(#a, #b))
            }
            Kind::Cond => {
                let call = self.coded(f, wire, "cond_unchanged");
                quote!(#call(#a, #b))
            }
            Kind::Keyed(_) => quote!(#k::keyed::unchanged(#a, #b)),
        }
    }

    /// The statement writing a field's changes, when it is known to have changed.
    pub(super) fn changes(&self, f: &Field<'_>, wire: &Wire<'_>, owner: &str) -> TokenStream {
        let k = &self.n.krate;
        let (a, b, w, c) = (&f.binding, self.base_of(f), &self.n.w, &self.n.c);
        let in_field = self.n.in_field(owner, f);
        let label = self.label(owner, f);
        let call = match self.kind(f, wire) {
            Kind::Native => {
                let call = self.native(wire, "DeltaEncode", "encode_changes");
                quote!(#call(#a, #b, #w))
            }
            Kind::Coded => {
                let call = self.coded(f, wire, "coded_encode_changes");
                quote!(#call(#a, #w))
            }
            Kind::Cond => {
                let expr = wire.cond.as_ref().map(|c| &c.expr);
                let call = self.coded(f, wire, "cond_encode_changes");
                // Earlier fields are bound as references, as in `encode`.
                return quote! {
                    {
                        let #c: bool = #expr;
                        #call(#a, #c, #label, #w) #in_field?;
                    }
                };
            }
            Kind::Keyed(path) => {
                let key = self.key(path);
                quote!(#k::keyed::encode_changes(#a, #b, #key, #w))
            }
        };
        quote!(#call #in_field?;)
    }

    /// The local holding whether field `f` is unchanged.
    pub(super) fn flag_of(&self, f: &Field<'_>) -> Ident {
        format_ident!("__u_{}", f.binding, span = Span::mixed_site())
    }

    /// The statement writing a field's delta from its flag: its changed bit and its changes,
    /// or, for a type whose delta is laid out otherwise (`DELTA_BIT` false), its delta.
    pub(super) fn part(&self, f: &Field<'_>, wire: &Wire<'_>, owner: &str) -> TokenStream {
        let k = &self.n.krate;
        let (a, b, w, c) = (&f.binding, self.base_of(f), &self.n.w, &self.n.c);
        let flag = self.flag_of(f);
        let changes = self.changes(f, wire, owner);
        let bit_then_changes = quote! {
            if #flag {
                #w.write_bool(false);
            } else {
                #w.write_bool(true);
                #changes
            }
        };
        match self.kind(f, wire) {
            Kind::Native => {
                let own_bit = self.native(wire, "DeltaEncode", "DELTA_BIT");
                let delta = self.native(wire, "DeltaEncode", "encode_delta");
                let in_field = self.n.in_field(owner, f);
                quote! {
                    if #own_bit {
                        #bit_then_changes
                    } else {
                        #delta(#a, #b, #w) #in_field?;
                    }
                }
            }
            Kind::Cond => {
                // Unchanged, it is still checked against its condition.
                let expr = wire.cond.as_ref().map(|c| &c.expr);
                let label = self.label(owner, f);
                quote! {
                    if #flag {
                        let #c: bool = #expr;
                        #k::cond_check(#a, #c, #label)?;
                    }
                    #bit_then_changes
                }
            }
            Kind::Coded | Kind::Keyed(_) => bit_then_changes,
        }
    }

    /// The statement reading the field into a local named after it.
    pub(super) fn decode(&self, f: &Field<'_>, inner: Inner, owner: &str) -> TokenStream {
        let k = &self.n.krate;
        let (a, b, r, c) = (&f.binding, self.base_of(f), &self.n.r, &self.n.c);
        let ty = f.ty;
        let Some(wire) = &f.wire else {
            // Not on the wire: the baseline's.
            return quote!(let #a: #ty = #k::Clone::clone(#b););
        };
        let in_field = self.n.in_field(owner, f);
        let label = self.label(owner, f);
        let deltas = inner == Inner::Deltas;
        let read = match self.kind(f, wire) {
            Kind::Native => {
                let method = if deltas {
                    "decode_delta"
                } else {
                    "decode_changes"
                };
                let call = self.native(wire, "DeltaDecode", method);
                quote!(#call(#b, #r))
            }
            Kind::Coded if deltas => {
                let call = self.coded(f, wire, "coded_decode_delta");
                quote!(#call(#b, #r))
            }
            Kind::Coded => {
                let call = self.coded(f, wire, "coded_decode_changes");
                quote!(#call(#r))
            }
            Kind::Cond => {
                let cond = wire.cond.as_ref().expect("an `if` field has a condition");
                let expr = &cond.expr;
                let binds = earlier_fields(&cond.uses);
                let call = if deltas {
                    let call = self.coded(f, wire, "cond_decode_delta");
                    quote!(#call(#b, #c, #label, #r))
                } else {
                    let call = self.coded(f, wire, "cond_decode_changes");
                    quote!(#call(#c, #r))
                };
                // The same view of the earlier fields as in `decode`.
                return quote! {
                    let #c: bool = {
                        #binds
                        #expr
                    };
                    let #a: #ty = #call #in_field?;
                };
            }
            Kind::Keyed(_) => {
                let method = if deltas {
                    "decode_delta"
                } else {
                    "decode_changes"
                };
                let method = Ident::new(method, Span::call_site());
                quote!(#k::keyed::#method(#b, #r))
            }
        };
        quote!(let #a: #ty = #read #in_field?;)
    }
}
