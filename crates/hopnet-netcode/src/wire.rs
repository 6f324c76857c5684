//! Little-endian reading and writing over fixed buffers: the standard's one byte order, for
//! tokens, packets, nonces and associated data alike.
//!
//! Both sides are checked: a reader answers `None` past its end, a writer refuses to run past
//! its buffer and remembers that it did, so a miscounted layout is an error, never a panic.

/// Writes little-endian values into a fixed buffer.
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
    overflowed: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer {
            buf,
            pos: 0,
            overflowed: false,
        }
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        let end = self.pos + bytes.len();
        match self.buf.get_mut(self.pos..end) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.pos = end;
            }
            None => self.overflowed = true,
        }
    }

    pub(crate) fn u8(&mut self, value: u8) {
        self.bytes(&[value]);
    }

    pub(crate) fn u16(&mut self, value: u16) {
        self.bytes(&value.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, value: u32) {
        self.bytes(&value.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, value: u64) {
        self.bytes(&value.to_le_bytes());
    }

    /// Zeroes the rest of the buffer (the standard's "zero pad to N bytes") and says how many
    /// bytes were written before the padding, or `None` if a write did not fit.
    pub(crate) fn pad_to_end(self) -> Option<usize> {
        if self.overflowed {
            return None;
        }
        self.buf[self.pos..].fill(0);
        Some(self.pos)
    }

    /// How many bytes were written, or `None` if a write did not fit.
    #[cfg(test)]
    pub(crate) fn finish(self) -> Option<usize> {
        (!self.overflowed).then_some(self.pos)
    }
}

/// Reads little-endian values from a slice; every read is checked against the end.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.buf.split_first_chunk::<N>()?;
        self.buf = rest;
        Some(*head)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|[b]| b)
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_both_ways() {
        let mut buf = [0xffu8; 16];
        let mut w = Writer::new(&mut buf);
        w.u8(1);
        w.u16(0x0302);
        w.u32(0x0706_0504);
        w.u64(0x0f0e_0d0c_0b0a_0908);
        assert_eq!(w.pad_to_end(), Some(15));
        assert_eq!(buf, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0]);
        let mut r = Reader::new(&buf);
        assert_eq!(r.u8(), Some(1));
        assert_eq!(r.u16(), Some(0x0302));
        assert_eq!(r.u32(), Some(0x0706_0504));
        assert_eq!(r.u64(), Some(0x0f0e_0d0c_0b0a_0908));
        assert_eq!(r.u16(), None);
    }

    #[test]
    fn overflow_is_refused_not_a_panic() {
        let mut buf = [0u8; 3];
        let mut w = Writer::new(&mut buf);
        w.u32(7);
        assert_eq!(w.finish(), None);
    }
}
