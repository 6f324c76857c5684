//! `Decode::decode` and `Decode::decode_window`: the tag, then each field in order into a
//! local, then the value. One body serves both methods: every read goes through a codec's
//! `FieldDecode::decode`, which takes either reader.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::encode::{Item, items};
use super::{Names, earlier_fields, layout, pattern};
use crate::ast::Style;
use crate::plan::{Body, Codec, Field, Plan, Tag};

pub fn body(input: &Plan<'_>, n: &Names) -> TokenStream {
    let k = &n.krate;
    let r = &n.r;
    let type_name = input.ident.to_string();
    match &input.body {
        Body::Struct(style, fields) => {
            build(input, None, &quote!(Self), *style, fields, n, &type_name)
        }
        Body::Enum(plan_tag, variants) => {
            let codec = n.tag_ty(*plan_tag);
            let tag = &n.tag;
            let mut arms: Vec<(u64, TokenStream)> = variants
                .iter()
                .map(|v| {
                    let vi = v.ident;
                    let owner = format!("{type_name}::{vi}");
                    let item = Some((*plan_tag, v.index));
                    let body = build(
                        input,
                        item,
                        &quote!(Self::#vi),
                        v.style,
                        &v.fields,
                        n,
                        &owner,
                    );
                    (v.index, quote!({ #body }))
                })
                .collect();
            arms.sort_by_key(|(index, _)| *index);
            let unknown = quote! {
                #k::Err(#k::unknown_variant(#type_name, #tag, #r.position()))
            };
            let dispatch = dispatch(&arms, &codec, n, &unknown);
            let magic = layout::enum_magic_decode(input, n);
            let read = if input.layout.msb {
                quote!(#k::msb_peek_tag(#r, <#codec as #k::TagIndex<0>>::BITS)?)
            } else {
                quote!(<#codec as #k::TagCodec>::decode(#r)?)
            };
            quote! {
                #magic
                let #tag: u64 = #read;
                #dispatch
            }
        }
    }
}

/// The variants' arms (sorted by index) as a binary trie of `<` tests on the tag: indices
/// from `1 << bits` up (`bits` the fewest that hold the last index) fail at once, when the
/// tag's codec can read them at all, then each test halves a range of `2^j` tags, down to
/// single tags.
///
/// Not a `match`: LLVM turns a `match` of four or more cases (a two-bit tag of three
/// variants and the unknown index make four) into an indirect jump through a table, and on
/// the 1000-entity snapshot, whose entity kinds are shuffled, that jump was mispredicted
/// and slower than compare-and-branch (BENCHMARKS.md has the numbers). A chain of `==` tests (or of `<` tests that
/// narrow a range to one value, which LLVM rewrites as `==`) is folded back into a `match`;
/// the trie's inner tests always leave two or more tags on each side, so they stay tests.
fn dispatch(
    arms: &[(u64, TokenStream)],
    codec: &TokenStream,
    n: &Names,
    unknown: &TokenStream,
) -> TokenStream {
    let k = &n.krate;
    let tag = &n.tag;
    let last = arms.last().map_or(0, |(index, _)| *index);
    let bits = 64 - last.leading_zeros();
    let size = 1u128 << bits;
    let trie = trie(arms, 0, size, n, unknown);
    let size = Literal::u128_unsuffixed(size);
    quote! {
        if const { #size < <#codec as #k::TagCodec>::VALUES } && #tag >= #size {
            #unknown
        } else {
            #trie
        }
    }
}

/// The arms of the tags `lo..lo + size` (`size` a power of two).
fn trie(
    arms: &[(u64, TokenStream)],
    lo: u128,
    size: u128,
    n: &Names,
    unknown: &TokenStream,
) -> TokenStream {
    let tag = &n.tag;
    match arms {
        [] => unknown.clone(),
        [(_, body)] if size == 1 => body.clone(),
        _ => {
            let mid = lo + size / 2;
            let split = arms.partition_point(|(index, _)| (*index as u128) < mid);
            let left = trie(&arms[..split], lo, size / 2, n, unknown);
            let right = trie(&arms[split..], mid, size / 2, n, unknown);
            let mid = Literal::u128_unsuffixed(mid);
            quote!(if #tag < #mid { #left } else { #right })
        }
    }
}

/// Decodes the fields into locals named after them (checking constant bits on the way, and
/// computed fields at the end), then builds `path`.
fn build(
    input: &Plan<'_>,
    tag: Option<(Tag, u64)>,
    path: &TokenStream,
    style: Style,
    fields: &[Field<'_>],
    n: &Names,
    owner: &str,
) -> TokenStream {
    let (k, r) = (&n.krate, &n.r);
    let skipped = fields
        .iter()
        .filter(|f| f.wire.is_none())
        .map(|f| field(f, n, owner));
    let items = items(input, tag, fields, n);
    let reads = if input.layout.msb {
        layout::msb_decode(&items, n, owner, |f| field(f, n, owner))
    } else {
        let reads = items.iter().map(|item| match item {
            // Read before the variant was chosen.
            Item::Tag(..) => quote!(),
            Item::Const(bits, value) => quote!(#k::expect_bits(#r, #bits, #value)?;),
            Item::Field(f, _) => field(f, n, owner),
        });
        quote!(#(#reads)*)
    };
    let finish = layout::decode_finish(fields, n, owner);
    let value = pattern(path, style, fields, |_| true);
    quote! {
        #(#skipped)*
        #reads
        #finish
        #k::Ok(#value)
    }
}

fn field(f: &Field<'_>, n: &Names, owner: &str) -> TokenStream {
    let k = &n.krate;
    let (b, r) = (&f.binding, &n.r);
    let ty = f.ty;
    let Some(wire) = &f.wire else {
        return quote!(let #b: #ty = #k::Default::default(););
    };
    if let Some(read) = layout::decode_field(f, wire, n, owner) {
        return read;
    }
    let dec = n.dec(f, wire);
    let dec = quote!(#dec(#r));
    let in_field = n.in_field(owner, f);
    if wire.cond.is_none()
        && matches!(wire.codec, Codec::Native)
        && let Some((item, len)) = short_array(wire.ty)
    {
        // `[T; N]` with a short literal length: its items read into the array one after the
        // other, as the array's own decoder reads them, without building a `Vec` first.
        let item_dec = quote!(<#k::Native as #k::FieldDecode<#item>>::decode(#r) #in_field?);
        let items = (0..len).map(|_| item_dec.clone());
        return quote!(let #b: #ty = [#(#items),*];);
    }
    match &wire.cond {
        None => quote!(let #b: #ty = #dec #in_field?;),
        Some(cond) => {
            // The same view as in `encode`: each earlier field the condition names is a
            // reference.
            let expr = &cond.expr;
            let c = &n.c;
            let binds = earlier_fields(&cond.uses);
            quote! {
                let #c: bool = {
                    #binds
                    #expr
                };
                let #b: #ty = if #c {
                    #k::Some(#dec #in_field?)
                } else {
                    #k::None
                };
            }
        }
    }
}

/// `T` and `N` of an array type `[T; N]` whose length is an integer literal of at most 32.
fn short_array(ty: &syn::Type) -> Option<(&syn::Type, usize)> {
    let syn::Type::Array(array) = ty else {
        return None;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(len),
        ..
    }) = &array.len
    else {
        return None;
    };
    let len = len.base10_parse::<usize>().ok()?;
    (len <= 32).then_some((&*array.elem, len))
}
