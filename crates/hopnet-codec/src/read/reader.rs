//! [`BitReader`]: reads every value checked against the end of the input.

use super::BitWindow;
use super::word::{non_canonical, varint_in_word};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::limits::{MAX_EMPTY_ITEMS, WINDOW_BYTES};
use crate::varint;

/// Reads a Rabbit bit stream from a byte slice.
///
/// Each read loads the eight bytes under the cursor as one little-endian word, so a field costs a
/// load, a shift and a mask, whatever its alignment. Every read is checked against the end of the
/// input and fails with [`Error::UnexpectedEnd`] rather than reading zeros.
///
/// ```
/// let mut r = hopnet_codec::BitReader::new(&[0x2f, 0x1a]);
/// assert_eq!(r.read_bits(5)?, 15);
/// assert_eq!(r.read_bits(7)?, 81);
/// assert_eq!(r.read_bits(2)?, 1);
/// r.finish()?; // only zero padding is left
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    pub(super) data: &'a [u8],
    /// Bit offset of the next read.
    pub(super) pos: u64,
    /// `data.len() * 8`, kept to make the bounds check one comparison.
    len_bits: u64,
}

impl<'a> BitReader<'a> {
    /// A reader at the first bit of `data`.
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            len_bits: data.len() as u64 * 8,
        }
    }

    /// Bits not yet read (including any padding).
    #[inline(always)]
    pub fn remaining_bits(&self) -> u64 {
        self.len_bits - self.pos
    }

    /// Bit offset of the next read, from the start of the input.
    #[inline(always)]
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Fails unless at least `n` bits are left; for decoders that check once for several reads.
    #[inline(always)]
    pub fn ensure(&self, n: u64) -> Result<()> {
        if n > self.remaining_bits() {
            return Err(self.end(n));
        }
        Ok(())
    }

    #[cold]
    fn end(&self, needed: u64) -> Error {
        Error::UnexpectedEnd {
            needed,
            remaining: self.remaining_bits(),
            position: self.pos,
        }
    }

    /// Reads `n` bits (0 to 64), the first read bit as the least significant.
    #[inline(always)]
    pub fn read_bits(&mut self, n: u32) -> Result<u64> {
        if n <= 56 {
            // When the eight bytes under the cursor are all inside the input, at least 57 bits
            // are left: that one slice check is the bounds check.
            if let Some(word) = self.full_word() {
                self.pos += n as u64;
                return Ok(word & ((1u64 << n) - 1));
            }
        }
        if n > 56 && n <= 64 && n as u64 <= self.remaining_bits() {
            // Wide reads (`f64`, long `u64` varints) stay inline.
            let value = self.peek(n);
            self.pos += n as u64;
            return Ok(value);
        }
        let value = read_near_end(self.data, self.pos, n)?;
        self.pos += n as u64;
        Ok(value)
    }

    /// The 64 bits from the cursor's byte, shifted to the cursor (at least 57 of them valid),
    /// if all eight bytes are inside the input.
    #[inline(always)]
    fn full_word(&self) -> Option<u64> {
        let byte = (self.pos >> 3) as usize;
        let chunk: [u8; 8] = self.data.get(byte..byte + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(chunk) >> (self.pos & 7))
    }

    /// The next `n` bits (`n <= 64`, already bounds-checked) without moving.
    #[inline(always)]
    fn peek(&self, n: u32) -> u64 {
        let byte = (self.pos >> 3) as usize;
        let shift = (self.pos & 7) as u32;
        let mut value = self.word_at(byte) >> shift;
        if shift + n > 64 {
            // The read spills into a ninth byte; it exists because the bounds check passed.
            let ninth = self.data.get(byte + 8).copied().unwrap_or(0);
            value |= (ninth as u64) << (64 - shift);
        }
        if n < 64 {
            value & ((1u64 << n) - 1)
        } else {
            value
        }
    }

    /// The eight bytes from `byte` as a little-endian word, zero-filled past the end.
    #[inline(always)]
    fn word_at(&self, byte: usize) -> u64 {
        match self.data.get(byte..byte + 8) {
            Some(chunk) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                u64::from_le_bytes(word)
            }
            None => {
                let mut word = [0u8; 8];
                let tail = self.data.get(byte..).unwrap_or(&[]);
                word[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(word)
            }
        }
    }

    /// Reads one bit.
    #[inline(always)]
    pub fn read_bool(&mut self) -> Result<bool> {
        Ok(self.read_bits(1)? != 0)
    }

    /// Reads the spec's variable-length encoding of a `bytes`-byte integer (1, 2, 4 or 8).
    ///
    /// Only the shortest form is accepted (see [`Error::NonCanonicalVarint`]).
    #[inline(always)]
    pub fn read_varint(&mut self, bytes: u32) -> Result<u64> {
        let k = varint::len_bits(bytes);
        // Inside the input, the word under the cursor gives at least 57 bits: the prefix and up
        // to six bytes (all of a `u32`'s), so that one load is the bounds check.
        if let Some(word) = self.full_word()
            && let Some(found) = varint_in_word(word, k)
        {
            self.pos += found.bits as u64;
            return found.accept(self.pos);
        }
        if k + 8 * bytes > 57 {
            // Wider than one load can hold (u64): the prefix, then the bytes.
            let m = self.read_bits(k)? as u32 + 1;
            let value = self.read_bits(8 * m)?;
            return self.canonical(value, m);
        }
        let (value, pos) = varint_near_end(self.data, self.pos, bytes);
        self.pos = pos;
        value
    }

    /// Accepts `value` read as `m` bytes only in its shortest form.
    #[inline(always)]
    fn canonical(&self, value: u64, m: u32) -> Result<u64> {
        if m > 1 && varint::bytes_needed(value) != m {
            return Err(self.non_canonical(value as u128, m));
        }
        Ok(value)
    }

    /// Reads the variable-length encoding of a 16-byte integer (`u128`).
    pub fn read_varint_u128(&mut self) -> Result<u128> {
        let m = self.read_bits(4)? as u32 + 1;
        let bits = 8 * m;
        let low = self.read_bits(bits.min(64))? as u128;
        let high = if bits > 64 {
            self.read_bits(bits - 64)? as u128
        } else {
            0
        };
        let value = low | (high << 64);
        if m > 1 && varint::bytes_needed_u128(value) != m {
            return Err(self.non_canonical(value, m));
        }
        Ok(value)
    }

    #[cold]
    fn non_canonical(&self, value: u128, bytes: u32) -> Error {
        non_canonical(value, bytes, self.pos)
    }

    /// Reads `out.len()` bytes of eight bits each.
    #[inline]
    pub fn read_bytes(&mut self, out: &mut [u8]) -> Result<()> {
        let bits = out.len() as u64 * 8;
        self.ensure(bits)?;
        if self.pos & 7 == 0 {
            let start = (self.pos >> 3) as usize;
            if let Some(src) = self.data.get(start..start + out.len()) {
                out.copy_from_slice(src);
                self.pos += bits;
                return Ok(());
            }
        }
        let mut chunks = out.chunks_exact_mut(8);
        for chunk in &mut chunks {
            let word = self.peek(64);
            self.pos += 64;
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        for b in chunks.into_remainder() {
            *b = self.peek(8) as u8;
            self.pos += 8;
        }
        Ok(())
    }

    /// Checks that a length prefix of `count` items of at least `min_item_bits` each can fit in
    /// what is left, before anything is allocated for them.
    ///
    /// Items that may take no bits at all are capped at [`MAX_EMPTY_ITEMS`] so that a forged count
    /// cannot spin the decoder for billions of iterations.
    #[inline]
    pub fn check_count(&self, count: u64, min_item_bits: u64) -> Result<()> {
        let needed = count.saturating_mul(min_item_bits);
        let fits = if min_item_bits == 0 {
            count <= MAX_EMPTY_ITEMS
        } else {
            needed <= self.remaining_bits()
        };
        if fits {
            Ok(())
        } else {
            Err(Error::CountTooLarge {
                count,
                needed_bits: needed,
                remaining: self.remaining_bits(),
                position: self.pos,
            })
        }
    }

    /// A window on the next [`WINDOW_BYTES`] bytes for decoding one `T` through
    /// [`Decode::decode_window`](crate::Decode::decode_window), without a bounds check per read
    /// (see [`BitWindow`]): `None` unless `T`'s encoding fits a window (its
    /// [`Encode::MAX_BITS`] is at most [`WINDOW_MAX_BITS`](crate::limits::WINDOW_MAX_BITS),
    /// a constant, so the check costs nothing) and the input has that many bytes from the
    /// cursor's byte. A window holds only what such a `T` can take: reads past it would wrap
    /// around, so it is made for one type and decodes that type. The reader does not move; give
    /// it the window's final position with [`BitReader::resume`].
    #[inline(always)]
    pub fn window<T: Encode + ?Sized>(&self) -> Option<BitWindow<'a>> {
        if !const { fits_window::<T>() } {
            return None;
        }
        let start = (self.pos >> 3) as usize;
        let bytes: &'a [u8; WINDOW_BYTES] = self
            .data
            .get(start..start + WINDOW_BYTES)?
            .try_into()
            .ok()?;
        Some(BitWindow {
            bytes,
            pos: self.pos & 7,
            start_bits: self.pos & !7,
            data: self.data,
        })
    }

    /// Moves the cursor to where `window` (taken from this reader) stopped.
    #[inline(always)]
    pub fn resume(&mut self, window: &BitWindow<'a>) {
        self.pos = window.position();
    }

    /// Ends the read: only the zero padding of the final byte may remain.
    pub fn finish(self) -> Result<()> {
        let left = self.remaining_bits();
        if left >= 8 {
            return Err(Error::TrailingBytes { bytes: left / 8 });
        }
        if left > 0 && self.peek(left as u32) != 0 {
            return Err(Error::NonZeroPadding);
        }
        Ok(())
    }
}

