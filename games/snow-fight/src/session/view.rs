//! What a client shows, through `hopnet_sync`: its own player predicted, the others drawn
//! between snapshots.
//!
//! The wire stays the spec's: no message carries a tick of the client's. The prediction is
//! the client's own business, computed from what it already sends and receives:
//!
//! - the server applies a `Move` at the first tick after it arrives, so the client runs a
//!   clock ([`TickSync`]) at the server tick its messages reach now: the server's tick as the
//!   snapshots tell it, plus half the round trip the pings measure. No margin for jitter (a
//!   margin would make the client predict a `Move` later than the server applies it), and
//!   half a tick less: a `Move` arriving anywhere within a tick is applied at the tick's end,
//!   so the clock rounds to the nearest tick rather than running late. What is left of the
//!   carrier's own delays (a server that answers pings at once, or at its next tick) is
//!   measured: a snapshot shows the tick at which the server started walking in a
//!   direction sent, and the clock is shifted by the smallest recent difference from the tick
//!   the prediction started it at (the smallest, since a lost datagram only delays);
//! - each tick of that clock, the local player walks in the direction last sent, by the
//!   server's own rule ([`walk_step`](crate::rules::walk_step)) against the obstacles of the
//!   newest snapshot ([`Predictor`]): the view moves the tick the key is pressed;
//! - each snapshot of tick `T` is the server's word on where the player stood after `T`: when
//!   it differs from the prediction for `T` (a `Move` delayed by a lost datagram, another
//!   player in the way), the predictor rewinds to it and replays; the correction is blended in
//!   over a few ticks, and its size is counted ([`ViewStats`]);
//! - the other entities are drawn [`ClientView::DELAY`] behind the newest snapshots
//!   ([`Interpolator`]), and on along their last velocity for a bounded time when snapshots
//!   stop.

mod prediction;
mod remote;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hopnet_sync::interpolate::{InterpolationConfig, Interpolator, Sampled};
use hopnet_sync::predict::{PredictConfig, Predictor, Reconciled};
use hopnet_sync::tick_sync::{TickSync, TickSyncConfig};

use prediction::Walk;
use remote::{Frame, RenderClock};

use crate::rules::Input;
use crate::session::{ClientEvent, GameClient, tick_newer};
use crate::world::{Config, Dir, Entity, EntityId, EntityKind, PlayerId, Vec2};

/// Correction sizes kept for the quantiles: the newest this many.
const SIZES_KEPT: usize = 4096;

/// Recent measures of the tick a `Move` took effect at, less the tick predicted, kept.
const LAG_SAMPLES: usize = 16;

/// The most the clock is shifted by those measures, in ticks either way.
const MAX_SHIFT: i64 = 8;

/// Ticks the predictor may be behind the clock and catch up by stepping; further behind, it
/// starts again from the newest snapshot.
const CATCH_UP_TICKS: u32 = 120;

/// What the view did: predictions, corrections and their sizes, extrapolated frames.
#[derive(Clone, Debug, Default)]
pub struct ViewStats {
    /// Ticks of the local player predicted.
    pub predicted: u64,
    /// Snapshots that agreed with the prediction for their tick.
    pub agreed: u64,
    /// Snapshots that did not: rewinds and replays.
    pub corrections: u64,
    /// The largest correction, in the world's units.
    pub largest: f32,
    /// The sizes of the newest corrections (at most a few thousand), in the world's units.
    pub sizes: Vec<f32>,
    /// Times the prediction started afresh from a snapshot: joining, a new round, a clock
    /// that jumped.
    pub restarts: u64,
    /// Frames drawn with the others past the newest snapshot (dead reckoning), or held.
    pub extrapolated: u64,
}

impl ViewStats {
    /// The `q`-quantile (0 to 1) of the correction sizes kept.
    pub fn size_quantile(&self, q: f64) -> Option<f32> {
        let mut v = self.sizes.clone();
        v.sort_unstable_by(f32::total_cmp);
        let last = v.len().checked_sub(1)?;
        Some(v[((last as f64) * q.clamp(0.0, 1.0)).round() as usize])
    }

