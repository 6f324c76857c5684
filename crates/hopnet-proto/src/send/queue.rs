//! A new message's way in, as far as the connection's `send` takes it: framed, given its
//! sequence id, and, if reliable, queued until every chunk is acknowledged.
//!
//! Framing: a message's chunks go as the spec's datagrams or as data frames of the extended
//! wire, fixed when the message gets its sequence id. A message sent before the connection
//! agreed to the extensions keeps the spec's framing to the end (its retransmissions too), so
//! that a receiver never has to reassemble one message from chunks of two sizes; so does a
//! message too large for 256 extended chunks (at the spec's datagram size with a CRC, an
//! extended chunk is 493 bytes, 11 shorter than the spec's).
//!
//! Queueing: the reliable messages, what is still to be sent of them, new or again, and what
//! is acknowledged. [`SendQueue`] alone writes the counters that say so (chunks never sent,
//! the cursors past the messages sent whole, the chunks to send again, each message's next new
//! chunk and its acknowledged chunks), as QUIC's send buffer keeps its unsent offset and its
//! retransmissions behind a small API. What is in flight is [`sender`](super::sender)'s.

use std::collections::BTreeSet;
use std::time::Instant;

use super::Outbound;
use super::outgoing::{OutMessage, Outgoing};
use super::sender::Sender;
use crate::chunk::{CHUNK_SIZE, MAX_CHUNKS};
use crate::error::Error;
use crate::event::{Delivery, MessageId};
use crate::ext::Extensions;
use crate::ext::frame::{DataHeader, has_index};
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::Data;

/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
const SEQUENCE_WINDOW: u64 = 16384;

/// What the connection calls to queue a message.
impl Outbound {
    /// Whether a message may be given a sequence id now.
    pub fn check_room(&self, reliable: bool, len: usize) -> Result<(), Error> {
        self.sender.check_room(reliable, len)
    }
    /// Frames a new message: compresses it where that is agreed and shortens it, and picks
    /// the extended framing where it is agreed and the message fits 256 extended chunks.
    #[inline]
    pub fn frame<'a>(&mut self, data: Data<'a>, delivery: Delivery) -> (Data<'a>, Wire, bool) {
        let rel = delivery.is_acknowledged();
        let Some(ext) = &mut self.ext else {
            return (data, Wire::Spec { rel }, false);
        };
        let len = data.as_slice().len();
        let packed = if ext.compresses(len) {
            match &data {
                Data::Shared(p) => p.compressed().map(Data::Payload),
                other => crate::ext::compress::compress(other.as_slice()).map(Data::Owned),
            }
        } else {
            None
        };
        let (data, compressed) = match packed {
            Some(c) => (c, true),
            None => (data, false),
        };
        if !ext.fits(data.as_slice().len()) {
            // Too large for 256 extended chunks (only at the smallest datagram sizes): the
            // spec's framing, uncompressed, as a spec receiver would need it.
            return (data, Wire::Spec { rel }, false);
        }
        let wire = Wire::Ext(ext.frame(delivery, compressed));
        (data, wire, compressed)
    }
    /// Gives the next sequence id to a message, keeping a reliable one until acknowledged.
    pub fn allocate(&mut self, reliable: Option<(Data<'_>, Wire, Delivery)>) -> u16 {
        self.sender.allocate(reliable)
    }
    /// The id of the message allocated last.
    pub fn last_id(&self) -> MessageId {
        MessageId(self.sender.last_abs())
    }
}

