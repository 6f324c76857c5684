//! Prediction and reconciliation: the client's own inputs applied at once, corrected when the
//! server disagrees.
//!
//! The game gives its rules as a [`Simulation`]: a step that is deterministic for the same
//! state and input, a distance between two states (in the world's units), and a blend between
//! two states for smoothing. A [`Predictor`] steps its state with each input as it is made and
//! keeps a bounded history of (tick, input, state). When the server's state for tick `T`
//! arrives ([`Predictor::reconcile`]) and lies further than the tolerance from what was
//! predicted for `T`, the predictor rewinds to the server's state and replays its inputs after
//! `T`.
//!
//! A correction is not snapped onto the screen: for [`PredictConfig::smoothing_ticks`] the
//! state shown ([`Predictor::displayed`]) blends from the old timeline (the state shown when
//! the correction came, stepped on with the same inputs) to the corrected one.
//!
//! ```
//! use hopnet_sync::predict::{PredictConfig, Predictor, Simulation};
//!
//! /// A dot walking on a line: its position, moved by the input each tick.
//! struct Line;
//! impl Simulation for Line {
//!     type State = f32;
//!     type Input = f32;
//!     fn step(&self, _tick: u32, x: &mut f32, dx: &f32) {
//!         *x += dx;
//!     }
//!     fn distance(&self, a: &f32, b: &f32) -> f32 {
//!         (a - b).abs()
//!     }
//!     fn blend(&self, from: &f32, to: &f32, t: f32) -> f32 {
//!         from + (to - from) * t
//!     }
//! }
//!
//! let mut p = Predictor::new(Line, PredictConfig::default(), 0, 0.0);
//! for tick in 1..=5 {
//!     p.predict(tick, 1.0); // shown at once: no round trip
//! }
//! assert_eq!(*p.state(), 5.0);
//! // The server missed tick 2's input: it had the dot at 1.0 after tick 2.
//! let fix = p.reconcile(2, &1.0);
//! assert!(fix.is_correction());
//! assert_eq!(*p.state(), 4.0); // replayed 3..=5 from the server's state
//! assert!(*p.displayed() > 4.0); // and shown smoothly, not snapped
//! assert_eq!(p.stats().corrections, 1);
//! ```

use std::collections::VecDeque;

use crate::Tick;

/// A game's rules, as prediction needs them.
pub trait Simulation {
    /// Whatever is predicted: the local player, or more.
    type State: Clone;
    /// One tick's input.
    type Input: Clone;
    /// Applies `input` at `tick`. Must give the same state for the same state, tick and input
    /// on the client as on the server: a replay depends on it.
    fn step(&self, tick: Tick, state: &mut Self::State, input: &Self::Input);
    /// How far apart two states are, in the world's units (compared with the tolerance, and
    /// reported as a correction's size).
    fn distance(&self, a: &Self::State, b: &Self::State) -> f32;
    /// The state `t` of the way from `from` to `to` (`t` in `0..=1`).
    fn blend(&self, from: &Self::State, to: &Self::State, t: f32) -> Self::State;
}

/// How a [`Predictor`] corrects.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictConfig {
    /// Ticks of history kept: a server state older than this cannot be checked and is
    /// ignored (counted).
    pub history: usize,
    /// Distances up to this are agreement, not corrections.
    pub tolerance: f32,
    /// Ticks over which a correction is blended in.
    pub smoothing_ticks: u32,
}

impl Default for PredictConfig {
    fn default() -> Self {
        PredictConfig {
            history: 128,
            tolerance: 0.001,
            smoothing_ticks: 6,
        }
    }
}

/// What [`Predictor::reconcile`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reconciled {
    /// The prediction for that tick was within the tolerance.
    Agreed,
    /// Rewound and replayed; `size` is how far the present state moved.
    Corrected {
        /// The distance between the present state before and after the replay.
        size: f32,
        /// Inputs replayed.
        replayed: usize,
    },
    /// The server's tick is after everything predicted: its state was taken as it is.
    Reset,
    /// Older than the history or than a state already reconciled: ignored.
    Stale,
}

