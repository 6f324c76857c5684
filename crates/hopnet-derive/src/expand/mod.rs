//! Code generation: the `Encode`, `Decode` and `Describe` impls.
//!
//! Generated code names everything through one module of the runtime, `__derive_v0_1_0` for
//! release 0.1.0 ([`names::contract`]), under the crate path (`::hopnet_codec` unless
//! `#[rabbit(crate = "...")]`), standard items included, never through the user's imports.
//! Each field is written by a codec type (`Native`, `Fixed<N>`, `Range<A, B>`, ..., see
//! [`Names::codec_ty`]) and every field gets the same calls on it:
//! `<C as FieldCodec<T>>::encode`, `::encode_word`, `::encoded_bits`, its constants, and
//! `<C as FieldDecode<T>>::decode`. An enum's tag is a codec type too. The impls sit in an
//! anonymous `const _: () = { ... };` block with the helper types of `with` fields.
//!
//! Internal locals (`__w`, `__r`, `__c`, `__v`, `__e`, `__tag`) are `mixed_site` hygienic, so
//! they cannot clash with field names; field bindings keep the fields' own names, which is
//! what lets `if` conditions name earlier fields.
//!
//! Here: the order of the pieces. The shared vocabulary is in `names.rs`, the impls around
//! the bodies in `impls.rs`, one piece per file besides.

mod decode;
mod delta;
mod encode;
mod impls;
mod items;
mod layout;
mod names;
mod schema;
mod size;
mod via;
mod with;

use proc_macro2::TokenStream;

use crate::plan::Plan;
use impls::{Impls, assemble, hot_inline};
use names::Names;

/// The impls of `input`, from its plan alone.
pub fn expand(input: &Plan<'_>) -> TokenStream {
    let names = Names::new(input);
    let impls = match &input.via {
        Some(via) => via::impls(input, via, &names),
        None => Impls {
            helpers: with::helpers(input, &names),
            sizes: size::consts(input, &names),
            encode: encode::body(input, &names),
            encode_word: encode::word_body(input, &names),
            encoded_bits: size::encoded_bits(input, &names),
            decode: decode::body(input, &names),
            type_schema: schema::type_schema(input, &names),
            hot: hot_inline(input),
        },
    };
    let delta = input.delta.as_ref().map(|d| delta::impls(input, d, &names));
    assemble(input, &names, impls, delta)
}
