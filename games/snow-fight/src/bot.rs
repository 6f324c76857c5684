//! A player that plays by itself: walk to the nearest breakable object, break it, throw it at the
//! nearest player.
//!
//! The policy sees what a client sees (a list of [`Entity`], as decoded from the latest snapshot)
//! and answers with the [`Input`]s to send. It only sends what changed, plus a refresh now and
//! then in case an action was lost, so it is cheap on the wire. It is deterministic for a seed and
//! a sequence of views.

use crate::rng::Rng;
use crate::rules::Input;
use crate::world::{Config, Dir, Entity, EntityId, ObjectState, Player, PlayerId, Vec2};

/// Views between refreshes of an unchanged action.
const REFRESH: u32 = 30;
/// Views with (almost) no progress before the bot tries a detour.
const STUCK: u32 = 8;
/// Views a detour lasts.
const DETOUR: u32 = 25;
/// Views to wait after a throw before throwing again (the snapshot showing it may lag).
const THROW_COOLDOWN: u32 = 20;

/// The bot's memory between views.
#[derive(Clone, Debug)]
pub struct Bot {
    owner: PlayerId,
    rng: Rng,
    sent_move: Option<Dir>,
    sent_break: Option<Option<EntityId>>,
    since_refresh: u32,
    last_pos: Option<Vec2>,
    stuck: u32,
    detour: Option<(Dir, u32)>,
    throw_cooldown: u32,
}

impl Bot {
    /// A bot playing `owner`'s player; `seed` drives its detours.
    pub fn new(owner: PlayerId, seed: u64) -> Bot {
        Bot {
            owner,
            rng: Rng::new(seed),
            sent_move: None,
            sent_break: None,
            since_refresh: 0,
            last_pos: None,
            stuck: 0,
            detour: None,
            throw_cooldown: 0,
        }
    }

    /// The player it plays.
    pub fn owner(&self) -> PlayerId {
        self.owner
    }

    /// Forgets what was sent (at a new round, say): the next view sends everything afresh.
    pub fn reset(&mut self) {
        *self = Bot {
            rng: self.rng.clone(),
            ..Bot::new(self.owner, 0)
        };
    }

    /// Looks at the world and decides what to send. Call it once per new snapshot.
    pub fn think(&mut self, entities: &[Entity], config: &Config) -> Vec<Input> {
        let Some(me) = entities
            .iter()
            .filter_map(Entity::player)
            .find(|p| p.owner == self.owner)
        else {
            return Vec::new();
        };
        let me = *me;
        self.throw_cooldown = self.throw_cooldown.saturating_sub(1);
        self.since_refresh += 1;
        let refresh = self.since_refresh >= REFRESH;
        if refresh {
            self.since_refresh = 0;
        }

        let mut out = Vec::new();
        let (want_move, want_break, throw) = self.decide(&me, entities, config);
        let want_move = self.unstick(&me, want_move, config);
        if let Some(target) = throw {
            out.push(Input::Throw(target));
            self.throw_cooldown = THROW_COOLDOWN;
        }
        if let Some(b) = want_break
            && (self.sent_break != Some(b) || refresh)
        {
            out.push(Input::Break(b));
            self.sent_break = Some(b);
        }
        if self.sent_move != Some(want_move) || refresh {
            out.push(Input::Move(want_move));
            self.sent_move = Some(want_move);
        }
        out
    }

    /// What it would do with no obstacles: where to walk, what to break (if anything should
    /// change), and where to throw.
    fn decide(
        &mut self,
        me: &Player,
        entities: &[Entity],
        config: &Config,
    ) -> (Dir, Option<Option<EntityId>>, Option<Vec2>) {
        if me.holding.is_some() {
            let Some(enemy) = nearest_enemy(me, entities) else {
                return (Dir::NONE, None, None);
            };
            let dist = me.pos.dist(enemy.pos);
            if dist <= config.max_throw * 0.7 {
                let throw = (self.throw_cooldown == 0).then(|| {
                    // Lead the target by where it walks while the object flies.
                    let ticks = dist / config.projectile_speed.max(1e-3);
                    enemy.pos + enemy.movement.vector() * (config.player_speed * ticks)
                });
                return (Dir::NONE, None, throw);
            }
            return (Dir::toward(enemy.pos - me.pos, 0.05), None, None);
        }
        let target = entities
            .iter()
            .filter_map(|e| {
                let o = e.object()?;
                (o.breakable && o.state == ObjectState::Ground).then_some((e.id, o))
            })
            .min_by(|a, b| me.pos.dist(a.1.pos).total_cmp(&me.pos.dist(b.1.pos)));
        let Some((id, o)) = target else {
            return (Dir::NONE, Some(None), None);
        };
        let reach = config.player_radius + config.object_radius(o.kind) + config.reach;
        if me.pos.dist(o.pos) <= reach * 0.95 {
            (Dir::NONE, Some(Some(id)), None)
        } else {
            (Dir::toward(o.pos - me.pos, 0.05), None, None)
        }
    }