impl Reconciled {
    /// Whether this was a correction.
    pub fn is_correction(&self) -> bool {
        matches!(self, Reconciled::Corrected { .. })
    }
}

/// What a [`Predictor`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PredictStats {
    /// Inputs predicted.
    pub predicted: u64,
    /// Server states within the tolerance.
    pub agreed: u64,
    /// Rewinds and replays.
    pub corrections: u64,
    /// The largest correction's size.
    pub largest: f32,
    /// Inputs replayed in all.
    pub replayed: u64,
    /// Server states after everything predicted, taken as they were.
    pub resets: u64,
    /// Server states too old to check.
    pub stale: u64,
    /// Inputs for a tick not following the last one (the clock jumped): history restarted.
    pub discontinuities: u64,
}

#[derive(Debug, Clone)]
struct Entry<S: Simulation> {
    tick: Tick,
    input: S::Input,
    /// The state after `input` was applied.
    after: S::State,
}

#[derive(Debug, Clone)]
struct Smoothing<St> {
    /// The old timeline: the state shown when the correction came, stepped on.
    from: St,
    done: u32,
}

/// The client's predicted state, its history, and its corrections.
pub struct Predictor<S: Simulation> {
    sim: S,
    config: PredictConfig,
    state: S::State,
    tick: Tick,
    history: VecDeque<Entry<S>>,
    /// The newest server tick reconciled: older server states are stale.
    confirmed: Option<Tick>,
    smoothing: Option<Smoothing<S::State>>,
    shown: S::State,
    stats: PredictStats,
}

impl<S: Simulation> Predictor<S> {
    /// A predictor whose state at `tick` is `state`.
    pub fn new(sim: S, config: PredictConfig, tick: Tick, state: S::State) -> Predictor<S> {
        Predictor {
            sim,
            config,
            shown: state.clone(),
            state,
            tick,
            history: VecDeque::new(),
            confirmed: None,
            smoothing: None,
            stats: PredictStats::default(),
        }
    }

    /// Applies the local input for `tick` now, and remembers it for replays.
    pub fn predict(&mut self, tick: Tick, input: S::Input) {
        if tick != self.tick.wrapping_add(1) {
            self.stats.discontinuities += 1;
            self.history.clear();
        }
        self.sim.step(tick, &mut self.state, &input);
        if let Some(s) = &mut self.smoothing {
            self.sim.step(tick, &mut s.from, &input);
            s.done += 1;
        }
        self.tick = tick;
        self.stats.predicted += 1;
        self.history.push_back(Entry {
            tick,
            input,
            after: self.state.clone(),
        });
        while self.history.len() > self.config.history.max(1) {
            self.history.pop_front();
        }
        self.refresh_shown();
    }

    /// The server's state after tick `tick`: compared with the prediction for that tick, and
    /// corrected by a replay when they differ beyond the tolerance.
    pub fn reconcile(&mut self, tick: Tick, server: &S::State) -> Reconciled {
        if self.confirmed.is_some_and(|c| tick <= c) {
            self.stats.stale += 1;
            return Reconciled::Stale;
        }
        if tick > self.tick {
            self.stats.resets += 1;
            self.confirmed = Some(tick);
            self.state = server.clone();
            self.tick = tick;
            self.history.clear();
            self.smoothing = None;
            self.refresh_shown();
            return Reconciled::Reset;
        }
        let Some(at) = self.history.iter().position(|e| e.tick == tick) else {
            self.stats.stale += 1;
            return Reconciled::Stale;
        };
        self.confirmed = Some(tick);
        let error = self.sim.distance(&self.history[at].after, server);
        if error <= self.config.tolerance {
            self.history.drain(..at);
            self.stats.agreed += 1;
            return Reconciled::Agreed;
        }
        let shown = self.shown.clone();
        let before = self.state.clone();
        let mut state = server.clone();
        self.history[at].after = state.clone();
        for entry in self.history.iter_mut().skip(at + 1) {
            self.sim.step(entry.tick, &mut state, &entry.input);
            entry.after = state.clone();
        }
        let replayed = self.history.len() - at - 1;
        self.history.drain(..at);
        let size = self.sim.distance(&before, &state);
        self.state = state;
        self.smoothing = (self.config.smoothing_ticks > 0).then_some(Smoothing {
            from: shown,
            done: 0,
        });
        self.refresh_shown();
        self.stats.corrections += 1;
        self.stats.replayed += replayed as u64;
        self.stats.largest = self.stats.largest.max(size);
        Reconciled::Corrected { size, replayed }
    }

