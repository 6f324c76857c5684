//! The bit reader: takes values back out of a Rabbit bit stream, checking every read.

use crate::{Error, Result, varint};

/// Reads a Rabbit bit stream from a byte slice.
///
/// Unread bits wait in a 64-bit buffer that is topped up eight bytes at a time, so a field costs
/// a mask, a shift and a compare, whatever its alignment. Every read is checked against the end
/// of the input and fails with [`Error::UnexpectedEnd`] rather than reading zeros.
///
/// ```
/// let mut r = rabbit::BitReader::new(&[0x2f, 0x1a]);
/// assert_eq!(r.read_bits(5)?, 15);
/// assert_eq!(r.read_bits(7)?, 81);
/// assert_eq!(r.read_bits(2)?, 1);
/// r.finish()?; // only zero padding is left
/// # Ok::<(), rabbit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Unread bits, the next one least significant. The low `avail` bits are valid; bits above
    /// them may hold the following bits of the stream (a refill loads whole words), never
    /// anything else, so OR-ing the same bits in again is harmless.
    buf: u64,
    /// How many bits of `buf` are valid; below 64.
    avail: u32,
    /// Index of the first byte not yet counted in `avail`.
    next: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at the first bit of `data`.
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            buf: 0,
            avail: 0,
            next: 0,
        }
    }

    /// Bits not yet read (including any padding).
    #[inline(always)]
    pub fn remaining_bits(&self) -> u64 {
        (self.data.len() - self.next) as u64 * 8 + self.avail as u64
    }

    /// Bit offset of the next read, from the start of the input.
    #[inline(always)]
    pub fn position(&self) -> u64 {
        self.next as u64 * 8 - self.avail as u64
    }

    /// Fails unless at least `n` bits are left; for decoders that check once for several reads.
    #[inline(always)]
    pub fn ensure(&self, n: u64) -> Result<()> {
        if n > self.remaining_bits() {
            return Err(self.end(n));
        }
        Ok(())
    }

    #[inline(always)]
    fn end(&self, needed: u64) -> Error {
        end_of_input(needed, self.remaining_bits(), self.position())
    }

    /// Tops the buffer up to at least 56 valid bits, or to all that is left near the end.
    ///
    /// With eight bytes left it loads them as one word and counts the whole bytes that fit,
    /// without a loop or a branch on `avail`.
    #[inline(always)]
    fn refill(&mut self) {
        match self
            .data
            .get(self.next..)
            .and_then(|rest| rest.first_chunk::<8>())
        {
            Some(word) => {
                self.buf |= u64::from_le_bytes(*word) << self.avail;
                self.next += ((63 - self.avail) >> 3) as usize;
                self.avail |= 56;
            }
            None => {
                (self.buf, self.avail, self.next) =
                    refill_tail(self.data, self.buf, self.avail, self.next);
            }
        }
    }

    /// Takes `n <= avail` bits out of the buffer (`n < 64`).
    #[inline(always)]
    fn take(&mut self, n: u32) -> u64 {
        let value = self.buf & ((1u64 << n) - 1);
        self.buf >>= n;
        self.avail -= n;
        value
    }

    /// Reads `n` bits (0 to 64), the first read bit as the least significant.
    #[inline(always)]
    pub fn read_bits(&mut self, n: u32) -> Result<u64> {
        if n <= 56 {
            if self.avail < n {
                self.refill();
                if self.avail < n {
                    return Err(self.end(n as u64));
                }
            }
            return Ok(self.take(n));
        }
        self.read_wide(n)
    }

    /// `read_bits` of 57 to 64 bits: two halves, after one check of the whole.
    #[inline]
    fn read_wide(&mut self, n: u32) -> Result<u64> {
        if n > 64 {
            return Err(Error::custom("read_bits takes at most 64 bits"));
        }
        if n as u64 > self.remaining_bits() {
            return Err(self.end(n as u64));
        }
        let low = self.read_bits(32)?;
        let high = self.read_bits(n - 32)?;
        Ok(low | high << 32)
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
        // Fast path: prefix and value straight from the buffer when they are in it (after a
        // refill, always for `u16` and `u32`).
        let longest = (k + 8 * bytes).min(56);
        if self.avail < longest {
            self.refill();
        }
        let m = (self.buf & ((1u64 << k) - 1)) as u32 + 1;
        let total = k + 8 * m;
        if total <= self.avail {
            self.take(k);
            let value = self.take(8 * m);
            return self.canonical(value, m);
        }
        let m = self.read_bits(k)? as u32 + 1;
        let value = self.read_bits(8 * m)?;
        self.canonical(value, m)
    }

    /// `value` if `m` is the fewest bytes that hold it.
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

    #[inline(always)]
    fn non_canonical(&self, value: u128, bytes: u32) -> Error {
        non_canonical(value, bytes, self.position())
    }

    /// Reads `out.len()` bytes of eight bits each.
    #[inline]
    pub fn read_bytes(&mut self, out: &mut [u8]) -> Result<()> {
        self.ensure(out.len() as u64 * 8)?;
        let pos = self.position();
        if pos & 7 == 0 {
            // Byte-aligned: copy straight from the input and restart the buffer after it.
            let start = (pos >> 3) as usize;
            if let Some(src) = self.data.get(start..start + out.len()) {
                out.copy_from_slice(src);
                self.next = start + out.len();
                self.buf = 0;
                self.avail = 0;
                return Ok(());
            }
        }
        let mut chunks = out.chunks_exact_mut(7);
        for chunk in &mut chunks {
            let word = self.read_bits(56)?;
            chunk.copy_from_slice(&word.to_le_bytes()[..7]);
        }
        for b in chunks.into_remainder() {
            *b = self.read_bits(8)? as u8;
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
                position: self.position(),
            })
        }
    }

    /// Ends the read: only the zero padding of the final byte may remain.
    pub fn finish(mut self) -> Result<()> {
        let left = self.remaining_bits();
        if left >= 8 {
            return Err(Error::TrailingBytes { bytes: left / 8 });
        }
        if left > 0 && self.read_bits(left as u32)? != 0 {
            return Err(Error::NonZeroPadding);
        }
        Ok(())
    }
}

/// [`BitReader::refill`] for the last seven bytes, a byte at a time. A free function of the
/// reader's fields, so that the reader itself never has its address taken on the hot path and
/// can live in registers.
#[inline(never)]
fn refill_tail(data: &[u8], mut buf: u64, mut avail: u32, mut next: usize) -> (u64, u32, usize) {
    while avail <= 56 {
        let Some(&byte) = data.get(next) else {
            break;
        };
        buf |= (byte as u64) << avail;
        avail += 8;
        next += 1;
    }
    (buf, avail, next)
}

#[cold]
fn end_of_input(needed: u64, remaining: u64, position: u64) -> Error {
    Error::UnexpectedEnd {
        needed,
        remaining,
        position,
    }
}

#[cold]
fn non_canonical(value: u128, bytes: u32, position: u64) -> Error {
    Error::NonCanonicalVarint {
        value,
        bytes,
        position,
    }
}

/// The most items a list of zero-bit items (`()`, `PhantomData`) may claim.
pub const MAX_EMPTY_ITEMS: u64 = 1 << 16;
