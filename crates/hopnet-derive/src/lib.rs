//! `#[derive(Rabbit)]`: `Encode`, `Decode` and `schema::Describe` impls in the Rabbit
//! bit-packed encoding, and with `#[rabbit(delta)]` the delta impls.
//!
//! Use it through the `hopnet-codec` crate, which re-exports it as `hopnet_codec::Rabbit` (feature
//! `derive`, on by default). The attributes are documented, with an example each, in the
//! `hopnet_codec::guide` module.
//!
//! The crate is a pipeline of stages, each importing only the stages before it (as serde's
//! and thiserror's derives are laid out): `attr/` parses attributes into its own values (one
//! row per attribute in `attr/rules.rs`: where it may stand, what it excludes, how its value
//! parses); `ast.rs` is the input as our own types, carrying them; `valid/` checks everything
//! that can be wrong, collecting every error at its token in the `ctxt.rs` sink so that a
//! build reports all of them, and maps what it checked into the plan (`plan.rs`: plain data,
//! each field's codec, the tag, the indices, what each struct or variant writes in order, the
//! delta layout); `expand/` writes the impls from the plan alone, with the where-clauses of
//! `bound.rs` (`encode`, `decode`, `size`, `schema`, `delta`, and the codec types of `with`
//! fields).
//!
//! Generated code names the runtime only through `hopnet_codec::__derive_v0_1_0` (the name carries
//! the release: `contract` in `expand/names.rs`), and asks it every encoding rule: each field is written by
//! a codec type of the runtime chosen from its attributes. A new encoding is a row in
//! `attr/rules.rs` with its parser, a `plan::Codec` variant (mapped and type-checked in
//! `valid/field.rs`), and the codec type it selects in `Names::codec_ty` (`expand/names.rs`).

