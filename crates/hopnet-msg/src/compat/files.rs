//! Two exports read from files, for `rabbit-msg compat`.

use super::{Report, compare};
use crate::export::SchemaDoc;
use std::path::Path;

/// The report between the exports in the files `old` and `new`, or a one-line reason one of
/// them cannot be read.
pub fn compare_files(old: &Path, new: &Path) -> Result<Report, String> {
    let read = |path: &Path| {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        SchemaDoc::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    Ok(compare(&read(old)?, &read(new)?))
}
