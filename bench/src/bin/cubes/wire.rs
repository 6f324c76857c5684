//! What the server sends: per tick, the cubes whose state the client has not acknowledged,
//! each at the wire's precision. Positions are bounded floats on a 2 mm grid (the derive's
//! `quantize`); orientations are smallest-three quaternions (the largest component's index
//! in 2 bits, the other three in 9 bits each over ±1/√2).

use hopnet_codec::Rabbit;

use crate::scene::Body;

/// Bits of each smallest-three component.
const COMPONENT_BITS: u32 = 9;
/// The largest value a component other than the largest can take.
const COMPONENT_MAX: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// A unit quaternion as its three smallest components: the fourth follows from the norm.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rabbit(delta)]
pub struct SmallestThree {
    #[bits(2)]
    pub largest: u8,
    #[bits(9)]
    pub a: u16,
    #[bits(9)]
    pub b: u16,
    #[bits(9)]
    pub c: u16,
}

impl SmallestThree {
    /// The nearest point of the grid to `q` (x, y, z, w; need not be normalised exactly).
    pub fn quantize(q: [f32; 4]) -> SmallestThree {
        let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        let q = if norm > 0.0 && norm.is_finite() {
            q.map(|c| c / norm)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        };
        let largest = (0..4)
            .max_by(|&i, &j| q[i].abs().total_cmp(&q[j].abs()))
            .unwrap_or(3);
        // q and -q are the same rotation: make the dropped component positive.
        let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
        let steps = ((1u32 << COMPONENT_BITS) - 1) as f32;
        let mut rest = (0..4).filter(|&i| i != largest).map(|i| {
            let unit = (q[i] * sign / COMPONENT_MAX).clamp(-1.0, 1.0);
            ((unit + 1.0) / 2.0 * steps).round() as u16
        });
        SmallestThree {
            largest: largest as u8,
            a: rest.next().unwrap_or(0),
            b: rest.next().unwrap_or(0),
            c: rest.next().unwrap_or(0),
        }
    }

    /// The quaternion (x, y, z, w) this stands for, normalised.
    pub fn rotation(&self) -> [f32; 4] {
        let steps = ((1u32 << COMPONENT_BITS) - 1) as f32;
        let value = |n: u16| ((n.min(steps as u16) as f32 / steps) * 2.0 - 1.0) * COMPONENT_MAX;
        let small = [value(self.a), value(self.b), value(self.c)];
        let sum: f32 = small.iter().map(|c| c * c).sum();
        let largest = (1.0 - sum).max(0.0).sqrt();
        let at = usize::from(self.largest.min(3));
        let mut q = [0.0; 4];
        let mut small = small.into_iter();
        for (i, c) in q.iter_mut().enumerate() {
            *c = if i == at {
                largest
            } else {
                small.next().unwrap_or(0.0)
            };
        }
        let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        q.map(|c| c / norm)
    }
}

/// One cube at the wire's precision.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[rabbit(delta)]
pub struct CubeState {
    #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.002))]
    pub x: f32,
    #[rabbit(quantize(range = "-1.0..=31.0", precision = 0.002))]
    pub y: f32,
    #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.002))]
    pub z: f32,
    pub rotation: SmallestThree,
    pub awake: bool,
}

impl CubeState {
    /// `body` as the client will decode it: every value on its grid.
    pub fn quantize(body: &Body) -> CubeState {
        let [x, y, z] = body.position;
        let raw = CubeState {
            x: x.clamp(-32.0, 32.0),
            y: y.clamp(-1.0, 31.0),
            z: z.clamp(-32.0, 32.0),
            rotation: SmallestThree::quantize(body.rotation),
            awake: body.awake,
        };
        // The codec's own rounding, so that the server compares exactly what the client holds.
        hopnet_codec::to_bytes(&raw)
            .ok()
            .and_then(|b| hopnet_codec::from_bytes(&b).ok())
            .unwrap_or(raw)
    }

    pub fn position(&self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
}

/// A cube's new state.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
pub struct CubeUpdate {
    #[bits(10)]
    pub id: u16,
    pub state: CubeState,
}

/// One tick's message to one client.
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