impl Sender {
    /// Whether a message of `len` bytes may be given a sequence id now.
    pub fn check_room(&self, reliable: bool, len: usize) -> Result<(), Error> {
        let messages = self.queue.messages();
        if reliable
            && (messages.len() >= self.max_pending
                || messages.len() > 0 && messages.bytes() + len > self.max_pending_bytes)
        {
            return Err(Error::WouldBlock);
        }
        if let Some(oldest) = messages.oldest()
            && self.next_abs - oldest >= SEQUENCE_WINDOW
        {
            return Err(Error::WouldBlock);
        }
        Ok(())
    }
    /// Gives the next sequence id to a message. A reliable one (`Some`) is kept until every
    /// chunk is acknowledged: a copy of its payload, or a reference to shared bytes. An ordered
    /// one that must wait for others (see [`hold`](super::hold)) is sent once they are
    /// acknowledged.
    pub fn allocate(&mut self, reliable: Option<(Data<'_>, Wire, Delivery)>) -> u16 {
        let abs = self.next_abs;
        self.next_abs += 1;
        let seq = abs as u16;
        if let Some((payload, wire, delivery)) = reliable {
            let wait = self.held.must_wait(self.queue.messages(), wire, delivery);
            self.queue.push(abs, seq, payload, wire, delivery, wait);
            self.held.note(self.queue.messages(), abs, wire, delivery);
            if wait {
                self.held.push(abs);
            }
        }
        seq
    }
    /// From now on new messages may be framed for the extended wire (see
    /// [`Held::start_extended`]).
    pub fn start_extended(&mut self) {
        self.held.start_extended(self.queue.messages());
    }
}

/// The framing of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// The spec's: a 4-byte header and a chunk of up to 504 bytes per datagram.
    Spec {
        /// `REL` on every chunk (reliable and tracked messages).
        rel: bool,
    },
    /// Data frames of the extended wire.
    Ext(ExtWire),
}

/// What every data frame of an extended message repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExtWire {
    pub chunk_size: usize,
    pub delivery: Delivery,
    pub compressed: bool,
    pub index: Option<u16>,
    pub after: Option<u16>,
}

impl Wire {
    /// Bytes of payload in every chunk but the last.
    #[inline]
    pub fn chunk_size(&self) -> usize {
        match self {
            Wire::Spec { .. } => CHUNK_SIZE,
            Wire::Ext(e) => e.chunk_size,
        }
    }

    #[inline]
    pub fn is_spec(&self) -> bool {
        matches!(self, Wire::Spec { .. })
    }

    fn data_header(e: &ExtWire, seq: u16, chunk: u8, fin: bool) -> DataHeader {
        DataHeader {
            sequence: seq,
            chunk,
            fin,
            compressed: e.compressed,
            delivery: e.delivery,
            index: if chunk == 0 { e.index } else { None },
            after: if chunk == 0 { e.after } else { None },
        }
    }

    /// The bytes chunk `chunk` (`fin` if the last) of `len` bytes takes: a whole datagram on
    /// the spec's wire, a frame on the extended one.
    pub fn encoded_len(&self, seq: u16, chunk: u8, fin: bool, len: usize) -> usize {
        match self {
            Wire::Spec { .. } => HEADER_LEN + len,
            Wire::Ext(e) => Self::data_header(e, seq, chunk, fin).encoded_len(len) + len,
        }
    }

    /// Appends chunk `chunk` of message `seq` to `buf`: a spec datagram, or a data frame.
    #[inline]
    pub fn write(&self, buf: &mut Vec<u8>, seq: u16, chunk: u8, fin: bool, bytes: &[u8]) {
        match self {
            Wire::Spec { rel } => {
                let mut flags = if *rel { Flags::REL } else { Flags::NONE };
                if fin {
                    flags = flags | Flags::FIN;
                }
                buf.extend_from_slice(&Header::new(flags, chunk, seq).encode());
                buf.extend_from_slice(bytes);
            }
            Wire::Ext(e) => Self::data_header(e, seq, chunk, fin).write(buf, bytes),
        }
    }
}

/// What a connection that sends on the extended wire needs to frame new messages: the
/// agreement, and the reliable indexes of the order information.
#[derive(Debug, Clone)]
pub(crate) struct ExtSender {
    pub ext: Extensions,
    pub compression_threshold: usize,
    /// The reliable index of the next reliable, reliable ordered or semi-ordered message.
    next_index: u16,
    /// The reliable index of the last reliable ordered or semi-ordered message.
    last_ordered: Option<u16>,
}

