//! LZ4 per message: a message above the sender's threshold is sent as its original length (4
//! bytes, big-endian) followed by one LZ4 block, when that is shorter than the message.
//!
//! The receiver checks the length against the largest payload before it allocates anything,
//! and requires the block to decompress to exactly that length: a forged length is an error,
//! never an allocation beyond one maximum payload.

use crate::chunk::MAX_PAYLOAD;

/// Bytes in front of the LZ4 block.
pub const LENGTH_PREFIX: usize = 4;

/// Why a compressed message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CompressionError {
    /// Shorter than its length prefix.
    #[error("compressed message truncated")]
    Truncated,
    /// The length says more than a maximum payload.
    #[error("compressed message claims {0} bytes")]
    TooLarge(u32),
    /// The block is not valid LZ4, or does not give exactly the length it claims.
    #[error("corrupt LZ4 block")]
    Corrupt,
}

/// The compressed form of `payload`, if it is shorter than `payload`.
pub fn compress(payload: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(payload.len()).ok()?;
    let block = lz4_flex::block::compress(payload);
    if LENGTH_PREFIX + block.len() >= payload.len() {
        return None;
    }
    let mut out = Vec::with_capacity(LENGTH_PREFIX + block.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&block);
    Some(out)
}

/// The message a compressed message holds.
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, CompressionError> {
    let (len, block) = bytes
        .split_first_chunk::<LENGTH_PREFIX>()
        .ok_or(CompressionError::Truncated)?;
    let len = u32::from_be_bytes(*len);
    let n = usize::try_from(len).map_err(|_| CompressionError::TooLarge(len))?;
    if n > MAX_PAYLOAD {
        return Err(CompressionError::TooLarge(len));
    }
    let mut out = vec![0; n];
    match lz4_flex::block::decompress_into(block, &mut out) {
        Ok(got) if got == n => Ok(out),
        _ => Err(CompressionError::Corrupt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_only_when_smaller() {
        let text: Vec<u8> = b"snapshot entity 0042 at (1.0, 2.0, 0.0) "
            .iter()
            .copied()
            .cycle()
            .take(3000)
            .collect();
        let packed = compress(&text).expect("repetitive text compresses");
        assert!(packed.len() < text.len() / 4);
        assert_eq!(decompress(&packed).unwrap(), text);
        assert_eq!(compress(&[1, 2, 3]), None);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..600)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        assert_eq!(compress(&noise), None);
    }

    #[test]
    fn forged_lengths_and_blocks_are_errors() {
        let packed = compress(&[7u8; 1000]).unwrap();
        let mut big = packed.clone();
        big[..4].copy_from_slice(&(MAX_PAYLOAD as u32 + 1).to_be_bytes());
        assert_eq!(
            decompress(&big),
            Err(CompressionError::TooLarge(MAX_PAYLOAD as u32 + 1))
        );
        let mut short = packed.clone();
        short[..4].copy_from_slice(&999u32.to_be_bytes());
        assert_eq!(decompress(&short), Err(CompressionError::Corrupt));
        let mut long = packed.clone();
        long[..4].copy_from_slice(&1001u32.to_be_bytes());
        assert_eq!(decompress(&long), Err(CompressionError::Corrupt));
        assert_eq!(decompress(&[0, 0]), Err(CompressionError::Truncated));
        assert_eq!(
            decompress(&[0, 0, 0, 5, 0xff]),
            Err(CompressionError::Corrupt)
        );
    }
}
