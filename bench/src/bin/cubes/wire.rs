//! The cube on the wire, at the precision the goals need: a position on a 2 mm grid per axis
//! (±32 m across, −1 to 31 m up: 15 + 14 + 15 bits, at most 1 mm off an axis), an orientation
//! as a smallest-three quaternion at 9 bits a component (29 bits), and the awake flag; with
//! deltas, so that a cube whose written bits did not change costs one bit. Also the message of
//! the game-side per-cube scheme (`local`), which names each cube by a 10-bit id.

use hopnet_codec::Rabbit;

use crate::scene::Body;

/// One cube's state as it is sent and shown.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
pub struct Cube {
    #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.002, y(range = "-1.0..=31.0")))]
    pub position: [f32; 3],
    #[rabbit(quaternion(bits = 9))]
    pub rotation: [f32; 4],
    pub awake: bool,
}

impl Cube {
    /// `body` as a client will decode it: every value on its grid, so that the server
    /// compares exactly what a client holds.
    pub fn quantize(body: &Body) -> Cube {
        let [x, y, z] = body.position;
        let raw = Cube {
            position: [
                x.clamp(-32.0, 32.0),
                y.clamp(-1.0, 31.0),
                z.clamp(-32.0, 32.0),
            ],
            rotation: body.rotation,
            awake: body.awake,
        };
        // Near a tie between two components for the largest, a decoded rotation may
        // re-encode as the other: go on until the value decodes as itself (a step or two), so
        // that what the client decodes is exactly what the server holds.
        let mut value = raw;
        for _ in 0..4 {
            let again: Option<Cube> = hopnet_codec::to_bytes(&value)
                .ok()
                .and_then(|b| hopnet_codec::from_bytes(&b).ok());
            match again {
                Some(next) if next == value => break,
                Some(next) => value = next,
                None => break,
            }
        }
        value
    }
}

/// A cube's index in the scene, in the 10 bits 901 cubes need.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CubeId(#[bits(10)] pub u16);

/// A cube's new state (the `local` scheme).
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct CubeUpdate {
    pub id: CubeId,
    pub state: Cube,
}

/// One tick's message to one client (the `local` scheme).
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Update {
    #[rabbit(varint)]
    pub tick: u32,
    #[rabbit(max_len = 901)]
    pub cubes: Vec<CubeUpdate>,
}

/// The angle between two orientations, in degrees.
pub fn angle_deg(p: [f32; 4], q: [f32; 4]) -> f64 {
    let norm = |v: [f32; 4]| v.iter().map(|c| (*c as f64).powi(2)).sum::<f64>().sqrt();
    let dot: f64 = p.iter().zip(q).map(|(a, b)| *a as f64 * b as f64).sum();
    let cos = (dot.abs() / (norm(p) * norm(q))).min(1.0);
    2.0 * cos.acos().to_degrees()
}

/// The distance between two points, in metres.
pub fn distance(p: [f32; 3], q: [f32; 3]) -> f64 {
    p.iter()
        .zip(q)
        .map(|(a, b)| (*a as f64 - b as f64).powi(2))
        .sum::<f64>()
        .sqrt()
}