mod ast;
mod attr;
mod bound;
mod ctxt;
mod expand;
mod plan;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `hopnet_codec::Encode`, `hopnet_codec::Decode` and `hopnet_codec::schema::Describe`; with
/// `#[rabbit(delta)]`, also `hopnet_codec::DeltaEncode` and `hopnet_codec::DeltaDecode`.
///
/// A struct (named, tuple or unit) is its fields in declaration order; an enum is a variant
/// index (the tag) followed by the variant's fields. Each field uses its type's own encoding
/// unless an attribute says otherwise:
///
/// ```
/// use hopnet_codec::{Encode, Rabbit};
///
/// /// The spec's `Object`.
/// #[derive(Rabbit, Debug, PartialEq)]
/// struct Object {
///     #[bits(12)]
///     x: i16,
///     breakable: bool,
///     #[rabbit(if = "*breakable")]
///     health: Option<u8>,
/// }
///
/// #[derive(Rabbit, Debug, PartialEq)]
/// #[rabbit(tag = "varint")]
/// enum Request {
///     Move { #[rabbit(range = "0..=3")] direction: u8 },
///     Build(Object),
/// }
///
/// let msg = Request::Build(Object { x: -1, breakable: true, health: Some(7) });
/// let bytes = hopnet_codec::to_bytes(&msg)?;
/// assert_eq!(msg.encoded_bits(), 10 + 12 + 1 + 8);
/// assert_eq!(hopnet_codec::from_bytes::<Request>(&bytes)?, msg);
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
///
/// | Where | Attribute | Effect |
/// |---|---|---|
/// | container | `#[rabbit(crate = "path")]` | path of the `hopnet-codec` crate in generated code (default `::hopnet_codec`) |
/// | container | `#[rabbit(bound = "T: Trait, ...")]` | replaces the inferred where-clause predicates |
/// | container | `#[rabbit(from = "W", into = "W")]` | written as `W`: `Into<W>` (and `Clone`) to encode, `From<W>` to decode; the fields are not on the wire |
/// | container | `#[rabbit(try_from = "W", into = "W")]` | as `from`, decoding with `TryFrom<W>` (its refusal a decode error) |
/// | enum | `#[bits(N)]` | the tag is N plain bits (1..=64); default: the fewest bits that hold the largest index (0 for one variant) |
/// | enum | `#[rabbit(tag = "varint")]` | the tag is a `u32` variable-length integer |
/// | variant | `#[rabbit(index = K)]` | pins the variant's index; later variants count on from K + 1 |
/// | field | `#[bits(N)]` | integer or bool in N bits (two's complement for signed); a value that does not fit is an encode error |
/// | field | `#[rabbit(range = "A..=B")]` | `value - A` in the fewest bits that hold `B - A`; values outside are errors on both sides |
/// | field | `#[rabbit(varint)]` | the variable-length integer of the type's width, without zig-zag |
/// | field | `#[rabbit(zigzag)]` | zig-zag, then the variable-length integer (signed types) |
/// | field | `#[rabbit(with = "path")]` | `path::encode(&T, &mut BitWriter) -> Result<()>` and `path::decode(&mut BitReader) -> Result<T>`; sizes unknown (`MIN` 0, `MAX` `None`) |
/// | field | `#[rabbit(if = "expr")]` | on `Option<T>`: no presence bit; present exactly when `expr` is true. `expr` sees the earlier fields as references named after them (`_0`, `_1` in tuples) |
/// | field | `#[rabbit(leb128)]`, `leb128_signed`, `leb128_zigzag` | LEB128: the type's bits unsigned; two's complement sign-extended (SLEB128); zig-zag then unsigned |
/// | field | `#[rabbit(cstring)]` | a `String`'s bytes, then a zero byte |
/// | field | `#[rabbit(count = "expr")]` | a list or string of exactly `expr` items (an expression of earlier fields, seen as in `if`); no count on the wire |
/// | field | `#[rabbit(until = B)]` | a `String` or `Vec<u8>`, then the byte `B` |
/// | field | `#[rabbit(until = "predicate")]` | a `Vec<T>`'s items, then `T::default()`; read until an item the predicate (`Fn(&T) -> bool`) accepts |
/// | field | `#[rabbit(max_len = N)]` | on a list or string: longer is an error on both sides; bounds `MAX_BITS` |
/// | field | `#[rabbit(skip)]` | not on the wire; `Default::default()` on decode |
/// | field | `#[rabbit(quantize(range = "A..=B", precision = P))]` | on `f32` / `f64` (or an array of them, each axis): the index of the nearest point of the grid `A, A + P, ...` up to `B`, in the fewest bits that hold the last; `x(...)`, `y(...)`, `z(...)`, `w(...)` give an array's axes grids of their own |
/// | field | `#[rabbit(quaternion(bits = B))]` | on `[f32; 4]` or a `Quaternion`: smallest three, `2 + 3B` bits |
/// | field | `#[rabbit(unit_vector(bits = B))]` | on `[f32; 3]` or a `UnitVector`: octahedral, `2B` bits |
/// | container | `#[rabbit(delta)]` | also `DeltaEncode` and `DeltaDecode` (the type must be `Clone`): one changed bit, then each field's delta; `delta = "per_field"`: only the fields' |
/// | field | `#[rabbit(key = "id")]` | with `delta`, on a `Vec<T>`: a keyed list, its items paired with the baseline's by `T`'s field `id` |
///
/// Every misuse is a compile error at the offending token, and all of a type's errors are
/// reported at once.
#[proc_macro_derive(Rabbit, attributes(rabbit, bits))]
pub fn derive_rabbit(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn derive(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let cx = ctxt::Ctxt::default();
    let model = ast::Input::from_syn(&cx, input);
    let plan = model.as_ref().and_then(|model| valid::plan(&cx, model));
    // Expansion assumes a valid plan (unique indices, ...): only after every check passed.
    cx.check()?;
    let plan = plan.ok_or_else(|| syn::Error::new_spanned(&input.ident, "cannot derive Rabbit"))?;
    Ok(expand::expand(&plan))
}

#[cfg(test)]
mod tests {
    use super::derive;
    use syn::parse_quote;

    fn errors(input: syn::DeriveInput) -> Vec<String> {
        match derive(&input) {
            Ok(_) => Vec::new(),
            Err(err) => err.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    /// `:: hopnet_codec :: __derive_v0_1_0 ::` for release 0.1.0: the runtime's module for
    /// generated code, as the tokens print, spelled out here from the version on its own.
    fn contract() -> String {
        let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
        format!(":: hopnet_codec :: __derive_v{version} ::")
    }

    /// The expansion of a valid `input`, and the [`contract`] module: fails unless the runtime
    /// is named through that one module for generated code, nothing else.
    fn expand(input: &syn::DeriveInput) -> (String, String) {
        let out = derive(input).expect("expands").to_string();
        let k = contract();
        assert_eq!(
            out.matches(":: hopnet_codec ::").count(),
            out.matches(&k).count()
        );
        (out, k)
    }

    /// Expands a valid `input` ([`expand`]) and checks that the expansion holds each of
    /// `expected`, in which `{k}` stands for the [`contract`] module.
    #[track_caller]
    fn assert_expansion_has(input: &syn::DeriveInput, expected: &[&str]) {
        let (out, k) = expand(input);
        for item in expected {
            let item = item.replace("{k}", &k);
            assert!(out.contains(&item), "{item}");
        }
    }

    #[test]
    fn a_valid_input_expands() {
        let input: syn::DeriveInput = parse_quote! {
            #[rabbit(tag = "varint")]
            enum E<T> {
                A,
                #[rabbit(index = 4)]
                B(T, #[rabbit(if = "*_0 > 1")] Option<u8>),
                C { #[bits(3)] x: u8, #[rabbit(max_len = 2)] v: Vec<T> },
            }
        };
        assert_expansion_has(
            &input,
            &[
                "{k} Encode for E < T >",
                "T : {k} Encode + {k} Decode",
                // The tag of index 4 and the field's width are asked of the runtime's codec
                // types.
                "< {k} Varint as {k} TagIndex < 4u64 >>",
                "{k} Fixed < 3u32 >",
            ],
        );
    }

    #[test]
    fn delta_impls_name_the_runtime_through_its_module_only() {
        let input: syn::DeriveInput = parse_quote! {
            #[rabbit(delta)]
            enum E<T> {
                A,
                B(T, #[rabbit(if = "*_0 > 1")] Option<u8>),
                C {
                    #[bits(3)] x: u8,
                    #[rabbit(key = "id")] v: Vec<T>,
                    #[rabbit(quantize(range = "0..=1", precision = 0.5))] f: f32,
                },
            }
        };
        assert_expansion_has(
            &input,
            &[
                "{k} DeltaEncode for E < T >",
                "{k} DeltaDecode for E < T >",
                "T : {k} DeltaEncode + {k} DeltaDecode",
            ],
        );
    }

    #[test]
    fn a_transformed_field_is_sized_by_its_codec_type() {
        let input: syn::DeriveInput = parse_quote! {
            #[rabbit(endian = "big")]
            struct Frame {
                size: Computed<u16>,
                #[rabbit(byte_len = "size", transform = "Reversed")]
                body: Vec<u8>,
            }
        };
        assert_expansion_has(
            &input,
            &[
                "< {k} Transformed as {k} FieldCodec < Vec < u8 > >> :: MIN_BITS",
                "< {k} Transformed as {k} FieldCodec < Vec < u8 > >> :: MAX_BITS",
                "< {k} Transformed as {k} FieldCodec < Vec < u8 > >> :: WORD_BITS",
            ],
        );
    }

    #[test]
    fn every_error_is_collected() {
        let input: syn::DeriveInput = parse_quote! {
            struct S {
                #[bits(0)]
                a: u8,
                #[rabbit(range = "3..=1")]
                b: u8,
                #[rabbit(nope)]
                c: u8,
                #[rabbit(if = "*later")]
                d: Option<u8>,
                later: bool,
            }
        };
        let errors = errors(input);
        assert_eq!(errors.len(), 4, "{errors:#?}");
        assert!(errors[0].contains("from 1 to 64"));
        assert!(errors[1].contains("empty range"));
        assert!(errors[2].contains("unknown rabbit attribute `nope`"));
        assert!(errors[3].contains("comes after it"));
    }

    #[test]
    fn conditions_see_earlier_fields_constants_and_macro_arguments() {
        let input: syn::DeriveInput = parse_quote! {
            struct S {
                kind: Option<u8>,
                n: u8,
                #[rabbit(if = "kind.is_some() && *n > LIMIT && matches!(kind, Some(k) if *k == 2) && [1].iter().any(|x| x == n)")]
                v: Option<u8>,
            }
        };
        assert_eq!(errors(input), Vec::<String>::new());
    }
}
