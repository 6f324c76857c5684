//! The sender: a new message numbered and handed to the queue (what the connection's `send`
//! does), then, at each `transmit`, which reliable chunk leaves next, in the batches a GSO send
//! takes, as far as the congestion window and the pacer allow; the chunk written into the
//! caller's buffer; and what is in flight, by transmission id, recorded as it leaves.
//!
//! The sender is made of three owners, each the only writer of its counters, as quinn-proto
//! splits its send buffer from its sent packets: the queue of messages
//! ([`queue`](super::queue): what is still to send, new or again), what is in flight
//! ([`InFlight`], here, with [`loss`](super::loss) deciding what of it is lost) and the ordered
//! messages held ([`hold`](super::hold)). The sender only passes what one learns to the other:
//! a chunk sent here, acknowledged or lost in [`feedback`](super::feedback).
//!
//! Each transmission of a chunk gets a transmission id, so that an acknowledgement tells which
//! transmission it answers (Karn's rule, loss detection in [`loss`](super::loss)).
//!
//! A batch has the shape a GSO send takes: every datagram the size of the first but the last
//! (see [`transmit`](crate::transmit)).
//!
//! What is in flight is every transmission of a reliable chunk not yet acknowledged nor
//! declared lost, by transmission id, and the counters that follow from it (how many, the next
//! id, the largest acknowledged, when an acknowledgement last came). [`InFlight`] alone writes
//! them; [`loss`](super::loss) decides what is lost through [`InFlight::take_oldest`]. Each
//! transmission gets the next id, so the ids in flight form a window of consecutive numbers
//! with holes where a transmission was acknowledged or lost. A ring of slots indexed by
//! `id - front_tx` finds any of them with one subtraction, and the front is trimmed of holes on
//! every removal: the oldest slot is always a transmission in flight, so a timer query reads it
//! without a walk (and without `&mut`).

use std::collections::VecDeque;
use std::time::Instant;

use super::Outbound;
use super::hold::Held;
use super::queue::{SendQueue, Wire};
use crate::error::Error;
use crate::event::{Delivery, MessageId};
use crate::payload::Data;
use crate::stats::Stats;
use crate::transmit::{FULL_DATAGRAM, Size};

/// How many messages [`Sender::poll`] looks through for a chunk of the size a batch needs.
/// Bounded, so that a long queue of messages whose next chunk has another size costs a fixed
/// amount per datagram.
const SIZE_SCAN: usize = 64;

/// How many sequence numbers after the first unsent message [`Sender::poll`] looks through
/// (`SendQueue::packable`) for a last chunk that fits what is left of an extended datagram: a
/// tick's worth of small messages (reliable and unreliable ones take numbers alike), not a
/// scan per datagram over a queue of large ones.
const PACK_SCAN: u64 = 16;

/// Below this many bytes left, an extended datagram takes no more chunks: a frame's header
/// alone is up to 9 bytes.
const MIN_PACK_ROOM: usize = 32;

/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
const SEQUENCE_WINDOW: u64 = 16384;

/// Outgoing sequence numbering and the reliable messages not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct Sender {
    pub(super) next_abs: u64,
    pub(super) queue: SendQueue,
    pub(super) flight: InFlight,
    /// Ordered messages waiting for the messages they follow (see [`hold`](super::hold)).
    pub(super) held: Held,
    pub(super) max_pending: usize,
    pub(super) max_pending_bytes: usize,
}

impl Sender {
    pub fn new(max_pending: usize, max_pending_bytes: usize) -> Sender {
        Sender {
            next_abs: 0,
            queue: SendQueue::new(max_pending),
            flight: InFlight::new(),
            held: Held::default(),
            max_pending,
            max_pending_bytes,
        }
    }

    /// Reliable chunks sent and neither acknowledged nor declared lost.
    #[inline]
    pub fn in_flight(&self) -> usize {
        self.flight.len()
    }

    /// Reliable messages not yet fully acknowledged.
    pub fn pending(&self) -> usize {
        self.queue.messages().len()
    }

    /// The sequence id the next message will get.
    pub fn next_sequence(&self) -> u16 {
        self.next_abs as u16
    }

    /// The absolute number of the message allocated last.
    pub fn last_abs(&self) -> u64 {
        self.next_abs.wrapping_sub(1)
    }

    /// The absolute number the next message will get.
    #[inline]
    pub(super) fn next_abs(&self) -> u64 {
        self.next_abs
    }

    /// Whether any chunk waits to be sent, new or again, whatever the window says.
    #[inline]
    pub fn has_waiting(&self) -> bool {
        self.queue.has_waiting()
    }

