//! The bit writer: pushes values LSB first into a byte buffer, a 64-bit word at a time.

use crate::varint;

/// Appends a Rabbit bit stream to a borrowed `Vec<u8>`.
///
/// Bits gather in a 64-bit accumulator and reach the buffer eight bytes at a time, so a field
/// costs a shift, an OR and, once per 64 bits, one append. The final partial byte is padded with
/// zeros when the writer is finished or dropped, so nothing written is ever lost.
///
/// ```
/// let mut buf = Vec::new();
/// let mut w = hopnet_codec::BitWriter::new(&mut buf);
/// w.write_bits(15, 5);
/// w.write_bits(81, 7);
/// w.write_bits(1, 2);
/// w.finish();
/// assert_eq!(buf, [0x2f, 0x1a]); // the spec's example
/// ```
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Pending bits, the oldest in the least significant position.
    acc: u64,
    /// How many bits of `acc` are pending; always below 64.
    pending: u32,
    /// Length of `out` when the writer was made, to report [`BitWriter::bit_len`].
    start: usize,
}

/// Byte strings up to this long are written through the accumulator, longer ones copied.
const SHORT_BYTES: usize = 32;

impl<'a> BitWriter<'a> {
    /// A writer that appends to `out`, starting at its current end (on a byte boundary).
    #[inline]
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        let start = out.len();
        BitWriter {
            out,
            acc: 0,
            pending: 0,
            start,
        }
    }

    /// Pushes the low `n` bits of `value`, least significant first. Bits above `n` are ignored.
    ///
    /// `n` may be 0 to 64; larger values of `n` are treated as 64.
    #[inline(always)]
    pub fn write_bits(&mut self, value: u64, n: u32) {
        let n = n.min(64);
        let value = if n < 64 {
            value & ((1u64 << n) - 1)
        } else {
            value
        };
        self.push(value, n);
    }

    /// Pushes a word from [`Encode::encode_word`](crate::Encode::encode_word): the low `n <= 64`
    /// bits of `value`, which has no bits set at or above `n`.
    ///
    /// Unlike [`BitWriter::write_bits`] it does not mask `value`: bits at or above `n` would
    /// corrupt the fields after it (debug builds panic instead). It saves the mask for code
    /// that builds its words itself, as derived code does.
    #[inline(always)]
    pub fn write_word(&mut self, value: u64, n: u32) {
        self.push(value, n);
    }

    /// Pushes `n <= 64` bits of a `value` that has no bits set at or above `n`.
    ///
    /// The caller guarantees the invariant (a varint measured to fit its bytes, a float's bits),
    /// which saves the mask on the hot path; the accumulator stays correct because bits above
    /// `pending` are always zero.
    #[inline(always)]
    fn push(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 64 && (n == 64 || value >> n == 0));
        self.acc |= value << self.pending;
        let total = self.pending + n;
        if total >= 64 {
            self.out.extend_from_slice(&self.acc.to_le_bytes());
            // The bits of `value` that did not fit: `value >> (64 - pending)`, written as two
            // shifts so that `pending == 0` (a shift by 64) needs no branch.
            self.acc = (value >> 1) >> (63 - self.pending);
            self.pending = total - 64;
        } else {
            self.pending = total;
        }
    }

    /// Pushes one bit.
    #[inline(always)]
    pub fn write_bool(&mut self, bit: bool) {
        self.write_bits(bit as u64, 1);
    }

    /// Pushes `value` with the spec's variable-length encoding of a `bytes`-byte integer
    /// (`bytes` is 1, 2, 4 or 8): the used byte count less one in `log2(bytes)` bits, then the
    /// low bytes of the value.
    #[inline(always)]
    pub fn write_varint(&mut self, value: u64, bytes: u32) {
        let (k, value, m) = varint_fields(value, bytes);
        let data_bits = 8 * m;
        // `value` fits its `m` bytes by construction, so neither write needs a mask.
        if k + data_bits <= 64 {
            self.push((value << k) | (m as u64 - 1), k + data_bits);
        } else {
            self.push(m as u64 - 1, k);
            self.push(value, data_bits);
        }
    }

    /// Pushes `value` with the variable-length encoding of a 16-byte integer (`u128`).
    pub fn write_varint_u128(&mut self, value: u128) {
        let m = varint::bytes_needed_u128(value);
        self.write_bits(m as u64 - 1, 4);
        let bits = 8 * m;
        self.write_bits(value as u64, bits.min(64));
        if bits > 64 {
            self.write_bits((value >> 64) as u64, bits - 64);
        }
    }

    /// Pushes raw bytes, eight bits each.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        // Off a byte boundary, or for a few bytes (a label, a short name), the bytes join the
        // accumulator as words, as numbers would: copying a short string out on its own costs
        // a call to `memcpy`, which took longer than the copy.
        if bytes.len() <= SHORT_BYTES || !self.pending.is_multiple_of(8) {
            let mut chunks = bytes.chunks_exact(8);
            for chunk in &mut chunks {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                self.write_word(u64::from_le_bytes(word), 64);
            }
            let rest = chunks.remainder();
            let mut word = 0u64;
            for (i, &b) in rest.iter().enumerate() {
                word |= u64::from(b) << (8 * i);
            }
            self.write_word(word, 8 * rest.len() as u32);
            return;
        }
        // On a byte boundary (always, in a byte layout) the pending bits are whole bytes: they
        // go out as they are, and the bytes after them, with no shifting through the
        // accumulator.
        self.flush();
        self.out.extend_from_slice(bytes);
    }

    /// Bits written so far by this writer.
    #[inline]
    pub fn bit_len(&self) -> u64 {
        (self.out.len() - self.start) as u64 * 8 + self.pending as u64
    }

    /// Pads the last byte with zeros and hands the buffer back. Dropping the writer does the same.
    #[inline]
    pub fn finish(mut self) {
        self.flush();
    }

    #[inline]
    fn flush(&mut self) {
        if self.pending > 0 {
            let bytes = self.pending.div_ceil(8) as usize;
            self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
            self.acc = 0;
            self.pending = 0;
        }
    }
}

