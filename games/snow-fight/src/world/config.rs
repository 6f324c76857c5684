//! Every tunable number of the game.

use super::ObjectKind;

/// Every tunable number of the game. Speeds and rates are per tick; [`Config::for_tick_rate`]
/// derives them from per-second values so a round lasts as long at any tick rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Ticks per second the values below were derived for.
    pub tick_rate: u32,
    /// World extent along x (the world is `[0, width] × [0, height]`).
    pub width: f32,
    /// World extent along y.
    pub height: f32,
    /// Players needed before the round starts (win condition and time limit run only then).
    pub min_players: usize,
    /// Distance a player walks per tick.
    pub player_speed: f32,
    /// A player's radius.
    pub player_radius: f32,
    /// A player's full health.
    pub player_health: u32,
    /// Gap between a player's edge and an object's edge within which it can break it.
    pub reach: f32,
    /// Durability removed per tick of breaking.
    pub break_rate: f32,
    /// Distance a thrown object flies per tick.
    pub projectile_speed: f32,
    /// The farthest an object can be thrown.
    pub max_throw: f32,
    /// Trees generated per round.
    pub trees: usize,
    /// Of those, how many are breakable.
    pub breakable_trees: usize,
    /// Mushrooms generated per round (all breakable).
    pub mushrooms: usize,
    /// When fewer breakable objects lie on the ground than this, one mushroom grows...
    pub min_free_breakables: usize,
    /// ...every this many ticks.
    pub regrow_every: u32,
    /// Round length limit in ticks; then the healthiest living player wins.
    pub max_ticks: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config::for_tick_rate(60)
    }
}

impl Config {
    /// The default game at `tick_rate` ticks per second.
    pub fn for_tick_rate(tick_rate: u32) -> Config {
        let hz = tick_rate.max(1) as f32;
        Config {
            tick_rate: tick_rate.max(1),
            width: 24.0,
            height: 16.0,
            min_players: 2,
            player_speed: 6.0 / hz,
            player_radius: 0.4,
            player_health: 100,
            reach: 0.6,
            break_rate: 60.0 / hz,
            projectile_speed: 30.0 / hz,
            max_throw: 14.0,
            trees: 10,
            breakable_trees: 4,
            mushrooms: 12,
            min_free_breakables: 6,
            regrow_every: (tick_rate.max(1) / 2).max(1),
            max_ticks: 40 * tick_rate.max(1),
        }
    }

    /// The radius of an object of `kind`.
    pub fn object_radius(&self, kind: ObjectKind) -> f32 {
        match kind {
            ObjectKind::Tree => 0.5,
            ObjectKind::Mushroom => 0.3,
        }
    }

    /// Breaking work an object of `kind` needs (one unit per second at `break_rate`·tick_rate = 60).
    pub fn durability(&self, kind: ObjectKind) -> f32 {
        match kind {
            ObjectKind::Tree => 60.0,
            ObjectKind::Mushroom => 20.0,
        }
    }

    /// Full health of an object of `kind`.
    pub fn object_health(&self, kind: ObjectKind) -> u32 {
        match kind {
            ObjectKind::Tree => 100,
            ObjectKind::Mushroom => 30,
        }
    }

    /// Damage an object of `kind` does to what it hits when thrown.
    pub fn damage(&self, kind: ObjectKind) -> u32 {
        match kind {
            ObjectKind::Tree => 50,
            ObjectKind::Mushroom => 34,
        }
    }
}
