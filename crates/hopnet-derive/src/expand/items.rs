//! The plan's list of what a struct or variant writes ([`Item`]), as generated code sees it:
//! each field resolved to its plan, constant bits (magic bytes, padding) to their value, and
//! per item its sizes and its word, which encoding, decoding and the sizes share.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::names::Names;
use crate::plan::{Field, Fields, Item, Tag, Wire};

/// One item of the list, ready for generation.
pub(super) enum Part<'f, 'a> {
    /// The enum tag of the variant with this index.
    Tag(Tag, u64),
    Field(&'f Field<'a>, &'f Wire<'a>),
    /// Magic bytes or zero padding: this many bits, of this value (`u64`).
    Const(u32, TokenStream),
}

impl Part<'_, '_> {
    /// An `if` field: never a word, since its binding is the `Option`, not the codec's type.
    pub(super) fn conditional(&self) -> bool {
        matches!(self, Part::Field(_, w) if w.cond.is_some())
    }
}

/// The parts of a struct's or variant's items, in an msb container if `msb`.
pub(super) fn parts<'f, 'a>(fields: &'f Fields<'a>, msb: bool, n: &Names) -> Vec<Part<'f, 'a>> {
    fields
        .items
        .iter()
        .map(|item| match item {
            Item::Tag(tag, index) => Part::Tag(*tag, *index),
            Item::Field(i) => {
                let f = &fields.list[*i];
                let wire = f.wire.as_ref().expect("an item's field is on the wire");
                Part::Field(f, wire)
            }
            Item::Magic(_) | Item::Pad(_) => {
                let (bits, value) = constant(item, msb, n).expect("constant bits");
                Part::Const(bits, value)
            }
        })
        .collect()
}

/// Constant bits as `(bits, value)`: magic bytes as the word that puts them in order (in
/// either bit order), padding as zero.
pub(super) fn constant(item: &Item, msb: bool, n: &Names) -> Option<(u32, TokenStream)> {
    let k = &n.krate;
    match item {
        Item::Magic(bytes) => {
            let bits = 8 * bytes.len() as u32;
            let bytes = bytes.iter().map(|b| Literal::u8_suffixed(*b));
            Some((bits, quote!(const { #k::magic_word(&[#(#bytes),*], #msb) })))
        }
        Item::Pad(bits) => Some((*bits, quote!(0u64))),
        Item::Tag(..) | Item::Field(_) => None,
    }
}

/// The `WORD_BITS` expression of one part (`Option<u32>`).
pub(super) fn word_bits(part: &Part<'_, '_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    match part {
        Part::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#k::Some(#t::BITS))
        }
        part if part.conditional() => quote!(#k::None::<u32>),
        Part::Field(f, w) => n.enc(f, w, "WORD_BITS"),
        Part::Const(bits, _) => quote!(#k::Some(#bits)),
    }
}

/// The `MIN_BITS`, `MAX_BITS` and `WORD_BITS` of one part, for the msb plan.
pub(super) fn sizes(part: &Part<'_, '_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    match part {
        Part::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!((#t::BITS as u64, #k::Some(#t::BITS as u64), #k::Some(#t::BITS)))
        }
        part if part.conditional() => quote!((0u64, #k::None, #k::None)),
        Part::Field(f, w) => {
            let (min, max, word) = (
                n.enc(f, w, "MIN_BITS"),
                n.enc(f, w, "MAX_BITS"),
                n.enc(f, w, "WORD_BITS"),
            );
            quote!((#min, #max, #word))
        }
        Part::Const(bits, _) => quote!((#bits as u64, #k::Some(#bits as u64), #k::Some(#bits))),
    }
}

/// The part's word (`Result<(u64, u32)>`, errors labelled with the field).
pub(super) fn word(part: &Part<'_, '_>, n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    match part {
        Part::Tag(tag, index) => {
            let t = n.tag_index(*tag, *index);
            quote!(#k::Ok::<(u64, u32), #k::Error>((#t::WORD, #t::BITS)))
        }
        Part::Field(f, w) => {
            let b = &f.binding;
            let enc = n.enc(f, w, "encode_word");
            let in_field = n.in_field(owner, f);
            quote!(#enc(#b) #in_field)
        }
        Part::Const(bits, value) => quote!(#k::Ok::<(u64, u32), #k::Error>((#value, #bits))),
    }
}
