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
        self.partials.retain(|_, p| {
            if now < timeouts.deadline(p) {
                return true;
            }
            if p.reliable {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::packet::{Flags, Header};

    fn h(flags: Flags, chunk: u8, seq: u16) -> Header {
        Header::new(flags, chunk, seq)
    }

    #[test]
    fn unreliable_partials_expire() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        r.on_chunk(now, h(Flags::NONE, 0, 9), &[0; 504], 0, 1 << 20);
        assert!(r.partial_bytes() > 0);
        assert_eq!(r.next_expiry(), Some(now + Duration::from_secs(1)));
        assert_eq!(
            r.expire(now + Duration::from_millis(999)),
            Expired::default()
        );
        let expired = r.expire(now + Duration::from_secs(1));
        assert_eq!((expired.unreliable, expired.reliable), (1, 0));
        assert_eq!(r.partial_bytes(), 0);
    }

    #[test]
    fn silent_reliable_partials_are_abandoned_and_repeats_keep_them() {
        let now = Instant::now();
        let secs = Duration::from_secs;
        let mut r = Reassembler::new(false, secs(1), secs(30));
        r.on_chunk(now, h(Flags::REL, 0, 5), &[1; 504], 0, 1 << 20);
        r.on_chunk(now, h(Flags::REL, 0, 6), &[2; 504], 0, 1 << 20);
        assert_eq!(r.next_expiry(), Some(now + secs(30)));
        // A repeated chunk of sequence 5 at 20 s: its sender is alive, its deadline moves.
        let again = r.on_chunk(now + secs(20), h(Flags::REL, 0, 5), &[1; 504], 0, 1 << 20);
        assert!(again.ack);
        assert_eq!(r.expire(now + secs(29)), Expired::default());
        let expired = r.expire(now + secs(30));
        assert_eq!((expired.unreliable, expired.reliable), (0, 1));
        assert_eq!(r.next_expiry(), Some(now + secs(50)));
        // Sequence 5 still completes.
        let done = r.on_chunk(
            now + secs(40),
            h(Flags::REL | Flags::FIN, 1, 5),
            &[3; 10],
            0,
            1 << 20,
        );
        assert_eq!(done.message.map(|(m, _)| m.len()), Some(514));
        assert_eq!(r.partial_bytes(), 0);
    }
}
