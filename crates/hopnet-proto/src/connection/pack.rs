//! Extended datagrams packed with frames: the ACK frames owed (every datagram carries them,
//! due or not), then ping and close frames and the chunks of messages sent once, then reliable
//! chunks as the congestion window and the pacer allow, and a request to acknowledge at once
//! when they fill the window; one frame per datagram without the batching extension (the
//! request aside).
//!
//! A batch (see [`Transmit`](crate::Transmit)) is datagrams of the first one's size: a later
//! datagram a few bytes shorter (a chunk without chunk 0's order information) is padded to
//! it, one shorter by more ends the batch as its last.

use std::time::Instant;

use super::Connection;
use crate::ext::Extensions;
use crate::ext::datagram;
use crate::ext::features::CRC_LEN;
use crate::ext::frame::ACK_NOW;
use crate::transmit::MAX_BATCH_BYTES;

/// The most padding a datagram takes to keep a batch together.
const MAX_PAD: usize = 16;

impl Connection {
    /// Whether anything would go into an extended datagram now.
    fn extended_due(&self, now: Instant, open: bool) -> bool {
        self.wire.frames_due(now)
            || (!self.queue.is_empty() && !self.queue.front_is_spec())
            || (open && self.outbound.may_send(now))
    }

    /// Appends a batch of up to `max` extended datagrams of `ext` to `buf`; returns how many
    /// and the size of each but the last. `open`: reliable data may be sent.
    pub(super) fn transmit_extended(
        &mut self,
        ext: Extensions,
        now: Instant,
        buf: &mut Vec<u8>,
        max: usize,
        open: bool,
    ) -> (usize, usize) {
        let crc = if ext.crc { CRC_LEN } else { 0 };
        let (mut count, mut segment) = (0, 0);
        while count < max && self.extended_due(now, open) {
            let cap = if count == 0 {
                ext.datagram_size()
            } else {
                segment
            };
            if count > 0 && (count + 1) * segment > MAX_BATCH_BYTES {
                break;
            }
            let start = datagram::begin(buf);
            self.fill(now, buf, start + cap - crc, !ext.batching, open);
            if buf.len() == start + 1 {
                buf.truncate(start);
                break;
            }
            let len = buf.len() - start + crc;
            if count == 0 {
                datagram::seal(buf, start, ext.crc, 0);
                segment = buf.len() - start;
            } else if len + MAX_PAD >= segment {
                datagram::seal(buf, start, ext.crc, segment);
            } else {
                datagram::seal(buf, start, ext.crc, 0);
                count += 1;
                break;
            }
            count += 1;
        }
        (count, segment)
    }

    /// Writes frames into the datagram being built until `end` (or one frame, if `one`).
    fn fill(&mut self, now: Instant, buf: &mut Vec<u8>, end: usize, one: bool, open: bool) {
        let start = buf.len();
        let full = |buf: &Vec<u8>| one && buf.len() > start;
        let rx = &self.rx;
        while !full(buf) && self.wire.write_frame(now, buf, end - buf.len(), rx) {}
        if full(buf) {
            return;
        }
        self.queue.write_frames(buf, end - buf.len(), one);
        if !open {
            return;
        }
        // A chunk that fills the window leaves with the request to acknowledge at once after
        // it (one byte kept for it): without the request the receiver would delay its answer,
        // and the sender, its window full, would wait for a probe timeout. Other chunks may
        // fill the datagram to its last byte, as a batch's later datagrams, exactly as long as
        // its first, may need.
        let mut sent = false;
        while !full(buf) && self.outbound.has_reliable_waiting() {
            let reserve = usize::from(self.outbound.one_fills_window());
            let room = end.saturating_sub(buf.len() + reserve);
            if self
                .outbound
                .poll_ext(now, buf, room, &mut self.stats)
                .is_none()
            {
                break;
            }
            sent = true;
        }
        if sent && self.outbound.window_full() && buf.len() < end {
            buf.push(ACK_NOW);
            self.outbound.asked(now);
        }
    }
}
