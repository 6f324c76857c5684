//! The comparison rows: the same scene sent whole every tick, as the article's raw state
//! (position, orientation, linear velocity, flag in full floats) encoded by bincode, bitcode
//! and our derive, and as the wire's quantized states, with no deltas.

use hopnet_codec::Rabbit;
use serde::{Deserialize, Serialize};

use crate::scene::Body;
use crate::wire::CubeState;

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

/// Summed encoded sizes over the ticks measured.
#[derive(Debug, Default, Clone)]
pub struct Sizes {
    pub ticks: u64,
    pub bincode: u64,
    pub bitcode: u64,
    pub rabbit_full: u64,
    pub rabbit_quantized: u64,
}

impl Sizes {
    /// Encodes one tick's scene each way and adds the sizes.
    pub fn add(&mut self, bodies: &[Body], states: &[CubeState]) {
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
        self.bincode += len(
            bincode::encode_to_vec(&mirror, bincode::config::standard()).map_err(|e| e.to_string()),
        );
        self.bitcode += bitcode::encode(&mirror).len() as u64;
        self.rabbit_full += len(hopnet_codec::to_bytes(&ours).map_err(|e| e.to_string()));
        self.rabbit_quantized += len(hopnet_codec::to_bytes(states).map_err(|e| e.to_string()));
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
            ("bincode (full floats)", kbps(self.bincode)),
            ("bitcode (full floats)", kbps(self.bitcode)),
            ("rabbit (full floats)", kbps(self.rabbit_full)),
            ("rabbit (quantized, no deltas)", kbps(self.rabbit_quantized)),
        ]
    }
}
