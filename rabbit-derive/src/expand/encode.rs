//! `Encode::encode`: the tag, then each field on the wire, in order, as straight-line code;
//! `WORD_BITS` and `encode_word` for types whose encoding fits one 64-bit word.
//!
//! Runs of small items (the tag, fields whose type has a `WORD_BITS`) are merged into one
//! write: each item's word is shifted into a local group and the group reaches the writer
//! once, when it ends. Which items join which group is decided at compile time from the
//! types' `WORD_BITS` (`__derive::word_plan`, in an inline `const` block, so generic
//! fields work too); the branches on the plan fold away, leaving the straight-line code a
//! hand-written encoder would have. The bytes are the same as one write per item.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Names, pattern};
use crate::ast::{Body, Field, Input, Tag};

/// One thing a struct or variant writes: its tag or a field.
enum Item<'f, 'a> {
    /// The enum tag: its value and width.
    Tag {
        value: u64,
        bits: u32,
        varint: bool,
    },
    Field(&'f Field<'a>),
}

pub fn body(input: &Input<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    let type_name = input.ident.to_string();
    match &input.body {
        Body::Struct(style, fields) => {
            let items: Vec<Item<'_, '_>> = fields.iter().map(Item::Field).collect();
            let stmts = items_encode(&items, n, &type_name);
            let destructure = if fields.iter().any(|f| !f.plan.skip) {
                let pat = pattern(&quote!(Self), *style, fields, |f| !f.plan.skip);
                quote!(let #pat = self;)
            } else {
                quote!()
            };
            quote! {
                #destructure
                #stmts
                #p::Ok(())
            }
        }
        Body::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, |f| !f.plan.skip);
                let owner = format!("{type_name}::{vi}");
                let items = variant_items(e.tag, v.index, &v.fields);
                let stmts = items_encode(&items, n, &owner);
                quote! {
                    #pat => {
                        #stmts
                    }
                }
            });
            quote! {
                match self {
                    #(#arms)*
                }
                #p::Ok(())
            }
        }
    }
}

fn variant_items<'f, 'a>(tag: Tag, index: u64, fields: &'f [Field<'a>]) -> Vec<Item<'f, 'a>> {
    let mut items = Vec::with_capacity(fields.len() + 1);
    match tag {
        Tag::Bits(0) => {}
        Tag::Bits(bits) => items.push(Item::Tag {
            value: index,
            bits,
            varint: false,
        }),
        Tag::Varint => items.push(Item::Tag {
            value: index,
            bits: super::tag_bits(tag, index) as u32,
            varint: true,
        }),
    }
    items.extend(fields.iter().map(Item::Field));
    items
}

