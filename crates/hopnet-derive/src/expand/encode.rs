//! `Encode::encode`: the tag, then each field on the wire, in order, as straight-line code;
//! `WORD_BITS` and `encode_word` for types whose encoding fits one 64-bit word.
//!
//! Runs of small items (the tag, fields whose codec has a `WORD_BITS`) are merged into one
//! write: each item's word is shifted into a local group and the group reaches the writer
//! once, when it ends. Which items join which group is decided at compile time from the
//! codecs' `WORD_BITS` (`__derive::word_plan`, in an inline `const` block, so generic fields
//! work too); the branches on the plan fold away, leaving the straight-line code a
//! hand-written encoder would have. The bytes are the same as one write per item.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, each_variant, layout};
use crate::plan::{Body, Field, Plan, Tag, Wire};

/// One thing a struct or variant writes: its tag, a field on the wire, or constant bits.
pub(super) enum Item<'f, 'a> {
    /// The enum tag of the variant with this index.
    Tag(Tag, u64),
    Field(&'f Field<'a>, &'f Wire<'a>),
    /// Magic bytes or zero padding: this many bits, of this value (`u64`).
    Const(u32, TokenStream),
}

impl Item<'_, '_> {
    /// An `if` field: never a word, since its binding is the `Option`, not the codec's type.
    pub(super) fn conditional(&self) -> bool {
        matches!(self, Item::Field(_, w) if w.cond.is_some())
    }
}

/// The items a struct's fields or a variant write: a struct's magic bytes, the tag, a
/// variant's magic bytes, then each field on the wire after its padding; skipped fields write
/// nothing. (An enum's own magic bytes come before its tag, outside the variants.)
pub(super) fn items<'f, 'a>(
    input: &'f Plan<'a>,
    tag: Option<(Tag, u64)>,
    fields: &'f [Field<'a>],
    n: &Names,
) -> Vec<Item<'f, 'a>> {
    let msb = input.layout.msb;
    let mut out = Vec::new();
    let magic = match tag {
        None => input.layout.magic.as_deref(),
        Some(_) => None,
    };
    out.extend(
        layout::magic_items(magic, msb, n)
            .into_iter()
            .map(|(b, v)| Item::Const(b, v)),
    );
    if let Some((t, index)) = tag {
        out.push(Item::Tag(t, index));
        let magic = layout::variant_magic(input, index);
        out.extend(
            layout::magic_items(magic, msb, n)
                .into_iter()
                .map(|(b, v)| Item::Const(b, v)),
        );
    }
    for f in fields {
        let Some(wire) = f.wire.as_ref() else {
            continue;
        };
        if wire.layout.pad_before > 0 {
            out.push(Item::Const(wire.layout.pad_before, quote!(0u64)));
        }
        out.push(Item::Field(f, wire));
    }
    out
}

