//! Loss detection: a chunk is declared lost when its retransmission timer (RFC 6298) expires,
//! or early when a chunk sent [`PACKET_THRESHOLD`] transmissions later has been acknowledged
//! (a packet threshold, as in QUIC), so that one loss does not cost a whole RTO under random
//! loss. A lost chunk waits in the retransmission queue and the congestion controller hears of
//! it.
//!
//! On the extended wire one ACK frame answers a window's worth of chunks, so a lost one
//! leaves the sender without a word: before the retransmission timer, it probes (a bare
//! `ACK_NOW`, see `connection/pack.rs`) after a probe timeout ([`quiet_since`](Sender::quiet_since)
//! and `RttEstimator::probe_timeout`), and the receiver's answer acknowledges everything it has.

use std::time::{Duration, Instant};

use super::congestion::Congestion;
use super::rtt::RttEstimator;
use super::sender::{Sender, Transmission};
use crate::stats::Stats;

/// How many later transmissions must be acknowledged before an unacknowledged one is lost.
const PACKET_THRESHOLD: u64 = 3;

impl Sender {
    fn is_current(&self, t: &Transmission) -> bool {
        self.messages
            .get(t.abs)
            .and_then(|m| m.chunks.get(usize::from(t.chunk)))
            .is_some_and(|s| s.in_flight && s.tx_id == t.tx_id)
    }

    fn declare_lost(
        &mut self,
        t: Transmission,
        blackout: bool,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) {
        let Some(state) = self
            .messages
            .get_mut(t.abs)
            .and_then(|m| m.chunks.get_mut(usize::from(t.chunk)))
        else {
            return;
        };
        state.in_flight = false;
        self.in_flight_count -= 1;
        // A set: a chunk declared lost twice before it was sent again waits once.
        self.retransmit.insert((t.abs, t.chunk));
        stats.chunks_lost += 1;
        cc.on_loss(t.tx_id, self.next_tx_id, blackout);
    }

    pub(super) fn detect_by_threshold(&mut self, cc: &mut Congestion, stats: &mut Stats) {
        while let Some(&front) = self.in_flight.front() {
            if !self.is_current(&front) {
                self.in_flight.pop_front();
                continue;
            }
            if front.tx_id + PACKET_THRESHOLD < self.largest_acked_tx {
                self.in_flight.pop_front();
                self.declare_lost(front, false, cc, stats);
            } else {
                break;
            }
        }
    }

    /// Declares lost every chunk whose retransmission timer expired, backing the timer off once.
    pub fn on_timeout(
        &mut self,
        now: Instant,
        rtt: &mut RttEstimator,
        cc: &mut Congestion,
        stats: &mut Stats,
    ) {
        if self.in_flight.is_empty() {
            return;
        }
        let rto = rtt.rto();
        let blackout = self
            .last_ack_at
            .is_none_or(|t| now.saturating_duration_since(t) >= rto);
        let mut expired = false;
        while let Some(&front) = self.in_flight.front() {
            if !self.is_current(&front) {
                self.in_flight.pop_front();
                continue;
            }
            if front.sent_at + rto <= now {
                self.in_flight.pop_front();
                self.declare_lost(front, blackout, cc, stats);
                expired = true;
            } else {
                break;
            }
        }
        if expired {
            rtt.back_off();
        }
    }

    /// The latest of when the oldest chunk in flight was sent and when a chunk was last
    /// acknowledged: what a probe timeout counts from. `None` with nothing in flight.
    #[inline]
    pub fn quiet_since(&mut self) -> Option<Instant> {
        let oldest = self.next_timeout(Duration::ZERO)?;
        Some(self.last_ack_at.map_or(oldest, |t| t.max(oldest)))
    }

    /// When the oldest chunk in flight times out.
    #[inline]
    pub fn next_timeout(&mut self, rto: Duration) -> Option<Instant> {
        // Nothing in flight, the common answer to a timer query, is answered without a call:
        // the transmissions left in the queue are all stale, and the next loss pass drops them.
        if self.in_flight_count == 0 {
            return None;
        }
        self.oldest_timeout(rto)
    }

    fn oldest_timeout(&mut self, rto: Duration) -> Option<Instant> {
        while let Some(front) = self.in_flight.front() {
            if self.is_current(front) {
                return Some(front.sent_at + rto);
            }
            self.in_flight.pop_front();
        }
        None
    }
}