/// The `WORD_BITS` expression of one item (`Option<u32>`); `None` (no tokens) for an item
/// that writes nothing.
fn item_word_bits(item: &Item<'_, '_>, n: &Names) -> Option<TokenStream> {
    let k = &n.krate;
    let p = quote!(#k);
    match item {
        Item::Tag { bits, .. } => Some(quote!(#p::Some(#bits))),
        Item::Field(f) if f.plan.skip => None,
        Item::Field(f) => Some(n.word_bits(f)),
    }
}

/// The item's word (`Result<(u64, u32)>`, errors labelled with the field).
fn item_word(item: &Item<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    match item {
        Item::Tag {
            value,
            bits,
            varint,
        } => {
            // The tag's word is a literal: `(index << 2) | (bytes - 1)` for a varint tag.
            let word = if *varint {
                let m = (*bits as u64 - 2) / 8;
                (value << 2) | (m - 1)
            } else {
                *value
            };
            let word = Literal::u64_suffixed(word);
            quote!(#p::Ok::<(u64, u32), #k::Error>((#word, #bits)))
        }
        Item::Field(f) => {
            let b = &f.binding;
            let word = n.word_value(f, &quote!(#b));
            let in_field = n.in_field(owner, f);
            quote!(#word #in_field)
        }
    }
}

/// The item written on its own, as before merging.
fn item_plain(item: &Item<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let w = &n.w;
    match item {
        Item::Tag {
            value,
            bits,
            varint,
        } => {
            let index = Literal::u64_suffixed(*value);
            if *varint {
                quote!(#w.write_varint(#index, 4);)
            } else {
                quote!(#w.write_bits(#index, #bits);)
            }
        }
        Item::Field(f) => field(f, n, owner),
    }
}

/// The statements writing `items` in order, merging runs of words into one write each.
fn items_encode(items: &[Item<'_, '_>], n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    let s = quote!(#k);
    let (w, gv, gn, plan, x, xn) = (&n.w, &n.gv, &n.gn, &n.plan, &n.x, &n.xn);
    // Items that write something; those that can never be words keep a slot (as `None`) so
    // that a group ends before them.
    let live: Vec<&Item<'_, '_>> = items
        .iter()
        .filter(|i| item_word_bits(i, n).is_some())
        .collect();
    let may_merge = live.iter().any(|i| match i {
        Item::Tag { .. } => true,
        Item::Field(f) => !n.never_word(f),
    });
    if !may_merge {
        let stmts = live.iter().map(|i| item_plain(i, n, owner));
        return quote!(#(#stmts)*);
    }
    let words = live.iter().map(|i| item_word_bits(i, n));
    let stmts = live.iter().enumerate().map(|(idx, item)| {
        let plain = item_plain(item, n, owner);
        let never = matches!(item, Item::Field(f) if n.never_word(f));
        if never {
            return plain;
        }
        let word = item_word(item, n, owner);
        quote! {
            if #plan[#idx] & 3 == 0 {
                #plain
            } else {
                let (#x, #xn) = #word?;
                if #plan[#idx] & 3 == 1 {
                    #gv = #x;
                    #gn = #xn;
                } else {
                    #gv |= #x.wrapping_shl(#gn);
                    #gn += #xn;
                }
                if #plan[#idx] & 4 != 0 {
                    #w.write_word(#gv, #gn);
                }
            }
        }
    });
    quote! {
        let #plan = const { #s::word_plan([#(#words),*]) };
        let mut #gv: u64 = 0;
        let mut #gn: u32 = 0;
        #(#stmts)*
    }
}

/// The `WORD_BITS` constant of the type.
pub fn word_bits(input: &Input<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let s = quote!(#k);
    match &input.body {
        Body::Struct(_, fields) => {
            let items: Vec<Item<'_, '_>> = fields.iter().map(Item::Field).collect();
            let words = items.iter().filter_map(|i| item_word_bits(i, n));
            quote!(#s::word_sum(&[#(#words),*]))
        }
        Body::Enum(e) => {
            let variants = e.variants.iter().map(|v| {
                let items = variant_items(e.tag, v.index, &v.fields);
                let words = items.iter().filter_map(|i| item_word_bits(i, n));
                quote!(#s::word_sum(&[#(#words),*]))
            });
            quote!(#s::word_over(&[#(#variants),*]))
        }
    }
}

/// The body of `encode_word`: every item's word, shifted together.
pub fn word_body(input: &Input<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let p = quote!(#k);
    let type_name = input.ident.to_string();
    let (gv, gn, x, xn) = (&n.gv, &n.gn, &n.x, &n.xn);
    let join = |items: &[Item<'_, '_>], owner: &str| {
        let stmts = items
            .iter()
            // `if` fields never make a word (their type is not the binding's): left out of
            // code that `WORD_BITS` being `None` never reaches.
            .filter(|i| item_word_bits(i, n).is_some())
            .filter(|i| !matches!(i, Item::Field(f) if f.plan.cond.is_some()))
            .map(|i| {
                let word = item_word(i, n, owner);
                quote! {
                    let (#x, #xn) = #word?;
                    #gv |= #x.wrapping_shl(#gn);
                    #gn += #xn;
                }
            });
        quote! {
            let mut #gv: u64 = 0;
            let mut #gn: u32 = 0;
            #(#stmts)*
            #p::Ok((#gv, #gn))
        }
    };
    let inner = match &input.body {
        Body::Struct(style, fields) => {
            let items: Vec<Item<'_, '_>> = fields.iter().map(Item::Field).collect();
            let body = join(&items, &type_name);
            let pat = pattern(&quote!(Self), *style, fields, |f| !f.plan.skip);
            quote! {
                let #pat = self;
                #body
            }
        }
        Body::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vi = v.ident;
                let pat = pattern(&quote!(Self::#vi), v.style, &v.fields, |f| !f.plan.skip);
                let owner = format!("{type_name}::{vi}");
                let items = variant_items(e.tag, v.index, &v.fields);
                let body = join(&items, &owner);
                quote!(#pat => { #body })
            });
            quote! {
                match self {
                    #(#arms)*
                }
            }
        }
    };
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

fn field(f: &Field<'_>, n: &Names, owner: &str) -> TokenStream {
    if f.plan.skip {
        return quote!();
    }
    let k = &n.krate;
    let p = quote!(#k);
    let b = &f.binding;
    let in_field = n.in_field(owner, f);
    match &f.plan.cond {
        None => {
            let enc = n.encode_value(f, &quote!(#b));
            quote!(#enc #in_field?;)
        }
        Some(cond) => {
            // Earlier fields are already bound as references by the destructuring.
            let expr = &cond.expr;
            let (c, v) = (&n.c, &n.v);
            let enc = n.encode_value(f, &quote!(#v));
            let label = format!("{owner}.{}", f.name());
            quote! {
                let #c: bool = #expr;
                match #b {
                    #p::Some(#v) if #c => { #enc #in_field?; }
                    #p::None if !#c => {}
                    _ => return #p::Err(#k::condition_mismatch(#label, #c)),
                }
            }
        }
    }
}
