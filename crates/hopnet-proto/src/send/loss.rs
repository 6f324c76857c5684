//! Loss detection: a chunk is declared lost when its retransmission timer (RFC 6298) expires,
//! or early when a chunk sent [`PACKET_THRESHOLD`] transmissions later has been acknowledged
//! (a packet threshold, as in QUIC), so that one loss does not cost a whole RTO under random
//! loss. Detection takes what it declares lost out of flight and returns it; the sender queues
//! those chunks again and the send half tells the congestion controller (`feedback.rs`), as
//! QUIC's connection does with what its loss detection returns.
//!
//! On the extended wire one ACK frame answers a window's worth of chunks, so a lost one
//! leaves the sender without a word: before the retransmission timer, it probes (a bare
//! `ACK_NOW`, see `connection/pack.rs`) after a probe timeout
//! ([`quiet_since`](InFlight::quiet_since) and `RttEstimator::probe_timeout`), and the
//! receiver's answer acknowledges everything it has.

use std::time::{Duration, Instant};

use super::rtt::RttEstimator;
use super::sender::InFlight;

/// How many later transmissions must be acknowledged before an unacknowledged one is lost.
const PACKET_THRESHOLD: u64 = 3;

/// A transmission declared lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lost {
    pub tx_id: u64,
    /// The message's absolute sequence number.
    pub abs: u64,
    pub chunk: u8,
}

impl InFlight {
    /// Declares lost every transmission more than [`PACKET_THRESHOLD`] ids older than the
    /// largest acknowledged one; pushes them to `lost`, oldest first.
    pub fn detect_by_threshold(&mut self, lost: &mut Vec<Lost>) {
        let largest = self.largest_acked();
        while let Some((tx_id, sent)) =
            self.take_oldest(|tx_id, _| tx_id + PACKET_THRESHOLD < largest)
        {
            lost.push(Lost {
                tx_id,
                abs: sent.abs,
                chunk: sent.chunk,
            });
        }
    }

    /// Declares lost every transmission whose retransmission timer (`rto`) expired by `now`;
    /// pushes them to `lost`, oldest first.
    pub fn detect_by_timer(&mut self, now: Instant, rto: Duration, lost: &mut Vec<Lost>) {
        while let Some((tx_id, sent)) = self.take_oldest(|_, sent| sent.sent_at + rto <= now) {
            lost.push(Lost {
                tx_id,
                abs: sent.abs,
                chunk: sent.chunk,
            });
        }
    }

    /// Whether nothing in flight was acknowledged for a whole `rto` before `now`: a timeout
    /// then is a blackout, not one lost chunk.
    pub fn silent_for(&self, now: Instant, rto: Duration) -> bool {
        self.last_ack_at()
            .is_none_or(|t| now.saturating_duration_since(t) >= rto)
    }

    /// When the oldest transmission in flight times out (the timeout read only if there is
    /// one: most timer queries find nothing in flight).
    #[inline]
    pub fn next_timeout(&self, rtt: &RttEstimator) -> Option<Instant> {
        self.oldest().map(|(_, sent)| sent.sent_at + rtt.rto())
    }

    /// The latest of when the oldest chunk in flight was sent and when a chunk was last
    /// acknowledged: what a probe timeout counts from. `None` with nothing in flight.
    #[inline]
    pub fn quiet_since(&self) -> Option<Instant> {
        let (_, oldest) = self.oldest()?;
        Some(
            self.last_ack_at()
                .map_or(oldest.sent_at, |t| t.max(oldest.sent_at)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transmission_is_lost_three_behind_the_largest_acknowledged_or_after_its_timeout() {
        let start = Instant::now();
        let ms = Duration::from_millis;
        let mut f = InFlight::new();
        for chunk in 0..6 {
            f.send(1, chunk, start + ms(u64::from(chunk)));
        }
        let mut lost = Vec::new();
        // 5 acknowledged: 1 is more than three behind it, 2 is not.
        assert!(f.acked(5, start + ms(10)));
        f.detect_by_threshold(&mut lost);
        assert_eq!(
            lost,
            [Lost {
                tx_id: 1,
                abs: 1,
                chunk: 0
            }]
        );
        let rtt = RttEstimator::new(ms(50), ms(100), ms(1000));
        assert_eq!(rtt.rto(), ms(150));
        assert_eq!(f.next_timeout(&rtt), Some(start + ms(151)));
        assert_eq!(f.quiet_since(), Some(start + ms(10)));
        // The timer takes 2 and 3 (sent at 1 and 2 ms) at 102 ms; 5 and 6 still fly.
        lost.clear();
        f.detect_by_timer(start + ms(102), ms(100), &mut lost);
        let ids: Vec<u64> = lost.iter().map(|l| l.tx_id).collect();
        assert_eq!(ids, [2, 3]);
        assert_eq!(f.len(), 2);
        assert!(!f.silent_for(start + ms(109), ms(100)));
        assert!(f.silent_for(start + ms(110), ms(100)));
    }
}
