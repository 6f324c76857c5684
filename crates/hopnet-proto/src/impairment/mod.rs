//! Loss, delay and jitter drawn for datagrams: the one draw that the drivers' impairment, the
//! relay and the simulator's links share, from one small seeded generator, and the line that
//! holds delayed datagrams until they are due.

mod delay_line;
mod rng;

use std::time::{Duration, Instant};

pub(crate) use delay_line::DelayLine;
pub(crate) use rng::LinkRng;

/// Loss and delay applied to datagrams, for trying an application over real sockets through a
/// bad link: a driver's outgoing datagrams (`hopnet`'s drivers' `set_impairment`), or both
/// directions of `hopnet`'s relay.
#[derive(Debug, Clone, PartialEq)]
pub struct Impairment {
    /// Probability that a datagram is dropped.
    pub loss: f64,
    /// Delay added to every datagram.
    pub delay: Duration,
    /// Uniform extra delay in `0..=jitter`.
    pub jitter: Duration,
    /// Seed of the loss and jitter draws.
    pub seed: u64,
}

impl Default for Impairment {
    fn default() -> Self {
        Impairment {
            loss: 0.0,
            delay: Duration::ZERO,
            jitter: Duration::ZERO,
            seed: 0,
        }
    }
}

impl LinkRng {
    /// Whether a datagram is lost on a link that loses a share `p` of them.
    pub fn lost(&mut self, p: f64) -> bool {
        self.chance(p)
    }

    /// How long a datagram takes: `base`, plus a uniform share of `jitter`.
    pub fn delay(&mut self, base: Duration, jitter: Duration) -> Duration {
        if jitter.is_zero() {
            base
        } else {
            base + jitter.mul_f64(self.unit())
        }
    }
}

/// Datagrams a line holds at most; what comes on top is dropped.
const MAX_HELD: usize = 65536;

/// An [`Impairment`] at work: its draws, and the datagrams it holds back (at most 65,536; what
/// comes on top is dropped). What a driver runs its outgoing datagrams through.
#[derive(Debug)]
pub struct Impaired<T> {
    config: Impairment,
    rng: LinkRng,
    line: DelayLine<T>,
}

impl<T> Impaired<T> {
    /// An impairment with nothing held yet, its draws seeded from `config.seed`.
    pub fn new(config: Impairment) -> Impaired<T> {
        Impaired {
            rng: LinkRng::new(config.seed),
            config,
            line: DelayLine::default(),
        }
    }

    /// When a datagram offered at `now` leaves: `None` if it is lost (or the line is full).
    pub fn draw(&mut self, now: Instant) -> Option<Instant> {
        if self.line.len() >= MAX_HELD || self.rng.lost(self.config.loss) {
            return None;
        }
        Some(now + self.rng.delay(self.config.delay, self.config.jitter))
    }

    /// Holds `item` until `at`.
    pub fn hold(&mut self, at: Instant, item: T) {
        self.line.push(at, item);
    }

    /// The next item due at `now`, if any.
    pub fn pop_due(&mut self, now: Instant) -> Option<T> {
        self.line.pop_due(now)
    }

    /// When the next held item is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.line.next_due()
    }
}
