//! Outgoing sequence numbering, and the sender of reliable chunks made of its three owners:
//! the queue of messages ([`queue`](super::queue): what is still to send, new or again), what
//! is in flight ([`in_flight`](super::in_flight), with [`loss`](super::loss) deciding what of
//! it is lost) and the ordered messages held ([`hold`](super::hold)). The sender only passes
//! what one learns to the other: a chunk sent, acknowledged or lost.
//!
//! Each transmission of a chunk gets a transmission id, so that an acknowledgement tells which
//! transmission it answers (Karn's rule, loss detection in [`loss`](super::loss)).

use super::hold::Held;
use super::in_flight::InFlight;
use super::loss::Lost;
use super::queue::{AckedChunk, SendQueue};
use super::wire::Wire;
use crate::error::Error;
use crate::event::Delivery;
use crate::ext::frame::AckRange;
use crate::payload::Data;
use std::time::{Duration, Instant};

/// Sends are refused while the oldest unacknowledged reliable message is this many ids behind
/// the next one, so that a sequence id is never reused while its previous message may live.
const SEQUENCE_WINDOW: u64 = 16384;

/// A chunk acknowledged for the first time, as the estimators hear of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Acked {
    /// Its last transmission's id.
    pub tx_id: u64,
    /// When its last transmission left.
    pub sent_at: Instant,
    /// How many times it was sent.
    pub tx_count: u32,
    /// Whether its last transmission was still in flight (not declared lost).
    pub in_flight: bool,
    /// Whether it completed its message.
    pub complete: bool,
}

impl Acked {
    #[inline]
    fn new(acked: AckedChunk, in_flight: bool) -> Acked {
        Acked {
            tx_id: acked.tx_id,
            sent_at: acked.sent_at,
            tx_count: acked.tx_count,
            in_flight,
            complete: acked.complete,
        }
    }
}

/// Outgoing sequence numbering and the reliable messages not yet fully acknowledged.
#[derive(Debug)]
pub(crate) struct Sender {
    next_abs: u64,
    pub(super) queue: SendQueue,
    pub(super) flight: InFlight,
    /// Ordered messages waiting for the messages they follow (see [`hold`](super::hold)).
    pub(super) held: Held,
    max_pending: usize,
    max_pending_bytes: usize,
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

    /// An ACK for chunk `chunk` of message `abs` arrived: the queue and what is in flight hear
    /// of it. `None` if it was already acknowledged (or never sent).
    pub fn on_ack(&mut self, now: Instant, abs: u64, chunk: u8) -> Option<Acked> {
        let acked = self.queue.ack(abs, chunk)?;
        Some(Acked::new(acked, self.flight.acked(acked.tx_id, now)))
    }

    /// A range of an ACK frame arrived: hands every chunk it acknowledges for the first time
    /// to `on_acked`, and returns how many messages it completed. Looks only at live messages
    /// within the range.
    #[inline]
    pub fn on_ack_range(
        &mut self,
        now: Instant,
        range: &AckRange,
        mut on_acked: impl FnMut(&Acked),
    ) -> usize {
        let Some((from, to)) = self.abs_range(range) else {
            return 0;
        };
        let Sender { queue, flight, .. } = self;
        queue.ack_range(from, to, range.first_chunk, range.last_chunk, |acked| {
            on_acked(&Acked::new(acked, flight.acked(acked.tx_id, now)));
        })
    }

    /// What follows a batch of acknowledgements: loss detection by packet threshold (what it
    /// declares lost is queued again and pushed to `lost`), and the ordered messages that may
    /// now be sent.
    pub fn after_acks(&mut self, lost: &mut Vec<Lost>) {
        let from = lost.len();
        self.flight.detect_by_threshold(lost);
        self.requeue(&lost[from..]);
        self.release_held();
    }

    /// Sends the held messages whose predecessors are all acknowledged, oldest first.
    fn release_held(&mut self) {
        while let Some(abs) = self.held.release(self.queue.messages()) {
            self.queue.release(abs);
        }
    }

    /// Declares lost what the retransmission timer (`rto`) says is lost at `now`: queued again
    /// and pushed to `lost`.
    pub fn on_timeout(&mut self, now: Instant, rto: Duration, lost: &mut Vec<Lost>) {
        let from = lost.len();
        self.flight.detect_by_timer(now, rto, lost);
        self.requeue(&lost[from..]);
    }

    fn requeue(&mut self, lost: &[Lost]) {
        for l in lost {
            self.queue.lost(l.abs, l.chunk);
        }
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.queue.clear();
        self.held = Held::default();
        self.flight.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::send::batch::{Choice, Fit};
    use crate::stats::Stats;
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
        assert_eq!(s.queue.pack_miss(), Some((3, 50)));
        // With less room, the scan starts where the last one ended.
        assert_eq!(s.choose(64, ext_fit(40)), None);
        assert_eq!(s.queue.pack_miss(), Some((3, 40)));
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
        assert_eq!(s.queue.messages().bytes(), 1000);
        assert!(s.check_room(true, 2000).is_ok());
        assert!(matches!(s.check_room(true, 2001), Err(Error::WouldBlock)));
    }

    #[test]
    fn ack_of_unsent_chunk_is_ignored() {
        let mut s = Sender::new(8, usize::MAX);
        let mut stats = Stats::default();
        let wire = Wire::Spec { rel: true };
        let seq = s.allocate(Some((Data::Borrowed(&[0; 2000]), wire, Delivery::Reliable)));
        let abs = s.abs_of(seq).unwrap();
        assert!(s.on_ack(Instant::now(), abs, 0).is_none());
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
        let later = now + Duration::from_millis(5);
        for c in 0..4 {
            let acked = s.on_ack(later, abs, c).unwrap();
            assert_eq!((acked.tx_id, acked.sent_at), (u64::from(c) + 1, now));
            assert_eq!((acked.tx_count, acked.in_flight), (1, true));
            assert_eq!(acked.complete, c == 3);
            assert_eq!(s.in_flight(), 3 - usize::from(c));
        }
        assert_eq!(s.pending(), 0);
    }
}
