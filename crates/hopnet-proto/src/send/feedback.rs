//! What acknowledgements and losses do: the sender hears of each chunk acknowledged (the
//! queue and what is in flight both do) and queues again what its loss detection declared
//! lost; the send half then hands them to the RTT estimator and the congestion controller (as
//! QUIC's connection does with what its sent packets and its loss detection return), and to
//! the tracked messages.

use std::time::{Duration, Instant};

use super::Outbound;
use super::loss::Lost;
use super::queue::AckedChunk;
use super::sender::Sender;
use crate::event::MessageId;
use crate::ext::frame::AckRange;
use crate::stats::Stats;

impl Outbound {
    /// An ACK for `(sequence, chunk)` arrived (the spec's wire: one per chunk). Returns
    /// whether it completed a reliable message; pushes a tracked message it completed to
    /// `tracked`.
    pub fn on_ack(
        &mut self,
        now: Instant,
        sequence: u16,
        chunk: u8,
        stats: &mut Stats,
        tracked: &mut Vec<MessageId>,
    ) -> bool {
        let Some(abs) = self.sender.abs_of(sequence) else {
            return false;
        };
        let acked = self.sender.on_ack(now, abs, chunk);
        if let Some(acked) = &acked {
            // One acknowledgement per chunk: each gives its own sample.
            let elapsed = now.saturating_duration_since(acked.sent_at);
            let sample = if acked.tx_count == 1 {
                self.rtt.sample(elapsed);
                Some(elapsed)
            } else {
                // Karn's rule: no sample from a chunk sent more than once.
                self.rtt.on_prompt_retransmission_ack(elapsed);
                None
            };
            if acked.in_flight {
                let next_tx_id = self.sender.flight.next_tx_id();
                self.cc
                    .on_ack(acked.tx_id, sample, self.rtt.min(), next_tx_id);
            }
        }
        self.after_acks(stats);
        if acked.is_some_and(|a| a.complete) {
            return true;
        }
        if !self.tracker.is_empty() {
            self.tracker.on_ack(abs, abs, chunk, chunk, tracked);
        }
        false
    }

    /// The ranges of an ACK frame arrived, sent `delay` after the newest chunk they name.
    /// Returns how many reliable messages they completed; pushes the tracked ones to
    /// `tracked`.
    pub fn on_ack_ranges(
        &mut self,
        now: Instant,
        ranges: impl Iterator<Item = AckRange>,
        delay: Duration,
        stats: &mut Stats,
        tracked: &mut Vec<MessageId>,
    ) -> usize {
        let mut complete = 0;
        // No transmission leaves and no sample is taken while the frame is read.
        let next_tx_id = self.sender.flight.next_tx_id();
        let min_rtt = self.rtt.min();
        // The newest chunk the frame acknowledges for the first time (its transmission, when
        // it left, how many times it was sent): the frame's one sample.
        let mut newest: Option<(u64, Instant, u32)> = None;
        for range in ranges {
            let Outbound { sender, cc, .. } = self;
            complete += sender.on_ack_range(now, &range, |acked| {
                if newest.is_none_or(|(tx_id, ..)| acked.tx_id > tx_id) {
                    newest = Some((acked.tx_id, acked.sent_at, acked.tx_count));
                }
                if acked.in_flight {
                    cc.on_ack(acked.tx_id, None, min_rtt, next_tx_id);
                }
            });
            if self.tracker.is_empty() {
                continue;
            }
            if let Some((from, to)) = self.sender.abs_range(&range) {
                let (first, last) = (range.first_chunk, range.last_chunk);
                self.tracker.on_ack(from, to, first, last, tracked);
            }
        }
        if let Some((_, sent_at, tx_count)) = newest {
            self.frame_sample(now, delay, sent_at, tx_count);
        }
        self.after_acks(stats);
        complete
    }

    /// An ACK frame sent `delay` after its newest chunk arrived has been read: its one RTT
    /// sample, from the newest transmission it acknowledged for the first time, as QUIC takes
    /// it. A frame acknowledges a window's worth of chunks, many of which waited in the
    /// receiver while it filled, or are acknowledged only by a repetition of a lost frame: a
    /// sample from each would read that wait as queueing.
    fn frame_sample(&mut self, now: Instant, delay: Duration, sent_at: Instant, tx_count: u32) {
        let elapsed = now.saturating_duration_since(sent_at);
        // The receiver's delay is taken off, but never below the smallest round trip seen
        // (as QUIC does), so that a delay that overstates cannot make one up.
        let elapsed = if elapsed >= self.rtt.min().unwrap_or(Duration::ZERO) + delay {
            elapsed - delay
        } else {
            elapsed
        };
        if tx_count == 1 {
            self.rtt.sample(elapsed);
            self.cc.on_sample(elapsed);
        } else {
            self.rtt.on_prompt_retransmission_ack(elapsed);
        }
    }

    /// What follows a batch of acknowledgements: what the packet threshold declares lost, and
    /// the held ordered messages that may now leave.
    fn after_acks(&mut self, stats: &mut Stats) {
        self.sender.after_acks(&mut self.lost);
        self.on_lost(false, stats);
    }

    /// Declares lost what the retransmission timer says is lost; pushes the tracked messages
    /// whose timeout passed to `lost`.
    #[inline]
    pub fn on_timeout(&mut self, now: Instant, stats: &mut Stats, lost: &mut Vec<MessageId>) {
        if self.sender.in_flight() > 0 {
            let rto = self.rtt.rto();
            let blackout = self.sender.flight.silent_for(now, rto);
            self.sender.on_timeout(now, rto, &mut self.lost);
            if !self.lost.is_empty() {
                self.rtt.back_off();
            }
            self.on_lost(blackout, stats);
        }
        self.tracker.expire(now, lost);
    }

    /// The congestion controller hears of each chunk declared lost (`blackout`: by the
    /// retransmission timer after a whole RTO without an acknowledgement).
    fn on_lost(&mut self, blackout: bool, stats: &mut Stats) {
        if self.lost.is_empty() {
            return;
        }
        let next_tx_id = self.sender.flight.next_tx_id();
        for lost in self.lost.drain(..) {
            stats.chunks_lost += 1;
            self.cc.on_loss(lost.tx_id, next_tx_id, blackout);
        }
    }
}

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

impl Sender {
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
}