    /// Whether [`poll`](Self::poll) would produce a datagram under this window.
    pub fn has_sendable(&self, window: usize) -> bool {
        if self.flight.len() >= window || !self.queue.has_waiting() {
            return false;
        }
        self.queue.has_unsent() || self.queue.has_retransmission()
    }

    /// Appends the next reliable datagram to `buf` if the congestion window has room and it
    /// fits `size`, and returns its length. Writing into the caller's buffer means no
    /// allocation per datagram.
    ///
    /// `size` serves GSO batches, whose datagrams must all have the first one's size but the
    /// last, which may be shorter. With [`Size::Exactly`] the sender takes a retransmission at
    /// the front of its queue if it has that size, else the next new chunk of that size among
    /// the messages of the next [`SIZE_SCAN`] sequence numbers: the full chunks of several
    /// queued messages then share one batch while their shorter last chunks wait for a batch
    /// of their own (the receiver reassembles in any order, so this only reorders datagrams
    /// within one flush).
    pub fn poll(
        &mut self,
        now: Instant,
        window: usize,
        stats: &mut Stats,
        buf: &mut Vec<u8>,
        fit: Fit,
    ) -> Option<usize> {
        let choice = self.choose(window, fit)?;
        Some(self.send_choice(now, choice, stats, buf))
    }

    /// The chunk [`poll`](Self::poll) sends next, without sending it: a caller may still
    /// decide not to (the pacer), and nothing is lost by asking.
    pub fn choose(&mut self, window: usize, fit: Fit) -> Option<Choice> {
        if self.flight.len() >= window {
            return None;
        }
        if let Some((abs, chunk)) = self.queue.retransmit_front() {
            let msg = self.queue.messages().get(abs)?;
            let len = msg.encoded_len(usize::from(chunk));
            if msg.wire.is_spec() != fit.spec() || !fit.fits(len) {
                return None;
            }
            return Some(Choice::Retransmit(abs, chunk));
        }
        if !self.queue.has_unsent() {
            return None;
        }
        let first = self.queue.first_unsent()?;
        let abs = match fit {
            Fit::Spec(Size::Exactly(FULL_DATAGRAM)) => self
                .queue
                .next_full()
                .filter(|&abs| abs - first < SIZE_SCAN as u64)?,
            Fit::Spec(Size::Exactly(len)) => self
                .queue
                .messages()
                .iter_from(first)
                .take(SIZE_SCAN)
                .find(|(_, m)| {
                    m.wire.is_spec()
                        && m.next_new < m.chunks.len()
                        && m.encoded_len(m.next_new) == len
                })
                .map(|(abs, _)| abs)?,
            Fit::Spec(size) => {
                let msg = self.queue.messages().get(first)?;
                if !msg.wire.is_spec() || !size.fits(msg.encoded_len(msg.next_new)) {
                    return None;
                }
                first
            }
            Fit::Ext { room } => {
                let msg = self.queue.messages().get(first)?;
                if msg.wire.is_spec() {
                    return None;
                }
                if msg.encoded_len(msg.next_new) <= room {
                    first
                } else if room < MIN_PACK_ROOM {
                    return None;
                } else {
                    let end = (first + 1 + PACK_SCAN).min(self.next_abs());
                    self.queue.packable(first, room, end)?
                }
            }
        };
        Some(Choice::New(abs))
    }

    /// Sends what [`choose`](Self::choose) chose, if it was asked with the same state.
    pub fn send_choice(
        &mut self,
        now: Instant,
        choice: Choice,
        stats: &mut Stats,
        buf: &mut Vec<u8>,
    ) -> usize {
        let (abs, chunk) = match choice {
            Choice::Retransmit(abs, chunk) => {
                let taken = self.queue.take_retransmission();
                debug_assert_eq!(taken, Some((abs, chunk)));
                stats.retransmissions += 1;
                (abs, chunk)
            }
            Choice::New(abs) => {
                let Some(chunk) = self.queue.take_new(abs) else {
                    return 0;
                };
                (abs, chunk)
            }
        };
        self.transmit(now, abs, chunk, buf)
    }

    /// Whether the chunk [`poll`](Self::poll) would take next is framed the spec's way (a
    /// retransmission first, then the oldest chunk never sent).
    #[inline]
    pub fn next_is_spec(&mut self) -> bool {
        // Every flush asks, most of the time with nothing to send: answered here, not in a call.
        self.queue.has_waiting() && self.next_is_spec_slow()
    }

