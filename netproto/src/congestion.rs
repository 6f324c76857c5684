//! A NewReno-style congestion window counted in chunks.
//!
//! Slow start doubles the window each round trip; after a loss the window halves (once per
//! round trip of losses: a burst of losses from the same window is one congestion event) and
//! grows by one chunk per round trip. The window never drops below a configured floor: with
//! random (non-congestion) loss, as on a lossy game link, collapsing to one chunk would stall
//! reliable traffic for no benefit.

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

#[cfg(test)]
mod tests {
    use super::*;

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
