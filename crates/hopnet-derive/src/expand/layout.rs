//! The generated code of byte layouts (`guide::layouts`): magic bytes and padding, computed
//! fields (worked out before the first write, checked after the last read), fields framed by
//! a byte length and transformed ones, and the groups of `bit_order = "msb"` containers.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::items::{self, Part};
use super::names::{Names, earlier_fields};
use crate::plan::{Body, Codec, ComputedBy, Ends, Field, Plan, Wire};

/// An enum's own magic bytes as `(bits, value)`.
fn enum_magic(input: &Plan<'_>, n: &Names) -> Vec<(u32, TokenStream)> {
    match &input.body {
        Body::Enum { magic, .. } => magic
            .iter()
            .filter_map(|item| items::constant(item, input.msb, n))
            .collect(),
        Body::Struct(..) => Vec::new(),
    }
}

/// An enum's own magic bytes, written before its tag.
pub fn enum_magic_encode(input: &Plan<'_>, n: &Names) -> TokenStream {
    let w = &n.w;
    let items = enum_magic(input, n);
    let writes = items.iter().map(|(bits, value)| {
        if input.msb {
            let k = &n.krate;
            quote!(#w.write_word(#k::msb_stream(#value, #bits), #bits);)
        } else {
            quote!(#w.write_word(#value, #bits);)
        }
    });
    quote!(#(#writes)*)
}

/// An enum's own magic bytes, checked before its tag is read.
pub fn enum_magic_decode(input: &Plan<'_>, n: &Names) -> TokenStream {
    let (k, r) = (&n.krate, &n.r);
    let msb = input.msb;
    let items = enum_magic(input, n);
    let checks = items.iter().map(|(bits, value)| {
        if msb {
            let x = &n.x;
            quote! {
                let #x = #k::msb_read(#r, #bits)?;
                if #x != #value {
                    return #k::Err(#k::constant_mismatch(#value, #x, #bits, #k::BitRead::position(#r)));
                }
            }
        } else {
            quote!(#k::expect_bits(#r, #bits, #value)?;)
        }
    });
    quote!(#(#checks)*)
}

/// The local holding a transformed field's bytes.
fn transformed_local(f: &Field<'_>) -> syn::Ident {
    format_ident!(
        "__rabbit_bytes_{}",
        f.binding,
        span = proc_macro2::Span::mixed_site()
    )
}

/// The local holding a computed field's value.
fn computed_local(f: &Field<'_>) -> syn::Ident {
    format_ident!(
        "__rabbit_value_{}",
        f.binding,
        span = proc_macro2::Span::mixed_site()
    )
}

/// Before `encode` writes anything: each computed field's value, in order, and the bytes of
/// each transformed field (made when its length field needs them). Each computed field's
/// binding then refers to its value, so the writes and the later expressions see it.
pub fn encode_prepare(fields: &[Field<'_>], n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    let mut out = TokenStream::new();
    for f in fields {
        let Some(wire) = &f.wire else { continue };
        let Some(by) = &wire.layout.computed else {
            continue;
        };
        let (b, ty) = (&f.binding, wire.ty);
        let local = computed_local(f);
        let in_field = n.in_field(owner, f);
        let value = match by {
            ComputedBy::Expr(cond) => {
                let expr = &cond.expr;
                quote!(#k::Ok::<#ty, #k::Error>(#expr))
            }
            ComputedBy::LengthOf(framed) => {
                let Some(target) = fields.iter().find(|g| g.binding == *framed) else {
                    continue;
                };
                let Some(twire) = &target.wire else { continue };
                match &twire
                    .layout
                    .framed
                    .as_ref()
                    .and_then(|fr| fr.transform.as_ref())
                {
                    Some(transform) => {
                        let bytes = transformed_local(target);
                        let expr = &transform.expr;
                        let t_in_field = n.in_field(owner, target);
                        out.extend(quote! {
                            let #bytes: #k::Vec<u8> = #k::apply(&(#expr), #framed) #t_in_field?;
                        });
                        quote!(#k::byte_len::<#ty>(8 * #bytes.len() as u64))
                    }
                    None => {
                        let bits = n.enc(target, twire, "encoded_bits");
                        quote!(#k::byte_len::<#ty>(#bits(#framed)))
                    }
                }
            }
        };
        out.extend(quote! {
            let #local: #ty = #value #in_field?;
            let #b: &#ty = &#local;
        });
    }
    out
}

/// How `encode` writes a field framed by a byte length: on a byte boundary, its items with
/// no count, or the bytes its transform made.
pub fn encode_framed(
    f: &Field<'_>,
    wire: &Wire<'_>,
    n: &Names,
    owner: &str,
) -> Option<TokenStream> {
    let framed = wire.layout.framed.as_ref()?;
    let (k, w, b) = (&n.krate, &n.w, &f.binding);
    let in_field = n.in_field(owner, f);
    let write = match &framed.transform {
        Some(_) => {
            let bytes = transformed_local(f);
            quote!(#w.write_bytes(&#bytes);)
        }
        None => {
            let enc = n.enc(f, wire, "encode");
            quote!(#enc(#b, #w) #in_field?;)
        }
    };
    Some(quote! {
        #k::byte_aligned(#w) #in_field?;
        #write
    })
}

/// Before `encode` writes a list counted by earlier fields or ended by an item: the check that
/// a reader would find the same items (as many as the count says; none ending the list early).
/// Its errors name the field already.
pub fn encode_ends_check(f: &Field<'_>, wire: &Wire<'_>, n: &Names, owner: &str) -> TokenStream {
    let (k, b) = (&n.krate, &f.binding);
    let label = format!("{owner}.{}", f.name);
    match &wire.layout.ends {
        None => quote!(),
        Some(Ends::Count(count)) => {
            let expr = &count.expr;
            let in_field = n.in_field(owner, f);
            quote! {
                #k::check_count(#label, #b.len(), #k::CountValue::to_count(#expr) #in_field?)?;
            }
        }
        Some(Ends::Until(end)) => {
            let expr = &end.expr;
            quote!(#k::check_until(#label, #b.as_slice(), #expr)?;)
        }
    }
}

/// How `decode` reads a list counted by earlier fields (the count worked out first, seeing
/// them as an `if` condition does) or ended by an item.
fn decode_ends(f: &Field<'_>, wire: &Wire<'_>, n: &Names, owner: &str) -> Option<TokenStream> {
    let (k, r, b, ty) = (&n.krate, &n.r, &f.binding, wire.ty);
    let in_field = n.in_field(owner, f);
    let c = n.codec_ty(f, wire);
    Some(match wire.layout.ends.as_ref()? {
        Ends::Count(count) => {
            let expr = &count.expr;
            let binds = earlier_fields(&count.uses);
            let len = format_ident!("__rabbit_count", span = proc_macro2::Span::mixed_site());
            quote! {
                let #b: #ty = {
                    let #len: u64 = {
                        #binds
                        #k::CountValue::to_count(#expr)
                    } #in_field?;
                    <#c as #k::CountedDecode<#ty>>::decode_counted(#r, #len) #in_field?
                };
            }
        }
        Ends::Until(end) => {
            let expr = &end.expr;
            quote!(let #b: #ty = <#c>::decode_until(#r, #expr) #in_field?;)
        }
    })
}

/// How `decode` reads a field whose layout changes it: a computed field (its `T`), a framed
/// one (from exactly its bytes), a transformed one (its bytes reverted), a counted one or one
/// ended by an item.
pub fn decode_field(f: &Field<'_>, wire: &Wire<'_>, n: &Names, owner: &str) -> Option<TokenStream> {
    if let Some(read) = decode_ends(f, wire, n, owner) {
        return Some(read);
    }
    let (k, r, b) = (&n.krate, &n.r, &f.binding);
    let in_field = n.in_field(owner, f);
    if wire.layout.computed.is_some() {
        let ty = wire.ty;
        let dec = n.dec(f, wire);
        return Some(quote!(let #b: #ty = #dec(#r) #in_field?;));
    }
    let framed = wire.layout.framed.as_ref()?;
    let (ty, len) = (f.ty, &framed.len);
    Some(match &framed.transform {
        Some(transform) => {
            let expr = &transform.expr;
            let binds = earlier_fields(&transform.uses);
            quote! {
                let #b: #ty = {
                    #binds
                    #k::framed_revert(#r, &#len, &(#expr))
                } #in_field?;
            }
        }
        None => {
            let c = n.codec_ty(f, wire);
            quote!(let #b: #ty = #k::framed::<#ty, #c, _, _>(#r, &#len) #in_field?;)
        }
    })
}

/// After `decode` read every field: each computed field checked against its expression (the
/// length fields were checked by their frames), then its binding made the value's
/// `Computed`.
pub fn decode_finish(fields: &[Field<'_>], n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    let mut out = TokenStream::new();
    let mut shadows = TokenStream::new();
    for f in fields {
        let Some(wire) = &f.wire else { continue };
        let Some(by) = &wire.layout.computed else {
            continue;
        };
        let b = &f.binding;
        if let ComputedBy::Expr(cond) = by {
            let expr = &cond.expr;
            let label = format!("{owner}.{}", f.name);
            let binds = earlier_fields(&cond.uses);
            out.extend(quote! {
                {
                    let __rabbit_expected = {
                        #binds
                        #expr
                    };
                    #k::check_computed(#label, &#b, __rabbit_expected)?;
                }
            });
        }
        shadows.extend(quote!(let #b = #k::Computed::new();));
    }
    out.extend(shadows);
    out
}

/// Whether `encoded_bits` counts by encoding: a computed or transformed field's size needs
/// the computation.
pub fn counts_by_encoding(fields: &[Field<'_>]) -> bool {
    fields.iter().any(|f| {
        f.wire
            .as_ref()
            .is_some_and(|w| w.layout.computed.is_some() || matches!(w.codec, Codec::Transformed))
    })
}

/// A field's schema with its layout: computed, framed, transformed, msb-first.
pub fn field_schema(
    f: &Field<'_>,
    wire: &Wire<'_>,
    base: TokenStream,
    msb: bool,
    n: &Names,
) -> TokenStream {
    let k = &n.krate;
    let mut enc = base;
    if let Some(Ends::Count(c) | Ends::Until(c)) = &wire.layout.ends {
        let text = &c.text;
        enc = quote!(#k::with_expression(#enc, #text));
    }
    if let Some(framed) = &wire.layout.framed {
        let len = framed.len.to_string();
        if let Some(t) = &framed.transform {
            let text = &t.text;
            enc = quote!(#k::Encoding::Transformed { transform: #text });
        }
        enc = quote!(#k::Encoding::ByteLen { field: #len, inner: #k::Box::new(#enc) });
    }
    if let Some(by) = &wire.layout.computed {
        let from = match by {
            ComputedBy::Expr(cond) => cond.text.clone(),
            ComputedBy::LengthOf(target) => format!("the byte length of {target}"),
        };
        enc = quote!(#k::Encoding::Computed {
            value: #k::Box::new(#enc),
            from: #k::String::from(#from),
        });
    }
    if msb && wire.cond.is_none() {
        let (min, max, word) = (
            n.enc(f, wire, "MIN_BITS"),
            n.enc(f, wire, "MAX_BITS"),
            n.enc(f, wire, "WORD_BITS"),
        );
        enc = quote!(#k::msb_schema(#enc, (#min, #max, #word)));
    }
    enc
}

/// Whether a field is read on its own in an msb container whatever its sizes: a conditional,
/// framed or transformed field, a list to the end, counted or ended by an item.
fn always_own(wire: &Wire<'_>) -> bool {
    wire.cond.is_some()
        || wire.layout.framed.is_some()
        || wire.layout.ends.is_some()
        || matches!(wire.codec, Codec::ToEnd(_) | Codec::Transformed)
}

/// The items of an msb container read in their groups: each group read as one number, each
/// item taken out of it (the tag, read ahead, only skipped); `own` reads a field that is not
/// in a group.
pub fn msb_decode(
    parts: &[Part<'_, '_>],
    n: &Names,
    owner: &str,
    own: impl Fn(&Field<'_>) -> TokenStream,
) -> TokenStream {
    let (k, r, plan, x) = (&n.krate, &n.r, &n.plan, &n.x);
    let g = format_ident!("__g", span = proc_macro2::Span::mixed_site());
    let sizes = parts.iter().map(|i| items::sizes(i, n));
    let stmts = parts.iter().enumerate().map(|(idx, part)| {
        if let Part::Field(f, wire) = part
            && always_own(wire)
        {
            return own(f);
        }
        let step = quote! {
            let (#g, #x) = if #plan[#idx].plan & 3 == 0 {
                (#g, 0u64)
            } else {
                let #g = if #plan[#idx].plan & 3 == 1 {
                    #k::msb_read(#r, #plan[#idx].group)?
                } else {
                    #g
                };
                (#g, #k::msb_take(#g, #plan[#idx].shift, #plan[#idx].bits))
            };
        };
        let take = match part {
            Part::Tag(..) => quote!(),
            Part::Const(bits, value) => quote! {
                if #x != #value {
                    return #k::Err(#k::constant_mismatch(#value, #x, #bits, #k::BitRead::position(#r)));
                }
            },
            Part::Field(f, wire) => {
                let (b, ty) = (&f.binding, wire.ty);
                let c = n.codec_ty(f, wire);
                let dec = n.dec(f, wire);
                let in_field = n.in_field(owner, f);
                quote! {
                    let #b: #ty = if #plan[#idx].plan & 3 == 0 {
                        #dec(#r) #in_field?
                    } else {
                        #k::msb_decode::<#ty, #c>(#x) #in_field?
                    };
                }
            }
        };
        quote!(#step #take)
    });
    quote! {
        let #plan = const { #k::msb_plan([#(#sizes),*]) };
        let #g: u64 = 0;
        #(#stmts)*
    }
}