impl ExtSender {
    pub fn new(ext: Extensions, compression_threshold: usize) -> ExtSender {
        ExtSender {
            ext,
            compression_threshold,
            next_index: 0,
            last_ordered: None,
        }
    }

    /// Whether a message of `len` bytes (as sent, after compression) fits 256 extended chunks.
    pub fn fits(&self, len: usize) -> bool {
        len <= MAX_CHUNKS * self.ext.chunk_size()
    }

    /// Whether a message of `len` bytes should be offered to the compressor.
    pub fn compresses(&self, len: usize) -> bool {
        self.ext.compression && len >= self.compression_threshold
    }

    /// The framing of a new message, numbering it if it is reliable.
    pub fn frame(&mut self, delivery: Delivery, compressed: bool) -> ExtWire {
        let mut wire = ExtWire {
            chunk_size: self.ext.chunk_size(),
            delivery,
            compressed,
            index: None,
            after: None,
        };
        if has_index(delivery) {
            let index = self.next_index;
            self.next_index = index.wrapping_add(1);
            wire.index = Some(index);
            if delivery == Delivery::ReliableOrdered {
                wire.after = self.last_ordered;
            }
            if delivery.is_ordered() {
                self.last_ordered = Some(index);
            }
        }
        wire
    }
}

/// The reliable messages not yet fully acknowledged, and what of them waits to be sent.
#[derive(Debug)]
pub(crate) struct SendQueue {
    messages: Outgoing,
    /// Chunks of `messages` never sent yet: whether there is new data to send, without a walk
    /// over the messages.
    unsent: usize,
    /// No message before this has a chunk never sent.
    cursor: u64,
    /// No message before this has a full-size chunk never sent: where a GSO batch of full
    /// chunks looks for its next one, past the messages that only have a short last chunk
    /// left (a queue of 1 KiB messages is two full chunks and one short one each).
    full_cursor: u64,
    /// Chunks declared lost, to send again: the oldest message's first, whatever order they
    /// were lost in. A receiver whose reassembly budget is full takes chunks only for its
    /// oldest reliable partial (`receive::budget`); after a timeout the window is a few
    /// chunks, and a queue in the order of loss could spend it, timeout after timeout, on
    /// chunks of later messages the receiver refuses. None of them is in flight: a chunk
    /// enters when declared lost and leaves when sent again.
    retransmit: BTreeSet<(u64, u8)>,
    /// The end (exclusive) of the last scan for a packable chunk that found none, and the
    /// room it looked for (see [`packable`](Self::packable)).
    pack_miss: Option<(u64, usize)>,
}

/// What the queue knew of a chunk when it was acknowledged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AckedChunk {
    /// Its last transmission's id.
    pub tx_id: u64,
    /// When its last transmission left.
    pub sent_at: Instant,
    /// How many times it was sent.
    pub tx_count: u32,
    /// Whether it completed its message (which is then forgotten).
    pub complete: bool,
}

impl SendQueue {
    /// An empty queue that keeps up to `spare_limit` spare buffers of each kind.
    pub fn new(spare_limit: usize) -> SendQueue {
        SendQueue {
            messages: Outgoing::new(spare_limit),
            unsent: 0,
            cursor: 0,
            full_cursor: 0,
            retransmit: BTreeSet::new(),
            pack_miss: None,
        }
    }

    /// The messages, to read.
    #[inline]
    pub fn messages(&self) -> &Outgoing {
        &self.messages
    }

    /// Keeps a new reliable message `abs`; a `held` one (see [`hold`](super::hold)) waits for
    /// [`release`](Self::release) before any of its chunks counts as waiting. Returns its
    /// chunk count.
    pub fn push(
        &mut self,
        abs: u64,
        seq: u16,
        payload: Data<'_>,
        wire: Wire,
        delivery: Delivery,
        held: bool,
    ) -> usize {
        let n = self.messages.insert(abs, seq, payload, wire, delivery);
        if held {
            // Nothing new to send until released.
            if let Some(m) = self.messages.get_mut(abs) {
                m.next_new = n;
            }
        } else {
            self.unsent += n;
        }
        n
    }

