//! Reads of byte-aligned spans: the bytes of a field whose length an earlier field gives.

use super::BitReader;
use crate::error::{Error, Result};

impl<'a> BitReader<'a> {
    /// A reader over the next `bytes` bytes only, at the same position (errors keep their
    /// offsets from the start of the input): what a field framed by a byte length reads from.
    /// The cursor must be on a byte boundary, and the bytes must be there. This reader does not
    /// move; [`BitReader::skip_to`] moves it past the span when its reading is done.
    #[inline]
    pub fn region(&self, bytes: u64) -> Result<BitReader<'a>> {
        let (start, end) = self.span(bytes)?;
        Ok(BitReader::new_at(&self.data[..end], start))
    }

    /// The next `bytes` bytes, borrowed from the input (the cursor on a byte boundary), and the
    /// cursor moved past them.
    #[inline]
    pub fn read_slice(&mut self, bytes: u64) -> Result<&'a [u8]> {
        let (start, end) = self.span(bytes)?;
        self.pos = end as u64 * 8;
        Ok(&self.data[start..end])
    }

    /// The input's bytes from the cursor on, if the cursor is on a byte boundary: what a string
    /// ended by a byte is searched for in, before [`BitReader::pass_bytes`] moves past it.
    #[inline]
    pub(crate) fn rest_bytes(&self) -> Option<&'a [u8]> {
        if self.pos.is_multiple_of(8) {
            self.data.get((self.pos / 8) as usize..)
        } else {
            None
        }
    }

    /// Moves the cursor `bytes` bytes on, within what [`BitReader::rest_bytes`] gave (never
    /// past the end of the input, whatever `bytes` is: no reader stands past its input).
    #[inline]
    pub(crate) fn pass_bytes(&mut self, bytes: usize) {
        self.pos = self
            .pos
            .saturating_add((bytes as u64).saturating_mul(8))
            .min(self.data.len() as u64 * 8);
    }

    /// Moves the cursor to `position`, a bit offset at or after it within the input: to the
    /// end of a [`BitReader::region`] once it has been read.
    #[inline]
    pub fn skip_to(&mut self, position: u64) -> Result<()> {
        if position < self.pos || position > self.data.len() as u64 * 8 {
            return Err(Error::custom("skip_to outside the unread input"));
        }
        self.pos = position;
        Ok(())
    }

    /// The byte range of the next `bytes` bytes, checked.
    #[inline]
    fn span(&self, bytes: u64) -> Result<(usize, usize)> {
        if !self.pos.is_multiple_of(8) {
            return Err(Error::Unaligned { position: self.pos });
        }
        self.ensure(bytes.saturating_mul(8))?;
        let start = (self.pos / 8) as usize;
        Ok((start, start + bytes as usize))
    }

    /// A reader over `data` at byte `start`.
    #[inline]
    fn new_at(data: &'a [u8], start: usize) -> BitReader<'a> {
        let mut r = BitReader::new(data);
        r.pos = start as u64 * 8;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::BitReader;

    #[test]
    fn rest_bytes_only_on_a_byte_boundary() {
        let mut r = BitReader::new(&[1, 2, 3]);
        assert_eq!(r.rest_bytes(), Some(&[1, 2, 3][..]));
        r.read_bits(1).unwrap();
        assert_eq!(r.rest_bytes(), None);
        r.read_bits(7).unwrap();
        assert_eq!(r.rest_bytes(), Some(&[2, 3][..]));
        r.pass_bytes(2);
        assert_eq!(r.rest_bytes(), Some(&[][..]));
        assert_eq!(r.remaining_bits(), 0);
    }

    /// A count past the input stops at its end: the reader's remaining bits never wrap.
    #[test]
    fn pass_bytes_never_passes_the_end() {
        let mut r = BitReader::new(&[1, 2, 3]);
        r.pass_bytes(1);
        assert_eq!(r.position(), 8);
        r.pass_bytes(usize::MAX);
        assert_eq!((r.position(), r.remaining_bits()), (24, 0));
        assert!(r.read_bits(1).is_err());
    }
}
