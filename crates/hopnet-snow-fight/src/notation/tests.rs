use super::*;
use hopnet_codec::schema::{Encoding, FieldSchema, Tag};

fn field(name: &'static str, encoding: Encoding) -> FieldSchema {
    FieldSchema {
        name,
        doc: "",
        ty: "",
        encoding,
        condition: None,
        skipped: false,
        key: None,
    }
}

#[test]
fn options_lists_and_strings() {
    let schema = TypeSchema {
        name: "Thing",
        doc: "A thing.\n\nMore text.",
        body: Body::Struct(vec![
            field(
                "holding",
                Encoding::Option(Box::new(Encoding::Varint {
                    bytes: 4,
                    zigzag: false,
                })),
            ),
            field(
                "names",
                Encoding::List {
                    item: Box::new(Encoding::Float { bits: 32 }),
                    max_len: None,
                },
            ),
            field("text", Encoding::String { max_len: Some(5) }),
            field(
                "y",
                Encoding::Fixed {
                    bits: 12,
                    signed: true,
                },
            ),
        ]),
        min_bits: 0,
        max_bits: None,
        delta: None,
    };
    let text = Definition::of(&schema).to_string();
    assert_eq!(
        text,
        "## Thing\n\nA thing.\n\n### Encoding\n\n\
         - `is_holding` (u1): 1 if `holding` follows\n\
         - `holding` (if `is_holding` = 1 then u32)\n\
         - `count` (u32): the number of items\n\
         - `names` (`count` * f32)\n\
         - `length` (u32): the length in bytes, at most 5\n\
         - `text` (`length` * u8): UTF-8 text\n\
         - `y` (i12)\n"
    );
}

#[test]
fn enums() {
    let unit = |name, index| VariantSchema {
        name,
        doc: "",
        index,
        fields: vec![],
    };
    let all_unit = TypeSchema {
        name: "GameOver",
        doc: "",
        body: Body::Enum {
            tag: Tag::Bits(1),
            variants: vec![unit("Lost", 0), unit("Won", 1)],
        },
        min_bits: 1,
        max_bits: Some(1),
        delta: None,
    };
    assert_eq!(
        Definition::of(&all_unit).lines[0].to_string(),
        "- `variant` (u1): 0 = Lost, 1 = Won"
    );
    let mixed = TypeSchema {
        name: "K",
        doc: "",
        body: Body::Enum {
            tag: Tag::Varint { bytes: 4 },
            variants: vec![
                VariantSchema {
                    name: "A",
                    doc: "an a",
                    index: 0,
                    fields: vec![field("0", Encoding::Float { bits: 32 })],
                },
                unit("B", 1),
            ],
        },
        min_bits: 0,
        max_bits: None,
        delta: None,
    };
    let lines: Vec<String> = Definition::of(&mixed)
        .lines
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "- `variant` (u32): a variable-length integer: 10 bits for an index below 256",
            "- `body` (if `variant` = 0 then f32): an a",
            "- `body` (if `variant` = 1 then `B`)",
        ]
    );
}

#[test]
fn wraps_long_lines() {
    let words = vec!["word"; 40].join(" ");
    let lines = wrap(&words, "", "  ");
    assert!(lines.len() > 1);
    assert!(lines.iter().all(|l| l.len() <= 100));
    assert!(lines[1].starts_with("  word"));
}
