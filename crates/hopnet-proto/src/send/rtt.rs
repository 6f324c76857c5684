//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Only first transmissions give samples (Karn's rule); the exponential backoff ends with a
//! new sample, or when a retransmission is acknowledged faster than the un-backed-off timeout.

use std::time::Duration;

/// Clock granularity term of RFC 6298.
const GRANULARITY: Duration = Duration::from_millis(1);

/// A duration in whole nanoseconds (saturating after 584 years).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// RFC 6298 round-trip estimator: the smoothed round trip, its variation, and the
/// retransmission timeout with exponential backoff.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    min: Option<Duration>,
    base_rto: Duration,
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
}

impl RttEstimator {
    /// An estimator with no sample yet: the timeout starts at three times `initial_rtt`, and
    /// always stays within `min_rto..=max_rto`.
    pub fn new(initial_rtt: Duration, min_rto: Duration, max_rto: Duration) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: initial_rtt / 2,
            min: None,
            base_rto: (initial_rtt * 3).clamp(min_rto, max_rto),
            backoff: 0,
            min_rto,
            max_rto,
        }
    }

    /// A new measurement (only from chunks sent once).
    ///
    /// The arithmetic is on whole nanoseconds, with the same results as on `Duration`s: a
    /// `Duration` divided by an integer divides its seconds and its nanoseconds apart, several
    /// divisions for every acknowledged chunk.
    pub fn sample(&mut self, r: Duration) {
        let r_ns = nanos(r);
        let (srtt, rttvar) = match self.srtt {
            None => (r_ns, r_ns / 2),
            Some(srtt) => {
                let (srtt, rttvar) = (nanos(srtt), nanos(self.rttvar));
                let delta = srtt.abs_diff(r_ns);
                (
                    srtt.saturating_mul(7) / 8 + r_ns / 8,
                    rttvar.saturating_mul(3) / 4 + delta / 4,
                )
            }
        };
        self.srtt = Some(Duration::from_nanos(srtt));
        self.rttvar = Duration::from_nanos(rttvar);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        let spread = rttvar.saturating_mul(4).max(nanos(GRANULARITY));
        self.base_rto =
            Duration::from_nanos(srtt.saturating_add(spread)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// The current retransmission timeout, including backoff.
    pub fn rto(&self) -> Duration {
        self.base_rto
            .saturating_mul(1 << self.backoff.min(16))
            .min(self.max_rto)
    }

    /// The timer expired: double the timeout until a new sample arrives.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// A retransmission was acknowledged within the un-backed-off timeout of being sent: the
    /// timeout is long enough after all, so the backoff ends even without a sample. (Without
    /// this, a link where every first transmission of a rare reliable message is lost would
    /// never take a sample and would keep the backoff forever.)
    pub fn on_prompt_retransmission_ack(&mut self, elapsed: Duration) {
        if elapsed < self.base_rto {
            self.backoff = 0;
        }
    }

    /// How long to wait for an acknowledgement before probing for one, given the peer's
    /// acknowledgement delay: SRTT + max(4 × RTTVAR, 1 ms) + that delay, without the
    /// retransmission timeout's floor (QUIC's probe timeout), doubled per probe already sent.
    pub fn probe_timeout(&self, ack_delay: Duration, probes: u32) -> Duration {
        let srtt = self.srtt.unwrap_or(self.rttvar * 2);
        let spread = (self.rttvar * 4).max(GRANULARITY);
        (srtt + spread + ack_delay)
            .saturating_mul(1 << probes.min(6))
            .min(self.max_rto)
    }

    /// The smoothed round trip, once a sample came.
    pub fn smoothed(&self) -> Option<Duration> {
        self.srtt
    }

    /// The smallest sample.
    pub fn min(&self) -> Option<Duration> {
        self.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc6298() {
        let mut r = RttEstimator::new(
            Duration::from_millis(100),
            Duration::from_millis(10),
            Duration::from_secs(10),
        );
        assert_eq!(r.rto(), Duration::from_millis(300));
        r.sample(Duration::from_millis(40));
        // srtt 40, rttvar 20: rto = 40 + 80
        assert_eq!(r.rto(), Duration::from_millis(120));
        r.back_off();
        assert_eq!(r.rto(), Duration::from_millis(240));
        r.sample(Duration::from_millis(40));
        // rttvar = 15 + 0, srtt = 40: rto = 100, backoff reset
        assert_eq!(r.rto(), Duration::from_millis(100));
    }
}
