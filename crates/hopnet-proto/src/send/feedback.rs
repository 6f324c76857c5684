//! What acknowledgements and losses tell the estimators: the sender reports each chunk
//! acknowledged and each one its loss detection declared lost, and the send half hands them to
//! the RTT estimator and the congestion controller (as QUIC's connection does with what its
//! sent packets and its loss detection return), and to the tracked messages.

use std::time::{Duration, Instant};

use super::Outbound;
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
