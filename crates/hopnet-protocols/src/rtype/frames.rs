//! One frame to bytes and back: `hopnet_formats::rtype::Frame` through hopnet's codec, with
//! the size a peer may claim checked before anything is decompressed.

use hopnet_formats::rtype::{Action, Frame};

/// Bytes before the compressed message: the action and the two sizes.
pub const HEADER_LEN: usize = 9;
/// Bytes after it: the four CRC32s.
pub const TRAILER_LEN: usize = 16;

/// The longest message either side of R-TYPE sends here (a LIST line or a SPRITE is a few
/// dozen bytes): a frame claiming more is refused before its LZ4 block is touched.
pub const MAX_MESSAGE: u32 = 1024;

/// Datagrams an instance or a client holds for its driver at most; what comes on top is
/// dropped (and counted), as a full socket buffer would drop it. A resync answer is at most
/// [`MAX_ENTITIES`](super::MAX_ENTITIES) SPRITEs, so this holds dozens of them.
pub const MAX_OUTBOX: usize = 1024;

/// The frame's bytes, appended to `out`. Only a message longer than the codec's bound fails,
/// and every message this module writes is far shorter.
pub fn encode(action: Action, message: &str, out: &mut Vec<u8>) {
    let frame = Frame::new(action, message);
    if let Err(e) = hopnet_codec::encode_into(&frame, out) {
        debug_assert!(false, "an R-TYPE frame did not encode: {e}");
    }
}

/// The frame's bytes in a new buffer.
pub fn to_bytes(action: Action, message: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + TRAILER_LEN + message.len() + 8);
    encode(action, message, &mut out);
    out
}

/// The little-endian `u32` at `at`, if the bytes reach that far.
pub fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Why a datagram (or a frame cut from a stream) is not a frame; each is counted, none ends
/// the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// Shorter than a frame's header and trailer.
    Short,
    /// Its original size is over [`MAX_MESSAGE`].
    TooLong,
    /// The bytes do not decode: a CRC differs, the LZ4 block is damaged, the sizes lie, or
    /// bytes are left over.
    Corrupt,
}

/// Decodes `bytes`, exactly one frame (one UDP datagram).
pub fn decode(bytes: &[u8]) -> Result<Frame, Rejected> {
    if bytes.len() < HEADER_LEN + TRAILER_LEN {
        return Err(Rejected::Short);
    }
    if u32_at(bytes, 1).is_none_or(|size| size > MAX_MESSAGE) {
        return Err(Rejected::TooLong);
    }
    hopnet_codec::from_bytes::<Frame>(bytes).map_err(|_| Rejected::Corrupt)
}
