//! Remote entities shown between snapshots, and beyond them for a while.
//!
//! An [`Interpolator`] holds one entity's (or one world's) recent snapshots by tick, and
//! [`samples`](Interpolator::sample) it at a render tick behind the newest, where two
//! snapshots surround it: a lost snapshot costs nothing as long as the delay covers it. When
//! snapshots stop coming and the render tick passes the newest, the value is extrapolated
//! along the line through the last two (dead reckoning: "the bullet will go straight") for at
//! most [`InterpolationConfig::max_extrapolation_ticks`], then held. When snapshots come again,
//! the value shown converges back to the interpolated one over
//! [`InterpolationConfig::converge_ticks`] instead of jumping.
//!
//! The one thing a value needs is [`Interpolate::lerp`], which must extrapolate linearly for
//! `t` above 1 (as `a + (b - a) * t` does).
//!
//! ```
//! use hopnet_sync::interpolate::{Interpolate, InterpolationConfig, Interpolator};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct X(f32);
//! impl Interpolate for X {
//!     fn lerp(&self, to: &X, t: f32) -> X {
//!         X(self.0 + (to.0 - self.0) * t)
//!     }
//! }
//!
//! let mut remote = Interpolator::new(InterpolationConfig::default());
//! remote.push(10, X(0.0));
//! remote.push(12, X(2.0)); // tick 11's snapshot was lost
//! assert_eq!(remote.sample(11.5), Some(X(1.5)));
//! // No snapshot after 12: dead reckoning, along the last velocity.
//! assert_eq!(remote.sample(13.0), Some(X(3.0)));
//! ```

use std::collections::VecDeque;

use crate::Tick;

/// A value that can be drawn between two others.
pub trait Interpolate: Clone {
    /// `t` of the way from `self` to `to`; for `t > 1`, on along the same line.
    fn lerp(&self, to: &Self, t: f32) -> Self;
}

impl Interpolate for f32 {
    fn lerp(&self, to: &f32, t: f32) -> f32 {
        self + (to - self) * t
    }
}

impl Interpolate for f64 {
    fn lerp(&self, to: &f64, t: f32) -> f64 {
        self + (to - self) * f64::from(t)
    }
}

/// How an [`Interpolator`] buffers and guesses.
#[derive(Debug, Clone, PartialEq)]
pub struct InterpolationConfig {
    /// Snapshots held at most.
    pub capacity: usize,
    /// How far past the newest snapshot, in ticks, a value is extrapolated; beyond, it holds.
    pub max_extrapolation_ticks: f32,
    /// Ticks over which the value shown converges back when snapshots resume.
    pub converge_ticks: f32,
    /// A snapshot more than this many ticks after the newest is refused: a peer claiming a
    /// tick far ahead cannot push the buffer past everything real.
    pub max_ahead_ticks: Tick,
}

impl Default for InterpolationConfig {
    fn default() -> Self {
        InterpolationConfig {
            capacity: 64,
            max_extrapolation_ticks: 12.0,
            converge_ticks: 6.0,
            max_ahead_ticks: 1024,
        }
    }
}

/// How a sample was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampled {
    /// Between two snapshots.
    Interpolated,
    /// Past the newest, along the last velocity.
    Extrapolated,
    /// Past the extrapolation bound, or before the oldest, or with one snapshot: held.
    Held,
}

/// What an [`Interpolator`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InterpolationStats {
    /// Samples between two snapshots.
    pub interpolated: u64,
    /// Samples past the newest snapshot, extrapolated.
    pub extrapolated: u64,
    /// Samples held (beyond the bound, or too early, or one snapshot).
    pub held: u64,
    /// Snapshots refused: older than the one being rendered from, a duplicate tick, or too
    /// far ahead.
    pub refused: u64,
    /// Times snapshots resumed after an extrapolation and the value converged back.
    pub converged: u64,
}

#[derive(Debug, Clone)]
struct Converge<T> {
    from: T,
    start: f64,
}

/// One entity's snapshots, sampled at a render tick.
#[derive(Debug, Clone)]
pub struct Interpolator<T> {
    config: InterpolationConfig,
    snapshots: VecDeque<(Tick, T)>,
    last: Option<(f64, T, Sampled)>,
    converge: Option<Converge<T>>,
    stats: InterpolationStats,
}

impl<T: Interpolate> Interpolator<T> {
    /// An empty buffer.
    pub fn new(config: InterpolationConfig) -> Interpolator<T> {
        Interpolator {
            config,
            snapshots: VecDeque::new(),
            last: None,
            converge: None,
            stats: InterpolationStats::default(),
        }
    }

    /// The entity's snapshot at `tick`, in any order; refused (counted) when it is older than
    /// the snapshots rendered from, a tick already held, or far past the newest.
    pub fn push(&mut self, tick: Tick, value: T) {
        let newest = self.snapshots.back().map(|(t, _)| *t);
        if newest.is_some_and(|n| tick > n && tick - n > self.config.max_ahead_ticks) {
            self.stats.refused += 1;
            return;
        }
        let at = self.snapshots.partition_point(|(t, _)| *t < tick);
        if self.snapshots.get(at).is_some_and(|(t, _)| *t == tick)
            || (at == 0 && self.last.is_some() && !self.snapshots.is_empty())
        {
            self.stats.refused += 1;
            return;
        }
        let newer = newest.is_none_or(|n| tick > n);
        if newer
            && let Some((render, shown, Sampled::Extrapolated | Sampled::Held)) = &self.last
            && newest.is_some_and(|n| *render > f64::from(n))
            && self.converge.as_ref().is_none_or(|c| c.start != *render)
        {
            self.converge = Some(Converge {
                from: shown.clone(),
                start: *render,
            });
            self.stats.converged += 1;
        }
        self.snapshots.insert(at, (tick, value));
        while self.snapshots.len() > self.config.capacity.max(2) {
            self.snapshots.pop_front();
        }
    }

