//! The small shooter sync_lab plays: players walk and turn in a square arena and shoot rays at
//! each other. Its rules are hopnet-sync's `Simulation`; its players interpolate.

use hopnet_codec::Rabbit;
use hopnet_sync::Tick;
use hopnet_sync::input::InputAck;
use hopnet_sync::interpolate::Interpolate;
use hopnet_sync::predict::Simulation;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Walking speed, world units per second.
pub const SPEED: f32 = 4.0;
/// Turning speed, radians per second.
pub const TURN: f32 = 2.5;
/// The arena is `0..=ARENA` on both axes.
pub const ARENA: f32 = 40.0;
/// A player's hit circle.
pub const RADIUS: f32 = 0.6;
/// How far a shot reaches.
pub const RANGE: f32 = 30.0;
/// The most players a snapshot carries.
pub const MAX_PLAYERS: usize = 8;

/// One tick's input.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Default)]
pub struct ShooterInput {
    /// -1 back, 0 stand, 1 forward.
    #[rabbit(range = "-1..=1")]
    pub walk: i8,
    /// -1 left, 0 straight, 1 right.
    #[rabbit(range = "-1..=1")]
    pub turn: i8,
    /// Fires this tick.
    pub shoot: bool,
    /// The render tick the shooter saw (whole part), for lag compensation.
    pub view_tick: Tick,
    /// Its fraction, in 256ths.
    pub view_frac: u8,
}

impl ShooterInput {
    /// The view the shooter claims, as a fractional tick.
    pub fn view(&self) -> f64 {
        f64::from(self.view_tick) + f64::from(self.view_frac) / 256.0
    }
}

/// One player.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Default)]
pub struct Player {
    pub x: f32,
    pub y: f32,
    /// Radians, in `-PI..=PI`.
    pub heading: f32,
    /// The tick of the last input applied (what "the input's effect is shown" is measured by).
    pub input_tick: Tick,
}

/// What the server sends each client each tick.
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub tick: Tick,
    /// The receiver's own index in `players`.
    pub you: u8,
    pub ack: Option<InputAck>,
    #[rabbit(max_len = MAX_PLAYERS)]
    pub players: Vec<Player>,
}

/// The rules, for one tick's duration.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub dt: f32,
}

fn wrap(angle: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let a = angle.rem_euclid(tau);
    if a > std::f32::consts::PI { a - tau } else { a }
}

impl Simulation for Rules {
    type State = Player;
    type Input = ShooterInput;

    fn step(&self, tick: Tick, p: &mut Player, input: &ShooterInput) {
        p.heading = wrap(p.heading + f32::from(input.turn) * TURN * self.dt);
        let step = f32::from(input.walk) * SPEED * self.dt;
        p.x = (p.x + p.heading.cos() * step).clamp(0.0, ARENA);
        p.y = (p.y + p.heading.sin() * step).clamp(0.0, ARENA);
        p.input_tick = tick;
    }

    /// Where the player is, plus how far its aim is off at one unit: both are what a player
    /// sees jump.
    fn distance(&self, a: &Player, b: &Player) -> f32 {
        position_error(a, b) + wrap(a.heading - b.heading).abs()
    }

    fn blend(&self, from: &Player, to: &Player, t: f32) -> Player {
        Player {
            input_tick: to.input_tick,
            ..from.lerp(to, t)
        }
    }
}

impl Interpolate for Player {
    fn lerp(&self, to: &Player, t: f32) -> Player {
        Player {
            x: self.x + (to.x - self.x) * t,
            y: self.y + (to.y - self.y) * t,
            heading: wrap(self.heading + wrap(to.heading - self.heading) * t),
            input_tick: if t < 1.0 {
                self.input_tick
            } else {
                to.input_tick
            },
        }
    }
}

/// The distance between two players' positions.
pub fn position_error(a: &Player, b: &Player) -> f32 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// The nearest player `shooter`'s ray hits, among `targets` (index, player), never itself.
pub fn ray_hit(shooter: (usize, &Player), targets: &[(usize, Player)]) -> Option<usize> {
    let (me, from) = shooter;
    let (dx, dy) = (from.heading.cos(), from.heading.sin());
    let mut best: Option<(f32, usize)> = None;
    for (i, t) in targets {
        if *i == me {
            continue;
        }
        let (ox, oy) = (t.x - from.x, t.y - from.y);
        let along = ox * dx + oy * dy;
        if !(0.0..=RANGE).contains(&along) {
            continue;
        }
        let off = (ox * dy - oy * dx).abs();
        if off <= RADIUS && best.is_none_or(|(d, _)| along < d) {
            best = Some((along, *i));
        }
    }
    best.map(|(_, i)| i)
}

/// A bot's play: walks for a while in one manner, turns towards the nearest player it sees
/// (or wanders), shoots now and then.
#[derive(Debug, Clone)]
pub struct Bot {
    dice: StdRng,
    walk: i8,
    walk_left: u32,
    wander: i8,
    wander_left: u32,
    cooldown: u32,
}

impl Bot {
    pub fn new(seed: u64) -> Bot {
        Bot {
            dice: StdRng::seed_from_u64(seed),
            walk: 1,
            walk_left: 0,
            wander: 0,
            wander_left: 0,
            cooldown: 30,
        }
    }

    /// The input for this tick, from what the bot's screen shows: itself and the others.
    pub fn play(&mut self, me: &Player, others: &[(usize, Player)]) -> ShooterInput {
        if self.walk_left == 0 {
            self.walk = match self.dice.random_range(0..10) {
                0 => -1,
                1 | 2 => 0,
                _ => 1,
            };
            self.walk_left = self.dice.random_range(20..90);
        }
        self.walk_left -= 1;
        if self.wander_left == 0 {
            self.wander = if self.dice.random_bool(0.35) {
                if self.dice.random() { 1 } else { -1 }
            } else {
                0
            };
            self.wander_left = self.dice.random_range(10..60);
        }
        self.wander_left -= 1;
        // Near a wall, walk back towards the middle.
        let centre = (ARENA / 2.0 - me.y).atan2(ARENA / 2.0 - me.x);
        let near_wall = me.x < 3.0 || me.y < 3.0 || me.x > ARENA - 3.0 || me.y > ARENA - 3.0;
        let aim = others
            .iter()
            .min_by(|a, b| position_error(me, &a.1).total_cmp(&position_error(me, &b.1)))
            .map(|(_, p)| (p.y - me.y).atan2(p.x - me.x));
        let goal = if near_wall { Some(centre) } else { aim };
        let turn = match goal {
            _ if self.wander != 0 && !near_wall => self.wander,
            Some(goal) => {
                let off = wrap(goal - me.heading);
                if off.abs() < 0.04 {
                    0
                } else {
                    off.signum() as i8
                }
            }
            None => 0,
        };
        let shoot = self.cooldown == 0;
        if shoot {
            self.cooldown = self.dice.random_range(12..40);
        } else {
            self.cooldown -= 1;
        }
        ShooterInput {
            walk: if near_wall { 1 } else { self.walk },
            turn,
            shoot,
            view_tick: 0,
            view_frac: 0,
        }
    }
}
