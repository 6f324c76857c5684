//! A 32-byte key (the private key a backend shares with its servers, or a per-connection key
//! from a token), and the key file: the key as 64 hexadecimal characters, a newline optional.

use std::fmt;
use std::path::Path;

use rand::{CryptoRng, RngCore};

/// The size of a key in bytes.
pub const KEY_BYTES: usize = 32;

/// A ChaCha20-Poly1305 key. Its `Debug` does not print the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; KEY_BYTES]);

impl Key {
    /// A key from its bytes.
    pub const fn from_bytes(bytes: [u8; KEY_BYTES]) -> Key {
        Key(bytes)
    }

    /// A fresh random key from the operating system's generator (through `rand`'s thread
    /// generator, a CSPRNG seeded from it).
    pub fn generate() -> Key {
        Key::generate_with(&mut rand::rng())
    }

    /// A fresh random key from `rng`.
    pub fn generate_with<R: RngCore + CryptoRng>(rng: &mut R) -> Key {
        let mut bytes = [0u8; KEY_BYTES];
        rng.fill_bytes(&mut bytes);
        Key(bytes)
    }

    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8; KEY_BYTES] {
        &self.0
    }

    /// The key as 64 lowercase hexadecimal characters (the key file's content, without the
    /// newline).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses a key file's content: exactly 64 hexadecimal characters (either case), then
    /// optionally one newline (`\n` or `\r\n`). Anything else is refused, so a truncated or
    /// padded file is an error rather than a different key.
    pub fn from_hex(text: &str) -> Result<Key, KeyFileError> {
        let hex = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(text);
        if hex.len() != 2 * KEY_BYTES {
            return Err(KeyFileError::Length(hex.len()));
        }
        let mut bytes = [0u8; KEY_BYTES];
        for (i, pair) in hex.as_bytes().chunks_exact(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16).ok_or(KeyFileError::NotHex);
            bytes[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Ok(Key(bytes))
    }

    /// Reads a key file (see [`from_hex`](Key::from_hex)).
    pub fn read_file(path: impl AsRef<Path>) -> Result<Key, KeyFileError> {
        let text = std::fs::read(path.as_ref()).map_err(KeyFileError::Io)?;
        // A key file is 66 bytes at most; do not parse a large file as text.
        if text.len() > 2 * KEY_BYTES + 2 {
            return Err(KeyFileError::Length(text.len()));
        }
        let text = std::str::from_utf8(&text).map_err(|_| KeyFileError::NotHex)?;
        Key::from_hex(text)
    }

    /// Writes a key file: the 64 characters and a newline.
    pub fn write_file(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, format!("{}\n", self.to_hex()))
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(..)")
    }
}

/// Why a key file was refused.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    /// The file could not be read.
    #[error("cannot read the key file: {0}")]
    Io(std::io::Error),
    /// Not 64 characters (after an optional final newline).
    #[error("a key file holds 64 hexadecimal characters, this one {0}")]
    Length(usize),
    /// A character that is not a hexadecimal digit.
    #[error("a key file holds only hexadecimal digits")]
    NotHex,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_with_or_without_newline() {
        let key = Key::from_bytes(std::array::from_fn(|i| (i * 7) as u8));
        let hex = key.to_hex();
        assert_eq!(hex.len(), 64);
        assert_eq!(&hex[..6], "00070e");
        assert_eq!(Key::from_hex(&hex).unwrap(), key);
        assert_eq!(Key::from_hex(&format!("{hex}\n")).unwrap(), key);
        assert_eq!(Key::from_hex(&format!("{hex}\r\n")).unwrap(), key);
        assert_eq!(Key::from_hex(&hex.to_uppercase()).unwrap(), key);
    }

    #[test]
    fn anything_but_64_hex_digits_is_refused() {
        let hex = "ab".repeat(32);
        assert!(matches!(
            Key::from_hex(&hex[..63]),
            Err(KeyFileError::Length(63))
        ));
        assert!(matches!(
            Key::from_hex(&format!("{hex}0")),
            Err(KeyFileError::Length(65))
        ));
        assert!(matches!(
            Key::from_hex(&format!("{hex}\n\n")),
            Err(KeyFileError::Length(65))
        ));
        assert!(matches!(
            Key::from_hex(&format!(" {}", &hex[1..])),
            Err(KeyFileError::NotHex)
        ));
        assert!(matches!(
            Key::from_hex(&"zz".repeat(32)),
            Err(KeyFileError::NotHex)
        ));
        assert!(matches!(
            Key::from_hex(&"é".repeat(32)),
            Err(KeyFileError::NotHex)
        ));
    }

    #[test]
    fn debug_hides_the_key() {
        assert_eq!(format!("{:?}", Key::from_bytes([0xab; 32])), "Key(..)");
    }
}
