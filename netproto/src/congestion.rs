//! A NewReno-style congestion window counted in chunks.
//!
//! Slow start doubles the window each round trip; after a loss the window halves (once per
//! round trip of losses: a burst of losses from the same window is one congestion event) and
//! grows by one chunk per round trip. The window never drops below a configured floor: with
//! random (non-congestion) loss, as on a lossy game link, collapsing to one chunk would stall
//! reliable traffic for no benefit.

use std::time::{Duration, Instant};

/// Congestion controller state.
#[derive(Debug, Clone)]
pub(crate) struct Congestion {
    window: u32,
    ssthresh: u32,
    min: u32,
    max: u32,
    acked_in_round: u32,
    /// Losses of chunks sent before this transmission id belong to an event already handled.
    recovery_until: u64,
}

impl Congestion {
    pub fn new(initial: u32, min: u32, max: u32) -> Congestion {
        Congestion {
            window: initial,
            ssthresh: u32::MAX,
            min,
            max,
            acked_in_round: 0,
            recovery_until: 0,
        }
    }

    /// Chunks that may be in flight.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// A chunk was acknowledged.
    pub fn on_ack(&mut self) {
        if self.window < self.ssthresh {
            self.window = (self.window + 1).min(self.max);
        } else {
            self.acked_in_round += 1;
            if self.acked_in_round >= self.window {
                self.acked_in_round = 0;
                self.window = (self.window + 1).min(self.max);
            }
        }
    }

    /// A chunk sent with transmission id `tx_id` was declared lost; `next_tx_id` is the id the
    /// next transmission will get.
    pub fn on_loss(&mut self, tx_id: u64, next_tx_id: u64) {
        if tx_id < self.recovery_until {
            return;
        }
        self.recovery_until = next_tx_id;
        self.window = (self.window / 2).max(self.min);
        self.ssthresh = self.window;
        self.acked_in_round = 0;
    }
}

/// Spreads a window's chunks over a round trip instead of sending them back to back, so
/// that a large message does not overflow a router's (or a receiver's socket's) buffer in one
/// burst. A token bucket refilled at 1.25 × window / SRTT chunks per second, holding at most
/// a small burst.
#[derive(Debug, Clone)]
pub(crate) struct Pacer {
    tokens: f64,
    last: Option<Instant>,
}

/// Chunks that may leave back to back.
const PACING_BURST: f64 = 10.0;

impl Pacer {
    pub fn new() -> Pacer {
        Pacer {
            tokens: PACING_BURST,
            last: None,
        }
    }

    fn rate(window: u32, srtt: Duration) -> f64 {
        1.25 * f64::from(window) / srtt.as_secs_f64().max(1e-6)
    }

    fn refill(&mut self, now: Instant, window: u32, srtt: Duration) {
        if let Some(last) = self.last {
            let elapsed = now.saturating_duration_since(last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * Self::rate(window, srtt)).min(PACING_BURST);
        }
        self.last = Some(now);
    }

    /// `None` if a chunk may leave now (and takes its token), else when one may.
    pub fn check(&mut self, now: Instant, window: u32, srtt: Option<Duration>) -> Option<Instant> {
        // Before the first RTT sample there is no rate to pace at.
        let srtt = srtt?;
        self.refill(now, window, srtt);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return None;
        }
        let wait = (1.0 - self.tokens) / Self::rate(window, srtt);
        Some(now + Duration::from_secs_f64(wait.min(1.0)) + Duration::from_nanos(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_spreads_a_window_over_a_round_trip() {
        let start = Instant::now();
        let srtt = Some(Duration::from_millis(100));
        let mut p = Pacer::new();
        let mut now = start;
        let mut sent = 0;
        while now < start + Duration::from_millis(100) {
            match p.check(now, 100, srtt) {
                None => sent += 1,
                Some(t) => now = t,
            }
        }
        // 10 at once, then 1.25 × 100 per 100 ms.
        assert!((130..=140).contains(&sent), "{sent}");
        assert_eq!(Pacer::new().check(start, 4, None), None);
    }

    #[test]
    fn slow_start_then_halve_once_per_event() {
        let mut c = Congestion::new(10, 4, 100);
        for _ in 0..10 {
            c.on_ack();
        }
        assert_eq!(c.window(), 20);
        c.on_loss(5, 30);
        assert_eq!(c.window(), 10);
        c.on_loss(6, 31);
        assert_eq!(c.window(), 10);
        c.on_loss(30, 40);
        assert_eq!(c.window(), 5);
        c.on_loss(41, 50);
        assert_eq!(c.window(), 4);
    }
}
