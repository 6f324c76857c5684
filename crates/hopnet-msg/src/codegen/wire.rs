//! One value's encoding as the generator writes it: the schema's [`Encoding`] resolved to what
//! TypeScript reads and writes, with what it cannot write refused by name.

use hopnet_codec::schema::{Encoding, TypeRef};

/// The largest integer a JavaScript number holds exactly, and its negation: wider values are
/// bigints.
const SAFE: i128 = (1 << 53) - 1;

/// A value's encoding, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Wire {
    /// Nothing on the wire: `()`; `null`.
    Null,
    /// One bit: a boolean.
    Bool,
    /// `bits` plain bits, two's complement when `signed`: a number up to 53 bits, else (`wide`)
    /// a number or a bigint.
    Bits { bits: u32, signed: bool, wide: bool },
    /// The spec's variable-length integer of a `bytes`-byte type, after zig-zag when `zigzag`:
    /// a number for 1, 2 and 4 bytes, a number or a bigint for 8 and 16.
    Varint { bytes: u32, zigzag: bool },
    /// `value - min` in `bits` bits.
    Range {
        min: i128,
        max: i128,
        bits: u32,
        wide: bool,
    },
    /// IEEE-754 bits, 32 or 64: a number.
    Float { bits: u32 },
    /// A presence bit, then the value: the value or `null`.
    Option(Box<Wire>),
    /// A `u32` count, then the items.
    List {
        item: Box<Wire>,
        /// The fewest bits an item takes (the Rust type's `MIN_BITS`), for the count check.
        item_min_bits: u64,
        max_len: Option<u64>,
    },
    /// A `u32` byte count, then UTF-8.
    String { max_len: Option<u64> },
    /// Exactly `len` items.
    Array { item: Box<Wire>, len: u64 },
    /// Items one after another: a JSON array.
    Tuple(Vec<Wire>),
    /// A derived type, by name.
    Type(String),
}

impl Wire {
    /// The wire form of `encoding`, collecting the derived types it names into `found`.
    /// `bool_field`: the field is a Rust `bool`, so one fixed bit is a boolean.
    pub(crate) fn of(
        encoding: &Encoding,
        bool_field: bool,
        found: &mut Vec<TypeRef>,
    ) -> Result<Wire, String> {
        Ok(match encoding {
            Encoding::Empty => Wire::Null,
            Encoding::Bool => Wire::Bool,
            Encoding::Fixed {
                bits: 1,
                signed: false,
            } if bool_field => Wire::Bool,
            &Encoding::Fixed { bits, signed } => {
                if bits > 64 {
                    return Err(format!("{bits} plain bits: at most 64 are supported"));
                }
                Wire::Bits {
                    bits,
                    signed,
                    wide: bits > 53,
                }
            }
            &Encoding::Varint { bytes, zigzag } => {
                if ![1, 2, 4, 8, 16].contains(&bytes) {
                    return Err(format!("a variable-length integer of {bytes} bytes"));
                }
                Wire::Varint { bytes, zigzag }
            }
            &Encoding::Range { min, max, bits } => {
                if bits > 128 || min > max {
                    return Err(format!("the range {min}..={max} in {bits} bits"));
                }
                let wide = min < -SAFE || max > SAFE || bits > 53;
                Wire::Range {
                    min,
                    max,
                    bits,
                    wide,
                }
            }
            &Encoding::Float { bits } if bits == 32 || bits == 64 => Wire::Float { bits },
            Encoding::Option(inner) => {
                let inner = Wire::of(inner, bool_field, found)?;
                if matches!(inner, Wire::Null | Wire::Option(_)) {
                    return Err(
                        "an option of a value that is itself `null` in JSON, so that \
                                `None` and `Some` of it read the same"
                            .into(),
                    );
                }
                Wire::Option(Box::new(inner))
            }
            Encoding::List { item, max_len } => Wire::List {
                item_min_bits: min_bits(item)?,
                item: Box::new(Wire::of(item, false, found)?),
                max_len: *max_len,
            },
            Encoding::String { max_len } => Wire::String { max_len: *max_len },
            Encoding::Array { item, len } => Wire::Array {
                item: Box::new(Wire::of(item, false, found)?),
                len: *len,
            },
            Encoding::Tuple(items) => Wire::Tuple(
                items
                    .iter()
                    .map(|item| Wire::of(item, false, found))
                    .collect::<Result<_, _>>()?,
            ),
            Encoding::Type(t) => {
                found.push(*t);
                Wire::Type(t.name.to_string())
            }
            other => return Err(unsupported(other)),
        })
    }

    /// Whether the value may be a bigint (a 64-bit or wider integer).
    pub(crate) fn is_wide(&self) -> bool {
        match self {
            Wire::Bits { wide, .. } | Wire::Range { wide, .. } => *wide,
            Wire::Varint { bytes, .. } => *bytes >= 8,
            _ => false,
        }
    }

