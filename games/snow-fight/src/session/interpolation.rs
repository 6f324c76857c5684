//! Drawing between snapshots: a client that drew each snapshot as it came would show the world
//! moving in steps of a snapshot (three ticks apart at 20 snapshots a second on a 60 Hz
//! server), and stalling whenever one is late or lost. [`Interpolation`] keeps the snapshots
//! of the last moments and draws the world as it was a little in the past (100 ms by
//! default): between the two snapshots around that time, positions are interpolated, so the
//! view moves on every frame whatever the snapshot rate, and a snapshot that arrives late, or
//! a lost one, is bridged by those around it.
//!
//! The server's clock is estimated from the snapshots' times: each one says the server was at
//! its tick when it left, and it cannot have arrived before it left, so the earliest arrival
//! seen (relative to its tick) is the best estimate of the server's clock. The view runs
//! `delay` behind that estimate.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::session::tick_newer;
use crate::world::{Entity, EntityKind, Vec2};

/// The snapshots to draw between, and the estimate of the server's clock.
#[derive(Debug)]
pub struct Interpolation {
    /// One server tick.
    tick: Duration,
    /// How far behind the server's estimated clock the view runs.
    delay: Duration,
    /// When the first snapshot came: the client's time origin.
    epoch: Option<Instant>,
    /// Snapshots by time (ticks counted on from the first, without wrapping), oldest first.
    frames: VecDeque<Frame>,
    /// The last time pushed, as the server wrote it, and as counted on.
    last: Option<(u32, f64)>,
    /// Per snapshot of the last few: its tick less the ticks since the epoch when it came.
    offsets: VecDeque<f64>,
    /// The last view: when, and the tick it showed.
    shown: Option<(Instant, f64)>,
}

#[derive(Debug)]
struct Frame {
    time: f64,
    entities: Vec<Entity>,
}

/// Offsets kept for the clock estimate: a few seconds of snapshots, so that the estimate
/// follows a clock that drifts.
const OFFSETS: usize = 128;

/// How far (in ticks) the view may be from where it should be before it jumps there.
const SNAP_TICKS: f64 = 10.0;

impl Interpolation {
    /// The delay of the view by default: two snapshots at 20 a second, with room for one late.
    pub const DELAY: Duration = Duration::from_millis(100);

    /// Views of a server that ticks `tick_rate` times a second, `delay` behind it.
    pub fn new(tick_rate: u32, delay: Duration) -> Interpolation {
        Interpolation {
            tick: Duration::from_secs(1) / tick_rate.max(1),
            delay,
            epoch: None,
            frames: VecDeque::new(),
            last: None,
            offsets: VecDeque::new(),
            shown: None,
        }
    }

    /// The snapshot of tick `time`, which arrived at `now`.
    pub fn push(&mut self, time: u32, entities: &[Entity], now: Instant) {
        let epoch = *self.epoch.get_or_insert(now);
        // Ticks counted on from the first snapshot, as the server's time wraps: forward to a
        // newer tick, back to an older one.
        let counted = match self.last {
            Some((raw, counted)) if time == raw || tick_newer(time, raw) => {
                counted + f64::from(time.wrapping_sub(raw))
            }
            Some((raw, counted)) => counted - f64::from(raw.wrapping_sub(time)),
            None => 0.0,
        };
        self.last = Some((time, counted));
        let arrived = self.ticks(now.saturating_duration_since(epoch));
        if self.offsets.len() == OFFSETS {
            self.offsets.pop_front();
        }
        self.offsets.push_back(counted - arrived);
        let at = self.frames.partition_point(|f| f.time < counted);
        if !self.frames.get(at).is_some_and(|f| f.time == counted) {
            self.frames.insert(
                at,
                Frame {
                    time: counted,
                    entities: entities.to_vec(),
                },
            );
        }
        // The frames the next view would drop, dropped now, so that a caller that pushes
        // without viewing keeps a bounded number. From this snapshot on, the clock estimate
        // is at least its tick, the view at most `delay` and `SNAP_TICKS` behind that.
        let horizon = counted - self.ticks(self.delay) - SNAP_TICKS;
        self.prune(horizon);
    }