    /// The value to show at `render` (a fractional tick), or `None` before any snapshot.
    pub fn sample(&mut self, render: f64) -> Option<T> {
        let (raw, how) = self.raw(render)?;
        // Snapshots before the pair in use are no longer needed.
        while self.snapshots.len() > 2 && f64::from(self.snapshots[1].0) <= render {
            self.snapshots.pop_front();
        }
        let shown = match &self.converge {
            Some(c) => {
                let t = ((render - c.start) / f64::from(self.config.converge_ticks.max(1e-3)))
                    .clamp(0.0, 1.0) as f32;
                if t >= 1.0 {
                    self.converge = None;
                    raw
                } else {
                    c.from.lerp(&raw, t)
                }
            }
            None => raw,
        };
        match how {
            Sampled::Interpolated => self.stats.interpolated += 1,
            Sampled::Extrapolated => self.stats.extrapolated += 1,
            Sampled::Held => self.stats.held += 1,
        }
        self.last = Some((render, shown.clone(), how));
        Some(shown)
    }

    fn raw(&self, render: f64) -> Option<(T, Sampled)> {
        let (newest_tick, newest) = self.snapshots.back()?;
        let newest_tick = f64::from(*newest_tick);
        if render <= newest_tick {
            let after = self
                .snapshots
                .partition_point(|(t, _)| f64::from(*t) < render);
            if after == 0 {
                return Some((self.snapshots[0].1.clone(), Sampled::Held));
            }
            let (t0, a) = &self.snapshots[after - 1];
            let (t1, b) = &self.snapshots[after];
            let t = (render - f64::from(*t0)) / f64::from(t1 - t0);
            return Some((a.lerp(b, t as f32), Sampled::Interpolated));
        }
        let Some((prev_tick, prev)) = self.snapshots.iter().rev().nth(1) else {
            return Some((newest.clone(), Sampled::Held));
        };
        let span = newest_tick - f64::from(*prev_tick);
        let ahead = render - newest_tick;
        let bound = f64::from(self.config.max_extrapolation_ticks.max(0.0));
        let how = if ahead > bound {
            Sampled::Held
        } else {
            Sampled::Extrapolated
        };
        let t = 1.0 + ahead.min(bound) / span;
        Some((prev.lerp(newest, t as f32), how))
    }

    /// How the last sample was made.
    pub fn last_sampled(&self) -> Option<Sampled> {
        self.last.as_ref().map(|(_, _, how)| *how)
    }

    /// The newest snapshot's tick.
    pub fn newest_tick(&self) -> Option<Tick> {
        self.snapshots.back().map(|(t, _)| *t)
    }

    /// Snapshots held (at most `capacity`).
    pub fn len(&self) -> usize {
        self.snapshots.len()
    }

    /// Whether no snapshot is held.
    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
    }

    /// What it did.
    pub fn stats(&self) -> &InterpolationStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct X(f32);
    impl Interpolate for X {
        fn lerp(&self, to: &X, t: f32) -> X {
            X(self.0 + (to.0 - self.0) * t)
        }
    }

    fn walker() -> Interpolator<X> {
        let mut i = Interpolator::new(InterpolationConfig {
            max_extrapolation_ticks: 4.0,
            converge_ticks: 4.0,
            ..InterpolationConfig::default()
        });
        for t in 0..=10 {
            i.push(t, X(t as f32));
        }
        i
    }

    #[test]
    fn extrapolation_stops_at_its_bound() {
        let mut i = walker();
        assert_eq!(i.sample(12.0), Some(X(12.0)));
        assert_eq!(i.sample(14.0), Some(X(14.0)));
        assert_eq!(i.last_sampled(), Some(Sampled::Extrapolated));
        assert_eq!(i.sample(20.0), Some(X(14.0)), "held beyond 4 ticks");
        assert_eq!(i.last_sampled(), Some(Sampled::Held));
        assert_eq!(i.stats().held, 1);
    }

    #[test]
    fn snapshots_resuming_converge_without_a_jump() {
        let mut i = walker();
        let mut shown = 0.0;
        let mut r = 8.0;
        while r < 16.0 {
            shown = i.sample(r).unwrap().0;
            r += 0.5;
        }
        assert_eq!(shown, 14.0, "held at the bound");
        // The entity had in fact turned back at 10 and stood at 8 from tick 12.
        i.push(12, X(8.0));
        i.push(16, X(8.0));
        i.push(20, X(8.0));
        let mut last = shown;
        while r < 22.0 {
            let now = i.sample(r).unwrap().0;
            assert!(
                (now - last).abs() <= 6.0 * 0.5 / 4.0 + 1e-4,
                "{last} -> {now}"
            );
            last = now;
            r += 0.5;
        }
        assert_eq!(last, 8.0);
        assert_eq!(i.stats().converged, 1);
    }

    #[test]
    fn refused_snapshots_are_counted_and_memory_is_bounded() {
        let mut i = walker();
        i.sample(9.0);
        i.push(5, X(0.0)); // older than what is rendered
        i.push(10, X(0.0)); // duplicate
        i.push(u32::MAX, X(0.0)); // far ahead
        assert_eq!(i.stats().refused, 3);
        for t in 11..100_000 {
            i.push(t, X(t as f32));
        }
        assert_eq!(i.len(), 64);
    }
}
