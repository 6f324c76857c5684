//! The 30 Hz loop's clock: when the next tick is due, kept on its beat.

use std::time::{Duration, Instant};

#[derive(Debug)]
pub(super) struct Ticker {
    period: Duration,
    next: Option<Instant>,
}

impl Ticker {
    /// Stopped until [`start`](Self::start) or, with `first`, first due then.
    pub fn new(period: Duration, first: Option<Instant>) -> Ticker {
        Ticker {
            period,
            next: first,
        }
    }

    /// Due at `now` if stopped.
    pub fn start(&mut self, now: Instant) {
        self.next.get_or_insert(now);
    }

    pub fn stop(&mut self) {
        self.next = None;
    }

    pub fn next(&self) -> Option<Instant> {
        self.next
    }

    /// Whether a tick is due at `now`; if so the next one is scheduled a period after it (or
    /// after `now`, when the loop fell behind by more than a period).
    pub fn take(&mut self, now: Instant) -> bool {
        let Some(due) = self.next.filter(|&t| now >= t) else {
            return false;
        };
        let next = due + self.period;
        self.next = Some(if next > now { next } else { now + self.period });
        true
    }
}

/// The [`Machine::poll_timeout`](hopnet::Machine::poll_timeout) of a role whose only deadline
/// is its `ticker`'s next tick.
macro_rules! poll_timeout_by_ticker {
    () => {
        fn poll_timeout(&self) -> Option<Instant> {
            self.ticker.next()
        }
    };
}
pub(super) use poll_timeout_by_ticker;