/// The code for the struct, or each variant in a `match self`, given its items and fields.
fn per_variant(
    input: &Plan<'_>,
    n: &Names,
    arm: impl Fn(&[Item<'_, '_>], &[Field<'_>], &str) -> TokenStream,
) -> TokenStream {
    each_variant(input, |tag, fields, owner| {
        arm(&items(input, tag, fields, n), fields, owner)
    })
}

pub fn body(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let msb = input.layout.msb;
    let arms = per_variant(input, n, |items, fields, owner| {
        let prepare = layout::encode_prepare(fields, n, owner);
        let write = items_encode(items, n, owner, msb);
        quote!(#prepare #write)
    });
    let magic = match input.body {
        Body::Enum(..) => layout::enum_magic_encode(input, n),
        Body::Struct(..) => quote!(),
    };
    quote! {
        #magic
        #arms
        #k::Ok(())
    }
}

/// The `WORD_BITS` expression of one item (`Option<u32>`).
fn item_word_bits(item: &Item<'_, '_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    match item {
        Item::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#k::Some(#t::BITS))
        }
        item if item.conditional() => quote!(#k::None::<u32>),
        Item::Field(f, w) => n.enc(f, w, "WORD_BITS"),
        Item::Const(bits, _) => quote!(#k::Some(#bits)),
    }
}

/// The `MIN_BITS`, `MAX_BITS` and `WORD_BITS` of one item, for the msb plan.
pub(super) fn item_sizes(item: &Item<'_, '_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    match item {
        Item::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!((#t::BITS as u64, #k::Some(#t::BITS as u64), #k::Some(#t::BITS)))
        }
        item if item.conditional() => quote!((0u64, #k::None, #k::None)),
        Item::Field(f, w) => {
            let (min, max, word) = (
                n.enc(f, w, "MIN_BITS"),
                n.enc(f, w, "MAX_BITS"),
                n.enc(f, w, "WORD_BITS"),
            );
            quote!((#min, #max, #word))
        }
        Item::Const(bits, _) => quote!((#bits as u64, #k::Some(#bits as u64), #k::Some(#bits))),
    }
}

/// The item's word (`Result<(u64, u32)>`, errors labelled with the field).
fn item_word(item: &Item<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    match item {
        Item::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#k::Ok::<(u64, u32), #k::Error>((#t::WORD, #t::BITS)))
        }
        Item::Field(f, w) => {
            let b = &f.binding;
            let enc = n.enc(f, w, "encode_word");
            let in_field = n.in_field(owner, f);
            quote!(#enc(#b) #in_field)
        }
        Item::Const(bits, value) => quote!(#k::Ok::<(u64, u32), #k::Error>((#value, #bits))),
    }
}

/// The item written on its own, as before merging.
fn item_plain(item: &Item<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let w = &n.w;
    match item {
        Item::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#w.write_word(#t::WORD, #t::BITS);)
        }
        Item::Field(f, w) => field(f, w, n, owner),
        Item::Const(bits, value) => quote!(#w.write_word(#value, #bits);),
    }
}

/// The statements writing `items` in order, merging runs of words into one write each (in an
/// msb container, its groups of whole bytes, most significant bit first).
fn items_encode(items: &[Item<'_, '_>], n: &Names, owner: &str, msb: bool) -> TokenStream {
    let how = if msb {
        layout::msb_merge(items, n)
    } else {
        if items.iter().all(Item::conditional) {
            let stmts = items.iter().map(|i| item_plain(i, n, owner));
            return quote!(#(#stmts)*);
        }
        let (k, w, gv, gn, x) = (&n.krate, &n.w, &n.gv, &n.gn, &n.x);
        let words = items.iter().map(|i| item_word_bits(i, n));
        Merge {
            plan: quote!(#k::word_plan([#(#words),*])),
            entry: quote!(),
            join: quote!(#gv |= #x.wrapping_shl(#gn);),
            write: quote!(#w.write_word(#gv, #gn);),
        }
    };
    merged(items, n, owner, &how)
}

/// The two bit orders' merged writes differ only in their plan, how an item's word joins its
/// group and how a group is written.
pub(super) struct Merge {
    /// The `const` plan of the items' groups.
    pub(super) plan: TokenStream,
    /// What follows `__plan[i]` to name its group bits (`.plan` in an msb plan).
    pub(super) entry: TokenStream,
    /// The statement adding `__x` (of `__xn` bits) to a group already begun.
    pub(super) join: TokenStream,
    /// The statement writing a finished group.
    pub(super) write: TokenStream,
}

/// The statements writing `items` in order, each run of words that `how.plan` groups written
/// as one.
fn merged(items: &[Item<'_, '_>], n: &Names, owner: &str, how: &Merge) -> TokenStream {
    let (gv, gn, plan, x, xn) = (&n.gv, &n.gn, &n.plan, &n.x, &n.xn);
    let Merge {
        plan: plan_value,
        entry,
        join,
        write,
    } = how;
    let stmts = items.iter().enumerate().map(|(idx, item)| {
        let plain = item_plain(item, n, owner);
        if item.conditional() {
            return plain;
        }
        let word = item_word(item, n, owner);
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

/// The `WORD_BITS` constant of the type.
pub fn word_bits(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    // An msb container is written as bytes of its own, never merged into its parent's words;
    // so is an enum with magic bytes before its tag.
    if input.layout.msb || (matches!(input.body, Body::Enum(..)) && input.layout.magic.is_some()) {
        return quote!(#k::None::<u32>);
    }
    let sum = |items: &[Item<'_, '_>]| {
        let words = items.iter().map(|i| item_word_bits(i, n));
        quote!(#k::word_sum(&[#(#words),*]))
    };
    match &input.body {
        Body::Struct(_, fields) => sum(&items(input, None, fields, n)),
        Body::Enum(tag, variants) => {
            let variants = variants
                .iter()
                .map(|v| sum(&items(input, Some((*tag, v.index)), &v.fields, n)));
            quote!(#k::word_over(&[#(#variants),*]))
        }
    }
}

/// The body of `encode_word`: every item's word, shifted together.
pub fn word_body(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let (gv, gn, x, xn) = (&n.gv, &n.gn, &n.x, &n.xn);
    let inner = per_variant(input, n, |items, fields, owner| {
        let prepare = layout::encode_prepare(fields, n, owner);
        let stmts = items
            .iter()
            // `if` fields never make a word: left out of code that `WORD_BITS` being `None`
            // never reaches.
            .filter(|i| !i.conditional())
            .map(|i| {
                let word = item_word(i, n, owner);
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
    match &wire.cond {
        None => quote!(#enc(#b, #w) #in_field?;),
        Some(cond) => {
            // Earlier fields are already bound as references by the destructuring.
            let expr = &cond.expr;
            let (c, v) = (&n.c, &n.v);
            let label = format!("{owner}.{}", f.name());
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
