//! The messages to generate, gathered from the schema: every derived type the roots reach,
//! each resolved to its JSON shape and wire forms, and everything the generator cannot write
//! refused by the field it is in.

use super::CodegenError;
use super::attribute::default_shape;
use super::condition::{Cond, Operand, Scope};
use super::names::{local, type_name_problem};
use super::wire::Wire;
use hopnet_codec::schema::{Body, DeltaLayout, Encoding, FieldSchema, Tag, TypeRef, TypeSchema};
use std::collections::HashMap;

/// Everything the module holds.
pub(crate) struct Model {
    /// Every derived type, the roots' first, then in the order they were reached.
    pub types: Vec<TypeDef>,
    /// The names `encode` and `decode` accept, each with its encoding.
    pub messages: Vec<Message>,
}

/// A name `encode` and `decode` accept.
pub(crate) struct Message {
    pub name: String,
    pub wire: Wire,
}

/// A derived struct or enum.
pub(crate) struct TypeDef {
    pub name: String,
    pub doc: String,
    pub body: TypeBody,
    /// `#[rabbit(delta)]`: how its deltas are laid out, for the readers of deltas.
    pub delta: Option<DeltaLayout>,
}

pub(crate) enum TypeBody {
    Struct(Fields),
    Enum {
        tag: TagWire,
        variants: Vec<VariantDef>,
    },
}

/// How an enum's variant index is written.
#[derive(Clone, Copy)]
pub(crate) enum TagWire {
    /// Plain bits.
    Bits(u32),
    /// A `u32` varint.
    Varint,
}

pub(crate) struct VariantDef {
    pub name: String,
    pub doc: String,
    pub index: u64,
    pub fields: Fields,
}

/// The fields of a struct or variant, by their JSON shape (serde's, for a derive without
/// renaming attributes).
pub(crate) enum Fields {
    /// None: a struct is `null`, a variant its bare name.
    Unit,
    /// One field standing for the whole: a newtype (one unnamed field) or a struct whose JSON
    /// form is transparent.
    Inline(FieldDef),
    /// Unnamed fields: an array.
    Tuple(Vec<FieldDef>),
    /// Named fields: an object.
    Named(Vec<FieldDef>),
}

impl Fields {
    /// The fields in wire order.
    pub(crate) fn list(&self) -> &[FieldDef] {
        match self {
            Fields::Unit => &[],
            Fields::Inline(f) => std::slice::from_ref(f),
            Fields::Tuple(fs) | Fields::Named(fs) => fs,
        }
    }
}

pub(crate) struct FieldDef {
    /// The name in the schema and the JSON form (`0`, `1`, … in tuples).
    pub name: String,
    /// The local variable that holds it in readers and writers.
    pub local: String,
    /// Its name in conditions: the name, or `_0`, `_1`, … in tuples.
    pub condition_name: String,
    pub doc: String,
    pub wire: Wire,
    /// `#[rabbit(if = "...")]`: present exactly when this holds; `null` otherwise.
    pub condition: Option<Cond>,
    /// What a later condition can do with it.
    pub operand: Operand,
    /// Whether a later field's condition names it.
    pub referenced: bool,
    /// `Type.field` or `Enum::Variant.field`, for error messages.
    pub path: String,
    /// How its delta is written, in a delta type.
    pub delta: FieldDelta,
}

/// How a field of a `#[rabbit(delta)]` type writes its delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldDelta {
    /// Its type's own delta.
    Native,
    /// An encoding attribute: a changed bit, then the value whole as its codec writes it.
    Whole,
    /// `#[rabbit(key = "...")]`: a keyed list.
    Keyed,
}

impl FieldDef {
    /// The field's TypeScript type.
    pub(crate) fn ts_type(&self) -> String {
        match self.condition {
            Some(_) => format!("{} | null", self.wire.ts_type()),
            None => self.wire.ts_type(),
        }
    }

    /// The scope its condition sees: the fields before it, by the names conditions give them
    /// (`_0`, `_1`, … in tuples).
    pub(crate) fn scope(before: &[FieldDef]) -> Vec<Scope<'_>> {
        before
            .iter()
            .map(|f| Scope {
                name: &f.condition_name,
                operand: f.operand,
            })
            .collect()
    }
}

