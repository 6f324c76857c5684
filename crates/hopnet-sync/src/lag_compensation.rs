//! Lag compensation: a client's action judged against the world it saw.
//!
//! A client draws remote entities a round trip and an interpolation delay in the past, so a
//! shot aimed at one on its screen would miss it on the server, where it has walked on. The
//! server therefore records every tick's hit volumes ([`LagCompensation::record`], a bounded
//! history) and, for an action, rewinds to the render tick the client says it saw
//! ([`LagCompensation::rewind`]). The claim is not trusted: one older than
//! [`LagCompensation::window`] ticks is clamped to the window (an attacker cannot reach into
//! the past), one in the future to the present, and both are counted.
//!
//! ```
//! use hopnet_sync::interpolate::Interpolate;
//! use hopnet_sync::lag_compensation::{Clamp, LagCompensation};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct Circle { x: f32 }
//! impl Interpolate for Circle {
//!     fn lerp(&self, to: &Circle, t: f32) -> Circle {
//!         Circle { x: self.x + (to.x - self.x) * t }
//!     }
//! }
//!
//! let mut history = LagCompensation::new(10);
//! for tick in 0..=100 {
//!     history.record(tick, vec![(7u32, Circle { x: tick as f32 })]);
//! }
//! // The client saw tick 95.5: entity 7 was at 95.5 there.
//! let seen = history.rewind(100, 95.5);
//! assert_eq!(seen.get(7), Some(&Circle { x: 95.5 }));
//! // A claim of tick 3 is clamped to the window's edge, 90.
//! let claimed = history.rewind(100, 3.0);
//! assert_eq!((claimed.tick, claimed.clamp), (90.0, Clamp::TooOld));
//! ```

use std::collections::VecDeque;

use crate::Tick;
use crate::interpolate::Interpolate;

/// Whether a claimed view was taken as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clamp {
    /// Within the window: taken.
    None,
    /// Older than the window (or than the history): clamped to its oldest tick.
    TooOld,
    /// After the present, or not a number: clamped to the present.
    Future,
}

/// The world as a client saw it.
#[derive(Debug, Clone)]
pub struct Rewound<K, T> {
    /// The tick rewound to (the claim, clamped).
    pub tick: f64,
    /// Whether the claim was clamped.
    pub clamp: Clamp,
    /// Each entity's volume at `tick`: interpolated between the ticks around it, or the one
    /// tick's when the entity is in only one.
    pub entities: Vec<(K, T)>,
}

impl<K: PartialEq, T> Rewound<K, T> {
    /// One entity's volume.
    pub fn get(&self, key: K) -> Option<&T> {
        self.entities
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// What a [`LagCompensation`] judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LagStats {
    /// Rewinds asked for.
    pub rewinds: u64,
    /// Claims older than the window, clamped.
    pub too_old: u64,
    /// Claims in the future or not numbers, clamped.
    pub future: u64,
    /// Frames recorded out of order (dropped).
    pub out_of_order: u64,
}

/// The server's bounded history of hit volumes, by tick.
#[derive(Debug, Clone)]
pub struct LagCompensation<K, T> {
    window: Tick,
    frames: VecDeque<(Tick, Vec<(K, T)>)>,
    stats: LagStats,
}

impl<K: Copy + PartialEq, T: Interpolate> LagCompensation<K, T> {
    /// A history that rewinds at most `window` ticks (and holds that many frames plus one).
    pub fn new(window: Tick) -> LagCompensation<K, T> {
        LagCompensation {
            window,
            frames: VecDeque::new(),
            stats: LagStats::default(),
        }
    }

    /// The rewind window, in ticks.
    pub fn window(&self) -> Tick {
        self.window
    }