    /// Whether the value is a number (or a bigint, when wide): an integer or a float.
    pub(crate) fn is_number(&self) -> bool {
        matches!(
            self,
            Wire::Bits { .. } | Wire::Varint { .. } | Wire::Range { .. } | Wire::Float { .. }
        )
    }

    /// The value's TypeScript type.
    pub(crate) fn ts_type(&self) -> String {
        match self {
            Wire::Null => "null".into(),
            Wire::Bool => "boolean".into(),
            w if w.is_wide() => "number | bigint".into(),
            Wire::Bits { .. } | Wire::Varint { .. } | Wire::Range { .. } | Wire::Float { .. } => {
                "number".into()
            }
            Wire::Option(inner) => format!("{} | null", inner.ts_type()),
            Wire::List { item, .. } | Wire::Array { item, .. } => {
                let item = item.ts_type();
                // A union needs parentheses before `[]`; a tuple does not.
                if item.contains(" | ") && !item.starts_with('[') {
                    format!("({item})[]")
                } else {
                    format!("{item}[]")
                }
            }
            Wire::String { .. } => "string".into(),
            Wire::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Wire::ts_type).collect();
                format!("[{}]", items.join(", "))
            }
            Wire::Type(name) => name.clone(),
        }
    }
}

/// The fewest bits a value of `encoding` takes: the Rust type's `MIN_BITS`, which the decoder's
/// count check multiplies (so it must agree, zero or not, with the Rust decoder's).
fn min_bits(encoding: &Encoding) -> Result<u64, String> {
    Ok(match encoding {
        Encoding::Empty => 0,
        Encoding::Bool => 1,
        Encoding::Fixed { bits, .. }
        | Encoding::Range { bits, .. }
        | Encoding::Float { bits }
        | Encoding::Quantized { bits, .. } => u64::from(*bits),
        Encoding::Varint { bytes, .. } => hopnet_codec::varint::min_bits(*bytes),
        Encoding::Option(_) => 1,
        Encoding::List { .. } | Encoding::String { .. } => hopnet_codec::varint::min_bits(4),
        Encoding::Array { item, len } => min_bits(item)?.saturating_mul(*len),
        Encoding::Tuple(items) => items.iter().map(min_bits).sum::<Result<u64, _>>()?,
        Encoding::Type(t) => t.resolve().min_bits,
        other => return Err(unsupported(other)),
    })
}

/// Why an encoding the generator does not write is refused.
fn unsupported(encoding: &Encoding) -> String {
    let what = match encoding {
        Encoding::Quantized { .. } => "a quantized float (`quantize`)",
        Encoding::SmallestThree { .. } => "a smallest-three quaternion (`quaternion`)",
        Encoding::Octahedral { .. } => "an octahedral unit vector (`unit_vector`)",
        Encoding::Float { .. } => "a float of neither 32 nor 64 bits",
        Encoding::Bytes { .. } => "a number in whole bytes (`endian`, `bytes = N`)",
        Encoding::FixedLen { .. } => "a fixed number of bytes (`bytes = N`)",
        Encoding::ToEnd { .. } => "items to the end of the input (`to_end`)",
        Encoding::ByteLen { .. } => "a field framed by a byte length (`byte_len`)",
        Encoding::Transformed { .. } => "bytes made by a transform (`transform`)",
        Encoding::Computed { .. } => "a computed field (`computed`)",
        Encoding::Constant { .. } => "constant bits (`magic`, `pad_before`)",
        Encoding::MsbFirst(_) => "bits most significant first (`bit_order = \"msb\"`)",
        Encoding::Custom { .. } => "a custom codec (`with`)",
        Encoding::Opaque { .. } => "a hand-written impl that does not describe its layout",
        _ => "this encoding",
    };
    format!("{what} has no TypeScript codec")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(encoding: Encoding) -> Result<Wire, String> {
        Wire::of(&encoding, false, &mut Vec::new())
    }

    #[test]
    fn integers_wider_than_53_bits_may_be_bigints() {
        let varint = |bytes| {
            wire(Encoding::Varint {
                bytes,
                zigzag: false,
            })
            .unwrap()
        };
        assert_eq!(
            (varint(4).ts_type(), varint(8).ts_type()),
            ("number".into(), "number | bigint".into())
        );
        let fixed = |bits, signed| wire(Encoding::Fixed { bits, signed }).unwrap();
        assert!(!fixed(53, true).is_wide() && fixed(54, false).is_wide());
    }

    #[test]
    fn an_option_of_null_is_refused() {
        let nested = Encoding::Option(Box::new(Encoding::Option(Box::new(Encoding::Bool))));
        assert!(wire(nested).is_err());
        assert!(wire(Encoding::Option(Box::new(Encoding::Empty))).is_err());
    }

    #[test]
    fn byte_layouts_are_refused_by_what_they_are() {
        let err = wire(Encoding::Custom { codec: "my::codec" }).unwrap_err();
        assert!(err.contains("custom codec"), "{err}");
    }
}
