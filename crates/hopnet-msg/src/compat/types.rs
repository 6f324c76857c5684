//! The comparison's outer level: messages, types added, removed and renamed, a type's kind.
//! Enums are compared in `enums.rs`, delta markers in `deltas.rs`, fields in `fields.rs`,
//! encodings in `encoding.rs`.

use super::{Change, Reading};
use crate::export::{EncodingDoc, SchemaDoc, TypeDoc};
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

    /// `old` and `new` refer to one type: the same name, or one renamed to the other.
    pub(super) fn same_name(&self, old: &str, new: &str) -> bool {
        old == new || self.renames.get(old).is_some_and(|n| n == new)
    }

    /// The encoding of a message or field, as JSON for [`Cx::same_json`].
    pub(super) fn json(e: &EncodingDoc) -> serde_json::Value {
        serde_json::to_value(e).unwrap_or(serde_json::Value::Null)
    }
}