    /// Held message `abs` may leave: its chunks are new again.
    pub fn release(&mut self, abs: u64) {
        let Some(m) = self.messages.get_mut(abs) else {
            return;
        };
        self.unsent += m.next_new;
        m.next_new = 0;
        // A remembered scan may have passed over it.
        self.pack_miss = None;
        self.cursor = self.cursor.min(abs);
        self.full_cursor = self.full_cursor.min(abs);
    }

    /// Whether any chunk waits to be sent, new or again: the quick test every flush and timer
    /// query makes first, since most find nothing (even an empty `BTreeSet` costs a search to
    /// walk).
    #[inline]
    pub fn has_waiting(&self) -> bool {
        self.unsent > 0 || !self.retransmit.is_empty()
    }

    /// Whether a chunk never sent waits.
    #[inline]
    pub fn has_unsent(&self) -> bool {
        self.unsent > 0
    }

    /// Whether a chunk declared lost and not acknowledged since waits to be sent again.
    pub fn has_retransmission(&self) -> bool {
        self.retransmit
            .iter()
            .any(|&(abs, chunk)| self.is_unacked(abs, chunk))
    }

    fn is_unacked(&self, abs: u64, chunk: u8) -> bool {
        self.messages
            .get(abs)
            .and_then(|m| m.chunks.get(usize::from(chunk)))
            .is_some_and(|s| !s.acked)
    }

    /// The retransmission that goes next, if one goes before the chunks never sent: the
    /// front of the queue, once the chunks acknowledged since they were declared lost are
    /// dropped from it.
    #[inline]
    pub fn retransmit_front(&mut self) -> Option<(u64, u8)> {
        // Asked for every chunk sent, and almost always empty: answered here, not in a call
        // that saves the registers of the walk below.
        if self.retransmit.is_empty() {
            return None;
        }
        self.retransmit_front_slow()
    }

    fn retransmit_front_slow(&mut self) -> Option<(u64, u8)> {
        while let Some(&(abs, chunk)) = self.retransmit.first() {
            if self.is_unacked(abs, chunk) {
                return (!self.older_unsent(abs)).then_some((abs, chunk));
            }
            self.retransmit.pop_first();
        }
        None
    }

    /// Whether the oldest message, older than `abs`, has a chunk never sent: that chunk goes
    /// before a retransmission of `abs`. A receiver whose reassembly budget is full takes
    /// chunks only for its oldest reliable message; with the window cut to a few chunks by a
    /// timeout, retransmissions of later messages first would be refused, timeout after
    /// timeout, while the oldest message's last chunk (shorter, so left for a batch of its
    /// own) waits. Only the oldest: holding retransmissions behind every older unsent chunk
    /// would starve them behind the short last chunks of a stream of small messages.
    fn older_unsent(&self, abs: u64) -> bool {
        self.unsent > 0
            && self.messages.oldest().is_some_and(|oldest| {
                oldest < abs
                    && self
                        .messages
                        .get(oldest)
                        .is_some_and(|m| m.next_new < m.chunks.len())
            })
    }

    /// The oldest message with a chunk never sent, moving the cursor to it: past the messages
    /// sent whole, for good, so a batch of short last chunks (one per message) finds each next
    /// one at once instead of walking again past those already sent.
    pub fn first_unsent(&mut self) -> Option<u64> {
        let (abs, _) = self
            .messages
            .iter_from(self.cursor)
            .find(|(_, m)| m.next_new < m.chunks.len())?;
        self.cursor = abs;
        Some(abs)
    }

