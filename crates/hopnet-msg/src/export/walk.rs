//! From the schema the derive records (`hopnet_codec::schema`) to the export's document:
//! every encoding turned into data, every derived type reached from the messages collected once
//! by name.

use super::ExportError;
use super::model::{DeltaDoc, EncodingDoc, FieldDoc, Int, TagDoc, TypeDoc, VariantDoc};
use hopnet_codec::schema::{
    Body, DeltaLayout, Encoding, FieldSchema, Leb128Form, Number, Tag, Terminator, TypeRef,
    TypeSchema,
};
use std::collections::BTreeMap;

/// The types found so far, by name.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) types: BTreeMap<String, TypeDoc>,
    seen: BTreeMap<String, TypeSchema>,
}

impl Walk {
    /// `encoding` as data; every derived type it reaches is added to `types`.
    pub(super) fn encoding(&mut self, encoding: &Encoding) -> Result<EncodingDoc, ExportError> {
        use EncodingDoc as D;
        let boxed = |w: &mut Walk, e: &Encoding| w.encoding(e).map(Box::new);
        Ok(match encoding {
            Encoding::Empty => D::Empty,
            Encoding::Bool => D::Bool,
            Encoding::Fixed { bits, signed } => D::Fixed {
                bits: *bits,
                signed: *signed,
            },
            Encoding::Varint { bytes, zigzag } => D::Varint {
                bytes: *bytes,
                zigzag: *zigzag,
            },
            Encoding::Range { min, max, bits } => D::Range {
                min: Int(*min),
                max: Int(*max),
                bits: *bits,
            },
            Encoding::Quantized {
                min,
                max,
                step,
                bits,
            } => D::Quantized {
                min: *min,
                max: *max,
                step: *step,
                bits: *bits,
            },
            Encoding::SmallestThree { bits } => D::SmallestThree { bits: *bits },
            Encoding::Octahedral { bits } => D::Octahedral { bits: *bits },
            Encoding::Float { bits } => D::Float { bits: *bits },
            Encoding::Option(item) => D::Option {
                item: boxed(self, item)?,
            },
            Encoding::List { item, max_len } => D::List {
                item: boxed(self, item)?,
                max_len: *max_len,
            },
            Encoding::String { max_len } => D::String { max_len: *max_len },
            Encoding::Array { item, len } => D::Array {
                item: boxed(self, item)?,
                len: *len,
            },
            Encoding::Tuple(items) => D::Tuple {
                items: items
                    .iter()
                    .map(|e| self.encoding(e))
                    .collect::<Result<_, _>>()?,
            },
            Encoding::Bytes {
                len,
                big_endian,
                number,
            } => D::Bytes {
                len: *len,
                big_endian: *big_endian,
                number: number_name(*number).to_string(),
            },
            Encoding::FixedLen { len, text } => D::FixedLen {
                len: *len,
                text: *text,
            },
            Encoding::CString => D::CString,
            Encoding::Leb128 { bits, form } => D::Leb128 {
                bits: *bits,
                form: leb128_name(*form).to_string(),
            },
            Encoding::Counted {
                count,
                item,
                max_len,
            } => D::Counted {
                count: (*count).to_string(),
                item: boxed(self, item)?,
                max_len: *max_len,
            },
            Encoding::Until { end, item, max_len } => D::Until {
                end: terminator(end),
                item: boxed(self, item)?,
                max_len: *max_len,
            },
            Encoding::ToEnd { item, max_len } => D::ToEnd {
                item: boxed(self, item)?,
                max_len: *max_len,
            },
            Encoding::ByteLen { field, inner } => D::ByteLen {
                field: (*field).to_string(),
                item: boxed(self, inner)?,
            },
            Encoding::Transformed { transform } => D::Transformed {
                transform: (*transform).to_string(),
            },
            Encoding::Computed { value, from } => D::Computed {
                value: boxed(self, value)?,
                from: from.clone(),
            },
            Encoding::Constant { bits, value } => D::Constant {
                bits: *bits,
                value: *value,
            },
            Encoding::MsbFirst(item) => D::MsbFirst {
                item: boxed(self, item)?,
            },
            Encoding::Type(r) => {
                self.type_ref(r)?;
                D::Type {
                    name: r.name.to_string(),
                }
            }
            Encoding::Custom { codec } => D::Custom {
                codec: (*codec).to_string(),
            },
            Encoding::Opaque { type_name } => D::Opaque {
                type_name: (*type_name).to_string(),
            },
            other => {
                return Err(ExportError::Unknown(format!("{other:?}")));
            }
        })
    }

    /// Adds the referenced type, and what it reaches, unless it is there. A second type of the
    /// same name with another schema is an error: the document names types by name alone.
    fn type_ref(&mut self, r: &TypeRef) -> Result<(), ExportError> {
        let schema = r.resolve();
        let name = r.name.to_string();
        if let Some(seen) = self.seen.get(&name) {
            return if *seen == schema {
                Ok(())
            } else {
                Err(ExportError::NameClash(name))
            };
        }
        // Recorded before its body is walked, so that a type that contains itself ends here.
        self.seen.insert(name.clone(), schema.clone());
        let doc = self.body(&schema.body, schema.delta)?;
        self.types.insert(name, doc);
        Ok(())
    }

    fn body(&mut self, body: &Body, delta: Option<DeltaLayout>) -> Result<TypeDoc, ExportError> {
        let delta = delta.map(|d| match d {
            DeltaLayout::PerStruct => DeltaDoc::PerStruct,
            DeltaLayout::PerField => DeltaDoc::PerField,
        });
        Ok(match body {
            Body::Struct(fields) => TypeDoc::Struct {
                fields: self.fields(fields)?,
                delta,
            },
            Body::Enum { tag, variants } => TypeDoc::Enum {
                tag: match *tag {
                    Tag::Bits(bits) => TagDoc::Bits { bits },
                    Tag::MsbBits(bits) => TagDoc::MsbBits { bits },
                    Tag::Varint { bytes } => TagDoc::Varint { bytes },
                },
                variants: variants
                    .iter()
                    .map(|v| {
                        Ok(VariantDoc {
                            name: v.name.to_string(),
                            index: v.index,
                            fields: self.fields(&v.fields)?,
                        })
                    })
                    .collect::<Result<_, ExportError>>()?,
                delta,
            },
        })
    }

    fn fields(&mut self, fields: &[FieldSchema]) -> Result<Vec<FieldDoc>, ExportError> {
        fields
            .iter()
            .map(|f| {
                Ok(FieldDoc {
                    name: f.name.to_string(),
                    encoding: if f.skipped {
                        EncodingDoc::Empty
                    } else {
                        self.encoding(&f.encoding)?
                    },
                    condition: f.condition.map(str::to_string),
                    skipped: f.skipped,
                    key: f.key.map(str::to_string),
                })
            })
            .collect()
    }
}

fn number_name(n: Number) -> &'static str {
    match n {
        Number::Unsigned => "unsigned",
        Number::Signed => "signed",
        Number::Bool => "bool",
        Number::Float => "float",
    }
}

fn leb128_name(form: Leb128Form) -> &'static str {
    match form {
        Leb128Form::Unsigned => "unsigned",
        Leb128Form::SignExtended => "sign_extended",
        Leb128Form::TwosComplement => "twos_complement",
        Leb128Form::ZigZagged => "zigzag",
        _ => "unknown",
    }
}

fn terminator(end: &Terminator) -> String {
    match end {
        Terminator::Byte(b) => format!("byte {b:#04x}"),
        Terminator::Item { predicate } => format!("item where {predicate}"),
        other => format!("{other:?}"),
    }
}