    /// Turns aside for a while when walking makes no progress (an object in the way).
    fn unstick(&mut self, me: &Player, want: Dir, config: &Config) -> Dir {
        let moved = self.last_pos.map_or(f32::MAX, |p| p.dist(me.pos));
        self.last_pos = Some(me.pos);
        if let Some((dir, left)) = self.detour {
            if left > 0 && want != Dir::NONE {
                self.detour = Some((dir, left - 1));
                return dir;
            }
            self.detour = None;
        }
        if want != Dir::NONE && moved < config.player_speed * 0.3 {
            self.stuck += 1;
        } else {
            self.stuck = 0;
        }
        if self.stuck >= STUCK {
            self.stuck = 0;
            let v = want.vector();
            // Perpendicular, left or right at random.
            let side = if self.rng.below(2) == 0 {
                Vec2::new(-v.y, v.x)
            } else {
                Vec2::new(v.y, -v.x)
            };
            let dir = Dir::toward(side, 0.05);
            self.detour = Some((dir, DETOUR));
            return dir;
        }
        want
    }
}

/// The nearest other living player.
fn nearest_enemy<'a>(me: &Player, entities: &'a [Entity]) -> Option<&'a Player> {
    entities
        .iter()
        .filter_map(Entity::player)
        .filter(|p| p.owner != me.owner)
        .min_by(|a, b| me.pos.dist(a.pos).total_cmp(&me.pos.dist(b.pos)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Config, World};

    /// Runs bot 1 against the world for up to `ticks`, applying what it sends; returns all inputs.
    fn drive(
        w: &mut World,
        bot: &mut Bot,
        ticks: u32,
        until: impl Fn(&World) -> bool,
    ) -> Vec<Input> {
        let mut sent = Vec::new();
        for _ in 0..ticks {
            let view = w.entities().to_vec();
            for input in bot.think(&view, w.config()) {
                let _ = w.apply(1, input);
                sent.push(input);
            }
            w.step();
            if until(w) {
                break;
            }
        }
        sent
    }

    #[test]
    fn walks_to_the_nearest_breakable_object_breaks_it_and_throws_at_the_nearest_player() {
        let config = Config {
            min_free_breakables: 0,
            ..Config::default()
        };
        let mut w = World::new(11, config);
        w.add_player(1);
        w.add_player(2);
        w.add_player(3);
        let mut bot = Bot::new(1, 5);
        let holding = |w: &World| {
            w.player_entity(1)
                .and_then(Entity::player)
                .is_some_and(|p| p.holding.is_some())
        };
        let sent = drive(&mut w, &mut bot, 1200, holding);
        assert!(holding(&w), "the bot picked something up: {sent:?}");
        assert!(
            matches!(sent.first(), Some(Input::Move(d)) if *d != Dir::NONE),
            "it walked first"
        );
        assert!(
            sent.iter().any(|i| matches!(i, Input::Break(Some(_)))),
            "it broke something"
        );
        let me = *w.player_entity(1).and_then(Entity::player).unwrap();
        let nearest = w
            .living_players()
            .filter(|(_, p)| p.owner != 1)
            .min_by(|a, b| me.pos.dist(a.1.pos).total_cmp(&me.pos.dist(b.1.pos)))
            .map(|(_, p)| *p)
            .unwrap();
        let sent = drive(&mut w, &mut bot, 1200, |w| !holding(w));
        let target = sent.iter().find_map(|i| match i {
            Input::Throw(t) => Some(*t),
            _ => None,
        });
        let target = target.expect("it threw");
        // Standing players: it aims at the nearest one (it may have walked closer first).
        let now_nearest = w
            .living_players()
            .filter(|(_, p)| p.owner != 1)
            .map(|(_, p)| p.pos)
            .any(|p| p.dist(target) < 0.01);
        assert!(
            now_nearest || nearest.pos.dist(target) < 0.01,
            "aimed at a player: {target:?}"
        );
    }

    #[test]
    fn sends_only_changes_and_a_refresh_now_and_then() {
        let mut w = World::new(2, Config::default());
        w.add_player(1);
        w.add_player(2);
        let mut bot = Bot::new(1, 1);
        let view = w.entities().to_vec();
        let first = bot.think(&view, w.config());
        assert!(!first.is_empty());
        let second = bot.think(&view, w.config());
        assert!(second.is_empty(), "nothing changed: {second:?}");
        let mut refreshed = false;
        for _ in 0..REFRESH {
            refreshed |= !bot.think(&view, w.config()).is_empty();
        }
        assert!(refreshed, "a periodic refresh covers lost actions");
    }
}
