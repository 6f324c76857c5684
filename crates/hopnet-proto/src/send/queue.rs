//! A reliable message as the sender keeps it until every chunk is acknowledged: its framing,
//! its bytes, and what of it is still to send.
//!
//! Framing: a message's chunks go as the spec's datagrams or as data frames of the extended
//! wire, fixed when the message gets its sequence id. A message sent before the connection
//! agreed to the extensions keeps the spec's framing to the end (its retransmissions too), so
//! that a receiver never has to reassemble one message from chunks of two sizes; so does a
//! message too large for 256 extended chunks (at the spec's datagram size with a CRC, an
//! extended chunk is 493 bytes, 11 shorter than the spec's).
//!
//! Storage: the reliable messages a sender still holds, by sequence number, and the buffers it
//! recycles. A message sent as a shared [`Payload`] is held by reference, never copied.
//! Sequence numbers are handed out one after another and a reliable message is forgotten once
//! every chunk is acknowledged, so the live ones form a window of consecutive numbers (with
//! holes for unreliable messages and for messages already acknowledged). A ring of slots
//! indexed by `abs - base` finds any of them with one subtraction, where an ordered map paid a
//! tree walk on every chunk sent and every ACK received. The window is bounded: the sender
//! refuses new messages once the oldest live one is `SEQUENCE_WINDOW` numbers behind
//! (see `Sender::check_room`), so the ring never holds more slots than that.
//!
//! Queueing: what is still to be sent of the messages, new or again, and what is acknowledged.
//! [`SendQueue`] alone writes the counters that say so (chunks never sent, the cursors past
//! the messages sent whole, the chunks to send again, each message's next new chunk and its
//! acknowledged chunks), as QUIC's send buffer keeps its unsent offset and its retransmissions
//! behind a small API. What is in flight is [`sender`](super::sender)'s.

use std::collections::{BTreeSet, VecDeque};
use std::ops::{Deref, DerefMut};
use std::time::Instant;

use crate::chunk::{CHUNK_SIZE, MAX_CHUNKS, chunk_of, count_chunks};
use crate::event::Delivery;
use crate::ext::Extensions;
use crate::ext::frame::{DataHeader, has_index};
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::payload::{Data, Payload};
use crate::spares::{MAX_SPARE_CAPACITY, Spares};

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

/// What the sender knows of one chunk of a reliable message (written by the queue,
/// [`SendQueue`]; whether it is in flight is `sender.rs`'s to know).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ChunkState {
    /// Its last transmission's id.
    pub tx_id: u64,
    /// When its last transmission left; `None` until it is sent.
    pub sent_at: Option<Instant>,
    pub tx_count: u32,
    pub acked: bool,
}

/// A message's chunk states. A message of one chunk (most of a game's, and every message up
/// to a datagram's payload) keeps its state inline, so that sending it allocates nothing for
/// it; a longer one uses a recycled vector.
#[derive(Debug)]
pub(crate) enum ChunkStates {
    One([ChunkState; 1]),
    Many(Vec<ChunkState>),
}

impl Deref for ChunkStates {
    type Target = [ChunkState];
    #[inline]
    fn deref(&self) -> &[ChunkState] {
        match self {
            ChunkStates::One(one) => one,
            ChunkStates::Many(many) => many,
        }
    }
}

impl DerefMut for ChunkStates {
    #[inline]
    fn deref_mut(&mut self) -> &mut [ChunkState] {
        match self {
            ChunkStates::One(one) => one,
            ChunkStates::Many(many) => many,
        }
    }
}

/// How a reliable message's bytes are held.
#[derive(Debug)]
enum Body {
    /// A copy, in a recycled buffer.
    Copied(Vec<u8>),
    /// A reference to bytes shared with other messages.
    Shared(Payload),
}

