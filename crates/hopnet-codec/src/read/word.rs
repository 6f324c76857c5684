//! A variable-length integer found in one loaded word: the part of varint reading that
//! [`BitReader`](super::BitReader) and [`BitWindow`](super::BitWindow) share.

use crate::error::{Error, Result};
use crate::varint;

/// A varint found at the bottom of a loaded word.
pub(super) struct WordVarint {
    value: u64,
    /// Its byte count.
    bytes: u32,
    /// The bits it takes, prefix included.
    pub(super) bits: u32,
    /// Whether it is in its shortest form.
    canonical: bool,
}

impl WordVarint {
    /// The value, or [`Error::NonCanonicalVarint`] at `position` (the bit after it).
    #[inline(always)]
    pub(super) fn accept(self, position: u64) -> Result<u64> {
        if self.canonical {
            Ok(self.value)
        } else {
            Err(non_canonical(self.value as u128, self.bytes, position))
        }
    }
}

/// The error for a varint of `bytes` bytes that a shorter form could hold, ending at
/// `position`; shared by [`BitReader`] and [`BitWindow`].
#[cold]
pub(super) fn non_canonical(value: u128, bytes: u32, position: u64) -> Error {
    Error::NonCanonicalVarint {
        value,
        bytes,
        position,
    }
}

/// The varint whose `k`-bit prefix is at the bottom of `word`, if it lies within the word's
/// 57 valid bits; the same for [`BitReader`] and [`BitWindow`].
///
/// One and two bytes get a branch of their own, each with constant lengths. Decoding is a
/// chain of reads, each starting where the previous one ended; computing the cursor from the
/// loaded prefix puts the load's latency on that chain once per integer, while a predicted
/// branch lets the processor go on reading the next field at once (BENCHMARKS.md has the
/// measurement), though a branch on the data is sometimes mispredicted.
#[inline(always)]
pub(super) fn varint_in_word(word: u64, k: u32) -> Option<WordVarint> {
    let p = word & ((1u64 << k) - 1);
    if p == 0 {
        let value = (word >> k) & 0xff;
        return Some(WordVarint {
            value,
            bytes: 1,
            bits: k + 8,
            canonical: true,
        });
    }
    if p == 1 {
        let value = (word >> k) & 0xffff;
        let canonical = value >= 0x100;
        return Some(WordVarint {
            value,
            bytes: 2,
            bits: k + 16,
            canonical,
        });
    }
    let m = p as u32 + 1;
    let data_bits = 8 * m;
    if k + data_bits > 57 {
        return None;
    }
    let value = (word >> k) & ((1u64 << data_bits) - 1);
    let canonical = varint::bytes_needed(value) == m;
    Some(WordVarint {
        value,
        bytes: m,
        bits: k + data_bits,
        canonical,
    })
}

#[cfg(test)]
mod tests {
    use super::super::BitReader;
    use crate::error::{Error, Result};
    use crate::varint;

    /// The spec's varint read one bit at a time: the reference for the word-at-a-time reader.
    fn reference_varint(bits: &[bool], pos: usize, bytes: u32) -> (Result<u64>, usize) {
        let k = varint::len_bits(bytes) as usize;
        let take = |from: usize, n: usize| -> Option<u64> {
            let slice = bits.get(from..from + n)?;
            Some(
                slice
                    .iter()
                    .enumerate()
                    .fold(0u64, |v, (i, &b)| v | (b as u64) << i),
            )
        };
        let end = |needed: usize, at: usize| Error::UnexpectedEnd {
            needed: needed as u64,
            remaining: (bits.len() - at) as u64,
            position: at as u64,
        };
        let Some(prefix) = take(pos, k) else {
            return (Err(end(k, pos)), pos);
        };
        let m = prefix as usize + 1;
        let Some(value) = take(pos + k, 8 * m) else {
            return (Err(end(8 * m, pos + k)), pos + k);
        };
        let after = pos + k + 8 * m;
        if m > 1 && varint::bytes_needed(value) as usize != m {
            let err = Error::NonCanonicalVarint {
                value: value as u128,
                bytes: m as u32,
                position: after as u64,
            };
            return (Err(err), after);
        }
        (Ok(value), after)
    }

    /// Every length of `u16`, `u32` and `u64` varints, canonical or not, at every bit offset,
    /// in the middle of the input (one load) and at its very end (checked reads, truncated):
    /// the same values, errors and positions as the reference.
    #[test]
    fn varints_match_the_reference_everywhere() {
        for bytes in [1u32, 2, 4, 8] {
            let k = varint::len_bits(bytes);
            for m in 1..=bytes {
                let top = if m == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * m)) - 1
                };
                let low = if m == 1 { 0 } else { 1u64 << (8 * (m - 1)) };
                // The smallest and largest values of the length, and shorter values written
                // in this length (not canonical).
                for value in [low, top, 0, 5, low.saturating_sub(1) & top] {
                    for offset in 0..8u32 {
                        for tail in [0usize, 16] {
                            let mut buf = Vec::new();
                            let mut w = crate::write::BitWriter::new(&mut buf);
                            w.write_bits(0, offset);
                            w.write_bits((m - 1) as u64, k);
                            w.write_bits(value, 8 * m);
                            w.finish();
                            buf.extend(std::iter::repeat_n(0u8, tail));
                            for cut in [buf.len(), buf.len().saturating_sub(1)] {
                                let data = &buf[..cut];
                                let bits: Vec<bool> = (0..data.len() * 8)
                                    .map(|i| data[i / 8] >> (i % 8) & 1 == 1)
                                    .collect();
                                let mut r = BitReader::new(data);
                                r.read_bits(offset).unwrap();
                                let got = r.read_varint(bytes);
                                let (want, want_pos) =
                                    reference_varint(&bits, offset as usize, bytes);
                                assert_eq!(
                                    got, want,
                                    "bytes {bytes} m {m} value {value} offset {offset} cut {cut}"
                                );
                                if got.is_ok()
                                    || matches!(got, Err(Error::NonCanonicalVarint { .. }))
                                {
                                    assert_eq!(r.position(), want_pos as u64);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
