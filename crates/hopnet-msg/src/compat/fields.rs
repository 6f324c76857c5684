//! A struct's or variant's fields, old and new: matched by name, then by position. Rabbit
//! writes fields one after another with no tag or length, so a field's position is its
//! identity on the wire and its name is not.

use super::Reading;
use super::types::Cx;
use crate::export::{EncodingDoc, FieldDoc};

impl Cx<'_> {
    pub(super) fn fields(&mut self, item: &str, old: &[FieldDoc], new: &[FieldDoc]) {
        let old: Vec<&FieldDoc> = old.iter().filter(|f| !f.skipped).collect();
        let new: Vec<&FieldDoc> = new.iter().filter(|f| !f.skipped).collect();
        let names = |fs: &[&FieldDoc]| fs.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        let (on, nn) = (names(&old), names(&new));
        if on.len() == nn.len() {
            for (o, n) in old.iter().zip(&new) {
                self.field_pair(item, o, n);
            }
        } else if let Some(at) = subsequence(&on, &nn) {
            self.added_or_removed(item, &new, &at, true);
            for (o, i) in old.iter().zip(&at) {
                self.field_pair(item, o, new[*i]);
            }
        } else if let Some(at) = subsequence(&nn, &on) {
            self.added_or_removed(item, &old, &at, false);
            for (n, i) in new.iter().zip(&at) {
                self.field_pair(item, old[*i], n);
            }
        } else {
            self.push(
                item,
                format!("fields changed from ({}) to ({})", on.join(", "), nn.join(", ")),
                Reading::Breaks,
                Reading::Breaks,
                "fields were added, removed and moved at once: the fields are read at other positions",
            );
        }
    }

    /// Fields of `longer` not at the positions `kept`: added (`added`) or removed.
    fn added_or_removed(&mut self, item: &str, longer: &[&FieldDoc], kept: &[usize], added: bool) {
        let last_kept = kept.last().copied();
        for (i, f) in longer.iter().enumerate() {
            if kept.contains(&i) {
                continue;
            }
            let at_end = last_kept.is_none_or(|k| i > k);
            let field = format!("{item}.{}", f.name);
            let verb = if added { "added" } else { "removed" };
            let (what, why) = if !at_end {
                (
                    format!("field {verb} in the middle"),
                    "fields have no tags or lengths on the wire: every field after it is read at another position, by both sides".to_string(),
                )
            } else if matches!(f.encoding, EncodingDoc::Option { .. }) {
                let (writer, reader) = if added {
                    ("new", "old")
                } else {
                    ("old", "new")
                };
                (
                    format!("optional field {verb} at the end"),
                    format!(
                        "its presence bit is one more bit on the wire. Only where this is the last field of a whole message do the two still meet: when the {writer} side writes `None` and the bit falls into the zero padding of the message's last byte, the bytes are the same as the {reader} side's; and the {writer} side reads an {reader} message as `None` when that message leaves padding. Anywhere else (a message that ends on a byte boundary, a value present, the type inside another) the {reader} side refuses the extra bits or reads them as what follows. Add a variant, or a version field read first, instead"
                    ),
                )
            } else {
                (
                    format!("field {verb} at the end"),
                    "the field's bits are extra for one side, which refuses them as trailing data (or, with the type inside another, reads them as what follows), and missing for the other, which runs out of input or reads what follows as this field".to_string(),
                )
            };
            self.push(field, what, Reading::Breaks, Reading::Breaks, why);
        }
    }

    fn field_pair(&mut self, item: &str, old: &FieldDoc, new: &FieldDoc) {
        let field = format!("{item}.{}", old.name);
        if old.name != new.name {
            let same = self.same_json(&Self::json(&old.encoding), &Self::json(&new.encoding))
                && old.condition == new.condition;
            if same {
                self.push(
                    field,
                    format!("field renamed to `{}`", new.name),
                    Reading::Reads,
                    Reading::Reads,
                    "same position and encoding (names are not on the wire): the bytes are unchanged; the value's meaning is yours to keep",
                );
            } else {
                self.push(
                    field,
                    format!("field replaced by `{}` ({})", new.name, new.encoding.kind()),
                    Reading::Breaks,
                    Reading::Breaks,
                    "another field with another encoding at the same position: each side reads the other's bits as its own field",
                );
            }
            return;
        }
        self.marker_changed(&field, Marker::Condition, &old.condition, &new.condition);
        self.marker_changed(&field, Marker::Key, &old.key, &new.key);
        self.encoding(&field, &old.encoding, &new.encoding);
    }

    /// A field's optional marker that differs between the versions: always breaking, since
    /// neither marker has bits of its own on the wire to tell the reader which version wrote it.
    fn marker_changed(
        &mut self,
        field: &str,
        marker: Marker,
        old: &Option<String>,
        new: &Option<String>,
    ) {
        if old != new {
            self.push(
                field,
                format!(
                    "{} changed from {} to {}",
                    marker.name(),
                    marker.show(old),
                    marker.show(new)
                ),
                Reading::Breaks,
                Reading::Breaks,
                marker.why(),
            );
        }
    }
}

/// What a field may carry besides its encoding, each written nowhere on the wire.
#[derive(Clone, Copy)]
enum Marker {
    /// `#[rabbit(if = "...")]`.
    Condition,
    /// A keyed list's delta key.
    Key,
}

impl Marker {
    fn name(self) -> &'static str {
        match self {
            Marker::Condition => "presence",
            Marker::Key => "delta key",
        }
    }

    fn show(self, value: &Option<String>) -> String {
        match (self, value) {
            (Marker::Condition, Some(c)) => format!("`if = \"{c}\"`"),
            (Marker::Condition, None) => "always".to_string(),
            (Marker::Key, Some(k)) => format!("keyed by `{k}`"),
            (Marker::Key, None) => "not keyed".to_string(),
        }
    }

    fn why(self) -> &'static str {
        match self {
            Marker::Condition => {
                "a conditional field is on the wire only when its condition holds, with no bit of its own: where the two conditions disagree, one side reads a field the other did not write"
            }
            Marker::Key => {
                "the full encoding is unchanged, but a keyed list's delta (what came, went and changed, by key) and a plain list's (by position) are written differently: each side misreads the other's deltas"
            }
        }
    }
}

/// Positions in `long` of the items of `short`, in order, if `short` is a subsequence of it.
fn subsequence(short: &[String], long: &[String]) -> Option<Vec<usize>> {
    let mut at = Vec::with_capacity(short.len());
    let mut from = 0;
    for s in short {
        let i = from + long[from..].iter().position(|l| l == s)?;
        at.push(i);
        from = i + 1;
    }
    Some(at)
}
