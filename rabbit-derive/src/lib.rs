//! `#[derive(Rabbit)]`: `Encode`, `Decode` and `schema::Describe` impls in the Rabbit
//! bit-packed encoding. Use it through the `rabbit` crate (`rabbit::Rabbit`, feature `derive`,
//! on by default); the attributes are documented in `rabbit::guide`.
//!
//! The crate is a small pipeline: [`ast`] turns the input into our own types with the parsed
//! attributes of [`attr`], [`valid`] checks everything that can be wrong (collecting every
//! error, each at its token), [`bound`] infers the where-clauses and [`expand`] writes the
//! impls.

mod ast;
mod attr;
mod bound;
mod ctxt;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `rabbit::Encode`, `rabbit::Decode` and `rabbit::schema::Describe`.
///
/// Structs (named, tuple, unit) are their fields in order; enums are a variant index (the tag),
/// then the variant's fields. Attributes:
///
/// | Where | Attribute | Effect |
/// |---|---|---|
/// | container | `#[rabbit(crate = "path")]` | path of the `rabbit` crate in generated code (default `::rabbit`) |
/// | container | `#[rabbit(bound = "T: Trait, ...")]` | replaces the inferred where-clause predicates |
/// | enum | `#[bits(N)]` | the tag is N plain bits (1..=64); default: the fewest bits that hold the largest index |
/// | enum | `#[rabbit(tag = "varint")]` | the tag is a `u32` variable-length integer |
/// | variant | `#[rabbit(index = K)]` | pins the variant's index; later variants count on from K + 1 |
/// | field | `#[bits(N)]` | integer or bool in N bits (two's complement for signed); a value that does not fit is an encode error |
/// | field | `#[rabbit(varint)]` | the variable-length integer of the type's width, without zig-zag |
/// | field | `#[rabbit(zigzag)]` | zig-zag, then the variable-length integer |
/// | field | `#[rabbit(range = "A..=B")]` | `value - A` in the fewest bits that hold `B - A`; values outside are errors |
/// | field | `#[rabbit(with = "path")]` | `path::encode(&T, &mut BitWriter) -> Result<()>` and `path::decode(&mut BitReader) -> Result<T>` |
/// | field | `#[rabbit(if = "expr")]` | on `Option<T>`: no presence bit; present exactly when `expr` (over earlier fields, bound as references) is true |
/// | field | `#[rabbit(max_len = N)]` | on a list or string: longer is an error on both sides; bounds `MAX_BITS` |
/// | field | `#[rabbit(skip)]` | not on the wire; `Default::default()` on decode |
///
/// See the `rabbit::guide` module for examples of each, the tag rules, sizes and schemas.
#[proc_macro_derive(Rabbit, attributes(rabbit, bits))]
pub fn derive_rabbit(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn derive(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let cx = ctxt::Ctxt::default();
    let Some(mut model) = ast::Input::from_syn(&cx, input) else {
        cx.check()?;
        unreachable!("a rejected input always reports an error");
    };
    valid::check(&cx, &mut model);
    cx.check()?;
    Ok(expand::expand(&model))
}
