//! When an incomplete payload is given up: an unreliable one a fixed time after its first
//! chunk (it will never be resent), a reliable one once no chunk of it, new or repeated, has
//! arrived for `reliable_partial_timeout` (a live sender repeats every unacknowledged chunk at
//! least every `max_rto`, so only a sender that will never finish, or a forger, goes quiet this
//! long).

use std::time::{Duration, Instant};

use super::Reassembler;
use super::partial::Partial;

/// How long an incomplete payload is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    /// From an unreliable payload's first chunk.
    pub unreliable: Duration,
    /// From a reliable payload's last chunk, new or repeated.
    pub reliable: Duration,
}

impl Timeouts {
    fn deadline(self, p: &Partial) -> Instant {
        if p.reliable {
            p.last_at + self.reliable
        } else {
            p.first_at + self.unreliable
        }
    }
}

/// What [`Reassembler::expire`] dropped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Expired {
    /// Incomplete unreliable payloads past their timeout.
    pub unreliable: usize,
    /// Incomplete reliable payloads abandoned by a silent sender.
    pub reliable: usize,
}

impl Reassembler {
    /// A partial was created at `now`: its deadline may be the next.
    pub(super) fn note_deadline(&mut self, now: Instant, reliable: bool) {
        let timeout = if reliable {
            self.timeouts.reliable
        } else {
            self.timeouts.unreliable
        };
        let deadline = now + timeout;
        self.expiry_bound = Some(self.expiry_bound.map_or(deadline, |b| b.min(deadline)));
    }

    /// Drops the partial payloads whose deadline has passed; returns how many unreliable and
    /// how many reliable ones.
    pub fn expire(&mut self, now: Instant) -> Expired {
        let mut expired = Expired::default();
        if self.expiry_bound.is_none_or(|b| now < b) {
            return expired;
        }
        let mut freed = 0;
        let timeouts = self.timeouts;
        let ages = &mut self.ages;
        self.partials.retain(|_, p| {
            if now < timeouts.deadline(p) {
                return true;
            }
            if p.reliable {
                ages.remove(p.line);
                expired.reliable += 1;
            } else {
                expired.unreliable += 1;
            }
            freed += p.charge();
            false
        });
        self.partial_bytes -= freed;
        self.expiry_bound = self.partials.values().map(|p| timeouts.deadline(p)).min();
        expired
    }

    /// When the next partial payload may expire: never later than the real deadline, at times
    /// earlier (then [`expire`](Self::expire) finds nothing and makes it exact).
    pub fn next_expiry(&self) -> Option<Instant> {
        self.expiry_bound
    }
}
