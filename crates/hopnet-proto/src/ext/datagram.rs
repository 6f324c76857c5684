//! The extended datagram: a marker byte, frames, and a CRC-32 when agreed.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------+-----------------------------------------------+
//! | Marker 0xE2   |  Frames ...                                   |
//! +---------------+-----------------------------------------------+
//! |                    CRC-32, if agreed                          |
//! +---------------------------------------------------------------+
//! ```
//!
//! The marker reads as a spec header's flags byte with `ACK` and three reserved bits set: no
//! spec peer sends it (they send reserved bits as zero), so it tells an extended datagram from
//! a packet, and one flipped bit cannot make either look like the other. An extended datagram
//! is never shorter than [`MIN_LEN`] bytes, so it is never taken for a 4-byte handshake
//! datagram (PROTOCOL.md, "The 4-byte rule"): a shorter one is padded.

use std::sync::OnceLock;

use super::frame::{self, Frame, FrameError, PADDING};
use crate::ext::features::CRC_LEN;

/// The first byte of every extended datagram.
pub const MARKER: u8 = 0xE2;
/// The shortest extended datagram.
pub const MIN_LEN: usize = 5;

/// Why an extended datagram was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DatagramError {
    /// Shorter than [`MIN_LEN`] or without the marker.
    #[error("not an extended datagram")]
    NotExtended,
    /// The CRC-32 does not match the bytes before it.
    #[error("CRC mismatch")]
    Crc,
    /// A frame does not parse.
    #[error("malformed frame: {0}")]
    Frame(#[from] FrameError),
}

/// Whether a datagram has the marker (it may still be malformed).
pub fn is_extended(datagram: &[u8]) -> bool {
    datagram.first() == Some(&MARKER)
}

/// Checks the marker, the length and (if `crc`) the CRC; returns the frames' bytes, every
/// frame checked to parse, so that a datagram is used whole or not at all.
#[cfg(any(test, feature = "fuzzing"))]
pub fn open(datagram: &[u8], crc: bool) -> Result<&[u8], DatagramError> {
    let frames = unseal(datagram, crc)?;
    for f in Frames(frames) {
        f?;
    }
    Ok(frames)
}

/// [`open`] without the frames checked: for a caller that checks them in a pass of its own
/// before using any (the connection, which checks them against the agreement in the same pass).
pub(crate) fn unseal(datagram: &[u8], crc: bool) -> Result<&[u8], DatagramError> {
    if datagram.len() < MIN_LEN || !is_extended(datagram) {
        return Err(DatagramError::NotExtended);
    }
    let body = if crc {
        let (body, sum) = datagram
            .split_last_chunk::<CRC_LEN>()
            .ok_or(DatagramError::NotExtended)?;
        if checksum(body) != u32::from_be_bytes(*sum) {
            return Err(DatagramError::Crc);
        }
        body
    } else {
        datagram
    };
    Ok(&body[1..])
}

/// The frames of an opened datagram, in order.
#[derive(Debug, Clone, Copy)]
pub struct Frames<'a>(pub &'a [u8]);

impl<'a> Iterator for Frames<'a> {
    type Item = Result<Frame<'a>, FrameError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        match frame::decode(self.0) {
            Ok((f, used)) => {
                self.0 = &self.0[used..];
                Some(Ok(f))
            }
            Err(e) => {
                self.0 = &[];
                Some(Err(e))
            }
        }
    }
}

/// The CRC-32 of `bytes`, as `crc32fast::hash` computes it. A new hasher asks which CPU
/// features there are on every call; a clone of one made once does not, and datagrams are
/// checked by the hundred thousand a second.
pub(crate) fn checksum(bytes: &[u8]) -> u32 {
    static HASHER: OnceLock<crc32fast::Hasher> = OnceLock::new();
    let mut hasher = HASHER.get_or_init(crc32fast::Hasher::new).clone();
    hasher.update(bytes);
    hasher.finalize()
}

/// Starts a datagram at the end of `buf`; returns where it starts.
pub fn begin(buf: &mut Vec<u8>) -> usize {
    let start = buf.len();
    buf.push(MARKER);
    start
}

/// Ends the datagram that starts at `start`: pads it to `pad_to` bytes in all (CRC included)
/// and to at least [`MIN_LEN`], then appends the CRC if `crc`.
pub fn seal(buf: &mut Vec<u8>, start: usize, crc: bool, pad_to: usize) {
    let trailer = if crc { CRC_LEN } else { 0 };
    let want = pad_to.max(MIN_LEN).saturating_sub(trailer);
    let len = buf.len() - start;
    if len < want {
        buf.resize(start + want, PADDING);
    }
    if crc {
        let sum = checksum(&buf[start..]);
        buf.extend_from_slice(&sum.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::frame::{CLOSE, PING};

    #[test]
    fn the_checksum_is_crc32fast_s() {
        let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 15, 16, 63, 64, 65, 1036, 1195, 3000] {
            assert_eq!(
                checksum(&bytes[..len]),
                crc32fast::hash(&bytes[..len]),
                "{len}"
            );
        }
    }

    #[test]
    fn sealed_datagrams_open_and_corruption_is_caught() {
        let mut buf = vec![1, 2, 3];
        let start = begin(&mut buf);
        buf.push(PING);
        seal(&mut buf, start, true, 0);
        let d = &buf[start..];
        assert_eq!(d.len(), 6, "marker, ping, CRC");
        let frames = open(d, true).unwrap();
        let got: Vec<_> = Frames(frames).map(Result::unwrap).collect();
        assert_eq!(got, [Frame::Ping]);
        for bit in 0..d.len() * 8 {
            let mut bad = d.to_vec();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(open(&bad, true).is_err(), "bit {bit}");
        }
        // Without a CRC: padding up to 5 bytes, then nothing.
        let mut buf = Vec::new();
        let start = begin(&mut buf);
        buf.push(CLOSE);
        seal(&mut buf, start, false, 0);
        assert_eq!(buf, [MARKER, CLOSE, 0, 0, 0]);
        assert!(open(&buf, false).is_ok());
        assert_eq!(open(&buf[..4], false), Err(DatagramError::NotExtended));
        assert_eq!(
            open(&[MARKER, 0x80, 0, 0, 0], false),
            Err(DatagramError::Frame(FrameError::UnknownType(0x80)))
        );
        // Padded to a batch's segment size.
        let mut buf = Vec::new();
        let start = begin(&mut buf);
        buf.push(PING);
        seal(&mut buf, start, true, 100);
        assert_eq!(buf.len(), 100);
        assert!(open(&buf, true).is_ok());
    }
}
