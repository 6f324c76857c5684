//! Reads of byte-aligned spans: the bytes of a field whose length an earlier field gives.

use super::BitReader;
use crate::{Error, Result};

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
