//! `#[rabbit(cstring)]`: a string ended by a zero byte, as C and the Source engine's queries
//! write text.

use super::{FieldCodec, FieldDecode};
use crate::error::{Error, Result};
use crate::read::{BitRead, BitReader};
use crate::schema::Encoding;
use crate::write::BitWriter;

/// UTF-8 bytes, then a zero byte (`#[rabbit(cstring)]`). A string holding a zero byte cannot
/// be written (its reader would stop early), so encoding it is an error. The string grows only
/// by bytes the input holds: a missing terminator is an error at the end of the input, never a
/// reservation.
pub struct CString;

/// The byte that ends the string.
const NUL: u8 = 0;

impl FieldCodec<String> for CString {
    const MIN_BITS: u64 = 8;
    const MAX_BITS: Option<u64> = None;

    #[inline]
    fn encode(value: &String, w: &mut BitWriter<'_>) -> Result<()> {
        if value.as_bytes().contains(&NUL) {
            return Err(Error::custom(
                "a C string cannot hold a zero byte: it would end the string",
            ));
        }
        w.write_bytes(value.as_bytes());
        w.write_bits(u64::from(NUL), 8);
        Ok(())
    }

    #[inline]
    fn encoded_bits(value: &String) -> u64 {
        8 * (value.len() as u64 + 1)
    }

    fn schema() -> Encoding {
        Encoding::CString
    }
}

impl FieldDecode<String> for CString {
    #[inline]
    fn decode<R: BitRead>(r: &mut R) -> Result<String> {
        r.with_reader(read)
    }
}

/// Reads bytes up to the zero byte, which it consumes; a missing terminator is an error at the
/// end of the input.
#[inline]
fn read(r: &mut BitReader<'_>) -> Result<String> {
    super::until::read_until_byte(r, NUL, u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(s: &str) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        <CString as FieldCodec<String>>::encode(&s.to_string(), &mut w)?;
        w.finish();
        Ok(buf)
    }

    fn decode(bytes: &[u8]) -> Result<String> {
        <CString as FieldDecode<String>>::decode(&mut BitReader::new(bytes))
    }

    #[test]
    fn text_then_zero() {
        assert_eq!(encode("de_dust").unwrap(), b"de_dust\0");
        assert_eq!(encode("").unwrap(), [0]);
        assert_eq!(decode(b"map\0rest").unwrap(), "map");
    }

    #[test]
    fn refuses_inner_zero_missing_end_and_bad_utf8() {
        assert!(encode("a\0b").is_err());
        assert!(matches!(
            decode(b"no end"),
            Err(Error::UnexpectedEnd { .. })
        ));
        assert!(matches!(decode(&[0xff, 0]), Err(Error::InvalidUtf8 { .. })));
    }

    /// On a byte boundary the string is checked in the input's slice, off one byte by byte:
    /// the same error, at the same position (past the terminator), either way.
    #[test]
    fn bad_text_is_the_same_error_aligned_and_not() {
        let bytes = [b'a', 0xff, 0, b'z'];
        let Err(Error::InvalidUtf8 { position, source }) = decode(&bytes) else {
            panic!("not a UTF-8 error");
        };
        assert_eq!((position, source.valid_up_to()), (24, 1));

        let mut shifted = Vec::new();
        let mut w = BitWriter::new(&mut shifted);
        w.write_bits(1, 1);
        w.write_bytes(&bytes);
        w.finish();
        let mut r = BitReader::new(&shifted);
        r.read_bits(1).unwrap();
        let Err(Error::InvalidUtf8 { position, source }) =
            <CString as FieldDecode<String>>::decode(&mut r)
        else {
            panic!("not a UTF-8 error");
        };
        assert_eq!((position, source.valid_up_to()), (25, 1));
    }
}