    /// Every entity's hit volume after tick `tick` was simulated. Ticks must increase; a tick
    /// at or before the newest recorded is dropped (counted).
    pub fn record(&mut self, tick: Tick, entities: Vec<(K, T)>) {
        if self.frames.back().is_some_and(|(t, _)| *t >= tick) {
            self.stats.out_of_order += 1;
            return;
        }
        self.frames.push_back((tick, entities));
        while let Some((oldest, _)) = self.frames.front() {
            if tick - oldest <= self.window {
                break;
            }
            self.frames.pop_front();
        }
    }

    /// The world at the `claimed` (fractional) tick a client says it saw, judged at `now`:
    /// clamped into `now - window ..= now` and into the history held.
    pub fn rewind(&mut self, now: Tick, claimed: f64) -> Rewound<K, T> {
        self.stats.rewinds += 1;
        let newest = self.frames.back().map_or(now, |(t, _)| (*t).min(now));
        let oldest = self
            .frames
            .front()
            .map_or(now, |(t, _)| (*t).max(now.saturating_sub(self.window)));
        let (tick, clamp) = if claimed.is_nan() || claimed > f64::from(newest) {
            self.stats.future += 1;
            (f64::from(newest), Clamp::Future)
        } else if claimed < f64::from(oldest) {
            self.stats.too_old += 1;
            (f64::from(oldest), Clamp::TooOld)
        } else {
            (claimed, Clamp::None)
        };
        Rewound {
            tick,
            clamp,
            entities: self.at(tick),
        }
    }

    fn at(&self, tick: f64) -> Vec<(K, T)> {
        let after = self.frames.partition_point(|(t, _)| f64::from(*t) < tick);
        let Some((t1, b)) = self.frames.get(after) else {
            return Vec::new();
        };
        if after == 0 || f64::from(*t1) == tick {
            return b.clone();
        }
        let (t0, a) = &self.frames[after - 1];
        let t = ((tick - f64::from(*t0)) / f64::from(t1 - t0)) as f32;
        a.iter()
            .map(|(k, va)| match b.iter().find(|(kb, _)| kb == k) {
                Some((_, vb)) => (*k, va.lerp(vb, t)),
                None => (*k, va.clone()),
            })
            .chain(
                b.iter()
                    .filter(|(k, _)| !a.iter().any(|(ka, _)| ka == k))
                    .cloned(),
            )
            .collect()
    }

    /// Frames held (at most `window + 1`).
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// What it judged.
    pub fn stats(&self) -> &LagStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> LagCompensation<u8, f32> {
        let mut h = LagCompensation::new(20);
        for t in 0..1000 {
            h.record(t, vec![(1, t as f32), (2, -(t as f32))]);
        }
        h
    }

    #[test]
    fn a_claim_inside_the_window_is_taken() {
        let mut h = history();
        let r = h.rewind(999, 990.25);
        assert_eq!(r.clamp, Clamp::None);
        assert_eq!(r.get(1), Some(&990.25));
        assert_eq!(r.get(2), Some(&-990.25));
    }

    #[test]
    fn hostile_claims_are_clamped_never_trusted() {
        let mut h = history();
        assert_eq!(h.len(), 21);
        let old = h.rewind(999, -1e30);
        assert_eq!((old.tick, old.clamp), (979.0, Clamp::TooOld));
        let future = h.rewind(999, 5000.0);
        assert_eq!((future.tick, future.clamp), (999.0, Clamp::Future));
        let nan = h.rewind(999, f64::NAN);
        assert_eq!(nan.clamp, Clamp::Future);
        assert_eq!(nan.get(1), Some(&999.0));
        assert_eq!((h.stats().too_old, h.stats().future), (1, 2));
        h.record(5, vec![]);
        assert_eq!(h.stats().out_of_order, 1);
    }

    #[test]
    fn entities_in_one_frame_only_are_kept() {
        let mut h = LagCompensation::new(5);
        h.record(1, vec![(1u8, 0.0f32)]);
        h.record(2, vec![(1, 2.0), (3, 9.0)]);
        let r = h.rewind(2, 1.5);
        assert_eq!(r.get(1), Some(&1.0));
        assert_eq!(r.get(3), Some(&9.0));
    }
}
