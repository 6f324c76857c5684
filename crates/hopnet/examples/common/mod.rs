//! What the secure examples share: reading the numbers a game's backend and its servers agree
//! on (decimal or `0x` hexadecimal), and the key file.

use std::path::Path;

use hopnet::secure::Key;

/// A `u64` flag's value: decimal, or hexadecimal after `0x`.
pub fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?}: {e}"))
}

/// The private key in the file at `path`; the error names the file.
pub fn read_key(path: &Path) -> Result<Key, String> {
    Key::read_file(path).map_err(|e| format!("{}: {e}", path.display()))
}