/// [`BitReader::read_bits`] within the last eight bytes of the input (or for more than 64
/// bits, an error): the value of the `n` bits at `pos`, checked against the end.
///
/// Out of line and cold: almost every read of a message is further from its end, and this
/// path inlined into every field made the decode loop larger and kept more of its state on
/// the stack. By value, not `&mut BitReader`: a reader whose address escaped into a call
/// would have to keep its cursor in memory. Only the common case is here, a read inside the
/// input's last eight bytes, taken from their word; the rest is [`near_end_checked`]'s, so
/// that this function needs no stack frame.
#[cold]
#[inline(never)]
fn read_near_end(data: &[u8], pos: u64, n: u32) -> Result<u64> {
    if let Some(tail) = data.last_chunk::<8>() {
        // Wraps to a huge number when `pos` is before the last eight bytes.
        let shift = pos.wrapping_sub((data.len() as u64 - 8) * 8);
        // From `pos` to the end are the last eight bytes' word from `shift` on: `64 - shift`
        // bits.
        if shift < 64 && u64::from(n) <= 64 - shift {
            return Ok(low_bits(u64::from_le_bytes(*tail) >> shift, n));
        }
    }
    near_end_checked(data, pos, n)
}

/// [`read_near_end`] with every check: a read of more than 64 bits or past the end is an
/// error, one of no bits is zero, and one on an input shorter than eight bytes (or starting
/// before their last eight) gathers its bytes.
#[inline(never)]
fn near_end_checked(data: &[u8], pos: u64, n: u32) -> Result<u64> {
    let r = BitReader {
        data,
        pos,
        len_bits: data.len() as u64 * 8,
    };
    if n > 64 {
        return Err(Error::custom("read_bits takes at most 64 bits"));
    }
    if n as u64 > r.remaining_bits() {
        return Err(r.end(n as u64));
    }
    if n == 0 {
        return Ok(0);
    }
    Ok(low_bits(gather(data, pos, n), n))
}

