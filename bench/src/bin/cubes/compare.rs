//! The comparison rows: the same scene sent whole every tick, as the article's raw state
//! (position, orientation, linear velocity, flag in full floats) encoded by bincode, bitcode
//! and our derive, and as the wire's quantized states, with no deltas.

use hopnet_codec::Rabbit;
use serde::{Deserialize, Serialize};

use crate::scene::Body;
use crate::wire::Cube;

/// A cube with the article's 321 bits of state, for the serde-side peers.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
struct MCube {
    position: [f32; 3],
    rotation: [f32; 4],
    linvel: [f32; 3],
    awake: bool,
}

/// The same cube for our derive: exact floats.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct RCube {
    position: [f32; 3],
    rotation: [f32; 4],
    linvel: [f32; 3],
    awake: bool,
}

/// The whole scene as one value with deltas: the snapshot-delta scheme hopnet had before
/// per-cube updates (a delta of every cube against the client's acknowledged snapshot).
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Snapshot {
    cubes: Vec<Cube>,
}

/// Ticks between a snapshot and the one its delta is against: the newest a client has
/// acknowledged at a 50 ms round trip without loss (3 ticks there and back, 1 to answer).
pub const DELTA_BEHIND: u32 = 4;

/// Summed encoded sizes over the ticks measured.
#[derive(Debug, Default, Clone)]
pub struct Sizes {
    pub ticks: u64,
    pub bincode: u64,
    pub bitcode: u64,
    pub rabbit_full: u64,
    pub rabbit_quantized: u64,
    /// Ticks with a delta row (a snapshot `DELTA_BEHIND` earlier existed).
    pub delta_ticks: u64,
    pub rabbit_delta: u64,
}

impl Sizes {
    /// Encodes one tick's scene each way and adds the sizes.
    pub fn add(&mut self, bodies: &[Body], states: &[Cube], baseline: Option<&[Cube]>) {
        let mirror: Vec<MCube> = bodies
            .iter()
            .map(|b| MCube {
                position: b.position,
                rotation: b.rotation,
                linvel: b.linvel,
                awake: b.awake,
            })
            .collect();
        let ours: Vec<RCube> = bodies
            .iter()
            .map(|b| RCube {
                position: b.position,
                rotation: b.rotation,
                linvel: b.linvel,
                awake: b.awake,
            })
            .collect();
        let len = |r: Result<Vec<u8>, String>| r.map(|b| b.len() as u64).unwrap_or(0);
        self.ticks += 1;
        self.bincode +=
            len(bincode::encode_to_vec(&mirror, bincode::config::standard())
                .map_err(|e| e.to_string()));
        self.bitcode += bitcode::encode(&mirror).len() as u64;
        self.rabbit_full += len(hopnet_codec::to_bytes(&ours).map_err(|e| e.to_string()));
        self.rabbit_quantized += len(hopnet_codec::to_bytes(states).map_err(|e| e.to_string()));
        if let Some(base) = baseline {
            let now = Snapshot {
                cubes: states.to_vec(),
            };
            let base = Snapshot {
                cubes: base.to_vec(),
            };
            self.delta_ticks += 1;
            self.rabbit_delta +=
                len(hopnet_codec::delta::to_bytes(&now, &base).map_err(|e| e.to_string()));
        }
    }

    /// Each row in kbit/s at `hz` updates a second.
    pub fn rows(&self, hz: u32) -> Vec<(&'static str, f64)> {
        let kbps = |bytes: u64| {
            if self.ticks == 0 {
                0.0
            } else {
                bytes as f64 / self.ticks as f64 * 8.0 * f64::from(hz) / 1000.0
            }
        };
        vec![
            ("full snapshot, bincode (full floats)", kbps(self.bincode)),
            ("full snapshot, bitcode (full floats)", kbps(self.bitcode)),
            (
                "full snapshot, rabbit (full floats)",
                kbps(self.rabbit_full),
            ),
            (
                "full snapshot, rabbit (quantized)",
                kbps(self.rabbit_quantized),
            ),
            (
                "snapshot delta against 4 ticks back, rabbit (quantized)",
                if self.delta_ticks == 0 {
                    0.0
                } else {
                    self.rabbit_delta as f64 / self.delta_ticks as f64 * 8.0 * f64::from(hz)
                        / 1000.0
                },
            ),
        ]
    }
}
