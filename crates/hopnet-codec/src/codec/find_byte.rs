//! Finding the byte that ends a string (`cstring`, `until = B`) in the input's slice.

/// Eight copies of a byte's lowest bit.
const LOW_BITS: u64 = u64::from_le_bytes([0x01; 8]);
/// Eight copies of a byte's highest bit.
const HIGH_BITS: u64 = u64::from_le_bytes([0x80; 8]);

/// The index of the first `byte` in `bytes`, eight bytes at a time.
///
/// A C string is searched for through the whole rest of the input; byte by byte, that search
/// was the largest part of reading a short string, and a call to a general `memchr` costs
/// more than the strings game servers send (names, maps, tags: tens of bytes).
///
/// Each word is compared with `byte` in all its lanes at once: `x = word ^ pattern` has a zero
/// byte where `word` holds `byte`, and `(x - LOW_BITS) & !x & HIGH_BITS` sets the high bit of
/// the first such lane. Lanes above a zero byte may be flagged wrongly (the subtraction's
/// borrow runs upwards) but lanes below it never are, so the lowest flag is exact.
#[inline]
pub(crate) fn find_byte(bytes: &[u8], byte: u8) -> Option<usize> {
    let pattern = LOW_BITS * u64::from(byte);
    let (words, tail) = bytes.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let x = u64::from_le_bytes(*word) ^ pattern;
        let found = x.wrapping_sub(LOW_BITS) & !x & HIGH_BITS;
        if found != 0 {
            return Some(i * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let words_len = words.len() * 8;
    tail.iter().position(|&b| b == byte).map(|i| words_len + i)
}

#[cfg(test)]
mod tests {
    use super::find_byte;

    /// Every length up to three words, every position of the byte (and none), every byte
    /// value around the lanes' edges as the searched byte and as its neighbours: the same
    /// answer as a search byte by byte.
    #[test]
    fn agrees_with_a_byte_by_byte_search() {
        let values = [0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff];
        for len in 0..=24 {
            for &byte in &values {
                for &fill in &values {
                    let mut bytes = vec![fill; len];
                    for at in 0..=len {
                        if at < len {
                            bytes[at] = byte;
                        }
                        // A second match after the first must not be the one found.
                        if at + 3 < len {
                            bytes[at + 3] = byte;
                        }
                        let want = bytes.iter().position(|&b| b == byte);
                        assert_eq!(find_byte(&bytes, byte), want, "{bytes:02x?} {byte:#04x}");
                        bytes.fill(fill);
                    }
                }
            }
        }
    }

    /// The borrow of a matching lane flags the lane above it wrongly (`0x01` above a zero
    /// byte): the match below is still the answer.
    #[test]
    fn a_flag_above_the_match_is_not_the_answer() {
        assert_eq!(find_byte(&[7, 0, 1, 1, 1, 1, 1, 1], 0), Some(1));
        assert_eq!(find_byte(&[1, 1, 1, 1, 1, 1, 0, 1, 0], 0), Some(6));
        assert_eq!(find_byte(&[b'a'; 9], 0), None);
    }
}