    fn next_is_spec_slow(&mut self) -> bool {
        if let Some((abs, _)) = self.queue.retransmit_front() {
            return self
                .queue
                .messages()
                .get(abs)
                .is_some_and(|m| m.wire.is_spec());
        }
        self.queue.has_unsent()
            && self
                .queue
                .first_unsent()
                .and_then(|abs| self.queue.messages().get(abs))
                .is_some_and(|m| m.wire.is_spec())
    }

    /// Sends chunk `chunk` of message `abs` (taken from the queue) as a new transmission:
    /// appends it to `buf` and returns its length.
    pub(super) fn transmit(
        &mut self,
        now: Instant,
        abs: u64,
        chunk: u8,
        buf: &mut Vec<u8>,
    ) -> usize {
        let tx_id = self.flight.next_tx_id();
        let Some(msg) = self.queue.sent(abs, chunk, tx_id, now) else {
            return 0;
        };
        let sent = self.flight.send(abs, chunk, now);
        debug_assert_eq!(sent, tx_id);
        let start = buf.len();
        let fin = usize::from(chunk) + 1 == msg.chunks.len();
        msg.wire
            .write(buf, msg.seq, chunk, fin, msg.chunk(usize::from(chunk)));
        buf.len() - start
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.queue.clear();
        self.held = Held::default();
        self.flight.clear();
    }
}

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
            self.queue.push(abs, payload, wire, delivery, wait);
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

/// What [`Sender::choose`] chose: a retransmission, or the next new chunk of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    Retransmit(u64, u8),
    New(u64),
}

/// Where the next chunk goes: a spec datagram of a size a batch allows, or a data frame in
/// what is left of an extended datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Spec(Size),
    Ext { room: usize },
}

impl Fit {
    #[inline]
    fn spec(self) -> bool {
        matches!(self, Fit::Spec(_))
    }

    #[inline]
    fn fits(self, len: usize) -> bool {
        match self {
            Fit::Spec(size) => size.fits(len),
            Fit::Ext { room } => len <= room,
        }
    }
}

impl Outbound {
    /// Whether the next reliable chunk is framed the spec's way.
    #[inline]
    pub fn next_is_spec(&mut self) -> bool {
        self.sender.next_is_spec()
    }

    /// Appends the next reliable chunk framed for the extended wire, if the congestion window
    /// and the pacer allow one and it fits in `room` bytes; returns its length.
    pub fn poll_ext(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        room: usize,
        stats: &mut Stats,
    ) -> Option<usize> {
        let window = self.cc.window() as usize;
        // The chunk first, then the pacer's token: a datagram with no room for any chunk
        // (every flush ends with one) takes no token and gives none back.
        let choice = self.sender.choose(window, Fit::Ext { room })?;
        if let Some(pacer) = &mut self.pacer {
            self.paced_until = pacer.check(now, self.cc.window(), self.rtt.smoothed());
            if self.paced_until.is_some() {
                return None;
            }
        }
        Some(self.sender.send_choice(now, choice, stats, buf))
    }

    /// Appends a batch of up to `max` reliable datagrams to `buf` as the congestion window and
    /// the pacer allow; returns how many and the size of each but the last.
    pub fn poll_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max: usize,
        stats: &mut Stats,
    ) -> (usize, usize) {
        let mut count = 0;
        let mut segment = 0;
        while count < max {
            let window = self.cc.window() as usize;
            if !self.sender.has_sendable(window) {
                break;
            }
            if let Some(pacer) = &mut self.pacer {
                self.paced_until = pacer.check(now, self.cc.window(), self.rtt.smoothed());
                if self.paced_until.is_some() {
                    break;
                }
            }
            let len = match self.sender.poll(
                now,
                window,
                stats,
                buf,
                Fit::Spec(Size::after(count, segment)),
            ) {
                Some(len) => len,
                None if count > 0 => {
                    // The last datagram of the batch, if a shorter one is next.
                    let last = Fit::Spec(Size::AtMost(segment));
                    match self.sender.poll(now, window, stats, buf, last) {
                        Some(len) => {
                            count += 1;
                            debug_assert!(len <= segment);
                            break;
                        }
                        None => {
                            // The pacer's token was taken for nothing: give it back.
                            if let Some(pacer) = &mut self.pacer {
                                pacer.refund();
                            }
                            break;
                        }
                    }
                }
                None => {
                    if let Some(pacer) = &mut self.pacer {
                        pacer.refund();
                    }
                    break;
                }
            };
            if count == 0 {
                segment = len;
            }
            count += 1;
            if len < segment {
                break;
            }
        }
        (count, segment)
    }
}