    /// Drops the snapshots older than the one before tick `at` (counted as the frames are):
    /// a view at `at` or later draws between newer ones.
    fn prune(&mut self, at: f64) {
        while self.frames.len() > 2 && self.frames[1].time <= at {
            self.frames.pop_front();
        }
    }

    /// The world as the view shows it at `now`; empty before the first snapshot.
    pub fn view(&mut self, now: Instant) -> Vec<Entity> {
        let Some(at) = self.render_time(now) else {
            return Vec::new();
        };
        self.prune(at);
        let (Some(a), b) = (self.frames.front(), self.frames.get(1)) else {
            return Vec::new();
        };
        match b {
            Some(b) if a.time <= at && at < b.time => {
                let alpha = ((at - a.time) / (b.time - a.time)) as f32;
                between(&a.entities, &b.entities, alpha)
            }
            // Ahead of every snapshot (they are late): hold the newest; before the first:
            // show it.
            Some(b) if at >= b.time => b.entities.clone(),
            _ => a.entities.clone(),
        }
    }

    /// The tick the view shows at `now` (counted as the frames are): the server's estimated
    /// clock less the delay, approached at up to a tenth faster or slower than real time,
    /// so that a better estimate of the clock does not make the view jump; a far one (the
    /// client stalled) is taken at once.
    fn render_time(&mut self, now: Instant) -> Option<f64> {
        let epoch = self.epoch?;
        let offset = self.offsets.iter().copied().fold(f64::MIN, f64::max);
        let since = self.ticks(now.saturating_duration_since(epoch));
        let target = since + offset - self.ticks(self.delay);
        let shown = match self.shown {
            Some((then, shown)) => {
                let elapsed = self.ticks(now.saturating_duration_since(then));
                let natural = shown + elapsed;
                let error = target - natural;
                if error.abs() > SNAP_TICKS {
                    target
                } else {
                    natural + error.clamp(-elapsed / 10.0, elapsed / 10.0)
                }
            }
            None => target,
        };
        self.shown = Some((now, shown));
        Some(shown)
    }

    fn ticks(&self, d: Duration) -> f64 {
        d.as_secs_f64() / self.tick.as_secs_f64()
    }
}

