//! Pacing: a window's chunks spread over a round trip instead of sent back to back, so that a
//! large message does not overflow a router's (or a receiver's socket's) buffer in one burst.

use std::time::{Duration, Instant};

/// A token bucket refilled at 1.25 × window / SRTT chunks per second, holding at most
/// [`PACING_INTERVAL`] worth of chunks at that rate, between [`MIN_BURST`] and [`MAX_BURST`].
///
/// Why the burst scales with the rate: on a slow or long path (a 2 MB/s link at 20 ms) two
/// milliseconds are a handful of chunks, so the bucket stays small and a bottleneck's short
/// queue is not overrun; on a fast path (loopback, a LAN) a fixed burst of ten chunks would
/// cut every GSO batch to ten datagrams and make the pacer, not the window, the limit.
#[derive(Debug, Clone)]
pub(crate) struct Pacer {
    tokens: f64,
    last: Option<Instant>,
}

/// How much sending time the bucket may save up.
const PACING_INTERVAL: f64 = 0.002;
/// The fewest chunks that may leave back to back, however slow the path.
const MIN_BURST: f64 = 10.0;
/// The most chunks that may leave back to back, quinn's cap too. A fast path's bucket is always
/// at this cap; at 128 (a driver's largest GSO batch, `io::MAX_BATCH`) a fast sender's flushes
/// ran the bucket dry and left in more, smaller sends, each with its read and yield, so the
/// pacer and not the window set the number of system calls (BENCHMARKS.md, "Stop 21").
const MAX_BURST: f64 = 256.0;

impl Pacer {
    pub fn new() -> Pacer {
        Pacer {
            tokens: MIN_BURST,
            last: None,
        }
    }

    fn rate(window: u32, srtt: Duration) -> f64 {
        1.25 * f64::from(window) / srtt.as_secs_f64().max(1e-6)
    }

    fn refill(&mut self, now: Instant, window: u32, srtt: Duration) {
        // The chunks of one batch are checked at one instant: nothing to add after the first.
        if self.last == Some(now) {
            return;
        }
        if let Some(last) = self.last {
            let elapsed = now.saturating_duration_since(last).as_secs_f64();
            let rate = Self::rate(window, srtt);
            let burst = (rate * PACING_INTERVAL).clamp(MIN_BURST, MAX_BURST);
            self.tokens = (self.tokens + elapsed * rate).min(burst);
        }
        self.last = Some(now);
    }

    /// Gives back the token of a [`check`](Self::check) whose chunk was not sent after all
    /// (never more than a burst: before the first RTT sample `check` takes no token).
    pub fn refund(&mut self) {
        self.tokens = (self.tokens + 1.0).min(MAX_BURST);
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
    fn pacer_burst_is_two_milliseconds_of_sending_within_bounds() {
        // Counts the chunks that leave at once after the bucket has had a whole second to fill.
        fn burst(window: u32, srtt: Duration) -> u32 {
            let start = Instant::now();
            let mut p = Pacer::new();
            assert_eq!(p.check(start, window, Some(srtt)), None);
            let later = start + Duration::from_secs(1);
            let mut n = 0;
            while p.check(later, window, Some(srtt)).is_none() {
                n += 1;
            }
            n
        }
        // 1.25 × 80 chunks per 20 ms = 5 chunks in 2 ms: the floor of 10 applies.
        assert_eq!(burst(80, Duration::from_millis(20)), 10);
        // 1.25 × 200 per 10 ms = 50 in 2 ms.
        assert_eq!(burst(200, Duration::from_millis(10)), 50);
        // Loopback: 1024 chunks per 50 µs would be thousands in 2 ms; capped.
        assert_eq!(burst(1024, Duration::from_micros(50)), 256);
    }
}
