//! [`BitWindow`]: reads one bounded value from a fixed window of the input, with no check per
//! read.

use super::BitReader;
use super::word::varint_in_word;
use crate::error::Result;
use crate::limits::WINDOW_BYTES;
use crate::varint;

/// A reader over a fixed window of the input, for decoding one value whose encoding is known
/// to fit in it: a list's item of bounded size ([`crate::Decode::decode_window`]).
///
/// [`BitReader`] checks every read against the end of the input, and keeps a slower path for
/// the input's last bytes inline in every field. A list whose items take at most
/// [`WINDOW_MAX_BITS`](crate::limits::WINDOW_MAX_BITS) bits checks once per item that the next [`WINDOW_BYTES`] bytes exist and
/// reads the item from them: every read's byte offset is masked into the window (a no-op for
/// an item within its `MAX_BITS`), so the compiler sees that the load is in bounds and no read
/// has a check or a second path. The values, errors and error positions are those of
/// [`BitReader`]; reads it cannot do within the window ([`BitWindow::with_reader`]) go through
/// a [`BitReader`] at the same position.
#[derive(Debug)]
pub struct BitWindow<'a> {
    pub(super) bytes: &'a [u8; WINDOW_BYTES],
    /// Bit offset of the next read from the window's first byte.
    pub(super) pos: u64,
    /// Bit offset of the window's first byte in the input.
    pub(super) start_bits: u64,
    /// The whole input, for [`BitWindow::with_reader`].
    pub(super) data: &'a [u8],
}

impl BitWindow<'_> {
    /// Bit offset of the next read, from the start of the input.
    #[inline(always)]
    pub fn position(&self) -> u64 {
        self.start_bits + self.pos
    }

    /// The 64 bits from the cursor's byte, shifted to the cursor: at least 57 valid.
    #[inline(always)]
    fn word(&self) -> u64 {
        // The mask keeps the load inside the window whatever `pos` is; for a value within its
        // `MAX_BITS` it changes nothing.
        let byte = ((self.pos >> 3) as usize) & (WINDOW_BYTES - 9);
        let word = self
            .bytes
            .get(byte..byte + 8)
            .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
            .map_or(0, u64::from_le_bytes);
        word >> (self.pos & 7)
    }

    /// Whether a read may have started past the window's first 64 bytes, where the mask in
    /// [`BitWindow::word`] wraps it around: only for a value longer than its type's
    /// `MAX_BITS` says (a hand-written impl that breaks the contract). A list then decodes the
    /// item again through the checked reader, so such an impl costs speed, never wrong values.
    #[inline(always)]
    pub(crate) fn overran(&self) -> bool {
        self.pos > 8 * (WINDOW_BYTES - 8) as u64
    }

    /// Reads `n` bits (0 to 64), as [`BitReader::read_bits`].
    #[inline(always)]
    pub fn read_bits(&mut self, n: u32) -> Result<u64> {
        if n <= 56 {
            let value = self.word() & ((1u64 << n) - 1);
            self.pos += n as u64;
            return Ok(value);
        }
        self.with_reader(|r| r.read_bits(n))
    }

    /// Reads a variable-length integer, as [`BitReader::read_varint`].
    #[inline(always)]
    pub fn read_varint(&mut self, bytes: u32) -> Result<u64> {
        let k = varint::len_bits(bytes);
        if let Some(found) = varint_in_word(self.word(), k) {
            self.pos += found.bits as u64;
            return found.accept(self.position());
        }
        self.with_reader(|r| r.read_varint(bytes))
    }

    /// Runs `decode` on a [`BitReader`] over the whole input at the window's cursor, and moves
    /// the cursor to where it stopped: for values with no window path of their own.
    #[inline(always)]
    pub fn with_reader<T>(
        &mut self,
        decode: impl FnOnce(&mut BitReader<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut r = BitReader::new(self.data);
        r.pos = self.position();
        let result = decode(&mut r);
        self.pos = r.pos - self.start_bits;
        result
    }
}
