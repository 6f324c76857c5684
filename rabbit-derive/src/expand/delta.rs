//! `DeltaEncode` and `DeltaDecode` for `#[rabbit(delta)]` (the layout is in `rabbit::delta`).
//!
//! Each field on the wire is one of four kinds, each with the same four operations (is it
//! unchanged, its delta, its changes when it is known to have changed, and the reads of both):
//! a field without an encoding attribute recurses into its type's own `DeltaEncode`; a field with
//! one is written whole by its codec when it changed (`coded_*`); an `if` field likewise, its
//! presence its condition's (`cond_*`); a `key` list goes through `keyed`. A struct with two or
//! more fields on the wire writes a changed bit of its own (`per_struct`, the default) unless
//! `per_field`; one with a single field lets that field's bit speak for it. An enum writes
//! whether the variant is the baseline's, then that variant's fields' deltas, or the whole
//! value. Skipped fields keep the baseline's value.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Ident, Member};

use super::{Names, pattern, respan};
use crate::ast::Style;
use crate::bound::{self, Which};
use crate::plan::{Body, Codec, Delta, DeltaMode, Field, Plan, Via, Wire};

/// The two impls, to sit beside the others in their `const` block.
pub fn impls(input: &Plan<'_>, delta: &Delta, n: &Names) -> TokenStream {
    let k = &n.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let enc_where = bound::where_clause(input, Which::DeltaEncode);
    let dec_where = bound::where_clause(input, Which::DeltaDecode);
    let d = Gen {
        n,
        delta,
        base: Ident::new("__base", Span::mixed_site()),
        type_name: input.ident.to_string(),
    };
    let Bodies {
        delta_bit,
        unchanged,
        encode_delta,
        encode_changes,
        decode_delta,
        decode_changes,
    } = match &input.via {
        Some(via) => d.via(via),
        None => match &input.body {
            Body::Struct(style, fields) => d.structure(*style, fields),
            Body::Enum(_, variants) => d.enumeration(variants),
        },
    };
    let (w, r, base) = (&n.w, &n.r, &d.base);
    let encode_delta = encode_delta.map(|body| {
        quote! {
            #[inline]
            fn encode_delta(&self, #base: &Self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #body
            }
        }
    });
    let decode_delta = decode_delta.map(|body| {
        quote! {
            #[inline]
            fn decode_delta(#base: &Self, #r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #body
            }
        }
    });
    let allow = super::allow();
    quote! {
        #allow
        impl #impl_generics #k::DeltaEncode for #ident #ty_generics #enc_where {
            const DELTA_BIT: bool = #delta_bit;

            #[inline]
            fn unchanged(&self, #base: &Self) -> bool {
                #unchanged
            }

            #encode_delta

            fn encode_changes(&self, #base: &Self, #w: &mut #k::BitWriter<'_>) -> #k::Result<()> {
                #encode_changes
            }
        }

        #allow
        impl #impl_generics #k::DeltaDecode for #ident #ty_generics #dec_where {
            #decode_delta

            fn decode_changes(#base: &Self, #r: &mut #k::BitReader<'_>) -> #k::Result<Self> {
                #decode_changes
            }
        }
    }
}

/// The methods' bodies; `None` keeps the trait's provided method (a changed bit, then the
/// changes).
struct Bodies {
    /// `DeltaEncode::DELTA_BIT`.
    delta_bit: TokenStream,
    unchanged: TokenStream,
    encode_delta: Option<TokenStream>,
    encode_changes: TokenStream,
    decode_delta: Option<TokenStream>,
    decode_changes: TokenStream,
}

struct Gen<'g> {
    n: &'g Names,
    delta: &'g Delta,
    base: Ident,
    type_name: String,
}

/// How a field's delta is written.
enum Kind<'f> {
    /// Its type's own `DeltaEncode`.
    Native,
    /// Whole, by its codec, when it changed.
    Coded,
    /// An `if` field: whole by its codec when it changed and is present.
    Cond,
    /// `key = "..."`: a keyed list, its items' key at this path.
    Keyed(&'f [Member]),
}

/// What a struct or a variant writes when its value changed: a changed bit per field, or (a
/// single field on the wire, `per_struct`) that field's changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inner {
    Deltas,
    Changes,
}

