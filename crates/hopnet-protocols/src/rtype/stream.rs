//! Frames back to back on a byte stream (the TCP lobby), and how the reader finds its way
//! again after damaged bytes.
//!
//! A frame is self-delimiting: its compressed size says where it ends. So a reader takes the
//! header, waits for `9 + COMPRESSED_SIZE + 16` bytes, and decodes them. When they do not
//! decode, what to skip depends on whether the length itself can be trusted:
//!
//! - CRC2 and CRC3 (of the compressed and the original size) match: the sizes are intact, so
//!   the frame's extent is known; the whole frame is dropped and the next starts after it.
//! - Either differs, or the header is impossible (an action past `KEY`, a compressed size
//!   over the bound, an original size its compressed bytes cannot expand to): the length is
//!   not to be believed. One byte is dropped and the header is looked for again at the next
//!   byte, until one whose sizes check out comes (a frame boundary).
//!
//! A header with a plausible but wrong length holds the reader until that many bytes have
//! come: at most [`MAX_STREAM_FRAME`] bytes are buffered, never more.

use hopnet_formats::rtype::Frame;

use super::frames::{self, HEADER_LEN, MAX_MESSAGE, TRAILER_LEN};

/// The largest compressed message a stream frame may carry: LZ4 grows an incompressible
/// message of [`MAX_MESSAGE`] bytes by a little.
const MAX_COMPRESSED: usize = MAX_MESSAGE as usize + MAX_MESSAGE as usize / 255 + 16;
/// The most bytes one frame takes on a stream, and so the most a [`FrameReader`] buffers.
pub const MAX_STREAM_FRAME: usize = HEADER_LEN + MAX_COMPRESSED + TRAILER_LEN;
/// Actions are `KO` = 0 to `KEY` = 24.
const ACTIONS: u8 = 25;

/// Cuts frames out of a byte stream; bytes that are not a frame are skipped and counted.
#[derive(Debug, Default)]
pub struct FrameReader {
    buf: Vec<u8>,
    /// Where the unread bytes start in `buf` (skipping a byte only moves it).
    start: usize,
    /// Frames whose extent was known but whose bytes did not decode.
    pub corrupt_frames: u64,
    /// Bytes skipped one by one while looking for a frame boundary.
    pub skipped_bytes: u64,
}

/// What a header says, judged before the frame's end has come.
enum Header {
    /// More bytes are needed to judge it.
    Incomplete,
    /// Not a frame's header: skip a byte.
    Impossible,
    /// A frame of this many bytes, if its CRCs agree.
    Plausible(usize),
}

impl FrameReader {
    /// An empty reader.
    pub fn new() -> FrameReader {
        FrameReader::default()
    }

    /// How many bytes of `input` [`push`](Self::push) would take now: what fits under
    /// [`MAX_STREAM_FRAME`]. Frames must be taken with [`next_frame`](Self::next_frame) for
    /// room to free up.
    pub fn room(&self) -> usize {
        MAX_STREAM_FRAME - self.buffered()
    }

    /// Takes up to [`room`](Self::room) bytes of `input`; returns how many it took.
    pub fn push(&mut self, input: &[u8]) -> usize {
        self.buf.drain(..self.start);
        self.start = 0;
        let n = input.len().min(self.room());
        self.buf.extend_from_slice(&input[..n]);
        n
    }

    /// Bytes held, waiting to make up a frame.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The unread bytes.
    fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// The next whole frame, skipping damaged bytes; `None` until more bytes come.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let len = match self.header() {
                Header::Incomplete => return None,
                Header::Impossible => {
                    self.skip_byte();
                    continue;
                }
                Header::Plausible(len) => len,
            };
            if self.buffered() < len {
                return None;
            }
            match frames::decode(&self.pending()[..len]) {
                Ok(frame) => {
                    self.start += len;
                    return Some(frame);
                }
                Err(_) if self.sizes_intact(len) => {
                    self.corrupt_frames += 1;
                    self.start += len;
                }
                Err(_) => self.skip_byte(),
            }
        }
    }

    fn skip_byte(&mut self) {
        self.start += 1;
        self.skipped_bytes += 1;
    }

    fn header(&self) -> Header {
        let bytes = self.pending();
        let (Some(&action), Some(original), Some(compressed)) = (
            bytes.first(),
            frames::u32_at(bytes, 1),
            frames::u32_at(bytes, 5),
        ) else {
            return match bytes.first() {
                Some(&action) if action >= ACTIONS => Header::Impossible,
                _ => Header::Incomplete,
            };
        };
        let compressed = compressed as usize;
        let most_expanded = compressed.saturating_mul(255).saturating_add(16);
        if action >= ACTIONS
            || original > MAX_MESSAGE
            || compressed > MAX_COMPRESSED
            || original as usize > most_expanded
        {
            return Header::Impossible;
        }
        Header::Plausible(HEADER_LEN + compressed + TRAILER_LEN)
    }

    /// Whether CRC2 and CRC3 of the frame of `len` bytes at the front agree with its sizes.
    fn sizes_intact(&self, len: usize) -> bool {
        let bytes = self.pending();
        let crc_at = len - TRAILER_LEN;
        let crc2 = frames::u32_at(bytes, crc_at + 4);
        let crc3 = frames::u32_at(bytes, crc_at + 8);
        crc2 == Some(crc32fast::hash(&bytes[5..9])) && crc3 == Some(crc32fast::hash(&bytes[1..5]))
    }
}