/// A reliable message not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct OutMessage {
    pub seq: u16,
    body: Body,
    /// How its chunks are framed.
    pub wire: Wire,
    pub delivery: Delivery,
    /// The first chunk never sent (all of them while an ordered message waits, see
    /// `hold.rs`). Moved by the queue alone (`queue.rs`).
    pub next_new: usize,
    /// Chunks acknowledged. Counted by the queue alone (`queue.rs`).
    pub acked: usize,
    pub chunks: ChunkStates,
    /// What the last chunk takes on the wire ([`encoded_len`](Self::encoded_len) of it), kept
    /// so that a datagram's leftover room is matched against the queue's small messages
    /// without framing each one again.
    pub last_len: usize,
}

impl OutMessage {
    /// The payload (as sent: compressed, if it is).
    pub fn bytes(&self) -> &[u8] {
        match &self.body {
            Body::Copied(bytes) => bytes,
            Body::Shared(payload) => payload,
        }
    }

    /// Chunks of exactly the wire's chunk size (all but a shorter last one).
    #[inline]
    pub fn full_chunks(&self) -> usize {
        self.bytes().len() / self.wire.chunk_size()
    }

    /// The bytes of chunk `index`.
    #[inline]
    pub fn chunk(&self, index: usize) -> &[u8] {
        chunk_of(self.bytes(), index, self.wire.chunk_size())
    }

    /// The bytes chunk `index` takes on the wire (a datagram, or a frame).
    #[inline]
    pub fn encoded_len(&self, index: usize) -> usize {
        if index + 1 == self.chunks.len() {
            return self.last_len;
        }
        let len = self.chunk(index).len();
        if let Wire::Spec { .. } = self.wire {
            return HEADER_LEN + len;
        }
        let fin = index + 1 == self.chunks.len();
        self.wire.encoded_len(self.seq, index as u8, fin, len)
    }
}

/// Spares kept once nothing is in flight: enough for the messages of a busy tick, few enough
/// that an idle connection holds little (a server may have thousands).
const SPARE_IDLE: usize = 64;

/// The live reliable messages, in sequence order.
#[derive(Debug)]
pub(crate) struct Outgoing {
    /// The absolute sequence number of `slots[0]`.
    base: u64,
    /// `None` for a number whose message is unreliable or fully acknowledged; never `None` at
    /// the front.
    slots: VecDeque<Option<OutMessage>>,
    live: usize,
    /// Payload bytes of the live messages.
    bytes: usize,
    /// Spare buffers kept while messages are in flight: as many as the pending queue may hold
    /// (`max_pending_reliable`), so that a sender streaming small messages reuses the buffers
    /// its acknowledgements free however many one ACK frees at once (with 64, every message
    /// past the spares paid an allocation and its free). Spares never outnumber the messages
    /// live at once, so their bytes stay within what the queue held (`max_pending_bytes`).
    spare_limit: usize,
    /// Payload buffers of acknowledged copied messages, for the next ones: up to
    /// `spare_limit` of them, each small (see [`Spares`]).
    spare_data: Spares,
    /// Chunk state vectors of acknowledged messages.
    spare_chunks: Vec<Vec<ChunkState>>,
}

impl Outgoing {
    /// An empty queue that keeps up to `spare_limit` spares of each kind.
    pub fn new(spare_limit: usize) -> Outgoing {
        Outgoing {
            base: 0,
            slots: VecDeque::new(),
            live: 0,
            bytes: 0,
            spare_limit,
            spare_data: Spares::new(spare_limit, spare_limit.saturating_mul(MAX_SPARE_CAPACITY)),
            spare_chunks: Vec::new(),
        }
    }

    /// Live messages.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Payload bytes of the live messages.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The absolute sequence number of the oldest live message.
    pub fn oldest(&self) -> Option<u64> {
        (!self.slots.is_empty()).then_some(self.base)
    }

