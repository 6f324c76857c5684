//! What changed between two schema exports ([`crate::export`]) and whether peers of the two
//! versions still understand each other: `rabbit-msg compat OLD.json NEW.json`.
//!
//! Every change is read both ways: does a peer built from the old schema read what a new peer
//! writes, and does a new peer read what an old one writes? Each way is one of three
//! [`Reading`]s: it reads everything, it reads everything but refuses (with a decode error,
//! never a wrong value) the new or dropped thing when it meets it, or it breaks: some bytes are
//! refused or, worse, decoded as other values. A change is compatible when neither way breaks.
//! The reasons are the wire's: Rabbit is bit-packed and has no field tags or lengths, so a field
//! added, removed or widened moves every bit after it.
//!
//! ```
//! use hopnet_codec::Rabbit;
//! use hopnet_msg::export::Schema;
//!
//! mod v1 {
//!     #[derive(hopnet_codec::Rabbit)]
//!     #[bits(2)]
//!     pub enum Shape { Dot, Line }
//! }
//! mod v2 {
//!     #[derive(hopnet_codec::Rabbit)]
//!     #[bits(2)]
//!     pub enum Shape { Dot, Line, Circle }
//! }
//! let old = Schema::new().message::<v1::Shape>("Shape").document()?;
//! let new = Schema::new().message::<v2::Shape>("Shape").document()?;
//! let report = hopnet_msg::compat::compare(&old, &new);
//! assert_eq!(report.changes.len(), 1);
//! assert!(!report.breaking());
//! # Ok::<(), hopnet_msg::export::ExportError>(())
//! ```

mod deltas;
mod encoding;
mod enums;
mod fields;
mod files;
mod report;
mod same;
mod types;

pub use files::compare_files;

use crate::export::SchemaDoc;
use serde::Serialize;

/// How a peer of one version reads what a peer of the other writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Everything, as before.
    Reads,
    /// Everything but the one new (or dropped) thing, which it refuses with a decode error
    /// when it meets it.
    RejectsWhenMet,
    /// Some bytes are refused or decoded as other values.
    Breaks,
}

/// One change between the two exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Where: `Type`, `Type.field`, `Enum::Variant`, `Enum::Variant.field`, `message Name`.
    pub item: String,
    /// What changed.
    pub what: String,
    /// How a peer of the old schema reads the new one's bytes.
    pub old_reads_new: Reading,
    /// How a peer of the new schema reads the old one's bytes.
    pub new_reads_old: Reading,
    /// Why, in the wire's terms.
    pub why: String,
}

impl Change {
    /// Neither way breaks.
    pub fn compatible(&self) -> bool {
        self.old_reads_new != Reading::Breaks && self.new_reads_old != Reading::Breaks
    }
}

/// Every change, in the order of the types' names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The changes.
    pub changes: Vec<Change>,
}

impl Report {
    /// Some change breaks one way or the other.
    pub fn breaking(&self) -> bool {
        self.changes.iter().any(|c| !c.compatible())
    }
}

/// The exit status of `rabbit-msg compat` when no change breaks (none at all included).
pub const EXIT_COMPATIBLE: u8 = 0;
/// The exit status when an input cannot be read (as for the tool's other errors).
pub const EXIT_ERROR: u8 = 1;
/// The exit status when some change breaks.
pub const EXIT_BREAKING: u8 = 2;

/// Every change from `old` to `new`.
pub fn compare(old: &SchemaDoc, new: &SchemaDoc) -> Report {
    let mut cx = types::Cx::new(old, new);
    cx.compare_all();
    Report { changes: cx.out }
}
