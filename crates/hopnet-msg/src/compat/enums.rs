//! An enum's tag and variants: added where the tag has room, past it, removed, renamed,
//! replaced. A variant is known on the wire by its index alone.

use super::Reading;
use super::types::Cx;
use crate::export::{FieldDoc, TagDoc, VariantDoc};

impl Cx<'_> {
    pub(super) fn enumeration(
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

    fn same_fields(&self, a: &[FieldDoc], b: &[FieldDoc]) -> bool {
        let (Ok(a), Ok(b)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
            return false;
        };
        self.same_json(&a, &b)
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
