//! A schema's components as lines of the spec's notation: enums as a variant then bodies,
//! fields one by one, options and lists spelled out as the spec does.

use hopnet_codec::schema::{
    Encoding, FieldSchema, Leb128Form, Number, Tag, Terminator, VariantSchema,
};

use super::Line;
use super::text::first_paragraph;

pub(super) fn enum_lines(tag: Tag, variants: &[VariantSchema]) -> Vec<Line> {
    let tag_ty = match tag {
        Tag::Bits(n) | Tag::MsbBits(n) => format!("u{n}"),
        Tag::Varint { bytes } => format!("u{}", bytes * 8),
    };
    if variants.iter().all(|v| v.fields.iter().all(|f| f.skipped)) {
        let doc = variants
            .iter()
            .map(|v| format!("{} = {}", v.index, v.name))
            .collect::<Vec<_>>()
            .join(", ");
        return vec![Line {
            name: "variant".into(),
            condition: None,
            ty: tag_ty,
            doc,
        }];
    }
    let tag_doc = match tag {
        Tag::Bits(_) => String::new(),
        Tag::MsbBits(_) => "the high bits of the first byte".into(),
        Tag::Varint { .. } => "a variable-length integer: 10 bits for an index below 256".into(),
    };
    let mut lines = vec![Line {
        name: "variant".into(),
        condition: None,
        ty: tag_ty,
        doc: tag_doc,
    }];
    for variant in variants {
        let cond = format!("`variant` = {}", variant.index);
        let fields: Vec<&FieldSchema> = variant.fields.iter().filter(|f| !f.skipped).collect();
        match fields.as_slice() {
            [] => lines.push(Line {
                name: "body".into(),
                condition: Some(cond),
                ty: format!("`{}`", variant.name),
                doc: first_paragraph(variant.doc),
            }),
            [only] if only.name == "0" => {
                let doc = first_paragraph(variant.doc);
                field_lines(&mut lines, "body", &only.encoding, &doc, Some(&cond));
            }
            _ => {
                for field in fields {
                    let doc = first_paragraph(field.doc);
                    field_lines(&mut lines, field.name, &field.encoding, &doc, Some(&cond));
                }
            }
        }
    }
    lines
}

pub(super) fn fields_lines(fields: &[FieldSchema], cond: Option<&str>) -> Vec<Line> {
    let mut lines = Vec::new();
    for field in fields.iter().filter(|f| !f.skipped) {
        let doc = first_paragraph(field.doc);
        let cond = match (field.condition, cond) {
            (Some(own), Some(outer)) => Some(format!("{outer} and {own}")),
            (Some(own), None) => Some(own.to_string()),
            (None, outer) => outer.map(str::to_string),
        };
        field_lines(
            &mut lines,
            field.name,
            &field.encoding,
            &doc,
            cond.as_deref(),
        );
    }
    lines
}

/// The lines of one component named `name` with this encoding.
fn field_lines(lines: &mut Vec<Line>, name: &str, enc: &Encoding, doc: &str, cond: Option<&str>) {
    let mut push = |name: String, cond: Option<String>, ty: String, doc: String| {
        lines.push(Line {
            name,
            condition: cond,
            ty,
            doc,
        })
    };
    let cond_owned = cond.map(str::to_string);
    match enc {
        Encoding::Empty => {}
        Encoding::Option(inner) => {
            let flag = format!("is_{name}");
            push(
                flag.clone(),
                cond_owned,
                "u1".into(),
                format!("1 if `{name}` follows"),
            );
            let inner_cond = match cond {
                Some(c) => format!("{c} and `{flag}` = 1"),
                None => format!("`{flag}` = 1"),
            };
            field_lines(lines, name, inner, doc, Some(&inner_cond));
        }
        Encoding::List { item, max_len } => {
            let count = "count".to_string();
            let count_doc = match max_len {
                Some(max) => format!("the number of items, at most {max}"),
                None => "the number of items".to_string(),
            };
            push(count.clone(), cond_owned.clone(), "u32".into(), count_doc);
            push(
                name.to_string(),
                cond_owned,
                format!("`{count}` * {}", type_name(item)),
                doc.to_string(),
            );
        }
        Encoding::String { max_len } => {
            let length = "length".to_string();
            let length_doc = match max_len {
                Some(max) => format!("the length in bytes, at most {max}"),
                None => "the length in bytes".to_string(),
            };
            push(length.clone(), cond_owned.clone(), "u32".into(), length_doc);
            let doc = if doc.is_empty() {
                "UTF-8 text".to_string()
            } else {
                doc.to_string()
            };
            push(
                name.to_string(),
                cond_owned,
                format!("`{length}` * u8"),
                doc,
            );
        }
        Encoding::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                field_lines(lines, &format!("{name}.{i}"), item, doc, cond);
            }
        }
        other => push(
            name.to_string(),
            cond_owned,
            type_name(other),
            doc.to_string(),
        ),
    }
}

