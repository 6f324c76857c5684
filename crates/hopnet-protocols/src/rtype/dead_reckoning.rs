//! The entities as a client shows them between SPRITEs (RFC 4242, 2.3, "Dropped packets":
//! "when a player shoot, he knows that the bullet will go straight. So he can predict the
//! position of the bullet and update it when the server sends the new position").
//!
//! Each entity's SPRITEs go, by the time they arrive, into a [`hopnet_sync::interpolate`]
//! buffer sampled at the present: past the newest SPRITE, the part carries the entity on
//! along its last velocity for at most the bound it is given, then holds it there; when a
//! SPRITE comes, the part converges from what was shown to the new line instead of jumping.
//!
//! Only an entity going straight is carried on: its last moves point the same way. An R-TYPE
//! ship moves a unit at a time, turning as its player steers, so the line through its last
//! two SPRITEs says nothing about its next. The velocity is taken over the SPRITEs of the
//! current straight run, up to [`RUN`] of them, so that one SPRITE's early or late arrival
//! (jitter) sways it little; a run shorter than [`MIN_INTERVAL`] gives none. Each SPRITE is
//! given to the part as a short segment ending where the SPRITE puts the entity, a tenth of a
//! millisecond long, whose slope is that velocity, or none: an entity that turned, or has been
//! seen once, stands where its SPRITE put it and converges there. A SPRITE at the position
//! already known (a duplicate, or a resync's answer) says nothing of where the entity goes,
//! and changes nothing.
//!
//! For each SPRITE of an entity already shown, the distance between where it was shown then
//! and where the SPRITE puts it is recorded ([`PositionError`]).

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use hopnet_sync::Tick;
use hopnet_sync::interpolate::{Interpolate, InterpolationConfig, Interpolator};

use super::position_error::PositionError;

/// Ticks of the view's clock per second: a SPRITE is placed on it by when it arrived, fine
/// enough that two SPRITEs of one entity rarely share a tick. The clock (a `u32`) reaches its
/// end after some 119 hours; SPRITEs after that are all placed on its last ticks.
const TICKS_PER_SECOND: f64 = 10_000.0;

/// Entities the client keeps track of at most (in its map and in its view); a SPRITE of a new
/// one beyond is ignored.
pub const MAX_KNOWN_ENTITIES: usize = 4096;

/// How long past its last SPRITE an entity is carried on by default: three of the instance's
/// game ticks, so two lost SPRITEs in a row cost nothing, and an entity that stopped (or whose
/// DEAD was lost) goes at most that far astray.
pub const DEFAULT_MAX_EXTRAPOLATION: Duration = Duration::from_millis(90);
/// How long the shown position takes to converge back to the SPRITEs' line when one comes.
pub const DEFAULT_CONVERGE: Duration = Duration::from_millis(15);

/// The shortest straight run (from its first SPRITE to its last) that gives an entity a
/// velocity: a unit over a moment is none, and would carry it far.
pub const MIN_INTERVAL: Duration = Duration::from_millis(5);
/// SPRITEs of a straight run the velocity is taken over, at most.
pub const RUN: usize = 5;

/// Snapshots the part holds per entity: the line needs the last two.
const SNAPSHOTS_PER_ENTITY: usize = 4;

/// A position as shown: between the SPRITEs' integer squares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    /// Horizontal, growing to the right.
    pub x: f64,
    /// Vertical, growing downwards.
    pub y: f64,
}

impl Position {
    fn at(x: i32, y: i32) -> Position {
        Position {
            x: f64::from(x),
            y: f64::from(y),
        }
    }

    /// The straight-line distance to `other`.
    pub fn distance(&self, other: &Position) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

impl Interpolate for Position {
    fn lerp(&self, to: &Position, t: f32) -> Position {
        Position {
            x: self.x.lerp(&to.x, t),
            y: self.y.lerp(&to.y, t),
        }
    }
}

/// How the client shows the entities between SPRITEs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extrapolation {
    /// Each entity where its last SPRITE put it: what the example's `--no-extrapolation`
    /// measures against.
    Off,
    /// Carried on straight for at most `max`, converging back over `converge`.
    Bounded {
        /// How long past its last SPRITE an entity is carried on; then held.
        max: Duration,
        /// How long the shown position takes to rejoin the SPRITEs' line.
        converge: Duration,
    },
}