    /// The oldest message framed the spec's way with a full-size chunk never sent, from the
    /// cursor of [`first_unsent`](Self::first_unsent) on. Moves its own cursor past the
    /// messages that have none left, for good (`next_new` only grows), so the walk costs a
    /// constant per message over its life, not a scan per datagram.
    pub fn next_full(&mut self) -> Option<u64> {
        let start = self.full_cursor.max(self.cursor);
        let found = self
            .messages
            .iter_from(start)
            .find(|(_, m)| m.wire.is_spec() && m.next_new < m.full_chunks())
            .map(|(abs, _)| abs);
        self.full_cursor = found.unwrap_or_else(|| self.messages.end());
        found
    }

    /// A message after `first`, before `end`, whose last chunk (its only one never sent) fits
    /// the `room` left in an extended datagram whose next chunk (of message `first`) does not:
    /// small messages behind a large one share its datagrams. Only last chunks can be shorter
    /// than the one that did not fit.
    ///
    /// A flush asks once per datagram, each time from one message further on, so a scan that
    /// finds nothing is remembered: the next one with no more room starts past what it
    /// covered. Nothing covered can come to fit: a message's next chunk changes only when it
    /// is first, or when a held message is released (which forgets the memory), and `end` is
    /// never past the numbers already given out, so a message queued later is never taken as
    /// covered.
    pub fn packable(&mut self, first: u64, room: usize, end: u64) -> Option<u64> {
        let from = match self.pack_miss {
            Some((covered, had)) if room <= had && covered > first => covered,
            _ => first + 1,
        };
        let found = self
            .messages
            .iter_from(from)
            .take_while(|&(abs, _)| abs < end)
            .find(|(_, m)| {
                m.next_new + 1 == m.chunks.len() && !m.wire.is_spec() && m.last_len <= room
            })
            .map(|(abs, _)| abs);
        if found.is_none() {
            self.pack_miss = Some((end, room));
        }
        found
    }

    /// Takes the front retransmission (as [`retransmit_front`](Self::retransmit_front) gave
    /// it) to send.
    #[inline]
    pub fn take_retransmission(&mut self) -> Option<(u64, u8)> {
        self.retransmit.pop_first()
    }

    /// Takes the next chunk never sent of message `abs` to send.
    #[inline]
    pub fn take_new(&mut self, abs: u64) -> Option<u8> {
        let msg = self.messages.get_mut(abs)?;
        if msg.next_new >= msg.chunks.len() {
            return None;
        }
        let chunk = msg.next_new as u8;
        msg.next_new += 1;
        self.unsent -= 1;
        Some(chunk)
    }

    /// Chunk `chunk` of message `abs` left at `now` as transmission `tx_id`: returns the
    /// message, to write the chunk from.
    #[inline]
    pub fn sent(&mut self, abs: u64, chunk: u8, tx_id: u64, now: Instant) -> Option<&OutMessage> {
        let msg = self.messages.get_mut(abs)?;
        let state = msg.chunks.get_mut(usize::from(chunk))?;
        state.tx_id = tx_id;
        state.sent_at = Some(now);
        state.tx_count += 1;
        Some(msg)
    }

    /// Chunk `chunk` of message `abs` was declared lost: it waits to be sent again (once,
    /// however often it is declared lost before that).
    pub fn lost(&mut self, abs: u64, chunk: u8) {
        self.retransmit.insert((abs, chunk));
    }

    /// Chunk `chunk` of message `abs` was acknowledged. `None` if it was already, was never
    /// sent, or is not live; the message is forgotten once every chunk is acknowledged.
    pub fn ack(&mut self, abs: u64, chunk: u8) -> Option<AckedChunk> {
        let mut acked = None;
        self.ack_range(abs, abs, chunk, chunk, |c| acked = Some(c));
        acked
    }