/// `a`'s entities, each moved `alpha` of the way to where it is in `b` (entities sorted by id,
/// as [`from_snapshot`](crate::snapshot::from_snapshot) gives them).
fn between(a: &[Entity], b: &[Entity], alpha: f32) -> Vec<Entity> {
    a.iter()
        .map(|e| {
            let mut e = *e;
            let to = b
                .binary_search_by_key(&e.id, |o| o.id)
                .ok()
                .and_then(|i| b[i].pos());
            if let Some(to) = to {
                let lerp = |from: Vec2| from + (to - from) * alpha;
                match &mut e.kind {
                    EntityKind::Object(o) => o.pos = lerp(o.pos),
                    EntityKind::Player(p) => p.pos = lerp(p.pos),
                    EntityKind::Dead => {}
                }
            }
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Dir, Player};

    const RATE: u32 = 60;

    /// One player at `x`.
    fn world(x: f32) -> Vec<Entity> {
        vec![Entity {
            id: 1,
            kind: EntityKind::Player(Player {
                pos: Vec2::new(x, 0.0),
                movement: Dir::EAST,
                holding: None,
                breaking: None,
                owner: 1,
                health: 10,
                max_health: 10,
            }),
        }]
    }

    fn x(view: &[Entity]) -> f32 {
        view[0].pos().expect("alive").x
    }

    /// A player walking one unit a tick, its snapshots every `every` ticks, each arriving
    /// after 30 ms plus up to `jitter_ms` (a pseudo-random sequence); the view drawn at 60
    /// frames a second for two seconds. Returns the x drawn at each frame.
    fn drawn(every: u32, jitter_ms: u64, lost: &[u32]) -> Vec<f32> {
        let mut interp = Interpolation::new(RATE, Interpolation::DELAY);
        let t0 = Instant::now();
        let tick = Duration::from_secs(1) / RATE;
        let mut arrivals: Vec<(Instant, u32)> = (0..3 * RATE)
            .filter(|t| t % every == 0 && !lost.contains(t))
            .map(|t| {
                let jitter = (u64::from(t) * 7919) % (jitter_ms + 1);
                (t0 + tick * t + Duration::from_millis(30 + jitter), t)
            })
            .collect();
        arrivals.sort();
        let mut out = Vec::new();
        let mut next = arrivals.into_iter().peekable();
        for frame in 0..2 * RATE {
            let now = t0 + Duration::from_millis(400) + tick * frame;
            while let Some((_, t)) = next.next_if(|(at, _)| *at <= now) {
                interp.push(t + 1000, &world(t as f32), now);
            }
            out.push(x(&interp.view(now)));
        }
        out
    }

    /// The steps between frames, given the positions drawn.
    fn steps(xs: &[f32]) -> Vec<f32> {
        xs.windows(2).map(|w| w[1] - w[0]).collect()
    }

    #[test]
    fn the_view_moves_on_every_frame_at_20_snapshots_a_second_as_at_60() {
        for every in [1, 3] {
            let steps = steps(&drawn(every, 15, &[]));
            // One unit a tick, a tick a frame: every step about one unit, none backwards,
            // none stalled, whatever the snapshot rate and the jitter.
            for (i, s) in steps.iter().enumerate() {
                assert!(
                    (0.6..=1.4).contains(s),
                    "every {every} ticks: step {i} is {s}: {steps:?}"
                );
            }
        }
    }

    #[test]
    fn a_lost_snapshot_is_bridged() {
        // At 20 a second, one lost in the middle of the two seconds drawn.
        let steps = steps(&drawn(3, 10, &[60]));
        assert!(steps.iter().all(|s| (0.6..=1.4).contains(s)), "{steps:?}");
    }

    #[test]
    fn without_snapshots_nothing_is_drawn_and_the_newest_is_held_when_they_stop() {
        let mut interp = Interpolation::new(RATE, Interpolation::DELAY);
        let t0 = Instant::now();
        assert!(interp.view(t0).is_empty());
        interp.push(10, &world(10.0), t0);
        interp.push(13, &world(13.0), t0 + Duration::from_millis(50));
        // Long after the last snapshot: the newest, not beyond it.
        assert_eq!(x(&interp.view(t0 + Duration::from_secs(5))), 13.0);
    }

    #[test]
    fn snapshots_pushed_without_a_view_are_not_all_kept() {
        let mut interp = Interpolation::new(RATE, Interpolation::DELAY);
        let t0 = Instant::now();
        let tick = Duration::from_secs(1) / RATE;
        for t in 0..10 * RATE {
            interp.push(t, &world(t as f32), t0 + tick * t);
        }
        // The snapshots of the delay and of the view's leeway, the newest and the one
        // before: no more.
        let delay = interp.ticks(Interpolation::DELAY).round();
        let most = (delay + SNAP_TICKS) as usize + 2;
        assert!(interp.frames.len() <= most, "{} kept", interp.frames.len());
        // And the view is what it would have been: the delay behind the newest.
        let newest = 10 * RATE - 1;
        let shown = x(&interp.view(t0 + tick * newest));
        assert!(
            (shown - (newest as f32 - delay as f32)).abs() < 0.01,
            "{shown}"
        );
    }

    #[test]
    fn the_clock_follows_the_server_across_its_wrap() {
        let mut interp = Interpolation::new(RATE, Duration::ZERO);
        let t0 = Instant::now();
        let tick = Duration::from_secs(1) / RATE;
        for (i, t) in [u32::MAX - 1, u32::MAX, 0, 1].into_iter().enumerate() {
            interp.push(t, &world(i as f32), t0 + tick * i as u32);
        }
        // Half a tick after the third snapshot arrived: halfway from its x (2) to the next.
        let now = t0 + tick * 2 + tick / 2;
        assert!((x(&interp.view(now)) - 2.5).abs() < 0.01);
    }
}
