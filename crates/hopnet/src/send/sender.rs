//! Outgoing sequence numbering and the reliable messages not yet fully acknowledged: which
//! chunk of which message is in flight, acknowledged, or waiting to be sent again.
//!
//! Each transmission of a chunk gets a transmission id, so that an acknowledgement tells which
//! transmission it answers (Karn's rule, loss detection in [`loss`](super::loss)).

use std::collections::{BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use super::congestion::Congestion;
use super::hold::Held;
use super::outgoing::Outgoing;
use super::rtt::RttEstimator;
use super::wire::Wire;
use crate::Error;
use crate::event::Delivery;
use crate::ext::frame::AckRange;
use crate::payload::Data;
use crate::stats::Stats;

/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
const SEQUENCE_WINDOW: u64 = 16384;

/// One transmission of a reliable chunk.
#[derive(Debug, Clone, Copy)]
pub(super) struct Transmission {
    pub(super) abs: u64,
    pub(super) chunk: u8,
    pub(super) tx_id: u64,
    pub(super) sent_at: Instant,
}

/// Outgoing sequence numbering and the reliable messages not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct Sender {
    pub(super) next_abs: u64,
    pub(super) messages: Outgoing,
    /// Chunks of `messages` never sent yet: whether there is new data to send, without a walk
    /// over the messages.
    pub(super) unsent: usize,
    /// No message before this has a chunk never sent.
    pub(super) cursor: u64,
    /// No message before this has a full-size chunk never sent: where a GSO batch of full
    /// chunks looks for its next one, past the messages that only have a short last chunk
    /// left (a queue of 1 KiB messages is two full chunks and one short one each).
    pub(super) full_cursor: u64,
    pub(super) in_flight: VecDeque<Transmission>,
    pub(super) in_flight_count: usize,
    /// Chunks declared lost, to send again: the oldest message's first, whatever order they
    /// were lost in. A receiver whose reassembly budget is full takes chunks only for its
    /// oldest reliable partial (`receive::budget`); after a timeout the window is a few
    /// chunks, and a queue in the order of loss could spend it, timeout after timeout, on
    /// chunks of later messages the receiver refuses.
    pub(super) retransmit: BTreeSet<(u64, u8)>,
    pub(super) next_tx_id: u64,
    pub(super) largest_acked_tx: u64,
    /// When a chunk in flight was last acknowledged: a timeout with acknowledgements still
    /// arriving is a lost chunk, one after a silence of a whole RTO is a blackout.
    pub(crate) last_ack_at: Option<Instant>,
    /// Ordered messages waiting for the messages they follow (see [`hold`](super::hold)).
    pub(crate) held: Held,
    /// The newest transmission an ACK frame being read acknowledges for the first time: its
    /// id, when it left, how many times it was sent. The frame's one RTT sample.
    frame_newest: Option<(u64, Instant, u32)>,
    /// The end (exclusive) of the last scan for a packable chunk that found none, and the
    /// room it looked for (see `Sender::packable`).
    pub(super) pack_miss: Option<(u64, usize)>,
    max_pending: usize,
    max_pending_bytes: usize,
}

impl Sender {
    pub fn new(max_pending: usize, max_pending_bytes: usize) -> Sender {
        Sender {
            next_abs: 0,
            messages: Outgoing::new(max_pending),
            unsent: 0,
            cursor: 0,
            full_cursor: 0,
            in_flight: VecDeque::new(),
            in_flight_count: 0,
            retransmit: BTreeSet::new(),
            next_tx_id: 1,
            largest_acked_tx: 0,
            last_ack_at: None,
            held: Held::default(),
            frame_newest: None,
            pack_miss: None,
            max_pending,
            max_pending_bytes,
        }
    }

    /// Reliable chunks sent and neither acknowledged nor declared lost.
    pub fn in_flight(&self) -> usize {
        self.in_flight_count
    }

    /// Reliable messages not yet fully acknowledged.
    pub fn pending(&self) -> usize {
        self.messages.len()
    }

