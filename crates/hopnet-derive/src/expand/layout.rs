//! The generated code of byte layouts (`guide::layouts`): magic bytes and padding, computed
//! fields (worked out before the first write, checked after the last read), fields framed by
//! a byte length and transformed ones, and the groups of `bit_order = "msb"` containers.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::encode::{Item, Merge, item_sizes};
use super::{Names, earlier_fields};
use crate::layout::ComputedBy;
use crate::plan::{Body, Codec, Field, Plan, Tag, Wire};

/// `MIN_BITS`, `MAX_BITS`, `WORD_BITS` of a transformed field: its length is only known once
/// the transform ran.
pub fn transformed_sizes(wire: &Wire<'_>, item: &str, k: &TokenStream) -> Option<TokenStream> {
    if !matches!(wire.codec, Codec::Transformed) {
        return None;
    }
    match item {
        "MIN_BITS" => Some(quote!(0u64)),
        "MAX_BITS" => Some(quote!(#k::None::<u64>)),
        "WORD_BITS" => Some(quote!(#k::None::<u32>)),
        _ => None,
    }
}

/// Magic bytes as constant items of up to eight bytes each: `(bits, value)`.
pub fn magic_items(bytes: Option<&[u8]>, msb: bool, n: &Names) -> Vec<(u32, TokenStream)> {
    let k = &n.krate;
    bytes
        .unwrap_or_default()
        .chunks(8)
        .map(|chunk| {
            let bits = 8 * chunk.len() as u32;
            let bytes = chunk.iter().map(|b| Literal::u8_suffixed(*b));
            (bits, quote!(const { #k::magic_word(&[#(#bytes),*], #msb) }))
        })
        .collect()
}

/// The magic bytes of the variant with this index.
pub fn variant_magic<'p>(input: &'p Plan<'_>, index: u64) -> Option<&'p [u8]> {
    match &input.body {
        Body::Enum(_, variants) => variants
            .iter()
            .find(|v| v.index == index)
            .and_then(|v| v.magic.as_deref()),
        Body::Struct(..) => None,
    }
}

/// An enum's own magic bytes, written before its tag.
pub fn enum_magic_encode(input: &Plan<'_>, n: &Names) -> TokenStream {
    let w = &n.w;
    let items = magic_items(input.layout.magic.as_deref(), input.layout.msb, n);
    let writes = items.iter().map(|(bits, value)| {
        if input.layout.msb {
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
    let msb = input.layout.msb;
    let items = magic_items(input.layout.magic.as_deref(), msb, n);
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

/// How `decode` reads a field whose layout changes it: a computed field (its `T`), a framed
/// one (from exactly its bytes), a transformed one (its bytes reverted).
pub fn decode_field(f: &Field<'_>, wire: &Wire<'_>, n: &Names, owner: &str) -> Option<TokenStream> {
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
            let label = format!("{owner}.{}", f.name());
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

/// The schema lines of a struct's or variant's constant items (magic bytes, padding), each
/// before the field it precedes: `(index of the field, schema tokens)`.
pub fn constant_schemas(
    input: &Plan<'_>,
    tag: Option<(Tag, u64)>,
    fields: &[Field<'_>],
    n: &Names,
) -> (Vec<TokenStream>, Vec<(usize, TokenStream)>) {
    let k = &n.krate;
    let msb = input.layout.msb;
    let constant = |name: &str, bits: u32, value: &TokenStream| {
        quote!(#k::FieldSchema {
            name: #name,
            doc: "",
            ty: "",
            encoding: #k::Encoding::Constant { bits: #bits, value: #value },
            condition: #k::None,
            skipped: false,
        })
    };
    let magic = match tag {
        None => input.layout.magic.as_deref(),
        Some((_, index)) => variant_magic(input, index),
    };
    let first = magic_items(magic, msb, n)
        .iter()
        .map(|(bits, value)| constant("magic", *bits, value))
        .collect();
    let pads = fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let pad = f.wire.as_ref()?.layout.pad_before;
            (pad > 0).then(|| (i, constant("padding", pad, &quote!(0u64))))
        })
        .collect();
    (first, pads)
}

/// How the items of an msb container are written in their groups: each group's items shifted
/// in below each other, most significant first, and the group written as its bytes.
pub fn msb_merge(items: &[Item<'_, '_>], n: &Names) -> Merge {
    let (k, w, gv, gn, x, xn) = (&n.krate, &n.w, &n.gv, &n.gn, &n.x, &n.xn);
    let sizes = items.iter().map(|i| item_sizes(i, n));
    Merge {
        plan: quote!(#k::msb_plan([#(#sizes),*])),
        entry: quote!(.plan),
        join: quote!(#gv = #k::msb_push(#gv, #x, #xn);),
        write: quote!(#w.write_word(#k::msb_stream(#gv, #gn), #gn);),
    }
}

/// Whether a field is read on its own in an msb container whatever its sizes: a conditional,
/// framed or transformed field, or a list to the end.
fn always_own(wire: &Wire<'_>) -> bool {
    wire.cond.is_some()
        || wire.layout.framed.is_some()
        || matches!(wire.codec, Codec::ToEnd(_) | Codec::Transformed)
}

/// The items of an msb container read in their groups: each group read as one number, each
/// item taken out of it (the tag, read ahead, only skipped); `own` reads a field that is not
/// in a group.
pub fn msb_decode(
    items: &[Item<'_, '_>],
    n: &Names,
    owner: &str,
    own: impl Fn(&Field<'_>) -> TokenStream,
) -> TokenStream {
    let (k, r, plan, x) = (&n.krate, &n.r, &n.plan, &n.x);
    let g = format_ident!("__g", span = proc_macro2::Span::mixed_site());
    let sizes = items.iter().map(|i| item_sizes(i, n));
    let stmts = items.iter().enumerate().map(|(idx, item)| {
        if let Item::Field(f, wire) = item
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
        let take = match item {
            Item::Tag(..) => quote!(),
            Item::Const(bits, value) => quote! {
                if #x != #value {
                    return #k::Err(#k::constant_mismatch(#value, #x, #bits, #k::BitRead::position(#r)));
                }
            },
            Item::Field(f, wire) => {
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
