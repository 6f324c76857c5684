//! The comparison's outer level: messages, types added, removed and renamed, a type's kind,
//! an enum's tag and variants. Fields are compared in `fields.rs`, encodings in `encoding.rs`.

use super::{Change, Reading};
use crate::export::{DeltaDoc, EncodingDoc, SchemaDoc, TagDoc, TypeDoc, VariantDoc};
use std::collections::BTreeMap;

/// The two documents, the types found renamed, and the changes found so far.
pub(super) struct Cx<'a> {
    pub(super) old: &'a SchemaDoc,
    pub(super) new: &'a SchemaDoc,
    /// Old name to new name, for types that left under one name and came back under another
    /// with the same layout.
    pub(super) renames: BTreeMap<String, String>,
    pub(super) out: Vec<Change>,
}

impl<'a> Cx<'a> {
    pub(super) fn new(old: &'a SchemaDoc, new: &'a SchemaDoc) -> Self {
        Cx {
            old,
            new,
            renames: BTreeMap::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn push(
        &mut self,
        item: impl Into<String>,
        what: impl Into<String>,
        old_reads_new: Reading,
        new_reads_old: Reading,
        why: impl Into<String>,
    ) {
        self.out.push(Change {
            item: item.into(),
            what: what.into(),
            old_reads_new,
            new_reads_old,
            why: why.into(),
        });
    }

    pub(super) fn compare_all(&mut self) {
        self.find_renames();
        self.messages();
        self.types();
    }

    /// A type only in the old export and one only in the new export that write the same bytes
    /// are one type renamed.
    fn find_renames(&mut self) {
        let gone: Vec<&String> = self
            .old
            .types
            .keys()
            .filter(|n| !self.new.types.contains_key(*n))
            .collect();
        let mut came: Vec<&String> = self
            .new
            .types
            .keys()
            .filter(|n| !self.old.types.contains_key(*n))
            .collect();
        for old in gone {
            if let Some(i) = came.iter().position(|new| self.same_type(old, new)) {
                self.renames.insert(old.clone(), came.remove(i).clone());
            }
        }
    }

    fn messages(&mut self) {
        let (old, new) = (self.old, self.new);
        for (name, o) in &old.messages {
            let item = format!("message {name}");
            match new.messages.get(name) {
                Some(n) => self.encoding(&item, o, n),
                None => self.push(
                    item,
                    "message removed",
                    Reading::Reads,
                    Reading::Breaks,
                    "old peers still send it and new peers have no type to read it with",
                ),
            }
        }
        for name in new
            .messages
            .keys()
            .filter(|n| !old.messages.contains_key(*n))
        {
            self.push(
                format!("message {name}"),
                "message added",
                Reading::RejectsWhenMet,
                Reading::Reads,
                "old peers have no type for it: send it only to peers that know it",
            );
        }
    }

    fn types(&mut self) {
        let (old, new) = (self.old, self.new);
        for (name, o) in &old.types {
            if let Some(n) = new.types.get(name) {
                self.type_body(name, o, n);
            } else if let Some(to) = self.renames.get(name).cloned() {
                self.push(
                    name.clone(),
                    format!("type renamed to `{to}`"),
                    Reading::Reads,
                    Reading::Reads,
                    "the layout is the same (names are not on the wire): the bytes are unchanged",
                );
            } else {
                self.push(
                    name.clone(),
                    "type removed",
                    Reading::Reads,
                    Reading::Reads,
                    "nothing in the new schema refers to it: the change that dropped its use is listed on its own",
                );
            }
        }
        let renamed: Vec<String> = self.renames.values().cloned().collect();
        for name in new.types.keys() {
            if !old.types.contains_key(name) && !renamed.contains(name) {
                self.push(
                    name.clone(),
                    "type added",
                    Reading::Reads,
                    Reading::Reads,
                    "nothing in the old schema refers to it: the change that uses it is listed on its own",
                );
            }
        }
    }

    fn type_body(&mut self, name: &str, old: &TypeDoc, new: &TypeDoc) {
        self.delta_layout(name, old.delta(), new.delta());
        match (old, new) {
            (TypeDoc::Struct { fields: a, .. }, TypeDoc::Struct { fields: b, .. }) => {
                self.fields(name, a, b);
            }
            (
                TypeDoc::Enum {
                    tag: ta,
                    variants: va,
                    ..
                },
                TypeDoc::Enum {
                    tag: tb,
                    variants: vb,
                    ..
                },
            ) => self.enumeration(name, (*ta, va), (*tb, vb)),
            _ => {
                let kind = |t: &TypeDoc| match t {
                    TypeDoc::Struct { .. } => "a struct",
                    TypeDoc::Enum { .. } => "an enum",
                };
                self.push(
                    name,
                    format!("changed from {} to {}", kind(old), kind(new)),
                    Reading::Breaks,
                    Reading::Breaks,
                    "an enum starts with its tag, a struct with its first field: every value is read differently",
                );
            }
        }
    }

    fn enumeration(
        &mut self,
        name: &str,
        (old_tag, old): (TagDoc, &[VariantDoc]),
        (new_tag, new): (TagDoc, &[VariantDoc]),
    ) {
        if old_tag != new_tag {
            let grown: Vec<String> = new
                .iter()
                .filter(|v| !tag_holds(old_tag, v.index))
                .map(|v| format!("`{}` (index {})", v.name, v.index))
                .collect();
            let need = if grown.is_empty() {
                String::new()
            } else {
                format!(
                    " {} does not fit the old {}, so",
                    grown.join(", "),
                    tag_words(old_tag)
                )
            };
            self.push(
                name,
                format!(
                    "tag changed from {} to {}",
                    tag_words(old_tag),
                    tag_words(new_tag)
                ),
                Reading::Breaks,
                Reading::Breaks,
                format!(
                    "{need} every variant's tag is written in another width: each side reads the other's tags, and every bit after them, wrongly"
                ),
            );
        }
        for v in old {
            let item = format!("{name}::{}", v.name);
            match new.iter().find(|n| n.index == v.index) {
                Some(n) if n.name == v.name => self.fields(&item, &v.fields, &n.fields),
                Some(n) if self.same_fields(&v.fields, &n.fields) => self.push(
                    item,
                    format!("variant renamed to `{}`", n.name),
                    Reading::Reads,
                    Reading::Reads,
                    format!(
                        "same index ({}) and fields: the bytes are unchanged",
                        v.index
                    ),
                ),
                Some(n) => self.push(
                    item,
                    format!("variant at index {} replaced by `{}`", v.index, n.name),
                    Reading::Breaks,
                    Reading::Breaks,
                    "the index is the same but the fields differ: each side reads the other's fields as its own",
                ),
                None => self.push(
                    item,
                    format!("variant removed (index {})", v.index),
                    Reading::Reads,
                    Reading::RejectsWhenMet,
                    "new peers refuse its index as an unknown variant when an old peer sends it; no other variant moves",
                ),
            }
        }
        for v in new
            .iter()
            .filter(|n| !old.iter().any(|o| o.index == n.index))
        {
            if old_tag != new_tag && !tag_holds(old_tag, v.index) {
                // Already said with the tag: it is why the tag grew.
                continue;
            }
            if !tag_holds(new_tag, v.index) {
                self.push(
                    format!("{name}::{}", v.name),
                    format!("variant added at index {}, past the {}", v.index, tag_words(new_tag)),
                    Reading::Breaks,
                    Reading::Breaks,
                    "the tag cannot write its index (the export was not made by the derive, which refuses this): its bits would run into what follows",
                );
                continue;
            }
            self.push(
                format!("{name}::{}", v.name),
                format!("variant added at index {}", v.index),
                Reading::RejectsWhenMet,
                Reading::Reads,
                format!(
                    "the {} has room for index {}: old peers refuse it as an unknown variant when they meet it, and read every other variant as before",
                    tag_words(new_tag),
                    v.index
                ),
            );
        }
    }

    /// `#[rabbit(delta)]` added, removed or laid out otherwise. The full encoding does not
    /// change with it; only deltas do.
    fn delta_layout(&mut self, name: &str, old: Option<DeltaDoc>, new: Option<DeltaDoc>) {
        let (what, old_reads_new, new_reads_old, why) = match (old, new) {
            (a, b) if a == b => return,
            (None, Some(_)) => (
                "deltas added".to_string(),
                Reading::RejectsWhenMet,
                Reading::Reads,
                "the full encoding is unchanged; an old peer has no deltas of it and refuses one when it meets one",
            ),
            (Some(_), None) => (
                "deltas removed".to_string(),
                Reading::Reads,
                Reading::RejectsWhenMet,
                "the full encoding is unchanged; a new peer has no deltas of it and refuses an old peer's delta when it meets one",
            ),
            (Some(a), Some(b)) => (
                format!(
                    "delta layout changed from {} to {}",
                    delta_words(a),
                    delta_words(b)
                ),
                Reading::Breaks,
                Reading::Breaks,
                "the full encoding is unchanged, but every delta of it has a changed bit of its own on one side only: each side misreads the other's deltas",
            ),
            (None, None) => return,
        };
        self.push(name, what, old_reads_new, new_reads_old, why);
    }

    fn same_fields(&self, a: &[crate::export::FieldDoc], b: &[crate::export::FieldDoc]) -> bool {
        let (Ok(a), Ok(b)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
            return false;
        };
        self.same_json(&a, &b)
    }

    /// `old` and `new` refer to one type: the same name, or one renamed to the other.
    pub(super) fn same_name(&self, old: &str, new: &str) -> bool {
        old == new || self.renames.get(old).is_some_and(|n| n == new)
    }

    /// The encoding of a message or field, as JSON for [`Cx::same_json`].
    pub(super) fn json(e: &EncodingDoc) -> serde_json::Value {
        serde_json::to_value(e).unwrap_or(serde_json::Value::Null)
    }
}

fn delta_words(d: DeltaDoc) -> &'static str {
    match d {
        DeltaDoc::PerStruct => "`per_struct`",
        DeltaDoc::PerField => "`per_field`",
    }
}

/// The tag can write `index`.
fn tag_holds(tag: TagDoc, index: u64) -> bool {
    match tag {
        TagDoc::Bits { bits } | TagDoc::MsbBits { bits } => bits >= 64 || index >> bits == 0,
        TagDoc::Varint { bytes } => bytes >= 8 || index >> (8 * bytes) == 0,
    }
}

fn tag_words(tag: TagDoc) -> String {
    match tag {
        TagDoc::Bits { bits } => format!("{bits}-bit tag"),
        TagDoc::MsbBits { bits } => format!("{bits}-bit msb-first tag"),
        TagDoc::Varint { bytes } => format!("varint tag of a {bytes}-byte integer"),
    }
}