    fn corrected(&mut self, size: f32) {
        self.corrections += 1;
        self.largest = self.largest.max(size);
        if self.sizes.len() == SIZES_KEPT {
            self.sizes.remove(0);
        }
        self.sizes.push(size);
    }
}

/// Where a view is between two rounds.
#[derive(Clone, Copy, Debug)]
enum Between {
    /// The round ended at this server tick; snapshots before it are the round's last.
    Ended(u32),
    /// The world stands still with the local player here, until the next round moves it.
    Frozen(Vec2),
}

/// The local player's prediction, for its entity.
struct Mine {
    entity: EntityId,
    predictor: Predictor<Walk>,
}

/// A client's view: feed it what the client sends and receives, draw [`ClientView::view`].
pub struct ClientView {
    config: Config,
    tick: Duration,
    delay: Duration,
    clock: TickSync,
    /// The client's time origin, for the render clock.
    epoch: Option<Instant>,
    remote: Interpolator<Frame>,
    render: RenderClock,
    /// The newest snapshot's tick, and the local player's entity and position in it.
    latest: Option<(u32, Option<(EntityId, Vec2)>)>,
    /// The newest snapshot's entities: the obstacles a new prediction starts among.
    latest_entities: Vec<Entity>,
    mine: Option<Mine>,
    /// The `Move`s sent and not yet seen taking effect, oldest first: each direction, and the
    /// tick of the clock (unshifted) it was predicted to take effect at.
    pending: VecDeque<(Dir, i64)>,
    /// The previous snapshot's tick and the local player's direction in it.
    last_own: Option<(u32, Dir)>,
    /// Recent measures: the tick a `Move` took effect at, less the tick predicted.
    lags: VecDeque<i64>,
    /// The clock's shift, in ticks: the smallest of `lags`.
    shift: i64,
    /// Between two rounds: when the round ended, then where it left the local player.
    between_rounds: Option<Between>,
    /// The direction last sent.
    movement: Dir,
    stats: ViewStats,
}