/// Gathers the model from the roots: `(name, encoding)` of each message `encode` and `decode`
/// accept; `transparent` names the types whose JSON form is their one field's.
pub(crate) fn build(
    roots: &[(String, Encoding)],
    transparent: &[String],
) -> Result<Model, CodegenError> {
    let mut found = Vec::new();
    let mut messages = Vec::new();
    for (name, encoding) in roots {
        let wire = Wire::of(encoding, false, &mut found).map_err(|e| CodegenError::new(name, e))?;
        messages.push(Message {
            name: name.clone(),
            wire,
        });
    }
    let mut seen: HashMap<&'static str, TypeSchema> = HashMap::new();
    let mut types = Vec::new();
    let mut queue: std::collections::VecDeque<TypeRef> = found.into();
    while let Some(t) = queue.pop_front() {
        let schema = t.resolve();
        if let Some(earlier) = seen.get(t.name) {
            if *earlier != schema {
                return Err(CodegenError::new(
                    t.name,
                    "two different types have this name (a generic type used with different \
                     parameters?): TypeScript needs one name for each",
                ));
            }
            continue;
        }
        if let Some(problem) = type_name_problem(t.name) {
            return Err(CodegenError::new(t.name, problem));
        }
        let mut reached = Vec::new();
        let is_transparent = transparent.iter().any(|n| n == t.name);
        types.push(type_def(&schema, is_transparent, &mut reached)?);
        seen.insert(t.name, schema);
        queue.extend(reached);
    }
    let model = Model { types, messages };
    check_nulls(&model)?;
    Ok(model)
}

fn type_def(
    schema: &TypeSchema,
    transparent: bool,
    found: &mut Vec<TypeRef>,
) -> Result<TypeDef, CodegenError> {
    let name = schema.name;
    let body = match &schema.body {
        Body::Struct(fields) => TypeBody::Struct(fields_def(name, fields, transparent, found)?),
        Body::Enum { tag, variants } => {
            if transparent {
                return Err(CodegenError::new(name, "an enum cannot be transparent"));
            }
            let tag = match *tag {
                Tag::Bits(bits) if bits <= 32 => TagWire::Bits(bits),
                Tag::Varint { bytes: 4 } => TagWire::Varint,
                Tag::MsbBits(_) => {
                    return Err(CodegenError::new(
                        name,
                        "its tag goes most significant bit first (`bit_order = \"msb\"`), which \
                         has no TypeScript codec",
                    ));
                }
                other => {
                    return Err(CodegenError::new(
                        name,
                        format!("its tag ({other:?}) has no TypeScript codec"),
                    ));
                }
            };
            let variants = variants
                .iter()
                .map(|v| {
                    let label = format!("{name}::{}", v.name);
                    Ok(VariantDef {
                        name: v.name.to_string(),
                        doc: v.doc.to_string(),
                        index: v.index,
                        fields: fields_def(&label, &v.fields, false, found)?,
                    })
                })
                .collect::<Result<_, CodegenError>>()?;
            TypeBody::Enum { tag, variants }
        }
    };
    Ok(TypeDef {
        name: name.to_string(),
        doc: schema.doc.to_string(),
        body,
        delta: schema.delta,
    })
}

/// The fields of the struct or variant `label`.
fn fields_def(
    label: &str,
    schema: &[FieldSchema],
    transparent: bool,
    found: &mut Vec<TypeRef>,
) -> Result<Fields, CodegenError> {
    let mut fields: Vec<FieldDef> = Vec::new();
    for f in schema {
        let path = format!("{label}.{}", f.name);
        let error = |reason: String| CodegenError::new(&path, reason);
        if f.skipped {
            return Err(error(
                "is skipped (`skip`): not on the wire, so its value in the JSON form is \
                 unknown here"
                    .into(),
            ));
        }
        let wire = Wire::of(&f.encoding, is_bool(f.ty), found).map_err(&error)?;
        let condition = match f.condition {
            None => None,
            Some(text) => {
                let scope = FieldDef::scope(&fields);
                let cond = Cond::parse(text, &scope)
                    .map_err(|e| error(format!("its condition `{text}`: {e}")))?;
                mark_referenced(&cond, &mut fields);
                Some(cond)
            }
        };
        let delta = if f.key.is_some() {
            FieldDelta::Keyed
        } else if default_shape(f.ty, &wire) {
            FieldDelta::Native
        } else {
            FieldDelta::Whole
        };
        let operand = match &wire {
            _ if condition.is_some() => Operand::Optional,
            Wire::Option(_) => Operand::Optional,
            Wire::Bool => Operand::Bool,
            w if w.is_number() => Operand::Number { wide: w.is_wide() },
            _ => Operand::Other,
        };
        fields.push(FieldDef {
            name: f.name.to_string(),
            local: local(f.name),
            condition_name: condition_name(f.name),
            doc: f.doc.to_string(),
            wire,
            condition,
            operand,
            referenced: false,
            path,
            delta,
        });
    }
    let unnamed = schema
        .iter()
        .all(|f| f.name.bytes().all(|b| b.is_ascii_digit()));
    Ok(match fields.len() {
        0 => Fields::Unit,
        1 if unnamed || transparent => {
            let mut field = fields.pop().expect("one field");
            // Its value is the whole's: errors name the whole.
            field.path = label.to_string();
            Fields::Inline(field)
        }
        n if transparent => {
            return Err(CodegenError::new(
                label,
                format!("is named transparent but has {n} fields"),
            ));
        }
        _ if unnamed => Fields::Tuple(fields),
        _ => Fields::Named(fields),
    })
}

