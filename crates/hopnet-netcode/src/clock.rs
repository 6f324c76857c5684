//! Unix time for a machine that is given only `Instant`s: connect tokens expire at a Unix
//! timestamp, so a server is told once which Unix time one instant was, and counts from it.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Converts instants to Unix seconds from one known pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UnixClock {
    anchor: Instant,
    anchor_unix_seconds: u64,
}

impl UnixClock {
    pub(crate) fn new(anchor: Instant, unix: SystemTime) -> UnixClock {
        let anchor_unix_seconds = unix.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        UnixClock {
            anchor,
            anchor_unix_seconds,
        }
    }

    /// The Unix time at `now`, in whole seconds (never before the anchor's).
    pub(crate) fn unix_seconds(&self, now: Instant) -> u64 {
        self.anchor_unix_seconds
            .saturating_add(now.saturating_duration_since(self.anchor).as_secs())
    }
}