/// The notation of a single-line encoding.
fn type_name(enc: &Encoding) -> String {
    match enc {
        Encoding::Empty => "empty".into(),
        Encoding::Bool => "u1".into(),
        Encoding::Fixed { bits, signed } => format!("{}{bits}", if *signed { 'i' } else { 'u' }),
        Encoding::Varint { bytes, zigzag } => {
            format!("{}{}", if *zigzag { 'i' } else { 'u' }, bytes * 8)
        }
        Encoding::Range { min, max, bits } => format!("u{bits} ({min}..={max}, minus {min})"),
        Encoding::Float { bits } => format!("f{bits}"),
        Encoding::Quantized {
            min,
            max,
            step,
            bits,
        } => format!("u{bits} (a float from {min} to {max} in steps of {step})"),
        Encoding::Option(inner) => format!("optional {}", type_name(inner)),
        Encoding::List { item, .. } => format!("`count` * {}", type_name(item)),
        Encoding::String { .. } => "`length` * u8".into(),
        Encoding::Array { item, len } => format!("{len} * {}", type_name(item)),
        Encoding::Tuple(items) => items.iter().map(type_name).collect::<Vec<_>>().join(", "),
        Encoding::Type(r) => format!("`{}`", r.name),
        Encoding::Custom { codec } => format!("custom ({codec})"),
        Encoding::Opaque { type_name } => format!("opaque ({type_name})"),
        Encoding::Bytes {
            len,
            big_endian,
            number,
        } => {
            let order = if *big_endian {
                "big-endian"
            } else {
                "little-endian"
            };
            match number {
                Number::Unsigned => format!("u{} {order}", len * 8),
                Number::Signed => format!("i{} {order}", len * 8),
                Number::Float => format!("f{} {order}", len * 8),
                Number::Bool => format!("u{}, 0 or 1", len * 8),
            }
        }
        Encoding::FixedLen { len, text: true } => format!("{len} * u8, UTF-8 text"),
        Encoding::FixedLen { len, text: false } => format!("{len} * u8"),
        Encoding::ToEnd { item, max_len } => match max_len {
            Some(max) => format!("{} to the end, at most {max}", type_name(item)),
            None => format!("{} to the end", type_name(item)),
        },
        Encoding::ByteLen { field, inner } => {
            format!("{}, in `{field}` bytes", type_name(inner))
        }
        Encoding::Transformed { transform } => format!("the bytes `{transform}` makes"),
        Encoding::Computed { value, from } => {
            format!("{}, computed: `{from}`", type_name(value))
        }
        Encoding::Constant { bits, value } => format!("u{bits} = {value:#x}"),
        Encoding::MsbFirst(inner) => format!("{}, high bit first", type_name(inner)),
        Encoding::CString => "u8 up to a zero byte, UTF-8 text".into(),
        Encoding::Counted {
            count,
            item,
            max_len,
        } => match max_len {
            Some(max) => format!("`{count}` * {}, at most {max}", type_name(item)),
            None => format!("`{count}` * {}", type_name(item)),
        },
        Encoding::Until { end, item, max_len } => {
            let end = match end {
                Terminator::Byte(b) => format!("the byte {b:#04x}"),
                Terminator::Item { predicate } => format!("an item where `{predicate}`"),
                _ => "a terminator".into(),
            };
            match max_len {
                Some(max) => format!("{} up to {end}, at most {max}", type_name(item)),
                None => format!("{} up to {end}", type_name(item)),
            }
        }
        Encoding::Leb128 { bits, form } => match form {
            Leb128Form::Unsigned => format!("u{bits} LEB128"),
            Leb128Form::SignExtended => format!("i{bits} LEB128, sign-extended"),
            Leb128Form::TwosComplement => format!("i{bits} LEB128 of its two's complement bits"),
            Leb128Form::ZigZagged => format!("i{bits} LEB128, zig-zag"),
            _ => format!("{bits}-bit LEB128"),
        },
        _ => "unknown".into(),
    }
}
