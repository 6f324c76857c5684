//! A client's byte budget: bytes per second, the smaller of the game's cap and what that
//! client's congestion controller says its link carries, spent as a token bucket with a
//! bounded carry, and never more than the budget in any one second.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hopnet_proto::{CHUNK_SIZE, HEADER_LEN};

/// The bytes a payload of `len` bytes takes on the spec's wire: split into
/// [`CHUNK_SIZE`] chunks (at least one), each in a datagram with the [`HEADER_LEN`]-byte
/// header and `datagram_overhead` bytes more (28 for IPv4 and UDP headers, when the budget is
/// the link's; the extended wire's CRC-32 is 4).
///
/// ```
/// use hopnet_sync::replicate::wire_len;
///
/// assert_eq!(wire_len(100, 0), 104);
/// assert_eq!(wire_len(600, 28), 600 + 2 * (4 + 28)); // two chunks
/// ```
pub fn wire_len(len: usize, datagram_overhead: usize) -> usize {
    let datagrams = len.div_ceil(CHUNK_SIZE).max(1);
    len + datagrams * (HEADER_LEN + datagram_overhead)
}

/// One second: the window no budget may be exceeded in.
const SECOND: Duration = Duration::from_secs(1);

/// Spends at most a rate of bytes per second: tokens come in at the rate and are kept up to
/// `carry` worth (so a quiet tick lets the next send a little more, not a second's worth at
/// once), and whatever the tokens say, what was spent over the last second plus what is
/// spent now never exceeds the rate. The rate may change at every call (the link's estimate
/// moves); unlimited when it is `None`.
///
/// ```
/// use std::time::{Duration, Instant};
/// use hopnet_sync::replicate::Budget;
///
/// let start = Instant::now();
/// let mut budget = Budget::new(Duration::from_millis(50));
/// // 10,000 bytes a second: 500 bytes of carry at most.
/// assert_eq!(budget.available(start, Some(10_000)), 500);
/// budget.spend(start, 500);
/// assert_eq!(budget.available(start + Duration::from_millis(20), Some(10_000)), 200);
/// ```
#[derive(Debug, Clone)]
pub struct Budget {
    carry: Duration,
    burst: u64,
    tokens: f64,
    last: Option<Instant>,
    /// What was spent, and when, over the last second.
    spent: VecDeque<(Instant, u64)>,
    spent_sum: u64,
}

/// At most this many spends are remembered (older ones are summed into the oldest kept).
const MAX_SPENDS: usize = 4096;

impl Budget {
    /// A budget whose tokens carry over at most `carry` worth of its rate. It starts full.
    pub fn new(carry: Duration) -> Budget {
        Budget {
            carry,
            burst: 0,
            tokens: f64::INFINITY,
            last: None,
            spent: VecDeque::new(),
            spent_sum: 0,
        }
    }

    /// Lets the tokens carry at least `bytes` (but never more than a second's worth), so
    /// that a message of that size fits now and then however low the rate: a replicator's
    /// largest update.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use hopnet_sync::replicate::Budget;
    ///
    /// let mut budget = Budget::new(Duration::from_millis(50)).with_burst(508);
    /// assert_eq!(budget.capacity(Some(2_000)), 508); // not 100
    /// assert_eq!(budget.capacity(Some(400)), 400); // a second's worth at most
    /// ```
    pub fn with_burst(mut self, bytes: u64) -> Budget {
        self.burst = bytes;
        self
    }

    /// The most the tokens hold under `rate` bytes per second: what the largest message
    /// sent at once may take (`u64::MAX` when unlimited).
    pub fn capacity(&self, rate: Option<u64>) -> u64 {
        let Some(rate) = rate else {
            return u64::MAX;
        };
        let carried = (rate as f64 * self.carry.as_secs_f64()) as u64;
        carried.max(self.burst).min(rate)
    }

    /// The bytes that may be spent at `now` under `rate` bytes per second.
    pub fn available(&mut self, now: Instant, rate: Option<u64>) -> u64 {
        self.forget_before(now);
        let Some(rate) = rate else {
            self.last = Some(now);
            return u64::MAX;
        };
        let cap = self.capacity(Some(rate)) as f64;
        let elapsed = self
            .last
            .map_or(Duration::ZERO, |l| now.saturating_duration_since(l));
        self.tokens = (self.tokens + rate as f64 * elapsed.as_secs_f64()).min(cap);
        self.last = Some(now);
        let window = rate.saturating_sub(self.spent_sum);
        (self.tokens.max(0.0) as u64).min(window)
    }

    /// Records `bytes` spent at `now` (after [`available`](Self::available) at the same
    /// instant said they may be).
    pub fn spend(&mut self, now: Instant, bytes: u64) {
        self.tokens -= bytes as f64;
        if self.spent.len() >= MAX_SPENDS
            && let Some((_, b)) = self.spent.pop_front()
        {
            // Bounded memory: the oldest is merged into the next, which stays in the window
            // longer (the sum overstates, never understates, what the last second spent).
            match self.spent.front_mut() {
                Some(next) => next.1 += b,
                None => self.spent_sum -= b,
            }
        }
        self.spent.push_back((now, bytes));
        self.spent_sum += bytes;
    }

    /// The bytes spent within the second before `now`.
    pub fn spent_last_second(&mut self, now: Instant) -> u64 {
        self.forget_before(now);
        self.spent_sum
    }

    fn forget_before(&mut self, now: Instant) {
        while let Some(&(at, bytes)) = self.spent.front() {
            if now.saturating_duration_since(at) < SECOND {
                break;
            }
            self.spent.pop_front();
            self.spent_sum -= bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever is asked and whenever, no one-second window holds more than the rate, and a
    /// steady asker gets close to it.
    #[test]
    fn no_second_over_the_rate() {
        let start = Instant::now();
        let mut budget = Budget::new(Duration::from_millis(100)).with_burst(508);
        let rate = 5_000;
        let mut spent = Vec::new();
        let mut seed = 7u64;
        let mut at = start;
        for _ in 0..5_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            at += Duration::from_micros(1_000 + (seed >> 40) % 30_000);
            let want = 20 + (seed >> 20) % 700;
            let can = budget.available(at, Some(rate));
            if want <= can {
                budget.spend(at, want);
                spent.push((at, want));
            }
        }
        let mut most = 0;
        for (i, &(t, _)) in spent.iter().enumerate() {
            let sum: u64 = spent[i..]
                .iter()
                .take_while(|(u, _)| *u < t + SECOND)
                .map(|(_, b)| b)
                .sum();
            most = most.max(sum);
        }
        let total: u64 = spent.iter().map(|(_, b)| b).sum();
        let seconds = (at - start).as_secs_f64();
        assert!(most <= rate, "{most}");
        assert!(
            total as f64 / seconds > 0.8 * rate as f64,
            "{total} in {seconds} s"
        );
    }
}