    /// Chunks `first..=last` of the live messages `from..=to` were acknowledged: hands each
    /// chunk acknowledged for the first time to `on_acked`, and returns how many messages
    /// that completed (they are forgotten). One lookup per message, not one per chunk.
    #[inline]
    pub fn ack_range(
        &mut self,
        from: u64,
        to: u64,
        first: u8,
        last: u8,
        mut on_acked: impl FnMut(AckedChunk),
    ) -> usize {
        let mut complete = 0;
        let end = to.min(self.messages.end().saturating_sub(1));
        let mut abs = from.max(self.messages.oldest().unwrap_or(u64::MAX));
        while abs <= end {
            if let Some(msg) = self.messages.get_mut(abs) {
                let top = usize::from(last).min(msg.chunks.len() - 1);
                for chunk in usize::from(first)..=top {
                    let state = &mut msg.chunks[chunk];
                    // Never sent: an acknowledgement of it is the peer's mistake.
                    let (false, Some(sent_at)) = (state.acked, state.sent_at) else {
                        continue;
                    };
                    state.acked = true;
                    let (tx_id, tx_count) = (state.tx_id, state.tx_count);
                    msg.acked += 1;
                    let done = msg.acked == msg.chunks.len();
                    on_acked(AckedChunk {
                        tx_id,
                        sent_at,
                        tx_count,
                        complete: done,
                    });
                    if done {
                        self.messages.remove(abs);
                        complete += 1;
                        break;
                    }
                }
            }
            abs += 1;
        }
        complete
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.messages.clear();
        self.retransmit.clear();
        self.unsent = 0;
        self.pack_miss = None;
    }

