//! The strings and byte lists that codecs of raw bytes hold: `bytes = N` ([`FixedLen`]) and
//! `until = B` ([`UntilByte`]) write the same bytes of the same types, so one trait serves both.
//!
//! [`FixedLen`]: super::FixedLen
//! [`UntilByte`]: super::UntilByte

use crate::error::{Error, Result};

/// Strings and byte lists whose value is their bytes: a `String` (UTF-8 checked when read), a
/// `Vec<u8>` or a `Box<[u8]>`.
#[diagnostic::on_unimplemented(
    message = "`bytes = N` and `until = B` take a string or a byte list, not `{Self}`",
    label = "not a string or a byte list",
    note = "a list of other items ends at an item: `until = \"|item: &T| ...\"`"
)]
pub trait ByteString: Sized {
    /// Whether the bytes are UTF-8 text (for the schema).
    const TEXT: bool;
    /// The bytes written.
    fn as_wire(&self) -> &[u8];
    /// The value of the bytes read (`position` is where the reader stands, for errors).
    fn from_wire(bytes: Vec<u8>, position: u64) -> Result<Self>;
    /// The value of bytes borrowed from the input, with [`ByteString::from_wire`]'s checks and
    /// errors: a string checks them before copying them, so bad text allocates nothing.
    #[inline]
    fn from_slice(bytes: &[u8], position: u64) -> Result<Self> {
        Self::from_wire(bytes.to_vec(), position)
    }
}

impl ByteString for String {
    const TEXT: bool = true;
    #[inline]
    fn as_wire(&self) -> &[u8] {
        self.as_bytes()
    }
    fn from_wire(bytes: Vec<u8>, position: u64) -> Result<Self> {
        String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
            position,
            source: e.utf8_error(),
        })
    }
    #[inline]
    fn from_slice(bytes: &[u8], position: u64) -> Result<Self> {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|source| Error::InvalidUtf8 { position, source })
    }
}

impl ByteString for Vec<u8> {
    const TEXT: bool = false;
    #[inline]
    fn as_wire(&self) -> &[u8] {
        self
    }
    fn from_wire(bytes: Vec<u8>, _: u64) -> Result<Self> {
        Ok(bytes)
    }
}

impl ByteString for Box<[u8]> {
    const TEXT: bool = false;
    #[inline]
    fn as_wire(&self) -> &[u8] {
        self
    }
    fn from_wire(bytes: Vec<u8>, _: u64) -> Result<Self> {
        Ok(bytes.into_boxed_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::ByteString;
    use crate::error::Error;

    #[test]
    fn strings_are_checked_text_and_byte_lists_are_taken_as_they_are() {
        let bad = [b'a', 0xff];
        for result in [
            String::from_wire(bad.to_vec(), 7),
            String::from_slice(&bad, 7),
        ] {
            assert!(matches!(
                result,
                Err(Error::InvalidUtf8 { position: 7, .. })
            ));
        }
        assert_eq!(String::from_slice(b"snow", 0).unwrap(), "snow");
        assert_eq!(Vec::<u8>::from_slice(&bad, 0).unwrap(), bad);
        assert_eq!(&*Box::<[u8]>::from_slice(&bad, 0).unwrap(), &bad[..]);
        assert_eq!(Box::<[u8]>::from(&bad[..]).as_wire(), &bad[..]);
        assert_eq!(
            [String::TEXT, Vec::<u8>::TEXT, Box::<[u8]>::TEXT],
            [true, false, false]
        );
    }
}
