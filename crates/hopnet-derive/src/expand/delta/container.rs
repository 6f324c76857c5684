//! The bodies of the two impls for each shape of container: a struct (its own changed bit or
//! its one field's), an enum (the baseline's variant or the whole value), and a container
//! written as another type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;
use syn::spanned::Spanned;

use super::{Bodies, Gen, Inner, Kind};
use crate::ast::Style;
use crate::expand::via::{from_wire, to_wire};
use crate::expand::{pattern, respan};
use crate::plan::{DeltaMode, Field, Variant, Via};

impl Gen<'_> {
    pub(super) fn structure(&self, style: Style, fields: &[Field<'_>]) -> Bodies {
        let k = &self.n.krate;
        let base = &self.base;
        let owner = self.type_name.as_str();
        let this = pattern(&quote!(Self), style, fields, |f| f.wire.is_some());
        let that = self.base_pattern(&quote!(Self), style, fields);
        let bind = quote! {
            let #this = self;
            let #that = #base;
        };
        let bind_base = quote!(let #that = #base;);
        let all = self.all_unchanged(fields);
        let inner = self.inner(fields);
        let deltas = self.encode_fields(fields, Inner::Deltas, owner);
        let changes = self.encode_fields(fields, inner, owner);
        let read_deltas = self.decode_fields(&quote!(Self), style, fields, Inner::Deltas, owner);
        let read_changes = self.decode_fields(&quote!(Self), style, fields, inner, owner);
        // A changed bit of its own only for `per_struct` with two or more fields: one field's
        // bit says as much, and `per_field` has none.
        let own_bit = self.delta.mode == DeltaMode::PerStruct && inner == Inner::Deltas;
        let w = &self.n.w;
        let encode_delta = if own_bit {
            // The fields compared once: their flags decide the struct's bit, then each field's.
            let (flags, parts, all) = (
                self.flags(fields),
                self.parts(fields, owner),
                self.all_flags(fields),
            );
            quote! {
                #bind
                #flags
                if #all {
                    #w.write_bool(false);
                    return #k::Ok(());
                }
                #w.write_bool(true);
                #parts
                #k::Ok(())
            }
        } else {
            quote! {
                #bind
                #deltas
                #k::Ok(())
            }
        };
        let on_wire: Vec<_> = fields.iter().filter(|f| f.wire.is_some()).collect();
        let delta_bit = match (own_bit, self.delta.mode, on_wire.as_slice()) {
            (true, ..) => quote!(true),
            (false, DeltaMode::PerStruct, [f]) => {
                match self.kind(f, f.wire.as_ref().expect("on the wire")) {
                    Kind::Native => self.native(
                        f.wire.as_ref().expect("on the wire"),
                        "DeltaEncode",
                        "DELTA_BIT",
                    ),
                    _ => quote!(true),
                }
            }
            _ => quote!(false),
        };
        Bodies {
            delta_bit,
            unchanged: quote! {
                #bind
                #all
            },
            encode_delta: Some(encode_delta),
            encode_changes: quote! {
                #bind
                #changes
                #k::Ok(())
            },
            decode_delta: (!own_bit).then(|| {
                quote! {
                    #bind_base
                    #read_deltas
                }
            }),
            decode_changes: quote! {
                #bind_base
                #read_changes
            },
        }
    }

    pub(super) fn enumeration(&self, variants: &[Variant<'_>]) -> Bodies {
        let k = &self.n.krate;
        let (w, r) = (&self.n.w, &self.n.r);
        let base = &self.base;
        let several = variants.len() > 1;
        let per_struct = self.delta.mode == DeltaMode::PerStruct;
        let mut unchanged = Vec::new();
        let mut changes = Vec::new();
        let mut deltas = Vec::new();
        let mut read_changes = Vec::new();
        let mut read_deltas = Vec::new();
        for v in variants {
            let vi = v.ident;
            let path = quote!(Self::#vi);
            let owner = format!("{}::{vi}", self.type_name);
            let this = pattern(&path, v.style, &v.fields, |f| f.wire.is_some());
            let that = self.base_pattern(&path, v.style, &v.fields);
            let all = self.all_unchanged(&v.fields);
            unchanged.push(quote!((#this, #that) => #all,));
            // The variant is the baseline's: say so (if there is a choice), then its fields.
            let same = several.then(|| quote!(#w.write_bool(true);));
            let inner = if per_struct {
                self.inner(&v.fields)
            } else {
                Inner::Deltas
            };
            let stmts = self.encode_fields(&v.fields, inner, &owner);
            changes.push(quote!((#this, #that) => { #same #stmts }));
            let stmts = self.encode_fields(&v.fields, Inner::Deltas, &owner);
            deltas.push(quote!((#this, #that) => { #same #stmts }));
            let read = self.decode_fields(&path, v.style, &v.fields, inner, &owner);
            read_changes.push(quote!(#that => { #read }));
            let read = self.decode_fields(&path, v.style, &v.fields, Inner::Deltas, &owner);
            read_deltas.push(quote!(#that => { #read }));
        }
        let other_unchanged = several.then(|| quote!(_ => false,));
        // Another variant: the whole value.
        let other = several.then(|| {
            quote! {
                _ => {
                    #w.write_bool(false);
                    <Self as #k::Encode>::encode(self, #w)?;
                }
            }
        });
        let read = |arms: &[TokenStream]| {
            let arms = quote! {
                match #base {
                    #(#arms)*
                }
            };
            if several {
                quote! {
                    if #r.read_bool()? {
                        #arms
                    } else {
                        <Self as #k::Decode>::decode(#r)
                    }
                }
            } else {
                arms
            }
        };
        let (read_changes, read_deltas) = (read(&read_changes), read(&read_deltas));
        let encode = |arms: &[TokenStream]| {
            quote! {
                match (self, #base) {
                    #(#arms)*
                    #other
                }
                #k::Ok(())
            }
        };
        Bodies {
            delta_bit: if per_struct {
                quote!(true)
            } else {
                quote!(false)
            },
            unchanged: quote! {
                match (self, #base) {
                    #(#unchanged)*
                    #other_unchanged
                }
            },
            encode_delta: (!per_struct).then(|| encode(&deltas)),
            encode_changes: encode(&changes),
            decode_delta: (!per_struct).then_some(read_deltas),
            decode_changes: read_changes,
        }
    }

    /// A container written as another type: that type's deltas, through the conversions.
    pub(super) fn via(&self, via: &Via<'_>) -> Bodies {
        let k = &self.n.krate;
        let (w, r, v) = (&self.n.w, &self.n.r, &self.n.v);
        let base = &self.base;
        let into = via.into;
        let (this, that) = (
            to_wire(self.n, into, quote!(self)),
            to_wire(self.n, into, quote!(#base)),
        );
        let call = |method: &str| {
            let method = Ident::new(method, into.span());
            respan(quote!(<#into as #k::DeltaEncode>::#method), into.span())
        };
        let read = |method: &str| {
            let method = Ident::new(method, into.span());
            respan(quote!(<#into as #k::DeltaDecode>::#method), into.span())
        };
        let back = from_wire(self.n, into, via.fallible);
        let (unchanged, encode_delta, encode_changes) = (
            call("unchanged"),
            call("encode_delta"),
            call("encode_changes"),
        );
        let (decode_delta, decode_changes) = (read("decode_delta"), read("decode_changes"));
        let delta_bit = respan(quote!(<#into as #k::DeltaEncode>::DELTA_BIT), into.span());
        Bodies {
            delta_bit,
            unchanged: quote!(#unchanged(&#this, &#that)),
            encode_delta: Some(quote!(#encode_delta(&#this, &#that, #w))),
            encode_changes: quote!(#encode_changes(&#this, &#that, #w)),
            decode_delta: Some(quote!(#decode_delta(&#that, #r).and_then(|#v| #back))),
            decode_changes: quote!(#decode_changes(&#that, #r).and_then(|#v| #back)),
        }
    }
}