impl Default for Extrapolation {
    fn default() -> Self {
        Extrapolation::Bounded {
            max: DEFAULT_MAX_EXTRAPOLATION,
            converge: DEFAULT_CONVERGE,
        }
    }
}

/// One entity as the client knows it.
#[derive(Debug, Clone)]
struct Track {
    line: Interpolator<Position>,
    last: (i32, i32),
    /// The tick of the last SPRITE that moved it.
    moved_at: Tick,
    /// The last move seen (not zero), to tell a straight flight from a turn.
    step: Option<(i64, i64)>,
    /// The SPRITEs of its current straight run, by tick: its velocity is taken over them.
    run: VecDeque<(Tick, (i32, i32))>,
}

/// The entities between SPRITEs, and how far off they were shown.
#[derive(Debug, Clone)]
pub struct DeadReckoning {
    start: Instant,
    mode: Extrapolation,
    config: InterpolationConfig,
    tracks: BTreeMap<u32, Track>,
    error: PositionError,
}

fn ticks(d: Duration) -> f64 {
    d.as_secs_f64() * TICKS_PER_SECOND
}

/// Whether `b` goes the same way as `a` (collinear, not backwards).
fn straight(a: (i64, i64), b: (i64, i64)) -> bool {
    let (a0, a1, b0, b1) = (
        i128::from(a.0),
        i128::from(a.1),
        i128::from(b.0),
        i128::from(b.1),
    );
    a0 * b1 == a1 * b0 && a0 * b0 + a1 * b1 > 0
}

impl DeadReckoning {
    /// No entity yet; the view's clock starts at `start`.
    pub fn new(start: Instant, mode: Extrapolation) -> DeadReckoning {
        let (max, converge) = match mode {
            Extrapolation::Off => (Duration::ZERO, Duration::ZERO),
            Extrapolation::Bounded { max, converge } => (max, converge),
        };
        let config = InterpolationConfig {
            capacity: SNAPSHOTS_PER_ENTITY,
            max_extrapolation_ticks: ticks(max) as f32,
            converge_ticks: ticks(converge) as f32,
            // The ticks are the client's own clock, never a peer's claim.
            max_ahead_ticks: Tick::MAX,
        };
        DeadReckoning {
            start,
            mode,
            config,
            tracks: BTreeMap::new(),
            error: PositionError::default(),
        }
    }

    /// When the view's clock started.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// How it shows the entities.
    pub fn mode(&self) -> Extrapolation {
        self.mode
    }

    fn render(&self, now: Instant) -> f64 {
        ticks(now.saturating_duration_since(self.start))
    }

    fn tick(&self, now: Instant) -> Tick {
        self.render(now).min(f64::from(Tick::MAX)) as Tick
    }