    fn refresh_shown(&mut self) {
        let total = self.config.smoothing_ticks;
        self.shown = match &self.smoothing {
            Some(s) if s.done < total => {
                let t = s.done as f32 / total as f32;
                self.sim.blend(&s.from, &self.state, t)
            }
            _ => {
                self.smoothing = None;
                self.state.clone()
            }
        };
    }

    /// The predicted state (the newest tick's).
    pub fn state(&self) -> &S::State {
        &self.state
    }

    /// What to show: the predicted state, with a recent correction blended in.
    pub fn displayed(&self) -> &S::State {
        &self.shown
    }

    /// The tick of the predicted state.
    pub fn tick(&self) -> Tick {
        self.tick
    }

    /// Ticks of history held (at most `history`).
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// What it did.
    pub fn stats(&self) -> &PredictStats {
        &self.stats
    }

    /// The game's rules it steps with.
    pub fn simulation(&self) -> &S {
        &self.sim
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Line;
    impl Simulation for Line {
        type State = f32;
        type Input = f32;
        fn step(&self, _: Tick, x: &mut f32, dx: &f32) {
            *x += dx;
        }
        fn distance(&self, a: &f32, b: &f32) -> f32 {
            (a - b).abs()
        }
        fn blend(&self, from: &f32, to: &f32, t: f32) -> f32 {
            from + (to - from) * t
        }
    }

    /// A predictor from 0 at tick 0, its default settings changed by `tune`, that moved by 1
    /// each tick up to `ticks`.
    fn walked(tune: impl FnOnce(&mut PredictConfig), ticks: Tick) -> Predictor<Line> {
        let mut config = PredictConfig::default();
        tune(&mut config);
        let mut p = Predictor::new(Line, config, 0, 0.0);
        for t in 1..=ticks {
            p.predict(t, 1.0);
        }
        p
    }

    #[test]
    fn agreement_is_not_a_correction() {
        let mut p = walked(|_| {}, 10);
        assert_eq!(p.reconcile(4, &4.0), Reconciled::Agreed);
        assert_eq!(
            p.reconcile(3, &0.0),
            Reconciled::Stale,
            "older than one reconciled"
        );
        assert_eq!(*p.displayed(), 10.0);
        assert_eq!(p.stats().corrections, 0);
    }

    #[test]
    fn a_correction_is_blended_in_over_the_smoothing_time() {
        let mut p = walked(|c| c.smoothing_ticks = 4, 10);
        let r = p.reconcile(5, &3.0);
        assert_eq!(
            r,
            Reconciled::Corrected {
                size: 2.0,
                replayed: 5
            }
        );
        assert_eq!(*p.state(), 8.0);
        let mut last = *p.displayed();
        assert_eq!(last, 10.0, "nothing snaps");
        for t in 11..=14 {
            p.predict(t, 1.0);
            let shown = *p.displayed();
            // Moving on by the input, and closing the gap of 2 by a quarter each tick.
            assert!((shown - last - 0.5).abs() < 1e-5, "{shown} after {last}");
            last = shown;
        }
        assert_eq!(*p.displayed(), *p.state());
    }

    #[test]
    fn history_is_bounded_and_a_jump_restarts_it() {
        let mut p = walked(|c| c.history = 16, 1000);
        assert_eq!(p.history_len(), 16);
        assert_eq!(p.reconcile(10, &0.0), Reconciled::Stale);
        p.predict(5000, 1.0);
        assert_eq!(p.stats().discontinuities, 1);
        assert_eq!(p.history_len(), 1);
        assert_eq!(p.reconcile(6000, &7.0), Reconciled::Reset);
        assert_eq!(*p.state(), 7.0);
    }
}