/// A field's name in the conditions of later fields: `_0`, `_1`, … for tuple fields.
fn condition_name(name: &str) -> String {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name.to_string()
    }
}

fn mark_referenced(cond: &Cond, fields: &mut [FieldDef]) {
    match cond {
        Cond::Field(i) | Cond::IsSome(i, _) => fields[*i].referenced = true,
        Cond::Not(inner) | Cond::Neg(inner) => mark_referenced(inner, fields),
        Cond::Binary(a, _, b) => {
            mark_referenced(a, fields);
            mark_referenced(b, fields);
        }
        Cond::Int(_) | Cond::Float(_) | Cond::Bool(_) => {}
    }
}

/// Whether a field of Rust type `ty` is a `bool` (inside options): one fixed bit of it is a
/// boolean, not a number.
fn is_bool(ty: &str) -> bool {
    let mut ty = ty.trim();
    while let Some(inner) = ty
        .strip_prefix("Option<")
        .or_else(|| ty.strip_prefix("::std::option::Option<"))
        .or_else(|| ty.strip_prefix("std::option::Option<"))
        .and_then(|t| t.strip_suffix('>'))
    {
        ty = inner.trim();
    }
    ty == "bool"
}

/// Refuses options (and conditional fields) of values that are `null` themselves, which JSON
/// could not tell from an absent value.
fn check_nulls(model: &Model) -> Result<(), CodegenError> {
    let by_name: HashMap<&str, &TypeDef> =
        model.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let may_be_null = |wire: &Wire| may_be_null(wire, &by_name, 0);
    let check = |wire: &Wire, path: &str| -> Result<(), CodegenError> {
        let mut stack = vec![wire];
        while let Some(w) = stack.pop() {
            match w {
                Wire::Option(inner) if may_be_null(inner) => {
                    return Err(CodegenError::new(
                        path,
                        "an option of a value that is `null` in JSON, so that `None` and `Some` \
                         of it read the same",
                    ));
                }
                Wire::Option(inner)
                | Wire::List { item: inner, .. }
                | Wire::Array { item: inner, .. } => stack.push(inner),
                Wire::Tuple(items) => stack.extend(items),
                _ => {}
            }
        }
        Ok(())
    };
    for t in &model.types {
        let fields: Vec<&FieldDef> = match &t.body {
            TypeBody::Struct(fields) => fields.list().iter().collect(),
            TypeBody::Enum { variants, .. } => {
                variants.iter().flat_map(|v| v.fields.list()).collect()
            }
        };
        for f in fields {
            check(&f.wire, &f.path)?;
            if f.condition.is_some() && may_be_null(&f.wire) {
                return Err(CodegenError::new(
                    &f.path,
                    "a conditional field whose value is `null` in JSON, so that present and \
                     absent read the same",
                ));
            }
        }
    }
    for m in &model.messages {
        check(&m.wire, &m.name)?;
    }
    Ok(())
}

fn may_be_null(wire: &Wire, types: &HashMap<&str, &TypeDef>, depth: u32) -> bool {
    match wire {
        Wire::Null | Wire::Option(_) => true,
        Wire::Type(name) if depth < 64 => match types.get(name.as_str()).map(|t| &t.body) {
            Some(TypeBody::Struct(Fields::Unit)) => true,
            Some(TypeBody::Struct(Fields::Inline(f))) => {
                f.condition.is_some() || may_be_null(&f.wire, types, depth + 1)
            }
            _ => false,
        },
        _ => false,
    }
}
