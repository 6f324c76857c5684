//! What byte-oriented formats need beyond field encodings: fields computed from the others
//! ([`Computed`]), fields whose bytes pass through a [`Transform`] (compression), and the
//! reads of a field whose length in bytes an earlier field gives.
//!
//! `#[derive(Rabbit)]` uses them for `computed`, `byte_len` and `transform` (see
//! `guide::layouts`); they are public so that hand-written impls can too.

mod computed;
mod transform;

pub use computed::Computed;
pub use transform::Transform;
