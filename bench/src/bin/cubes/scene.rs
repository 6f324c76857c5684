//! The scene of Fiedler's "Snapshot Compression": 900 cubes resting in a 30 × 30 grid on a
//! floor and one larger player cube, driven through and over them by a seeded script, in
//! rapier3d. Walls keep every cube inside the range the wire's bounded positions cover.

use rapier3d::prelude::*;

/// Cubes in the scene: the grid's and the player's.
pub const CUBES: usize = 901;
/// The grid's side, in cubes.
const GRID: usize = 30;
/// Distance between neighbouring cubes' centres in the grid (metres).
const SPACING: f32 = 1.5;
/// Half the edge of a grid cube.
const HALF: f32 = 0.5;
/// Half the edge of the player cube.
const PLAYER_HALF: f32 = 1.0;
/// Inner faces of the walls, from the centre: cubes stay within ±`ARENA` on x and z.
pub const ARENA: f32 = 30.0;
/// The speed the script drives the player cube at.
const PLAYER_SPEED: f32 = 7.0;
/// At most this long of settling before the first tick.
const SETTLE_SECONDS: u32 = 10;
/// Cubes this near the moving player cube are pulled towards it (metres).
const PULL_RADIUS: f32 = 6.0;
/// The pull's velocity change a step at the player cube, fading to none at the radius.
const PULL: f32 = 0.25;
/// The player's index among the cubes (the last).
pub const PLAYER: usize = CUBES - 1;

/// One cube as the physics engine has it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    pub position: [f32; 3],
    /// x, y, z, w.
    pub rotation: [f32; 4],
    pub linvel: [f32; 3],
    pub angvel: [f32; 3],
    /// Not asleep: moving, or touched recently enough that the engine still simulates it.
    pub awake: bool,
}

/// SplitMix64: the script's only source of choices, so a seed fixes the whole run.
#[derive(Debug, Clone)]
struct Script {
    state: u64,
    /// Where the player cube is driven to.
    target: [f32; 2],
    /// Ticks until the next target.
    retarget_in: u32,
    /// Ticks until the next jump.
    jump_in: u32,
}

impl Script {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// The world and the script that drives it.
pub struct Scene {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
    script: Script,
    hz: u32,
}

impl Scene {
    /// The scene at rest, stepped at `hz` steps a second, its script seeded with `seed`.
    pub fn new(seed: u64, hz: u32) -> Scene {
        let mut world = PhysicsWorld::default();
        world.integration_parameters.dt = 1.0 / hz as f32;
        // The floor, and four walls around the arena.
        let thick = 1.0;
        let fixed = |world: &mut PhysicsWorld, at: Vector, half: Vector| {
            world.insert(
                RigidBodyBuilder::fixed().translation(at),
                ColliderBuilder::cuboid(half.x, half.y, half.z).friction(0.8),
            );
        };
        let span = ARENA + 2.0 * thick;
        fixed(
            &mut world,
            Vector::new(0.0, -thick, 0.0),
            Vector::new(span, thick, span),
        );
        for (x, z) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
            let at = Vector::new(x * (ARENA + thick), 5.0, z * (ARENA + thick));
            let half = if x != 0.0 {
                Vector::new(thick, 6.0, span)
            } else {
                Vector::new(span, 6.0, thick)
            };
            fixed(&mut world, at, half);
        }
        let mut handles = Vec::with_capacity(CUBES);
        let origin = -(GRID as f32 - 1.0) * SPACING / 2.0;
        for row in 0..GRID {
            for col in 0..GRID {
                let at = Vector::new(
                    origin + col as f32 * SPACING,
                    HALF,
                    origin + row as f32 * SPACING,
                );
                let (h, _) = world.insert(
                    RigidBodyBuilder::dynamic().translation(at).sleeping(true),
                    ColliderBuilder::cuboid(HALF, HALF, HALF).friction(0.8),
                );
                handles.push(h);
            }
        }
        let start = Vector::new(-ARENA + 3.0, PLAYER_HALF, -ARENA + 3.0);
        let (player, _) = world.insert(
            RigidBodyBuilder::dynamic().translation(start),
            ColliderBuilder::cuboid(PLAYER_HALF, PLAYER_HALF, PLAYER_HALF)
                .friction(0.8)
                .density(2.0),
        );
        handles.push(player);
        let mut script = Script {
            state: seed,
            target: [0.0, 0.0],
            retarget_in: 0,
            jump_in: 2 * hz,
        };
        script.next();
        // The pile at rest before the first tick: the engine's first steps settle contacts
        // by fractions of a millimetre, which is no part of the game.
        for _ in 0..SETTLE_SECONDS * hz {
            world.step();
            if handles.iter().all(|&h| world.bodies[h].is_sleeping()) {
                break;
            }
        }
        Scene {
            world,
            handles,
            script,
            hz,
        }
    }

    /// Drives the player cube by the script, then steps the world once.
    pub fn step(&mut self) {
        let hz = self.hz;
        let s = &mut self.script;
        if s.retarget_in == 0 {
            let reach = ARENA - 4.0;
            s.target = [s.uniform(-reach, reach), s.uniform(-reach, reach)];
            s.retarget_in = (s.uniform(1.5, 4.0) * hz as f32) as u32;
        }
        s.retarget_in -= 1;
        let jump = if s.jump_in == 0 {
            s.jump_in = (s.uniform(2.0, 5.0) * hz as f32) as u32;
            true
        } else {
            s.jump_in -= 1;
            false
        };
        let target = s.target;
        let body = &mut self.world.bodies[self.handles[PLAYER]];
        let (at, v, mass) = (body.translation(), body.linvel(), body.mass());
        let to = Vector::new(target[0] - at.x, 0.0, target[1] - at.z);
        let want = if to.length() > 0.5 {
            to.normalize() * PLAYER_SPEED
        } else {
            Vector::ZERO
        };
        // A tenth of the way to the wanted horizontal velocity each step: a push, not a
        // teleport, so the engine decides what the cubes it meets do.
        let dv = Vector::new(want.x - v.x, 0.0, want.z - v.z) * 0.1;
        let mut impulse = dv * mass;
        // Only from near the floor: a jump, not a flight.
        if jump && at.y < PLAYER_HALF + 0.3 {
            impulse.y += 7.0 * mass;
        }
        body.apply_impulse(impulse, true);
        // As in Fiedler's demo, the moving player cube gathers the cubes near it, so that
        // many cubes move at once, the load the scene is for.
        let speed = Vector::new(v.x, 0.0, v.z).length();
        if speed > 1.0 {
            for &h in &self.handles[..PLAYER] {
                let cube = &mut self.world.bodies[h];
                let to = at - cube.translation();
                let d = to.length();
                if d < PULL_RADIUS && d > 0.1 {
                    let dv = to / d * PULL * (1.0 - d / PULL_RADIUS);
                    let m = cube.mass();
                    cube.apply_impulse(dv * m, true);
                }
            }
        }
        self.world.step();
    }

    /// Every cube's state now, the player's last.
    pub fn bodies(&self) -> Vec<Body> {
        self.handles
            .iter()
            .map(|&h| {
                let b = &self.world.bodies[h];
                let (p, r, v, w) = (b.translation(), b.rotation(), b.linvel(), b.angvel());
                Body {
                    position: [p.x, p.y, p.z],
                    rotation: [r.x, r.y, r.z, r.w],
                    linvel: [v.x, v.y, v.z],
                    angvel: [w.x, w.y, w.z],
                    awake: !b.is_sleeping(),
                }
            })
            .collect()
    }
}
