//! The delta markers: a type's delta layout and a list's delta key. They decide the bytes of
//! deltas only; the full encoding is the same with or without them.

use super::Reading;
use super::types::Cx;
use crate::export::DeltaDoc;

impl Cx<'_> {
    /// `#[rabbit(delta)]` added, removed or laid out otherwise. The full encoding does not
    /// change with it; only deltas do.
    pub(super) fn delta_layout(
        &mut self,
        name: &str,
        old: Option<DeltaDoc>,
        new: Option<DeltaDoc>,
    ) {
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
}

fn delta_words(d: DeltaDoc) -> &'static str {
    match d {
        DeltaDoc::PerStruct => "`per_struct`",
        DeltaDoc::PerField => "`per_field`",
    }
}
