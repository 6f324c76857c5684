//! Splitting a payload into chunks: 504 bytes each but the last, at most 256 of them.

/// Bytes of payload in every chunk but the last.
pub const CHUNK_SIZE: usize = 504;
/// Chunks per message at most (the chunk index is one byte).
pub const MAX_CHUNKS: usize = 256;
/// The largest payload a message can carry: 256 × 504 = 129,024 bytes.
pub const MAX_PAYLOAD: usize = CHUNK_SIZE * MAX_CHUNKS;

/// Number of chunks a payload of `len` bytes is split into (an empty payload is one empty chunk).
pub const fn chunk_count(len: usize) -> usize {
    if len == 0 {
        1
    } else {
        len.div_ceil(CHUNK_SIZE)
    }
}

/// The bytes of chunk `index` of `payload`.
pub fn chunk_bytes(payload: &[u8], index: usize) -> &[u8] {
    let start = (index * CHUNK_SIZE).min(payload.len());
    let end = (start + CHUNK_SIZE).min(payload.len());
    &payload[start..end]
}

/// Whether a chunk of `len` bytes has a size the spec allows: a full chunk, or a last one
/// (`FIN`) of at most a full chunk.
pub(crate) const fn valid_len(len: usize, fin: bool) -> bool {
    len == CHUNK_SIZE || (fin && len < CHUNK_SIZE)
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
        assert!(valid_len(504, false) && valid_len(504, true) && valid_len(0, true));
        assert!(!valid_len(503, false) && !valid_len(505, true));
    }
}
