//! The settings both sides of replication share.

use std::time::Duration;

/// The settings both sides of replication share.
///
/// ```
/// use hopnet_sync::replicate::ReplicateConfig;
///
/// // Budgets counted as the link counts them: IPv4 and UDP headers too.
/// let config = ReplicateConfig { datagram_overhead: 28, ..ReplicateConfig::default() };
/// assert_eq!(config.history, 160);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicateConfig {
    /// Ticks of states the client keeps for deltas to be written against (160). Both sides
    /// must agree on it.
    pub history: u32,
    /// The oldest baseline, in ticks, the server writes a delta against (64); an entity whose
    /// acknowledged state is older is sent whole. `history - max_baseline_age` must be at
    /// least hopnet's tracked timeout in ticks (a second: 96 ticks covers up to 96 Hz), so
    /// that the client still holds the baseline of any update acknowledged in time.
    pub max_baseline_age: u32,
    /// How much of a quiet tick's budget the next may spend: a token bucket's depth, as a
    /// duration of the budget (100 ms).
    pub carry: Duration,
    /// Bytes counted per datagram beyond hopnet's header (0): 28 counts IPv4 and UDP too.
    pub datagram_overhead: usize,
    /// The largest update, in bytes (one chunk, 504: a lost datagram loses one update).
    pub max_update_bytes: usize,
    /// Updates awaiting their acknowledgement per client (256); past it the oldest counts as
    /// lost.
    pub max_in_flight: usize,
    /// The most entities a client holds (65,536); an update that would pass it is refused.
    pub max_entities: usize,
    /// How long a state sent waits for its acknowledgement before it is sent again, when the
    /// client's round trip is not known (250 ms; once it is, one and a half round trips).
    pub resend_after: Duration,
    /// Under a budget, the bytes the budget must hold before an update it would cut short
    /// is sent (0, the default: one every tick, however thin). Each datagram carries headers
    /// of its own (hopnet's, and `datagram_overhead`): on a tight budget, a fuller update
    /// every few ticks leaves more of it for states than a thin one every tick. An update
    /// that carries everything the client needs goes at once, whatever its size; a value
    /// larger than the budget can ever hold counts as that much.
    pub min_budgeted_update: usize,
}

impl Default for ReplicateConfig {
    fn default() -> Self {
        ReplicateConfig {
            history: 160,
            max_baseline_age: 64,
            carry: Duration::from_millis(100),
            datagram_overhead: 0,
            max_update_bytes: hopnet_proto::CHUNK_SIZE,
            max_in_flight: 256,
            max_entities: 65_536,
            resend_after: Duration::from_millis(250),
            min_budgeted_update: 0,
        }
    }
}
