//! The retransmission timeout's settings, shared by the protocols that resend: what they
//! give hopnet's [`RttEstimator`].

use std::time::Duration;

use hopnet::engine::RttEstimator;

/// The round trip assumed before the first sample, and the bounds of the retransmission
/// timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtoConfig {
    /// The round trip assumed before the first sample.
    pub initial_rtt: Duration,
    /// The timeout's floor.
    pub min: Duration,
    /// The timeout's ceiling.
    pub max: Duration,
}

impl RtoConfig {
    /// An estimator with these settings.
    pub fn estimator(&self) -> RttEstimator {
        RttEstimator::new(self.initial_rtt, self.min, self.max)
    }
}
