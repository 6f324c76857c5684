//! A connection's statistics as the plugins report them, whatever the transport: a counter
//! the transport does not keep is `None` ("unknown"), never a zero that would read as
//! "nothing happened".
//!
//! Which transport keeps which:
//!
//! | Counter | hopnet (UDP, secure mode, simulator) | WOKE | Semi-ordered UDP |
//! |---|---|---|---|
//! | `smoothed_rtt`, `min_rtt` | once measured | no | no |
//! | `packets_sent`, `packets_received` | yes | a client's (its socket's) | a client's (its socket's) |
//! | `bytes_sent`, `bytes_received`, `retransmissions` | yes | no | no |
//! | `messages_sent`, `messages_delivered` | yes | yes | yes |
//! | `pending_reliable` | yes | yes | yes (packages not yet confirmed) |
//! | `hopnet` (every counter of [`hopnet::Stats`]) | yes | no | no |

use std::time::Duration;

use hopnet::Stats;

/// A connection's statistics; `None` where the transport keeps no such counter (see the
/// [module](self) for which keeps which).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectionStats {
    /// Smoothed round-trip time; `None` before the first sample, or where it is not measured.
    pub smoothed_rtt: Option<Duration>,
    /// Smallest round-trip time measured.
    pub min_rtt: Option<Duration>,
    /// Datagrams sent to the peer.
    pub packets_sent: Option<u64>,
    /// Datagrams received from the peer.
    pub packets_received: Option<u64>,
    /// Bytes of the datagrams sent.
    pub bytes_sent: Option<u64>,
    /// Bytes of the datagrams received.
    pub bytes_received: Option<u64>,
    /// Reliable data sent again.
    pub retransmissions: Option<u64>,
    /// Messages the transport accepted to send.
    pub messages_sent: Option<u64>,
    /// Messages handed up to the app.
    pub messages_delivered: Option<u64>,
    /// Reliable messages awaiting their acknowledgement now.
    pub pending_reliable: Option<u64>,
    /// Every counter hopnet keeps, on hopnet's own transports.
    pub hopnet: Option<Stats>,
}

impl From<Stats> for ConnectionStats {
    fn from(stats: Stats) -> ConnectionStats {
        ConnectionStats {
            smoothed_rtt: stats.smoothed_rtt,
            min_rtt: stats.min_rtt,
            packets_sent: Some(stats.packets_sent),
            packets_received: Some(stats.packets_received),
            bytes_sent: Some(stats.bytes_sent),
            bytes_received: Some(stats.bytes_received),
            retransmissions: Some(stats.retransmissions),
            messages_sent: Some(stats.messages_sent),
            messages_delivered: Some(stats.messages_delivered),
            pending_reliable: Some(stats.pending_reliable),
            hopnet: Some(stats),
        }
    }
}