    /// A SPRITE of `id` at `(x, y)` came at `now`. Unless `measure` is false, the distance from
    /// where the entity was shown is recorded (nothing is for an entity not shown before). A
    /// new entity beyond [`MAX_KNOWN_ENTITIES`] is ignored.
    pub fn sprite(&mut self, now: Instant, id: u32, (x, y): (i32, i32), measure: bool) {
        let tick = self.tick(now);
        let shown = self.position(now, id);
        let at = Position::at(x, y);
        if let (Some(shown), true) = (shown, measure) {
            self.error.record(shown.distance(&at));
        }
        if shown.is_none() && self.tracks.len() >= MAX_KNOWN_ENTITIES {
            return;
        }
        let config = &self.config;
        let track = self.tracks.entry(id).or_insert_with(|| Track {
            line: Interpolator::new(config.clone()),
            last: (x, y),
            moved_at: tick,
            step: None,
            run: VecDeque::with_capacity(RUN + 1),
        });
        let step = (
            i64::from(x) - i64::from(track.last.0),
            i64::from(y) - i64::from(track.last.1),
        );
        if shown.is_some() && step == (0, 0) {
            return;
        }
        // The segment ends at the SPRITE's tick and starts a tick before, after the newest
        // snapshot should two SPRITEs come within a tick.
        let tick = track
            .line
            .newest_tick()
            .map_or(tick, |n| tick.max(n.saturating_add(2)))
            .max(1);
        let straight_on = track.step.is_some_and(|s| straight(s, step));
        if !straight_on {
            track.run.clear();
            if shown.is_some() {
                track.run.push_back((track.moved_at, track.last));
            }
        }
        track.run.push_back((tick, (x, y)));
        while track.run.len() > RUN {
            track.run.pop_front();
        }
        let (first, from) = track.run[0];
        let span = f64::from(tick.saturating_sub(first));
        let velocity = if straight_on && span >= ticks(MIN_INTERVAL) {
            (
                (f64::from(x) - f64::from(from.0)) / span,
                (f64::from(y) - f64::from(from.1)) / span,
            )
        } else {
            // Standing, as far as the client can tell.
            (0.0, 0.0)
        };
        track.moved_at = tick;
        track.last = (x, y);
        track.step = (step != (0, 0)).then_some(step);
        let before = Position {
            x: at.x - velocity.0,
            y: at.y - velocity.1,
        };
        track.line.push(tick - 1, before);
        track.line.push(tick, at);
    }

    /// Where entity `id` is shown at `now`, if it is known.
    pub fn position(&mut self, now: Instant, id: u32) -> Option<Position> {
        let render = self.render(now);
        let track = self.tracks.get_mut(&id)?;
        Self::shown(self.mode, track, render)
    }

    /// Where `track` is shown at `render` (ticks since the start).
    fn shown(mode: Extrapolation, track: &mut Track, render: f64) -> Option<Position> {
        match mode {
            Extrapolation::Off => Some(Position::at(track.last.0, track.last.1)),
            Extrapolation::Bounded { .. } => track.line.sample(render),
        }
    }

    /// Every known entity as shown at `now`, by id.
    pub fn positions(&mut self, now: Instant) -> Vec<(u32, Position)> {
        let render = self.render(now);
        let mode = self.mode;
        self.tracks
            .iter_mut()
            .filter_map(|(&id, track)| Some((id, Self::shown(mode, track, render)?)))
            .collect()
    }

    /// `id` is gone (DEAD).
    pub fn remove(&mut self, id: u32) {
        self.tracks.remove(&id);
    }

    /// Forgets every entity but those `keep` says (a resync rebuilds them).
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        self.tracks.retain(|&id, _| keep(id));
    }

    /// Entities known.
    pub fn len(&self) -> usize {
        self.tracks.len()
    }

    /// Whether no entity is known.
    pub fn is_empty(&self) -> bool {
        self.tracks.is_empty()
    }

    /// The distances between where entities were shown and where their SPRITEs put them.
    pub fn error(&self) -> &PositionError {
        &self.error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_stands_and_a_straight_run_goes_on() {
        let t0 = Instant::now();
        let mut v = DeadReckoning::new(t0, Extrapolation::default());
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // A ship: right, then down. Standing where the last SPRITE put it.
        v.sprite(at(0), 1, (0, 0), true);
        v.sprite(at(30), 1, (1, 0), true);
        v.sprite(at(60), 1, (1, 1), true);
        assert_eq!(v.position(at(100), 1), Some(Position { x: 1.0, y: 1.0 }));
        // Then down again: straight, one unit per 30 ms.
        v.sprite(at(90), 1, (1, 2), true);
        let p = v.position(at(120), 1).unwrap();
        assert!((p.y - 3.0).abs() < 1e-6 && p.x == 1.0, "{p:?}");
        assert_eq!(v.error().count(), 3);
    }

    #[test]
    fn entities_are_bounded_on_their_own() {
        let t0 = Instant::now();
        let mut v = DeadReckoning::new(t0, Extrapolation::Off);
        for id in 0..MAX_KNOWN_ENTITIES as u32 + 100 {
            v.sprite(t0, id, (0, 0), true);
        }
        assert_eq!(v.len(), MAX_KNOWN_ENTITIES);
        assert!(v.position(t0, MAX_KNOWN_ENTITIES as u32).is_none());
    }
}
