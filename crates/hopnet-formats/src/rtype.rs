//! R-TYPE (`spec/context-rtype-rfc.txt`, "RFC 4242"): the `NetworkEvent` frame. An action byte,
//! the message's original size, its compressed size, the LZ4-compressed message, then four
//! CRC32s: of the original message, of the compressed size, of the original size, of the
//! action.
//!
//! # Choices the RFC leaves open
//!
//! - **Byte order: little-endian.** The sizes are C `int`s and the CRCs four bytes, copied
//!   from memory by the C++ implementation the RFC describes; on its machines that is
//!   little-endian. The CRCs "of the compressed size", "of the original size" and "of the
//!   ACTION" are therefore CRC32s of those fields' bytes as sent.
//! - **Compression: the LZ4 block format**, the one that needs the original size beside the
//!   compressed bytes, as the frame carries it.
//! - **The actions** are numbered in the order the RFC lists them, `KO` = 0 to `KEY` = 24.
//!
//! Decoding checks all four CRCs, and decompresses only a message whose claimed size is
//! within [`MAX_MESSAGE`] and within what its compressed bytes can expand to: a frame that
//! claims 4 GiB is an error before anything is allocated.

use hopnet_codec::layout::{Computed, Transform};
use hopnet_codec::{Error, Rabbit, Result};

/// The action of a frame: one byte.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[allow(missing_docs)]
#[bits(8)]
pub enum Action {
    Ko,
    Connect,
    Create,
    List,
    Join,
    Joined,
    Ready,
    Start,
    Left,
    Right,
    Up,
    Down,
    Space,
    Quit,
    Ping,
    Pong,
    Sprite,
    Text,
    Dead,
    Flip,
    Reset,
    Unknown,
    Check,
    Sound,
    Key,
}

/// The largest message a frame may claim: a UDP datagram's payload, 65,507 bytes, expanded
/// by LZ4 is far more than a game message; 1 MiB bounds what a decoder reserves.
pub const MAX_MESSAGE: u32 = 1 << 20;

/// A `NetworkEvent` as it goes on the wire.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
pub struct Frame {
    /// What to do.
    pub action: Action,
    /// `ORIGINAL_SIZE`: the message's length in bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "size_of(message)")]
    pub original_size: Computed<u32>,
    /// `COMPRESSED_SIZE`: the compressed message's length in bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub compressed_size: Computed<u32>,
    /// The message, a string that may be empty; on the wire, LZ4-compressed.
    #[rabbit(
        byte_len = "compressed_size",
        transform = "Lz4 { size: *original_size }"
    )]
    pub message: String,
    /// `CRC1`: of the original message.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "crc32fast::hash(message.as_bytes())")]
    pub crc_message: Computed<u32>,
    /// `CRC2`: of the compressed size's four bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "crc32fast::hash(&compressed_size.to_le_bytes())")]
    pub crc_compressed_size: Computed<u32>,
    /// `CRC3`: of the original size's four bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "crc32fast::hash(&original_size.to_le_bytes())")]
    pub crc_original_size: Computed<u32>,
    /// `CRC4`: of the action's byte.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "crc32fast::hash(&[*action as u8])")]
    pub crc_action: Computed<u32>,
}

impl Frame {
    /// A frame of `action` with `message`.
    pub fn new(action: Action, message: impl Into<String>) -> Self {
        Frame {
            action,
            original_size: Computed::new(),
            compressed_size: Computed::new(),
            message: message.into(),
            crc_message: Computed::new(),
            crc_compressed_size: Computed::new(),
            crc_original_size: Computed::new(),
            crc_action: Computed::new(),
        }
    }
}

/// The message's length, as `ORIGINAL_SIZE` holds it; a message too long for it gives
/// `u32::MAX`, which the transform then refuses.
pub fn size_of(message: &str) -> u32 {
    u32::try_from(message.len()).unwrap_or(u32::MAX)
}

/// LZ4 block compression of a message whose original length is `size` (read from the frame
/// when decoding).
pub struct Lz4 {
    /// The original length in bytes.
    pub size: u32,
}

/// The most an LZ4 block expands: each byte of its input can stand for at most 255 bytes of
/// output, with a few bytes of slack for the last literals.
fn most_expanded(compressed: usize) -> u64 {
    compressed as u64 * 255 + 16
}

impl Transform<String> for Lz4 {
    fn apply(&self, message: &String, out: &mut Vec<u8>) -> Result<()> {
        if message.len() as u64 > MAX_MESSAGE as u64 {
            return Err(Error::TooLong {
                len: message.len() as u64,
                max: MAX_MESSAGE as u64,
            });
        }
        out.extend_from_slice(&lz4_flex::block::compress(message.as_bytes()));
        Ok(())
    }

    fn revert(&self, compressed: &[u8]) -> Result<String> {
        let size = self.size as u64;
        if size > MAX_MESSAGE as u64 || size > most_expanded(compressed.len()) {
            return Err(Error::TooLong {
                len: size,
                max: (MAX_MESSAGE as u64).min(most_expanded(compressed.len())),
            });
        }
        let bytes = lz4_flex::block::decompress(compressed, size as usize)
            .map_err(|e| Error::custom(format!("LZ4: {e}")))?;
        if bytes.len() as u64 != size {
            return Err(Error::custom(format!(
                "LZ4: {} bytes, where the frame claims {size}",
                bytes.len()
            )));
        }
        String::from_utf8(bytes)
            .map_err(|e| Error::custom(format!("the message is not UTF-8: {e}")))
    }
}
