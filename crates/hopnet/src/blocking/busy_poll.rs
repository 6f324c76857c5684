//! When the busy-poll stands down: on a machine with more runnable threads than cores, a yield
//! hands the core to another thread for a whole scheduler slice (milliseconds), while a thread
//! sleeping in poll(2) is woken, and usually scheduled at once, when its datagram arrives. So
//! when a busy-poll's turns keep getting slow, `poll` sleeps at once for a while (a "calm"),
//! then tries busy-polling again.

use std::time::{Duration, Instant};

/// A gap this long between two reads of a busy-poll means that the thread lost its core for a
/// while (a scheduler's slice is at least about 0.75 ms).
const SLOW_TURN: Duration = Duration::from_micros(250);
/// This many slow turns within [`STRIKES_WITHIN`] mean that another thread wants this core.
/// Fewer may be the host's hiccups: a virtual machine's core is taken away now and then, and
/// with two strikes an idle echo's busy-poll stood down a few times per second, which raised
/// its 99th percentile round trip (BENCHMARKS.md).
const STRIKES: u32 = 4;
/// See [`STRIKES`].
const STRIKES_WITHIN: Duration = Duration::from_millis(50);
/// How long `poll` then sleeps at once instead of busy-polling, at first; doubled for each
/// further calm that begins within [`CONTENTION_MEMORY`] of the last one's end, up to
/// [`MAX_CALM`].
const MIN_CALM: Duration = Duration::from_millis(4);
/// The longest calm.
const MAX_CALM: Duration = Duration::from_millis(128);
/// How long a contention is remembered after its calm ended.
const CONTENTION_MEMORY: Duration = Duration::from_secs(1);

/// Whether the busy-poll should stand down because another thread wants the core.
#[derive(Debug, Clone, Default)]
pub(super) struct Contention {
    /// The first slow turn of the current strike window, and the slow turns in it.
    strikes_from: Option<Instant>,
    strikes: u32,
    /// No busy-poll before this.
    calm_until: Option<Instant>,
    /// The last calm's length.
    calm: Duration,
}

impl Contention {
    /// Whether `poll` may busy-poll at `now`.
    pub fn may_spin(&self, now: Instant) -> bool {
        self.calm_until.is_none_or(|t| now >= t)
    }

    /// A turn of the busy-poll that ended at `at` took `took`; `true` if the busy-poll should
    /// stop (a calm has begun).
    pub fn turn(&mut self, at: Instant, took: Duration) -> bool {
        if took < SLOW_TURN {
            return false;
        }
        match self.strikes_from {
            Some(from) if at.saturating_duration_since(from) < STRIKES_WITHIN => {
                self.strikes += 1;
            }
            _ => {
                self.strikes_from = Some(at);
                self.strikes = 1;
            }
        }
        if self.strikes < STRIKES {
            return false;
        }
        self.strikes_from = None;
        self.strikes = 0;
        let again = self
            .calm_until
            .is_some_and(|t| at.saturating_duration_since(t) < CONTENTION_MEMORY);
        self.calm = if again {
            (self.calm * 2).clamp(MIN_CALM, MAX_CALM)
        } else {
            MIN_CALM
        };
        self.calm_until = Some(at + self.calm);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: Duration = Duration::from_micros(2);
    const SLOW: Duration = Duration::from_millis(3);

    /// `STRIKES` slow turns `gap` apart, starting at `from`; whether the last began a calm.
    fn strikes(c: &mut Contention, from: Instant, gap: Duration) -> (bool, Instant) {
        let mut at = from;
        let mut calm = false;
        for i in 0..STRIKES {
            at = from + gap * i;
            calm = c.turn(at, SLOW);
            assert_eq!(
                calm,
                i + 1 == STRIKES && gap * (STRIKES - 1) < STRIKES_WITHIN
            );
        }
        (calm, at)
    }

    #[test]
    fn fast_turns_and_scattered_slow_ones_never_calm() {
        let t0 = Instant::now();
        let mut c = Contention::default();
        for i in 0..1000 {
            assert!(!c.turn(t0 + FAST * i, FAST));
        }
        // Host hiccups: slow turns, but never STRIKES of them within the window.
        let gap = STRIKES_WITHIN / (STRIKES - 1) + FAST;
        let (calm, at) = strikes(&mut c, t0, gap);
        assert!(!calm && c.may_spin(at));
        let (calm, at) = strikes(&mut c, at + gap, gap);
        assert!(!calm && c.may_spin(at));
    }

    #[test]
    fn repeated_slow_turns_calm_and_contention_soon_after_calms_longer() {
        let t0 = Instant::now();
        let mut c = Contention::default();
        let (calm, at) = strikes(&mut c, t0, SLOW);
        assert!(calm);
        assert!(!c.may_spin(at + MIN_CALM - FAST));
        assert!(c.may_spin(at + MIN_CALM));
        // Contention again soon after each calm: the calm doubles, up to its cap.
        let mut at = at + MIN_CALM;
        let mut expect = MIN_CALM;
        for _ in 0..12 {
            let (calm, end) = strikes(&mut c, at, SLOW);
            assert!(calm);
            expect = (expect * 2).min(MAX_CALM);
            assert!(!c.may_spin(end + expect - FAST));
            assert!(c.may_spin(end + expect));
            at = end + expect;
        }
        assert_eq!(expect, MAX_CALM);
        // Long after the last calm, contention is forgotten: the shortest calm again.
        let far = at + CONTENTION_MEMORY;
        let (calm, end) = strikes(&mut c, far, SLOW);
        assert!(calm);
        assert!(!c.may_spin(end + MIN_CALM - FAST));
        assert!(c.may_spin(end + MIN_CALM));
    }
}