impl Gen<'_> {
    /// The binding of the baseline's field `f`.
    fn base_of(&self, f: &Field<'_>) -> Ident {
        format_ident!("__base_{}", f.binding, span = Span::mixed_site())
    }

    fn kind<'f>(&'f self, f: &Field<'_>, wire: &Wire<'_>) -> Kind<'f> {
        if let Some(path) = self.delta.key(f) {
            Kind::Keyed(path)
        } else if wire.cond.is_some() {
            Kind::Cond
        } else if matches!(wire.codec, Codec::Native) {
            Kind::Native
        } else {
            Kind::Coded
        }
    }

    /// `<T as DeltaEncode>::item`, spanned at the type so that a type without deltas is
    /// reported at the field.
    fn native(&self, wire: &Wire<'_>, tr: &str, item: &str) -> TokenStream {
        let k = &self.n.krate;
        let ty = wire.ty;
        let (tr, item) = (Ident::new(tr, ty.span()), Ident::new(item, ty.span()));
        respan(quote!(<#ty as #k::#tr>::#item), ty.span())
    }

    /// `__derive::helper::<C, T>`.
    fn coded(&self, f: &Field<'_>, wire: &Wire<'_>, helper: &str) -> TokenStream {
        let k = &self.n.krate;
        let (c, ty) = (self.n.codec_ty(f, wire), wire.ty);
        let helper = Ident::new(helper, ty.span());
        respan(quote!(#k::#helper::<#c, #ty>), ty.span())
    }

    /// `|__e| &__e.path`: a keyed list's key.
    fn key(&self, path: &[Member]) -> TokenStream {
        let e = &self.n.e;
        quote!(|#e| &#e #(.#path)*)
    }

    fn label(&self, owner: &str, f: &Field<'_>) -> String {
        format!("{owner}.{}", f.name())
    }

    /// Whether the field is unchanged (`bool`): the field and its baseline bound by name.
    fn unchanged(&self, f: &Field<'_>, wire: &Wire<'_>) -> TokenStream {
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
    fn changes(&self, f: &Field<'_>, wire: &Wire<'_>, owner: &str) -> TokenStream {
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
    fn flag_of(&self, f: &Field<'_>) -> Ident {
        format_ident!("__u_{}", f.binding, span = Span::mixed_site())
    }

    /// `let __u_a: bool = ...;` for every field on the wire: each compared once.
    fn flags(&self, fields: &[Field<'_>]) -> TokenStream {
        let lets = fields.iter().filter_map(|f| {
            let test = self.unchanged(f, f.wire.as_ref()?);
            let flag = self.flag_of(f);
            Some(quote!(let #flag: bool = #test;))
        });
        quote!(#(#lets)*)
    }

    /// `true && __u_a && __u_b`: every field on the wire unchanged, from the flags.
    fn all_flags(&self, fields: &[Field<'_>]) -> TokenStream {
        let flags = fields
            .iter()
            .filter(|f| f.wire.is_some())
            .map(|f| self.flag_of(f));
        quote!(true #(&& #flags)*)
    }

    /// The statement writing a field's delta from its flag: its changed bit and its changes,
    /// or, for a type whose delta is laid out otherwise (`DELTA_BIT` false), its delta.
    fn part(&self, f: &Field<'_>, wire: &Wire<'_>, owner: &str) -> TokenStream {
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
    fn decode(&self, f: &Field<'_>, inner: Inner, owner: &str) -> TokenStream {
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
                let binds = cond
                    .uses
                    .iter()
                    .map(|u| quote!(#[allow(unused_variables)] let #u = &#u;));
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
                        #(#binds)*
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

    /// `Self { a: __base_a, b: __base_b }`: every field of the baseline, by name.
    fn base_pattern(&self, path: &TokenStream, style: Style, fields: &[Field<'_>]) -> TokenStream {
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
    fn inner(&self, fields: &[Field<'_>]) -> Inner {
        let on_wire = fields.iter().filter(|f| f.wire.is_some()).count();
        if self.delta.mode == DeltaMode::PerStruct && on_wire == 1 {
            Inner::Changes
        } else {
            Inner::Deltas
        }
    }

    /// `true && a && b`: every field on the wire unchanged.
    fn all_unchanged(&self, fields: &[Field<'_>]) -> TokenStream {
        let terms = fields
            .iter()
            .filter_map(|f| Some(self.unchanged(f, f.wire.as_ref()?)));
        quote!(true #(&& #terms)*)
    }

    /// What the fields write: each one's delta (from its flag), or the one field's changes.
    fn encode_fields(&self, fields: &[Field<'_>], inner: Inner, owner: &str) -> TokenStream {
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
    fn parts(&self, fields: &[Field<'_>], owner: &str) -> TokenStream {
        let parts = fields
            .iter()
            .filter_map(|f| Some(self.part(f, f.wire.as_ref()?, owner)));
        quote!(#(#parts)*)
    }

    /// Reads the fields in order, then builds `path` of them.
    fn decode_fields(
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

    fn structure(&self, style: Style, fields: &[Field<'_>]) -> Bodies {
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

    fn enumeration(&self, variants: &[crate::plan::Variant<'_>]) -> Bodies {
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
    fn via(&self, via: &Via<'_>) -> Bodies {
        let k = &self.n.krate;
        let (w, r, v) = (&self.n.w, &self.n.r, &self.n.v);
        let base = &self.base;
        let into = via.into;
        let to_wire = respan(quote!(<Self as #k::Into<#into>>::into), into.span());
        let wire = |of: TokenStream| quote!(#to_wire(<Self as #k::Clone>::clone(#of)));
        let (this, that) = (wire(quote!(self)), wire(quote!(#base)));
        let call = |method: &str| {
            let method = Ident::new(method, into.span());
            respan(quote!(<#into as #k::DeltaEncode>::#method), into.span())
        };
        let read = |method: &str| {
            let method = Ident::new(method, into.span());
            respan(quote!(<#into as #k::DeltaDecode>::#method), into.span())
        };
        let back = if via.fallible {
            let back = respan(quote!(<Self as #k::TryFrom<#into>>::try_from), into.span());
            quote!(#back(#v).map_err(#k::via_error))
        } else {
            let back = respan(quote!(<Self as #k::From<#into>>::from), into.span());
            quote!(#k::Ok(#back(#v)))
        };
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
