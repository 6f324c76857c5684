//! The limits and timers of a Semi-ordered UDP endpoint.

use std::time::Duration;

use crate::rto::RtoConfig;

/// How an endpoint behaves; [`Config::default`] is the contract's.
#[derive(Debug, Clone)]
pub struct Config {
    /// The first id of this end's two counters (reliable and unreliable) toward every peer.
    pub start_id: u32,
    /// The id a new peer's reliable packages are expected to start at. A new peer whose first
    /// reliable package is outside the ordering window from here is taken to have started at
    /// that package's id.
    pub peer_start_id: u32,
    /// A peer silent this long is forgotten (the contract's 15 s).
    pub forget_after: Duration,
    /// Confirmations owed wait at most this long to fill a datagram (the contract allows 20 ms).
    pub confirm_delay: Duration,
    /// Peers known at once; datagrams from further new addresses are ignored.
    pub max_peers: usize,
    /// Reliable packages sent to one peer and not yet confirmed; `send` refuses beyond it.
    pub max_unconfirmed: usize,
    /// Unreliable packages queued toward one peer; one more is refused (it may be lost).
    pub max_unreliable_queued: usize,
    /// Bytes of semi-ordered packages one peer's receiver holds back, waiting for smaller ids.
    pub max_held_bytes: usize,
    /// The retransmission timeout: a package not confirmed within it is sent again.
    pub rto: RtoConfig,
    /// When set, a peer this end has sent nothing to for this long gets an empty
    /// confirmation (a control datagram confirming no id), so that it does not forget this
    /// end while the application is quiet, and learns of it before its first package. The
    /// contract's endpoints send none (`None`); an application's keep their peers with it.
    pub keepalive: Option<Duration>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            start_id: 0,
            peer_start_id: 0,
            forget_after: Duration::from_secs(15),
            confirm_delay: Duration::from_millis(5),
            max_peers: 1024,
            max_unconfirmed: 1024,
            max_unreliable_queued: 1024,
            max_held_bytes: 1 << 20,
            rto: RtoConfig {
                initial_rtt: Duration::from_millis(100),
                min: Duration::from_millis(20),
                max: Duration::from_millis(2000),
            },
            keepalive: None,
        }
    }
}

impl Config {
    /// The contract's behaviour with both counters, and the expected start of every peer's,
    /// at `start_id` (the example's `--start-id`, for testing the 24-bit wrap).
    pub fn starting_at(start_id: u32) -> Config {
        Config {
            start_id,
            peer_start_id: start_id,
            ..Config::default()
        }
    }
}

/// What one peer costs besides its packages: the ordering bits (8 KiB), the confirmations
/// owed (at most 10,752 ids), the structures' own size, with room for their growth.
const PEER_FIXED: usize = 64 * 1024;

/// What one reliable package awaiting confirmation costs at most: its datagram (508 bytes,
/// allocated in a 512-byte class) and its entries in the map, the send order and the timers,
/// with their growth.
const PER_UNCONFIRMED: usize = 1024;

/// What one queued unreliable package costs at most.
const PER_UNRELIABLE: usize = 640;

impl Config {
    /// The most bytes an endpoint holds, whatever its peers send: every peer at its limits
    /// (held packages counted twice for the map around them). The hostile-input tests assert
    /// the real allocation stays below it.
    pub fn memory_bound(&self) -> usize {
        let per_peer = PEER_FIXED
            + 2 * self.max_held_bytes
            + self.max_unconfirmed * PER_UNCONFIRMED
            + self.max_unreliable_queued * PER_UNRELIABLE;
        PEER_FIXED + self.max_peers * per_peer
    }
}