    /// The memory of the last fruitless packing scan.
    #[cfg(test)]
    pub fn pack_miss(&self) -> Option<(u64, usize)> {
        self.pack_miss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Wire = Wire::Spec { rel: true };
    const R: Delivery = Delivery::Reliable;

    /// A queue of a 2-chunk message 0, a held 1-chunk message 1, nothing at 2 (unreliable),
    /// and a 1-chunk message 3.
    fn queue() -> SendQueue {
        let mut q = SendQueue::new(8);
        q.push(0, 0, Data::Borrowed(&[0; 600]), SPEC, R, false);
        q.push(1, 1, Data::Borrowed(&[1; 10]), SPEC, R, true);
        q.push(3, 3, Data::Borrowed(&[3; 10]), SPEC, R, false);
        q
    }

    #[test]
    fn held_chunks_wait_until_released_and_the_cursor_comes_back_for_them() {
        let now = Instant::now();
        let mut q = queue();
        assert!(q.has_unsent());
        let mut sent = Vec::new();
        while let Some(abs) = q.first_unsent() {
            let chunk = q.take_new(abs).unwrap();
            q.sent(abs, chunk, sent.len() as u64 + 1, now).unwrap();
            sent.push((abs, chunk));
        }
        assert_eq!(
            sent,
            [(0, 0), (0, 1), (3, 0)],
            "the held message is passed over"
        );
        assert!(!q.has_waiting());
        q.release(1);
        assert_eq!(q.first_unsent(), Some(1));
        assert_eq!(q.take_new(1), Some(0));
        assert_eq!(q.take_new(1), None, "one chunk only");
        assert!(!q.has_unsent());
    }

    #[test]
    fn a_chunk_lost_waits_once_and_leaves_the_queue_once_acknowledged() {
        let now = Instant::now();
        let mut q = queue();
        for (tx, (abs, chunk)) in [(0, 0), (0, 1), (3, 0)].into_iter().enumerate() {
            assert_eq!(q.take_new(abs), Some(chunk));
            q.sent(abs, chunk, tx as u64 + 1, now);
        }
        q.lost(3, 0);
        q.lost(0, 1);
        q.lost(0, 1);
        assert!(q.has_retransmission());
        // The oldest message's chunk first, whatever order they were lost in.
        assert_eq!(q.retransmit_front(), Some((0, 1)));
        assert_eq!(q.take_retransmission(), Some((0, 1)));
        // Acknowledged while waiting: dropped from the front, never sent again.
        let acked = q.ack(3, 0).unwrap();
        assert_eq!((acked.tx_id, acked.tx_count, acked.complete), (3, 1, true));
        assert_eq!(q.retransmit_front(), None);
        assert!(!q.has_retransmission() && !q.has_waiting());
        assert!(q.ack(3, 0).is_none(), "forgotten once complete");
    }

    #[test]
    fn a_range_acknowledges_each_sent_chunk_once_and_counts_the_messages_it_completes() {
        let now = Instant::now();
        let mut q = queue();
        q.release(1);
        for (tx, (abs, chunk)) in [(0, 0), (1, 0), (3, 0)].into_iter().enumerate() {
            assert_eq!(q.take_new(abs), Some(chunk));
            q.sent(abs, chunk, tx as u64 + 1, now);
        }
        let mut acked = Vec::new();
        // Chunks 0..=1 of messages 0..=9: chunk 1 of message 0 was never sent.
        let complete = q.ack_range(0, 9, 0, 1, |c| acked.push((c.tx_id, c.complete)));
        assert_eq!(acked, [(1, false), (2, true), (3, true)]);
        assert_eq!((complete, q.messages().len()), (2, 1));
        acked.clear();
        assert_eq!(
            q.ack_range(0, 9, 0, 1, |c| acked.push((c.tx_id, c.complete))),
            0
        );
        assert!(acked.is_empty(), "each chunk once");
    }

    #[test]
    fn indexes_count_reliable_messages_and_chain_ordered_ones() {
        let mut s = ExtSender::new(Extensions::ALL, 128);
        let u = s.frame(Delivery::Unreliable, false);
        assert_eq!((u.index, u.after), (None, None));
        let r = s.frame(Delivery::Reliable, false);
        let o1 = s.frame(Delivery::ReliableOrdered, false);
        let t = s.frame(Delivery::Tracked, false);
        let so = s.frame(Delivery::SemiOrdered, false);
        let o2 = s.frame(Delivery::ReliableOrdered, true);
        assert_eq!(r.index, Some(0));
        assert_eq!((o1.index, o1.after), (Some(1), None));
        assert_eq!(t.index, None);
        assert_eq!((so.index, so.after), (Some(2), None));
        assert_eq!(
            (o2.index, o2.after, o2.compressed),
            (Some(3), Some(2), true)
        );
        assert_eq!(o2.chunk_size, 493);
        assert!(s.fits(256 * 493) && !s.fits(256 * 493 + 1));
    }

    #[test]
    fn spec_and_extended_chunks_take_what_they_say() {
        let spec = Wire::Spec { rel: true };
        let mut buf = Vec::new();
        spec.write(&mut buf, 9, 0, true, &[1, 2]);
        assert_eq!(buf, [0x05, 0, 0, 9, 1, 2]);
        assert_eq!(spec.encoded_len(9, 0, true, 2), buf.len());
        let ext = Wire::Ext(ExtSender::new(Extensions::ALL, 128).frame(Delivery::Reliable, false));
        buf.clear();
        ext.write(&mut buf, 9, 0, true, &[1, 2]);
        assert_eq!(ext.encoded_len(9, 0, true, 2), buf.len());
        assert_eq!(buf, [0x64, 0, 9, 2, 0, 0, 1, 2]);
    }

    #[test]
    fn the_pending_queue_is_bounded_in_bytes_but_always_takes_one_message() {
        let mut s = Sender::new(8, 3000);
        let wire = Wire::Spec { rel: true };
        // A message larger than the bound is taken when nothing is pending.
        assert!(s.check_room(true, 5000).is_ok());
        s.allocate(Some((Data::Borrowed(&[0; 5000]), wire, Delivery::Reliable)));
        assert!(matches!(s.check_room(true, 1), Err(Error::WouldBlock)));
        // Unreliable messages do not wait in it.
        assert!(s.check_room(false, 1).is_ok());
        // Below the bound, a message is taken while it fits.
        let mut s = Sender::new(8, 3000);
        s.allocate(Some((Data::Borrowed(&[0; 1000]), wire, Delivery::Reliable)));
        assert_eq!(s.queue.messages().bytes(), 1000);
        assert!(s.check_room(true, 2000).is_ok());
        assert!(matches!(s.check_room(true, 2001), Err(Error::WouldBlock)));
    }
}