    /// The sequence id the next message will get.
    pub fn next_sequence(&self) -> u16 {
        self.next_abs as u16
    }

    /// The absolute number of the message allocated last.
    pub fn last_abs(&self) -> u64 {
        self.next_abs.wrapping_sub(1)
    }

    /// Whether a message of `len` bytes may be given a sequence id now.
    pub fn check_room(&self, reliable: bool, len: usize) -> Result<(), Error> {
        if reliable
            && (self.messages.len() >= self.max_pending
                || self.messages.len() > 0 && self.messages.bytes() + len > self.max_pending_bytes)
        {
            return Err(Error::WouldBlock);
        }
        if let Some(oldest) = self.messages.oldest()
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
            let wait = self.held.must_wait(&self.messages, wire, delivery);
            let n = self.messages.insert(abs, seq, payload, wire, delivery);
            self.held.note(&self.messages, abs, wire, delivery);
            if wait {
                self.held.push(abs);
                if let Some(m) = self.messages.get_mut(abs) {
                    m.next_new = n;
                }
            } else {
                self.unsent += n;
            }
        }
        seq
    }

    /// The absolute number of the message with sequence id `seq`, if it was allocated within
    /// the last half of the sequence space.
    pub fn abs_of(&self, seq: u16) -> Option<u64> {
        let back = u64::from((self.next_abs as u16).wrapping_sub(seq));
        (back != 0 && back <= self.next_abs && back <= 0x8000).then(|| self.next_abs - back)
    }

    /// The absolute numbers of the sequences an ACK range names, within what was allocated.
    pub fn abs_range(&self, range: &AckRange) -> Option<(u64, u64)> {
        let next = self.next_abs as u16;
        let back_first = u64::from(next.wrapping_sub(range.sequence));
        if back_first == 0 || back_first > 0x8000 {
            return None;
        }
        let back_last = u64::from(next.wrapping_sub(range.last_sequence()));
        // A range that runs past the newest id ends there.
        let back_last = if back_last == 0 || back_last > back_first {
            1
        } else {
            back_last
        };
        let first = self.next_abs.checked_sub(back_first.min(self.next_abs))?;
        let last = self.next_abs.checked_sub(back_last)?;
        (first <= last).then_some((first, last))
    }

    /// Whether any chunk waits to be sent, new or again, whatever the window says: the quick
    /// test every flush and timer query makes first, since most find nothing (even an empty
    /// `BTreeSet` costs a search to walk).
    #[inline]
    pub fn has_waiting(&self) -> bool {
        self.unsent > 0 || !self.retransmit.is_empty()
    }

    /// Whether [`poll`](Self::poll) would produce a datagram under this window.
    pub fn has_sendable(&self, window: usize) -> bool {
        if self.in_flight_count >= window || !self.has_waiting() {
            return false;
        }
        self.unsent > 0
            || self.retransmit.iter().any(|&(abs, chunk)| {
                self.messages
                    .get(abs)
                    .and_then(|m| m.chunks.get(usize::from(chunk)))
                    .is_some_and(|s| !s.acked && !s.in_flight)
            })
    }

    pub(super) fn transmit(
        &mut self,
        now: Instant,
        abs: u64,
        chunk: u8,
        buf: &mut Vec<u8>,
    ) -> usize {
        let tx_id = self.next_tx_id;
        self.next_tx_id += 1;
        let Some(msg) = self.messages.get_mut(abs) else {
            return 0;
        };
        let last = msg.chunks.len() - 1;
        let state = &mut msg.chunks[usize::from(chunk)];
        state.tx_id = tx_id;
        state.sent_at = Some(now);
        state.tx_count += 1;
        state.in_flight = true;
        self.in_flight_count += 1;
        self.in_flight.push_back(Transmission {
            abs,
            chunk,
            tx_id,
            sent_at: now,
        });
        let start = buf.len();
        let fin = usize::from(chunk) == last;
        msg.wire
            .write(buf, msg.seq, chunk, fin, msg.chunk(usize::from(chunk)));
        buf.len() - start
    }

    /// An ACK for `(sequence, chunk)` arrived. Returns whether it completed a message.
    pub fn on_ack(
        &mut self,
        now: Instant,
        sequence: u16,
        chunk: u8,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) -> bool {
        let Some(abs) = self.abs_of(sequence) else {
            return false;
        };
        let complete = self.ack_chunk(now, abs, chunk, true, rtt, cc);
        self.after_acks(cc, stats);
        complete
    }

    /// A range of an ACK frame arrived. Returns how many messages it completed. Looks only at
    /// live messages within the range. No RTT sample: the frame gives one, see
    /// [`finish_frame`](Self::finish_frame).
    pub fn on_ack_range(
        &mut self,
        now: Instant,
        range: &AckRange,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
    ) -> usize {
        let Some((first, last)) = self.abs_range(range) else {
            return 0;
        };
        let mut complete = 0;
        let mut next = first;
        loop {
            let found = self
                .messages
                .iter_from(next)
                .next()
                .filter(|(abs, _)| *abs <= last)
                .map(|(abs, m)| (abs, m.chunks.len()));
            let Some((abs, n)) = found else {
                break;
            };
            let top = usize::from(range.last_chunk).min(n - 1);
            for chunk in usize::from(range.first_chunk)..=top {
                if self.ack_chunk(now, abs, chunk as u8, false, rtt, cc) {
                    complete += 1;
                    break;
                }
            }
            next = abs + 1;
        }
        complete
    }

    /// An ACK frame sent `delay` after its newest chunk arrived has been read: its one RTT
    /// sample, from the newest transmission it acknowledged for the first time, as QUIC takes
    /// it. A frame acknowledges a window's worth of chunks, many of which waited in the
    /// receiver while it filled, or are acknowledged only by a repetition of a lost frame: a
    /// sample from each would read that wait as queueing.
    pub fn finish_frame(
        &mut self,
        now: Instant,
        delay: Duration,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
    ) {
        let Some((_, sent, count)) = self.frame_newest.take() else {
            return;
        };
        let elapsed = now.saturating_duration_since(sent);
        // The receiver's delay is taken off, but never below the smallest round trip seen
        // (as QUIC does), so that a delay that overstates cannot make one up.
        let elapsed = if elapsed >= rtt.min().unwrap_or(Duration::ZERO) + delay {
            elapsed - delay
        } else {
            elapsed
        };
        if count == 1 {
            rtt.sample(elapsed);
            cc.on_sample(elapsed);
        } else {
            rtt.on_prompt_retransmission_ack(elapsed);
        }
    }

    /// What follows a batch of acknowledgements: loss detection by packet threshold, and
    /// the ordered messages that may now be sent.
    pub fn after_acks(&mut self, cc: &mut Congestion, stats: &mut Stats) {
        self.detect_by_threshold(cc, stats);
        self.release_held();
    }

    /// Chunk `chunk` of message `abs` was acknowledged. Returns whether that completed the
    /// message (it is then forgotten).
    fn ack_chunk(
        &mut self,
        now: Instant,
        abs: u64,
        chunk: u8,
        sampled: bool,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
    ) -> bool {
        let Some(msg) = self.messages.get_mut(abs) else {
            return false;
        };
        let Some(state) = msg.chunks.get_mut(usize::from(chunk)) else {
            return false;
        };
        if state.acked || state.tx_count == 0 {
            return false;
        }
        state.acked = true;
        let mut sample = None;
        if let Some(sent) = state.sent_at {
            if !sampled {
                if self.frame_newest.is_none_or(|(tx, ..)| state.tx_id > tx) {
                    self.frame_newest = Some((state.tx_id, sent, state.tx_count));
                }
            } else if state.tx_count == 1 {
                let elapsed = now.saturating_duration_since(sent);
                rtt.sample(elapsed);
                sample = Some(elapsed);
            } else {
                rtt.on_prompt_retransmission_ack(now.saturating_duration_since(sent));
            }
        }
        if state.in_flight {
            state.in_flight = false;
            self.in_flight_count -= 1;
            cc.on_ack(state.tx_id, sample, rtt.min(), self.next_tx_id);
            self.last_ack_at = Some(now);
        }
        self.largest_acked_tx = self.largest_acked_tx.max(state.tx_id);
        msg.acked += 1;
        let complete = msg.acked == msg.chunks.len();
        if complete {
            self.messages.remove(abs);
        }
        complete
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.messages.clear();
        self.held = Held::default();
        self.in_flight.clear();
        self.retransmit.clear();
        self.in_flight_count = 0;
        self.unsent = 0;
        self.pack_miss = None;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::send::batch::{Choice, Fit};
    use crate::transmit::Size;

    #[test]
    fn a_fruitless_packing_scan_is_remembered_and_hides_no_message_queued_after_it() {
        use crate::ext::Extensions;
        use crate::send::wire::ExtSender;
        let ext = Extensions {
            max_datagram_size: 1200,
            ..Extensions::ALL
        };
        let mut framing = ExtSender::new(ext, 128);
        let mut queue = |s: &mut Sender, len: usize| {
            let wire = Wire::Ext(framing.frame(Delivery::Reliable, false));
            let data = vec![1; len];
            s.allocate(Some((Data::Borrowed(&data), wire, Delivery::Reliable)));
        };
        let mut s = Sender::new(64, usize::MAX);
        let (mut stats, mut buf) = (Stats::default(), Vec::new());
        // 0: 1,000 bytes; 1: 100 bytes (a 106-byte frame); 2: 50 bytes (56).
        for len in [1000, 100, 50] {
            queue(&mut s, len);
        }
        let ext_fit = |room| Fit::Ext { room };
        let first = s.choose(64, ext_fit(1200)).unwrap();
        assert_eq!(first, Choice::New(0));
        s.send_choice(Instant::now(), first, &mut stats, &mut buf);
        // 50 bytes left: message 1 does not fit, and the scan past it finds nothing.
        assert_eq!(s.choose(64, ext_fit(50)), None);
        assert_eq!(s.pack_miss, Some((3, 50)));
        // With less room, the scan starts where the last one ended.
        assert_eq!(s.choose(64, ext_fit(40)), None);
        assert_eq!(s.pack_miss, Some((3, 40)));
        // With more room than it had, the memory does not apply: message 2 fits 60 bytes.
        assert_eq!(s.choose(64, ext_fit(60)), Some(Choice::New(2)));
        // A message queued after the scan is looked at, though the scan's memory applies:
        // a 10-byte one (16 on the wire) fits 40 bytes.
        queue(&mut s, 10);
        assert_eq!(s.choose(64, ext_fit(40)), Some(Choice::New(3)));
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
        assert_eq!(s.messages.bytes(), 1000);
        assert!(s.check_room(true, 2000).is_ok());
        assert!(matches!(s.check_room(true, 2001), Err(Error::WouldBlock)));
    }

    #[test]
    fn ack_of_unsent_chunk_is_ignored() {
        let mut s = Sender::new(8, usize::MAX);
        let mut stats = Stats::default();
        let mut rtt = RttEstimator::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(10),
        );
        let mut cc = Congestion::new(4, 2, 8);
        let wire = Wire::Spec { rel: true };
        let seq = s.allocate(Some((Data::Borrowed(&[0; 2000]), wire, Delivery::Reliable)));
        assert!(!s.on_ack(Instant::now(), seq, 0, &mut rtt, &mut cc, &mut stats));
        assert_eq!(s.pending(), 1);
        let now = Instant::now();
        let mut buf = Vec::new();
        for _ in 0..4 {
            assert!(
                s.poll(now, 4, &mut stats, &mut buf, Fit::Spec(Size::Any))
                    .is_some()
            );
        }
        assert!(
            s.poll(now, 4, &mut stats, &mut buf, Fit::Spec(Size::Any))
                .is_none()
        );
        assert_eq!(buf.len(), 4 * crate::packet::HEADER_LEN + 2000);
        for c in 0..4 {
            s.on_ack(now, seq, c, &mut rtt, &mut cc, &mut stats);
        }
        assert_eq!(s.pending(), 0);
    }
}
