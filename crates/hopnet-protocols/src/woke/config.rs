//! The WOKE loop's timing and limits.

use std::time::Duration;

use crate::rto::RtoConfig;

/// The largest UDP payload: the seed's 1,472 bytes.
pub const MAX_PACKET: usize = 1472;

/// The packet header: magic, type, client id, sequence, ack, ack bitfield.
pub const HEADER_LEN: usize = 12;

/// Reliable commands pending past which a connection ends (the seed's 1,024).
pub const MAX_PENDING_RELIABLE: usize = 1024;

/// Packets in a row without an acknowledgement after which a connection ends (the seed's 32).
pub const MAX_UNACKED_IN_A_ROW: u16 = 32;

/// How a WOKE endpoint behaves; [`Config::default`] is the contract's.
#[derive(Debug, Clone)]
pub struct Config {
    /// One tick of the loop: 30 Hz.
    pub tick: Duration,
    /// Connections a server keeps at once; requests beyond are not answered.
    pub max_connections: usize,
    /// Bytes of split commands one connection reassembles at once.
    pub max_reassembly_bytes: usize,
    /// Unreliable commands queued toward one peer; one more is refused.
    pub max_unreliable_queued: usize,
    /// The retransmission timeout: a reliable command not acknowledged within it is carried
    /// again.
    pub rto: RtoConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tick: Duration::from_nanos(1_000_000_000 / 30),
            max_connections: 1024,
            max_reassembly_bytes: 4 << 20,
            max_unreliable_queued: 1024,
            rto: RtoConfig {
                initial_rtt: Duration::from_millis(100),
                min: Duration::from_millis(50),
                max: Duration::from_millis(1000),
            },
        }
    }
}
