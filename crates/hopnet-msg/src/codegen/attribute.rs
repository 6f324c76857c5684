//! Whether a field has an encoding attribute, told from the schema: a field of a delta type
//! with one is written whole by its codec when it changed, one without by its type's own
//! delta. For a value that changes as a whole the two are the same bits; for a container (an
//! option, a list, an array, a tuple) they differ, and an attribute shows as an encoding other
//! than the default one of the field's Rust type as written.

use super::wire::Wire;

/// Whether `wire` is how Rust type `ty` (as written) encodes without an attribute, as far as
/// the text tells: a name it does not know (a derived type, an alias) may be anything but a
/// list with a bound.
pub(super) fn default_shape(ty: &str, wire: &Wire) -> bool {
    let ty = ty.trim();
    let (head, args) = match ty.find('<') {
        Some(at) if ty.ends_with('>') => (&ty[..at], &ty[at + 1..ty.len() - 1]),
        _ => (ty, ""),
    };
    let head = head.rsplit("::").next().unwrap_or(head).trim();
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let item = inner.rsplit_once(';').map_or(inner, |(item, _)| item);
        return matches!(wire, Wire::Array { item: w, .. } if default_shape(item, w));
    }
    if let Some(inner) = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        let parts = split_top(inner);
        return match wire {
            Wire::Tuple(items) => {
                items.len() == parts.len()
                    && parts.iter().zip(items).all(|(p, w)| default_shape(p, w))
            }
            Wire::Null => parts.is_empty(),
            _ => false,
        };
    }
    let primitive = |w: &Wire| -> Option<bool> {
        Some(match head {
            "bool" => matches!(w, Wire::Bool),
            "u8" => matches!(
                w,
                Wire::Bits {
                    bits: 8,
                    signed: false,
                    ..
                }
            ),
            "i8" => matches!(
                w,
                Wire::Varint {
                    bytes: 1,
                    zigzag: true
                }
            ),
            "u16" => matches!(
                w,
                Wire::Varint {
                    bytes: 2,
                    zigzag: false
                }
            ),
            "i16" => matches!(
                w,
                Wire::Varint {
                    bytes: 2,
                    zigzag: true
                }
            ),
            "u32" => matches!(
                w,
                Wire::Varint {
                    bytes: 4,
                    zigzag: false
                }
            ),
            "i32" => matches!(
                w,
                Wire::Varint {
                    bytes: 4,
                    zigzag: true
                }
            ),
            "u64" | "usize" => matches!(
                w,
                Wire::Varint {
                    bytes: 8,
                    zigzag: false
                }
            ),
            "i64" | "isize" => matches!(
                w,
                Wire::Varint {
                    bytes: 8,
                    zigzag: true
                }
            ),
            "f32" => matches!(w, Wire::Float { bits: 32 }),
            "f64" => matches!(w, Wire::Float { bits: 64 }),
            "String" => matches!(w, Wire::String { max_len: None }),
            _ => return None,
        })
    };
    if args.is_empty()
        && let Some(same) = primitive(wire)
    {
        return same;
    }
    match (head, wire) {
        ("Option", Wire::Option(inner)) => default_shape(args, inner),
        ("Option", _) => false,
        ("Vec", Wire::List { item, max_len, .. }) => max_len.is_none() && default_shape(args, item),
        ("Vec", _) => false,
        ("Box", w) => default_shape(args, w),
        (_, Wire::List { max_len, .. }) => max_len.is_none(),
        _ => true,
    }
}

/// `A, B<C, D>, (E, F)` split at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_type_without_an_attribute_has_its_default_shape() {
        let varint = Wire::Varint {
            bytes: 4,
            zigzag: false,
        };
        let list = |max_len| Wire::List {
            item: Box::new(varint.clone()),
            item_min_bits: 10,
            max_len,
        };
        assert!(default_shape("Vec<u32>", &list(None)));
        assert!(!default_shape("Vec<u32>", &list(Some(5))));
        assert!(default_shape("std::vec::Vec<Tick>", &list(None)));
        assert!(default_shape(
            "Option<u32>",
            &Wire::Option(Box::new(varint.clone()))
        ));
        let five = Wire::Bits {
            bits: 5,
            signed: false,
            wide: false,
        };
        assert!(!default_shape(
            "Option<u8>",
            &Wire::Option(Box::new(five.clone()))
        ));
        assert!(default_shape(
            "(u8, Option<u32>)",
            &Wire::Tuple(vec![
                Wire::Bits {
                    bits: 8,
                    signed: false,
                    wide: false
                },
                Wire::Option(Box::new(varint.clone()))
            ])
        ));
        assert!(!default_shape(
            "[u8; 3]",
            &Wire::Array {
                item: Box::new(five),
                len: 3
            }
        ));
        assert_eq!(split_top("A, B<C, D>, (E, F)"), ["A", "B<C, D>", "(E, F)"]);
    }
}
