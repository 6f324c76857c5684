//! `Encode::encode`: the tag, then each field on the wire, in order, as straight-line code;
//! `encode_word` for types whose encoding fits one 64-bit word (`WORD_BITS`, in `size.rs`).
//!
//! Runs of small items (the tag, fields whose codec has a `WORD_BITS`) are merged into one
//! write: each item's word is shifted into a local group and the group reaches the writer
//! once, when it ends. Which items join which group is decided at compile time from the
//! codecs' `WORD_BITS` (the contract's `word_plan`, in an inline `const` block, so generic
//! fields work too); the branches on the plan fold away, leaving the straight-line code a
//! hand-written encoder would have. The bytes are the same as one write per item.

use proc_macro2::TokenStream;
use quote::quote;

use super::items::{self, Part, parts};
use super::layout;
use super::names::{Names, each_variant};
use crate::plan::{Body, Field, Plan, Wire};

/// The code for the struct, or each variant in a `match self`, given its parts and fields.
fn per_variant(
    input: &Plan<'_>,
    n: &Names,
    arm: impl Fn(&[Part<'_, '_>], &[Field<'_>], &str) -> TokenStream,
) -> TokenStream {
    each_variant(input, |fields, owner| {
        arm(&parts(fields, input.msb, n), &fields.list, owner)
    })
}

pub fn body(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let msb = input.msb;
    let arms = per_variant(input, n, |parts, fields, owner| {
        let prepare = layout::encode_prepare(fields, n, owner);
        let write = parts_encode(parts, n, owner, msb);
        quote!(#prepare #write)
    });
    let magic = match input.body {
        Body::Enum { .. } => layout::enum_magic_encode(input, n),
        Body::Struct(..) => quote!(),
    };
    quote! {
        #magic
        #arms
        #k::Ok(())
    }
}

/// The part written on its own, as before merging.
fn plain(part: &Part<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let w = &n.w;
    match part {
        Part::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#w.write_word(#t::WORD, #t::BITS);)
        }
        Part::Field(f, w) => field(f, w, n, owner),
        Part::Const(bits, value) => quote!(#w.write_word(#value, #bits);),
    }
}

/// The statements writing `parts` in order, merging runs of words into one write each (in an
/// msb container, its groups of whole bytes, most significant bit first).
fn parts_encode(parts: &[Part<'_, '_>], n: &Names, owner: &str, msb: bool) -> TokenStream {
    let how = if msb {
        msb_merge(parts, n)
    } else {
        if parts.iter().all(Part::conditional) {
            let stmts = parts.iter().map(|i| plain(i, n, owner));
            return quote!(#(#stmts)*);
        }
        let (k, w, gv, gn, x) = (&n.krate, &n.w, &n.gv, &n.gn, &n.x);
        let words = parts.iter().map(|i| items::word_bits(i, n));
        Merge {
            plan: quote!(#k::word_plan([#(#words),*])),
            entry: quote!(),
            join: quote!(#gv |= #x.wrapping_shl(#gn);),
            write: quote!(#w.write_word(#gv, #gn);),
        }
    };
    merged(parts, n, owner, &how)
}

/// The two bit orders' merged writes differ only in their plan, how an item's word joins its
/// group and how a group is written.
struct Merge {
    /// The `const` plan of the items' groups.
    plan: TokenStream,
    /// What follows `__plan[i]` to name its group bits (`.plan` in an msb plan).
    entry: TokenStream,
    /// The statement adding `__x` (of `__xn` bits) to a group already begun.
    join: TokenStream,
    /// The statement writing a finished group.
    write: TokenStream,
}

/// How the items of an msb container are written in their groups: each group's items shifted
/// in below each other, most significant first, and the group written as its bytes.
fn msb_merge(parts: &[Part<'_, '_>], n: &Names) -> Merge {
    let (k, w, gv, gn, x, xn) = (&n.krate, &n.w, &n.gv, &n.gn, &n.x, &n.xn);
    let sizes = parts.iter().map(|i| items::sizes(i, n));
    Merge {
        plan: quote!(#k::msb_plan([#(#sizes),*])),
        entry: quote!(.plan),
        join: quote!(#gv = #k::msb_push(#gv, #x, #xn);),
        write: quote!(#w.write_word(#k::msb_stream(#gv, #gn), #gn);),
    }
}

/// The statements writing `parts` in order, each run of words that `how.plan` groups written
/// as one.
fn merged(parts: &[Part<'_, '_>], n: &Names, owner: &str, how: &Merge) -> TokenStream {
    let (gv, gn, plan, x, xn) = (&n.gv, &n.gn, &n.plan, &n.x, &n.xn);
    let Merge {
        plan: plan_value,
        entry,
        join,
        write,
    } = how;
    let stmts = parts.iter().enumerate().map(|(idx, part)| {
        let plain = plain(part, n, owner);
        if part.conditional() {
            return plain;
        }
        let word = items::word(part, n, owner);
        quote! {
            if #plan[#idx] #entry & 3 == 0 {
                #plain
            } else {
                let (#x, #xn) = #word?;
                if #plan[#idx] #entry & 3 == 1 {
                    #gv = #x;
                    #gn = #xn;
                } else {
                    #join
                    #gn += #xn;
                }
                if #plan[#idx] #entry & 4 != 0 {
                    #write
                }
            }
        }
    });
    quote! {
        let #plan = const { #plan_value };
        let mut #gv: u64 = 0;
        let mut #gn: u32 = 0;
        #(#stmts)*
    }
}

/// The body of `encode_word`: every item's word, shifted together.
pub fn word_body(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let (gv, gn, x, xn) = (&n.gv, &n.gn, &n.x, &n.xn);
    let inner = per_variant(input, n, |parts, fields, owner| {
        let prepare = layout::encode_prepare(fields, n, owner);
        let stmts = parts
            .iter()
            // `if` fields never make a word: left out of code that `WORD_BITS` being `None`
            // never reaches.
            .filter(|i| !i.conditional())
            .map(|i| {
                let word = items::word(i, n, owner);
                quote! {
                    let (#x, #xn) = #word?;
                    #gv |= #x.wrapping_shl(#gn);
                    #gn += #xn;
                }
            });
        quote! {
            #prepare
            let mut #gv: u64 = 0;
            let mut #gn: u32 = 0;
            #(#stmts)*
            #k::Ok((#gv, #gn))
        }
    });
    // Not a word (some field may not fit, or is an `if` field or has its own codec): the
    // encoding read back, as the trait's provided method does. Never the case when derived
    // code calls it.
    quote! {
        if <Self as #k::Encode>::WORD_BITS.is_none() {
            return #k::word_by_encoding(self);
        }
        #inner
    }
}

fn field(f: &Field<'_>, wire: &Wire<'_>, n: &Names, owner: &str) -> TokenStream {
    if let Some(framed) = layout::encode_framed(f, wire, n, owner) {
        return framed;
    }
    let k = &n.krate;
    let (b, w) = (&f.binding, &n.w);
    let enc = n.enc(f, wire, "encode");
    let in_field = n.in_field(owner, f);
    let check = layout::encode_ends_check(f, wire, n, owner);
    match &wire.cond {
        None => quote!(#check #enc(#b, #w) #in_field?;),
        Some(cond) => {
            // Earlier fields are already bound as references by the destructuring.
            let expr = &cond.expr;
            let (c, v) = (&n.c, &n.v);
            let label = format!("{owner}.{}", f.name);
            quote! {
                let #c: bool = #expr;
                match #b {
                    #k::Some(#v) if #c => { #enc(#v, #w) #in_field?; }
                    #k::None if !#c => {}
                    _ => return #k::Err(#k::condition_mismatch(#label, #c)),
                }
            }
        }
    }
}