/// The low `n` bits of `word` (`n <= 64`).
#[inline(always)]
fn low_bits(word: u64, n: u32) -> u64 {
    if n < 64 {
        word & ((1u64 << n) - 1)
    } else {
        word
    }
}

/// The bits from `pos` on, from only the bytes a read of `n` bits there covers (at most nine,
/// all inside the input: the caller checked), gathered one by one: a tail copy into a zeroed
/// word cost a `memcpy` call per read. For inputs shorter than eight bytes (or a read
/// starting before their last eight).
fn gather(data: &[u8], pos: u64, n: u32) -> u64 {
    let first = (pos >> 3) as usize;
    let last = ((pos + u64::from(n) - 1) >> 3) as usize;
    let mut word: u128 = 0;
    for (i, &byte) in data[first..=last].iter().enumerate() {
        word |= u128::from(byte) << (8 * i);
    }
    (word >> (pos & 7)) as u64
}

/// [`BitReader::read_varint`] within the last eight bytes of the input (for integers of up to
/// four bytes): the value or the error, and the cursor after it. The checks are those of
/// reading the prefix, then the bytes. Out of line and by value, as [`read_near_end`].
#[cold]
#[inline(never)]
fn varint_near_end(data: &[u8], pos: u64, bytes: u32) -> (Result<u64>, u64) {
    let mut r = BitReader {
        data,
        pos,
        len_bits: data.len() as u64 * 8,
    };
    let k = varint::len_bits(bytes);
    let left = r.remaining_bits();
    if k as u64 > left {
        return (Err(r.end(k as u64)), r.pos);
    }
    let word = r.word_at((r.pos >> 3) as usize) >> (r.pos & 7);
    let m = (word & ((1u64 << k) - 1)) as u32 + 1;
    let data_bits = 8 * m;
    if (k + data_bits) as u64 > left {
        r.pos += k as u64;
        return (Err(r.end(data_bits as u64)), r.pos);
    }
    let value = (word >> k) & ((1u64 << data_bits) - 1);
    r.pos += (k + data_bits) as u64;
    (r.canonical(value, m), r.pos)
}

/// Whether a `T` can be decoded through a [`BitWindow`]: its encoding takes at most
/// [`WINDOW_MAX_BITS`](crate::limits::WINDOW_MAX_BITS) bits.
pub(crate) const fn fits_window<T: Encode + ?Sized>() -> bool {
    match T::MAX_BITS {
        Some(max) => max <= crate::limits::WINDOW_MAX_BITS,
        None => false,
    }
}