impl std::fmt::Debug for ClientView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientView")
            .field("delay", &self.delay)
            .field("latest", &self.latest)
            .field("movement", &self.movement)
            .field("shift", &self.shift)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl ClientView {
    /// How far behind the newest snapshots the others are drawn by default: two snapshots at
    /// 20 a second, with room for one late.
    pub const DELAY: Duration = Duration::from_millis(100);

    /// The view of a game played by `config`'s rules at its tick rate.
    pub fn new(config: Config) -> ClientView {
        let tick = Duration::from_secs(1) / config.tick_rate.max(1);
        ClientView {
            clock: TickSync::new(TickSyncConfig {
                safety_ticks: -0.5,
                jitter_factor: 0.0,
                ..TickSyncConfig::new(tick)
            }),
            config,
            tick,
            delay: ClientView::DELAY,
            epoch: None,
            remote: Interpolator::new(InterpolationConfig::default()),
            render: RenderClock::default(),
            latest: None,
            latest_entities: Vec::new(),
            mine: None,
            between_rounds: None,
            pending: VecDeque::new(),
            last_own: None,
            lags: VecDeque::new(),
            shift: 0,
            movement: Dir::NONE,
            stats: ViewStats::default(),
        }
    }

    /// The same view, drawing the others `delay` behind the newest snapshots.
    pub fn with_delay(mut self, delay: Duration) -> ClientView {
        self.delay = delay;
        self
    }

    /// What the view did.
    pub fn stats(&self) -> &ViewStats {
        &self.stats
    }

    /// Takes what `game` learned from a message (`event`, from [`GameClient::handle`]): its
    /// snapshots and its round trips.
    pub fn observe(&mut self, game: &GameClient, event: &ClientEvent, now: Instant) {
        match event {
            ClientEvent::Snapshot => {
                if let Some(time) = game.latest() {
                    self.on_snapshot(time, game.entities(), game.player(), now);
                }
            }
            ClientEvent::Pong(rtt) => self.on_rtt(*rtt),
            ClientEvent::GameOver(result) => self.round_over(result.time),
            _ => {}
        }
    }

    /// The round ended at server tick `end` (the `GameOver`'s time): the world stands still
    /// until the next round, which puts the local player elsewhere (perhaps as the same
    /// entity); neither is a correction. Prediction stops until a snapshot shows the player
    /// moved from where the round froze it (its place in the first snapshot from `end` on: the
    /// `GameOver` is reliable and may overtake the round's last snapshots), and starts afresh
    /// from there.
    pub fn round_over(&mut self, end: u32) {
        let alive = self.latest.is_some_and(|(_, mine)| mine.is_some());
        self.between_rounds = alive.then_some(Between::Ended(end));
        self.mine = None;
    }

    /// A round trip measured (a ping's).
    pub fn on_rtt(&mut self, rtt: Duration) {
        self.clock.on_rtt(rtt);
    }

    /// An input the client sent at `now`: a `Move` is what the local player walks by from the
    /// next tick on.
    pub fn sent(&mut self, input: &Input, now: Instant) {
        self.update(now);
        if let Input::Move(dir) = input {
            let dir = Dir(dir.bits() & 0x0F);
            if dir != self.movement && self.clock.is_synced() {
                if self.pending.len() == LAG_SAMPLES {
                    self.pending.pop_front();
                }
                self.pending
                    .push_back((dir, i64::from(self.clock.tick()) + 1));
            }
            self.movement = dir;
        }
    }

    /// The snapshot of tick `time`, arrived at `now`; `me` is the local player's id once
    /// joined.
    pub fn on_snapshot(
        &mut self,
        time: u32,
        entities: &[Entity],
        me: Option<PlayerId>,
        now: Instant,
    ) {
        self.epoch.get_or_insert(now);
        self.clock.on_server_tick(now, time);
        self.remote.push(time, Frame(entities.to_vec()));
        let mine = me.and_then(|me| {
            entities.iter().find_map(|e| match &e.kind {
                EntityKind::Player(p) if p.owner == me => Some((e.id, p.pos, p.movement)),
                _ => None,
            })
        });
        if let Some((_, _, walking)) = mine {
            self.measure(time, walking);
        }
        let mine = mine.map(|(entity, pos, _)| (entity, pos));
        self.latest = Some((time, mine));
        self.latest_entities.clear();
        self.latest_entities.extend_from_slice(entities);
        let Some((entity, pos)) = mine else {
            // Dead, or not joined: nothing to predict.
            self.mine = None;
            return;
        };
        match self.between_rounds {
            Some(Between::Ended(end)) => {
                if !tick_newer(end, time) {
                    self.between_rounds = Some(Between::Frozen(pos));
                }
                return;
            }
            Some(Between::Frozen(left)) if left == pos => return,
            Some(Between::Frozen(_)) => self.between_rounds = None,
            None => {}
        }
        if self.mine.as_ref().is_some_and(|m| m.entity != entity) {
            // A new round: a new entity, elsewhere.
            self.mine = None;
        }
        if let Some(m) = &self.mine {
            m.predictor.simulation().set_obstacles(entities, entity);
        }
        self.update(now);
        let Some(m) = &mut self.mine else {
            return;
        };
        match m.predictor.reconcile(time, &pos) {
            Reconciled::Agreed => self.stats.agreed += 1,
            Reconciled::Corrected { size, .. } => self.stats.corrected(size),
            // Behind the server (a clock not yet steady): the snapshot's word was taken.
            Reconciled::Reset => self.stats.restarts += 1,
            Reconciled::Stale => {}
        }
    }

    /// Measures when a `Move` sent took effect: at `time`, if the snapshot of the tick before
    /// showed another direction.
    fn measure(&mut self, time: u32, walking: Dir) {
        if let Some((before_time, before)) = self.last_own
            && before != walking
            && let Some(i) = self.pending.iter().position(|(d, _)| *d == walking)
        {
            if before_time.wrapping_add(1) == time {
                if self.lags.len() == LAG_SAMPLES {
                    self.lags.pop_front();
                }
                self.lags.push_back(i64::from(time) - self.pending[i].1);
                let least = self.lags.iter().copied().min().unwrap_or(0);
                self.shift = least.clamp(-MAX_SHIFT, MAX_SHIFT);
            }
            self.pending.drain(..=i);
        }
        self.last_own = Some((time, walking));
    }

    /// Moves the prediction on to `now`: one step per tick of the clock.
    pub fn update(&mut self, now: Instant) {
        let ticks = self.clock.update(now);
        if ticks.jumped {
            self.mine = None;
        }
        let Some(target) = ticks.last() else {
            return;
        };
        let target = u32::try_from((i64::from(target) + self.shift).max(0)).unwrap_or(target);
        if self.mine.is_none() && self.between_rounds.is_none() {
            self.start(target);
        }
        let Some(m) = &mut self.mine else {
            return;
        };
        let behind = target.saturating_sub(m.predictor.tick());
        if behind > CATCH_UP_TICKS {
            self.mine = None;
            self.start(target);
            return;
        }
        for _ in 0..behind {
            let next = m.predictor.tick() + 1;
            m.predictor.predict(next, self.movement);
            self.stats.predicted += 1;
        }
    }

    /// Starts predicting from the newest snapshot, stepped on to tick `target`.
    fn start(&mut self, target: u32) {
        let Some((time, Some((entity, pos)))) = self.latest else {
            return;
        };
        let walk = Walk::new(self.config.clone());
        walk.set_obstacles(&self.latest_entities, entity);
        let config = PredictConfig {
            history: 2 * CATCH_UP_TICKS as usize,
            tolerance: self.config.player_speed / 100.0,
            ..PredictConfig::default()
        };
        let mut predictor = Predictor::new(walk, config, time, pos);
        let steps = target.saturating_sub(time).min(CATCH_UP_TICKS);
        for t in 1..=steps {
            predictor.predict(time + t, self.movement);
            self.stats.predicted += 1;
        }
        self.stats.restarts += 1;
        self.mine = Some(Mine { entity, predictor });
    }

    /// The world to draw at `now`: the local player where the prediction has it, the others
    /// `delay` behind the newest snapshots. Empty before the first snapshot.
    pub fn view(&mut self, now: Instant) -> Vec<Entity> {
        self.update(now);
        let Some(epoch) = self.epoch else {
            return Vec::new();
        };
        let Some(arriving) = self.clock.arriving_tick_estimate(now) else {
            return Vec::new();
        };
        let local = self.ticks(now.saturating_duration_since(epoch));
        let render = self.render.at(local, arriving - self.ticks(self.delay));
        let Some(Frame(mut entities)) = self.remote.sample(render) else {
            return Vec::new();
        };
        if matches!(
            self.remote.last_sampled(),
            Some(Sampled::Extrapolated | Sampled::Held)
        ) && self
            .remote
            .newest_tick()
            .is_some_and(|n| render > f64::from(n))
        {
            self.stats.extrapolated += 1;
        }
        if let Some(m) = &self.mine
            && let Some(EntityKind::Player(p)) = entities
                .iter_mut()
                .find(|e| e.id == m.entity)
                .map(|e| &mut e.kind)
        {
            p.pos = *m.predictor.displayed();
            p.movement = self.movement;
        }
        entities
    }

    /// Where the view shows the local player now (the prediction, corrections blended in), once
    /// it predicts.
    pub fn me(&self) -> Option<Vec2> {
        self.mine.as_ref().map(|m| *m.predictor.displayed())
    }

    /// The server tick the prediction has reached: the one a message sent now is applied at,
    /// as the view estimates it.
    pub fn tick(&self) -> Option<u32> {
        self.mine.as_ref().map(|m| m.predictor.tick())
    }

    fn ticks(&self, d: Duration) -> f64 {
        d.as_secs_f64() / self.tick.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Player;

    const RATE: u32 = 60;

    /// One other player at `x`.
    pub(super) fn world(x: f32) -> Vec<Entity> {
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

    /// Another player walking one unit a tick, its snapshots every `every` ticks, each arriving
    /// after 30 ms plus up to `jitter_ms` (a pseudo-random sequence); the view drawn at 60
    /// frames a second for two seconds. Returns the x drawn at each frame.
    fn drawn(every: u32, jitter_ms: u64, lost: &[u32]) -> Vec<f32> {
        let mut view = ClientView::new(Config::for_tick_rate(RATE));
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
                view.on_snapshot(t + 1000, &world(t as f32), None, now);
            }
            out.push(x(&view.view(now)));
        }
        out
    }

    fn steps(xs: &[f32]) -> Vec<f32> {
        xs.windows(2).map(|w| w[1] - w[0]).collect()
    }

    #[test]
    fn the_others_move_on_every_frame_at_20_snapshots_a_second_as_at_60() {
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
        let steps = steps(&drawn(3, 10, &[60]));
        assert!(steps.iter().all(|s| (0.6..=1.4).contains(s)), "{steps:?}");
    }

    /// Our player (id 1, entity 1) at `x`, walking `dir`.
    fn me_at(x: f32, dir: Dir) -> Vec<Entity> {
        let mut w = world(x);
        if let EntityKind::Player(p) = &mut w[0].kind {
            p.movement = dir;
        }
        w
    }

    #[test]
    fn a_round_that_ends_and_the_next_that_starts_are_not_corrections() {
        let config = Config::for_tick_rate(RATE);
        let speed = config.player_speed;
        let mut view = ClientView::new(config);
        let t0 = Instant::now();
        let tick = Duration::from_secs(1) / RATE;
        // Each snapshot of tick t arrives 50 ms after it; the server walks us east from x 5
        // until the round ends at tick 120.
        let at = |t: u32| t0 + tick * t + Duration::from_millis(50);
        let x = |t: u32| 5.0 + speed * t.min(120) as f32;
        view.on_rtt(Duration::from_millis(100));
        view.sent(&Input::Move(Dir::EAST), t0);
        for t in 0..118 {
            view.on_snapshot(t, &me_at(x(t), Dir::EAST), Some(1), at(t));
        }
        let before = view.stats().clone();
        assert!(view.me().is_some(), "predicting: {before:?}");
        // The `GameOver` (reliable) overtakes the round's last snapshots; then the world stands
        // still for three seconds, the player still walking east in it (the server ignores
        // actions until the next round).
        view.round_over(120);
        assert!(view.me().is_none(), "no prediction after the round");
        for t in 118..300 {
            view.on_snapshot(t, &me_at(x(t), Dir::EAST), Some(1), at(t));
        }
        assert!(view.me().is_none(), "none in the frozen world");
        // The next round puts us elsewhere, standing; then we walk east again.
        view.sent(&Input::Move(Dir::NONE), at(299));
        for t in 300..320 {
            view.on_snapshot(t, &me_at(1.5, Dir::NONE), Some(1), at(t));
        }
        assert_eq!(
            view.me(),
            Some(Vec2::new(1.5, 0.0)),
            "predicting from the spawn"
        );
        let after = view.stats();
        assert_eq!(
            after.corrections, before.corrections,
            "the round's end and the next's start: {after:?}"
        );
        assert!(after.largest <= before.largest, "{after:?}");
    }

    #[test]
    fn nothing_is_drawn_before_the_first_snapshot_and_memory_is_bounded() {
        let mut view = ClientView::new(Config::for_tick_rate(RATE));
        let t0 = Instant::now();
        assert!(view.view(t0).is_empty());
        let tick = Duration::from_secs(1) / RATE;
        for t in 0..10 * RATE {
            view.on_snapshot(t, &world(t as f32), None, t0 + tick * t);
        }
        assert!(view.remote.len() <= InterpolationConfig::default().capacity);
        assert!(view.me().is_none(), "no player of ours: nothing predicted");
    }
}