impl Drop for BitWriter<'_> {
    #[inline]
    fn drop(&mut self) {
        self.flush();
    }
}

/// The provided [`FieldCodec::encode_word`](crate::codec::FieldCodec::encode_word), as
/// [`word_by_encoding`] for a codec's `encode`.
pub(crate) fn word_by(
    encode: impl FnOnce(&mut BitWriter<'_>) -> crate::error::Result<()>,
) -> crate::error::Result<(u64, u32)> {
    let (word, bits) = scratch_word(encode)?;
    if bits > 64 {
        return Err(crate::error::Error::custom(format!(
            "a codec set `WORD_BITS` but encoded {bits} bits, more than one word"
        )));
    }
    Ok((word, bits as u32))
}

/// The first 64 bits `encode` pushes into a scratch buffer, and how many it pushed.
pub(crate) fn scratch_word(
    encode: impl FnOnce(&mut BitWriter<'_>) -> crate::error::Result<()>,
) -> crate::error::Result<(u64, u64)> {
    let mut buf = Vec::with_capacity(16);
    let mut w = BitWriter::new(&mut buf);
    encode(&mut w)?;
    let bits = w.bit_len();
    w.finish();
    let mut word = [0u8; 8];
    let n = buf.len().min(8);
    word[..n].copy_from_slice(&buf[..n]);
    Ok((u64::from_le_bytes(word), bits))
}

/// The bits `encode` pushes, counted by encoding into a scratch buffer (which allocates): for
/// encodings that declare no size of their own. An error counts the bits pushed before it.
pub(crate) fn count_bits(
    encode: impl FnOnce(&mut BitWriter<'_>) -> crate::error::Result<()>,
) -> u64 {
    let mut scratch = Vec::new();
    let mut w = BitWriter::new(&mut scratch);
    let _ = encode(&mut w);
    w.bit_len()
}

/// A `bytes`-byte variable-length integer as one word, `(bits, count)`: the byte count less
/// one, then the bytes. Needs `log2(bytes) + 8 * bytes <= 64` (`bytes <= 4`) to fit for
/// every value; a value wider than `bytes` keeps only its low `bytes` bytes.
#[inline(always)]
pub(crate) const fn varint_word(value: u64, bytes: u32) -> (u64, u32) {
    let (k, value, m) = varint_fields(value, bytes);
    ((value << k) | (m as u64 - 1), k + 8 * m)
}

/// The parts of a `bytes`-byte variable-length integer: the width of its length prefix, the
/// value cut to the type's bytes (a wider value keeps only its low `bytes` bytes; `bytes` is a
/// constant at every call site, so the cut folds away) and the bytes it takes.
#[inline(always)]
const fn varint_fields(value: u64, bytes: u32) -> (u32, u64, u32) {
    let value = if bytes < 8 {
        value & mask(8 * bytes)
    } else {
        value
    };
    (varint::len_bits(bytes), value, varint::bytes_needed(value))
}

/// `Some(bits)` when every `bytes`-byte variable-length integer fits in one word.
pub(crate) const fn varint_word_bits(bytes: u32) -> Option<u32> {
    let max = varint::max_bits(bytes);
    if max <= 64 { Some(max as u32) } else { None }
}

#[inline(always)]
const fn mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

#[cfg(test)]
mod tests {
    use super::BitWriter;

    /// `write_bytes` writes what eight-bit writes of each byte would, whatever is pending before
    /// it: nothing, whole bytes (its fast path) or a part of one, across a full word.
    #[test]
    fn raw_bytes_equal_their_bits_at_any_offset() {
        let data: Vec<u8> = (0..45u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        for lead in 0..=72u32 {
            let lead_bits = |w: &mut BitWriter<'_>| {
                for i in 0..lead {
                    w.write_bits(u64::from((i * 7 + 3) % 5 < 2), 1);
                }
            };
            let mut fast = Vec::new();
            let mut w = BitWriter::new(&mut fast);
            lead_bits(&mut w);
            w.write_bytes(&data);
            w.write_bits(0b101, 3);
            w.finish();
            let mut slow = Vec::new();
            let mut w = BitWriter::new(&mut slow);
            lead_bits(&mut w);
            for &b in &data {
                w.write_bits(u64::from(b), 8);
            }
            w.write_bits(0b101, 3);
            w.finish();
            assert_eq!(fast, slow, "{lead} bits before the bytes");
        }
    }
}
