//! Splitting a payload into chunks: 504 bytes each but the last, at most 256 of them. (An
//! extended message's chunks have the size its connection agreed on, see
//! [`Extensions::chunk_size`](crate::ext::Extensions::chunk_size); the rule is the same.)

/// Bytes of payload in every chunk but the last.
pub const CHUNK_SIZE: usize = 504;
/// Chunks per message at most (the chunk index is one byte).
pub const MAX_CHUNKS: usize = 256;
/// The largest payload a message can carry: 256 × 504 = 129,024 bytes.
pub const MAX_PAYLOAD: usize = CHUNK_SIZE * MAX_CHUNKS;

/// Number of chunks a payload of `len` bytes is split into (an empty payload is one empty chunk).
#[cfg(any(test, feature = "fuzzing"))]
pub const fn chunk_count(len: usize) -> usize {
    count_chunks(len, CHUNK_SIZE)
}

/// The bytes of chunk `index` of `payload`.
pub fn chunk_bytes(payload: &[u8], index: usize) -> &[u8] {
    chunk_of(payload, index, CHUNK_SIZE)
}

/// Chunks of `size` bytes a payload of `len` bytes is split into.
pub(crate) const fn count_chunks(len: usize, size: usize) -> usize {
    if len == 0 { 1 } else { len.div_ceil(size) }
}

/// The bytes of chunk `index` of `payload`, in chunks of `size` bytes.
pub(crate) fn chunk_of(payload: &[u8], index: usize, size: usize) -> &[u8] {
    let start = (index * size).min(payload.len());
    let end = (start + size).min(payload.len());
    &payload[start..end]
}

/// Whether a chunk of `len` bytes has a size the rule allows for chunks of `size` bytes: a
/// full chunk, or a last one (`FIN`) of at most a full chunk.
pub(crate) const fn valid_len(len: usize, fin: bool, size: usize) -> bool {
    len == size || (fin && len < size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(chunk_count(0), 1);
        assert_eq!(chunk_count(504), 1);
        assert_eq!(chunk_count(505), 2);
        assert_eq!(chunk_count(MAX_PAYLOAD), 256);
        assert_eq!(chunk_bytes(&[1, 2, 3], 0), &[1, 2, 3]);
        assert!(valid_len(504, false, 504) && valid_len(504, true, 504));
        assert!(valid_len(0, true, 504) && valid_len(1190, false, 1190));
        assert!(!valid_len(503, false, 504) && !valid_len(505, true, 504));
    }
}
