//! The reliable messages a sender still holds, by sequence number, and the buffers it recycles.
//! A message sent as a shared [`Payload`] is held by reference, never copied.
//!
//! Sequence numbers are handed out one after another and a reliable message is forgotten once
//! every chunk is acknowledged, so the live ones form a window of consecutive numbers (with
//! holes for unreliable messages and for messages already acknowledged). A ring of slots
//! indexed by `abs - base` finds any of them with one subtraction, where an ordered map paid a
//! tree walk on every chunk sent and every ACK received. The window is bounded: the sender
//! refuses new messages once the oldest live one is `SEQUENCE_WINDOW` numbers behind
//! (see `Sender::check_room`), so the ring never holds more slots than that.

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::time::Instant;

use super::queue::Wire;
use crate::chunk::{MAX_CHUNKS, chunk_of, count_chunks};
use crate::event::Delivery;
use crate::packet::HEADER_LEN;
use crate::payload::{Data, Payload};
use crate::spares::{MAX_SPARE_CAPACITY, Spares};

/// What the sender knows of one chunk of a reliable message (written by the queue,
/// `queue.rs`; whether it is in flight is `sender.rs`'s to know).
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
    pub fn insert(
        &mut self,
        abs: u64,
        seq: u16,
        payload: Data<'_>,
        wire: Wire,
        delivery: Delivery,
    ) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Wire = Wire::Spec { rel: true };
    const R: Delivery = Delivery::Reliable;
    /// Spares kept in flight, as the default `max_pending_reliable`.
    const SPARES: usize = 1024;

    #[test]
    fn slots_follow_sequence_numbers_and_trim_from_the_front() {
        let mut o = Outgoing::new(SPARES);
        o.insert(10, 10, Data::Borrowed(&[1; 600]), SPEC, R);
        // 11 and 12 were unreliable.
        let shared = Payload::from(&[2u8; 10][..]);
        o.insert(13, 13, Data::Shared(&shared), SPEC, R);
        assert_eq!((o.len(), o.bytes()), (2, 610));
        assert_eq!(o.oldest(), Some(10));
        assert_eq!(o.get(13).map(|m| m.bytes()), Some(&shared[..]));
        assert!(o.get(11).is_none() && o.get(9).is_none() && o.get(14).is_none());
        assert_eq!(
            o.get(10).map(|m| (m.chunks.len(), m.full_chunks())),
            Some((2, 1))
        );
        let live: Vec<u64> = o.iter_from(0).map(|(abs, _)| abs).collect();
        assert_eq!(live, [10, 13]);
        o.remove(13);
        assert_eq!(o.oldest(), Some(10), "a hole behind the front stays");
        assert_eq!(o.bytes(), 600);
        o.remove(10);
        assert_eq!((o.len(), o.oldest(), o.bytes()), (0, None, 0));
        // A later message starts the ring afresh, in a recycled buffer.
        o.insert(40_000, 40_000u64 as u16, Data::Borrowed(&[3; 5]), SPEC, R);
        assert_eq!(o.oldest(), Some(40_000));
        assert_eq!(o.get(40_000).map(|m| m.bytes()), Some(&[3u8; 5][..]));
        assert!(o.iter_from(40_001).next().is_none());
    }

    #[test]
    fn spares_are_bounded_and_trimmed_when_idle() {
        let mut o = Outgoing::new(SPARES);
        o.insert(
            0,
            0,
            Data::Borrowed(&vec![0; MAX_SPARE_CAPACITY + 1]),
            SPEC,
            R,
        );
        o.remove(0);
        assert_eq!(o.spare_data.len(), 0);
        // Two chunks each, so that their chunk states are vectors too.
        let last = SPARES as u64 + 10;
        for abs in 1..=last {
            o.insert(abs, abs as u16, Data::Borrowed(&[0; 600]), SPEC, R);
        }
        for abs in 1..last {
            o.remove(abs);
        }
        assert_eq!(o.spare_data.len(), SPARES);
        assert_eq!(o.spare_chunks.len(), SPARES);
        // Once nothing is in flight, a few are kept.
        o.remove(last);
        assert_eq!(o.spare_data.len(), SPARE_IDLE);
        assert_eq!(o.spare_chunks.len(), SPARE_IDLE);
    }

    #[test]
    fn the_kept_length_of_the_last_chunk_is_what_framing_it_takes() {
        use crate::ext::Extensions;
        use crate::send::queue::ExtSender;
        let mut ext = ExtSender::new(Extensions::ALL, 128);
        let mut o = Outgoing::new(SPARES);
        let deliveries = [
            Delivery::Reliable,
            Delivery::ReliableOrdered,
            Delivery::Tracked,
        ];
        let lens = [0, 1, 127, 128, 492, 493, 494, 1024, 5000];
        let mut abs = 0;
        for len in lens {
            for (i, delivery) in deliveries.into_iter().enumerate() {
                let wire = if i == 0 {
                    SPEC
                } else {
                    Wire::Ext(ext.frame(delivery, false))
                };
                o.insert(
                    abs,
                    abs as u16,
                    Data::Borrowed(&vec![7; len]),
                    wire,
                    delivery,
                );
                let m = o.get(abs).unwrap();
                let last = m.chunks.len() - 1;
                let framed = m
                    .wire
                    .encoded_len(m.seq, last as u8, true, m.chunk(last).len());
                assert_eq!(m.encoded_len(last), framed, "{len} bytes, {delivery:?}");
                let mut buf = Vec::new();
                m.wire
                    .write(&mut buf, m.seq, last as u8, true, m.chunk(last));
                assert_eq!(buf.len(), framed, "{len} bytes, {delivery:?}");
                abs += 1;
            }
        }
    }

    #[test]
    fn a_one_chunk_message_keeps_its_state_inline() {
        let mut o = Outgoing::new(SPARES);
        o.insert(0, 0, Data::Borrowed(&[1; 600]), SPEC, R);
        o.insert(1, 1, Data::Borrowed(&[2; 100]), SPEC, R);
        assert!(matches!(o.get(0).map(|m| &m.chunks), Some(ChunkStates::Many(v)) if v.len() == 2));
        assert!(matches!(
            o.get(1).map(|m| &m.chunks),
            Some(ChunkStates::One(_))
        ));
        o.get_mut(1).unwrap().chunks[0].acked = true;
        assert!(o.get(1).unwrap().chunks.iter().all(|c| c.acked));
        o.remove(1);
        assert!(
            o.spare_chunks.is_empty(),
            "nothing to recycle of an inline state"
        );
    }
}