/// One transmission of a reliable chunk, in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// The message's absolute sequence number.
    pub abs: u64,
    pub chunk: u8,
    pub sent_at: Instant,
}

/// The transmissions in flight, oldest first.
#[derive(Debug)]
pub(crate) struct InFlight {
    /// The transmission id of `transmissions[0]`.
    front_tx: u64,
    /// By id: `None` for one acknowledged or declared lost; never `None` at the front.
    transmissions: VecDeque<Option<Sent>>,
    /// Transmissions in flight: the `Some` slots.
    in_flight: usize,
    next_tx_id: u64,
    /// The largest transmission id acknowledged, in flight or not: the packet threshold counts
    /// from it.
    largest_acked: u64,
    /// When a transmission in flight was last acknowledged: a timeout with acknowledgements
    /// still arriving is a lost chunk, one after a silence of a whole RTO is a blackout.
    last_ack_at: Option<Instant>,
}

impl InFlight {
    pub fn new() -> InFlight {
        InFlight {
            front_tx: 1,
            transmissions: VecDeque::new(),
            in_flight: 0,
            next_tx_id: 1,
            largest_acked: 0,
            last_ack_at: None,
        }
    }

    /// Transmissions in flight.
    #[inline]
    pub fn len(&self) -> usize {
        self.in_flight
    }

    /// The id the next transmission will get.
    #[inline]
    pub fn next_tx_id(&self) -> u64 {
        self.next_tx_id
    }

    /// The largest transmission id acknowledged so far (0 before any).
    #[inline]
    pub fn largest_acked(&self) -> u64 {
        self.largest_acked
    }

    /// When a transmission in flight was last acknowledged.
    #[inline]
    pub fn last_ack_at(&self) -> Option<Instant> {
        self.last_ack_at
    }

    /// Chunk `chunk` of message `abs` leaves now: returns its transmission id.
    #[inline]
    pub fn send(&mut self, abs: u64, chunk: u8, now: Instant) -> u64 {
        let tx_id = self.next_tx_id;
        self.next_tx_id += 1;
        if self.transmissions.is_empty() {
            self.front_tx = tx_id;
        }
        debug_assert_eq!(self.front_tx + self.transmissions.len() as u64, tx_id);
        self.transmissions.push_back(Some(Sent {
            abs,
            chunk,
            sent_at: now,
        }));
        self.in_flight += 1;
        tx_id
    }

    /// Transmission `tx_id` was acknowledged at `now`. Returns whether it was in flight (it is
    /// no longer); an acknowledgement of one declared lost still counts as the largest.
    #[inline]
    pub fn acked(&mut self, tx_id: u64, now: Instant) -> bool {
        self.largest_acked = self.largest_acked.max(tx_id);
        if self.remove(tx_id).is_none() {
            return false;
        }
        self.last_ack_at = Some(now);
        true
    }

    /// The oldest transmission in flight, with its id.
    #[inline]
    pub fn oldest(&self) -> Option<(u64, Sent)> {
        Some((self.front_tx, (*self.transmissions.front()?)?))
    }

    /// Takes the oldest transmission out of flight if `lost` says it is lost.
    pub fn take_oldest(&mut self, lost: impl FnOnce(u64, &Sent) -> bool) -> Option<(u64, Sent)> {
        let (tx_id, sent) = self.oldest()?;
        if !lost(tx_id, &sent) {
            return None;
        }
        self.remove(tx_id);
        Some((tx_id, sent))
    }

    #[inline]
    fn remove(&mut self, tx_id: u64) -> Option<Sent> {
        let index = usize::try_from(tx_id.checked_sub(self.front_tx)?).ok()?;
        if index > 0 {
            // Behind the front: a hole, trimmed once the front leaves.
            let sent = self.transmissions.get_mut(index)?.take()?;
            self.in_flight -= 1;
            return Some(sent);
        }
        // The front (most acknowledgements arrive in order): it leaves with the holes behind.
        let sent = self.transmissions.pop_front()??;
        self.front_tx += 1;
        self.in_flight -= 1;
        while let Some(None) = self.transmissions.front() {
            self.transmissions.pop_front();
            self.front_tx += 1;
        }
        Some(sent)
    }

    /// Forgets every transmission (the connection closed); ids go on from where they were.
    pub fn clear(&mut self) {
        self.transmissions.clear();
        self.in_flight = 0;
    }
}

#[cfg(test)]
mod tests;