    /// Keeps `payload` as message `abs` (newer than every live one): a slice is copied into a
    /// recycled buffer where there is one, shared bytes are referenced. Returns its chunk count.
    pub fn insert(&mut self, abs: u64, payload: Data<'_>, wire: Wire, delivery: Delivery) -> usize {
        // On the wire, a message is its absolute number's low 16 bits.
        let seq = abs as u16;
        let len = payload.as_slice().len();
        let n = count_chunks(len, wire.chunk_size());
        debug_assert!(n <= MAX_CHUNKS);
        let body = match payload {
            Data::Borrowed(bytes) => Body::Copied(self.spare_data.copy_of(bytes)),
            Data::Shared(payload) => Body::Shared(payload.clone()),
            Data::Owned(bytes) => Body::Copied(bytes),
            Data::Payload(payload) => Body::Shared(payload),
        };
        let chunks = if n == 1 {
            ChunkStates::One([ChunkState::default()])
        } else {
            let mut many = self.spare_chunks.pop().unwrap_or_default();
            many.clear();
            many.resize(n, ChunkState::default());
            ChunkStates::Many(many)
        };
        if self.slots.is_empty() {
            self.base = abs;
        }
        let index = (abs - self.base) as usize;
        debug_assert!(index >= self.slots.len(), "sequence numbers only grow");
        while self.slots.len() < index {
            self.slots.push_back(None);
        }
        let last = len - (n - 1) * wire.chunk_size();
        self.slots.push_back(Some(OutMessage {
            seq,
            body,
            wire,
            delivery,
            next_new: 0,
            acked: 0,
            chunks,
            last_len: wire.encoded_len(seq, (n - 1) as u8, true, last),
        }));
        self.live += 1;
        self.bytes += len;
        n
    }

    fn index(&self, abs: u64) -> Option<usize> {
        let index = usize::try_from(abs.checked_sub(self.base)?).ok()?;
        (index < self.slots.len()).then_some(index)
    }

    pub fn get(&self, abs: u64) -> Option<&OutMessage> {
        self.slots.get(self.index(abs)?)?.as_ref()
    }

    pub fn get_mut(&mut self, abs: u64) -> Option<&mut OutMessage> {
        let index = self.index(abs)?;
        self.slots.get_mut(index)?.as_mut()
    }

    /// Forgets message `abs`, keeping its buffers for a later message.
    pub fn remove(&mut self, abs: u64) {
        let Some(index) = self.index(abs) else {
            return;
        };
        let Some(msg) = self.slots[index].take() else {
            return;
        };
        self.live -= 1;
        self.bytes -= msg.bytes().len();
        if let ChunkStates::Many(many) = msg.chunks
            && self.spare_chunks.len() < self.spare_limit
        {
            self.spare_chunks.push(many);
        }
        if let Body::Copied(data) = msg.body {
            self.spare_data.give(data);
        }
        while matches!(self.slots.front(), Some(None)) {
            self.slots.pop_front();
            self.base += 1;
        }
        if self.live == 0 {
            self.spare_data.truncate(SPARE_IDLE);
            self.spare_chunks.truncate(SPARE_IDLE);
        }
    }

    /// The live messages from `abs` on, oldest first, with their numbers.
    ///
    /// By index rather than through `VecDeque::range`: callers mostly take the first one or
    /// two (the next unsent message, the next one an acknowledgement names), and a range's
    /// set-up over the ring's two halves cost more than the lookups.
    pub fn iter_from(&self, abs: u64) -> impl Iterator<Item = (u64, &OutMessage)> + '_ {
        let base = self.base;
        (abs.max(base)..self.end())
            .filter_map(move |abs| Some((abs, self.slots.get((abs - base) as usize)?.as_ref()?)))
    }

    /// The number one past the newest slot: where a scan from a cursor can stop.
    pub fn end(&self) -> u64 {
        self.base + self.slots.len() as u64
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.live = 0;
        self.bytes = 0;
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
        payload: Data<'_>,
        wire: Wire,
        delivery: Delivery,
        held: bool,
    ) -> usize {
        let n = self.messages.insert(abs, payload, wire, delivery);
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
mod tests;

#[cfg(test)]
mod storage_tests;
