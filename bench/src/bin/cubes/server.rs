//! The server's side of the sync, per client: what that client has acknowledged of every cube,
//! what each tracked update in flight carried, and (with a budget) a priority accumulator that
//! decides which cubes fit in this tick's bytes.

use std::collections::HashMap;

use hopnet::proto::{ConnectionId, MessageId};

use crate::scene::{Body, PLAYER};
use crate::wire::{CubeState, CubeUpdate, Update};

/// Bytes a datagram costs beyond its message: IPv4 and UDP (28) and hopnet's packet and
/// message headers, as budgeted (the bucket is charged what was really sent afterwards).
pub const DATAGRAM_OVERHEAD: usize = 28 + 16;
/// Bits of one cube in an update: id, position, orientation, flag.
const CUBE_BITS: usize = 10 + 15 + 14 + 15 + 29 + 1;
/// A budget bucket holds at most this many ticks' worth of bytes: a burst after a quiet spell
/// stays within the second it is measured in.
const BUCKET_TICKS: f64 = 2.0;

/// What the server keeps for one client.
pub struct Peer {
    pub conn: ConnectionId,
    /// The newest state of each cube the client acknowledged, with its tick.
    acked: Vec<(u32, CubeState)>,
    /// Tracked updates in flight: their tick and cubes.
    in_flight: HashMap<MessageId, (u32, Vec<CubeUpdate>)>,
    /// Each cube's accumulated priority (budget mode).
    priority: Vec<f64>,
    /// Bytes the client may still be sent (budget mode): may go below zero.
    pub bucket: f64,
}

impl Peer {
    /// A client that holds `initial` (the scene as loaded) as of tick 0.
    pub fn new(conn: ConnectionId, initial: &[CubeState]) -> Peer {
        Peer {
            conn,
            acked: initial.iter().map(|s| (0, *s)).collect(),
            in_flight: HashMap::new(),
            priority: vec![0.0; initial.len()],
            bucket: 0.0,
        }
    }

    /// Records that `id`, sent at `tick` with `cubes`, is in flight.
    pub fn sent(&mut self, id: MessageId, tick: u32, cubes: Vec<CubeUpdate>) {
        self.in_flight.insert(id, (tick, cubes));
    }

    /// The client acknowledged `id`: what it carried is now the baseline of each of its cubes
    /// (unless a newer update was acknowledged first).
    pub fn acknowledged(&mut self, id: MessageId) {
        if let Some((tick, cubes)) = self.in_flight.remove(&id) {
            for c in cubes {
                let slot = &mut self.acked[usize::from(c.id)];
                if tick > slot.0 {
                    *slot = (tick, c.state);
                }
            }
        }
    }

    /// `id` will not be acknowledged: its cubes are sent again while they differ.
    pub fn lost(&mut self, id: MessageId) {
        self.in_flight.remove(&id);
    }

    /// This tick's update: every cube whose state differs from what the client acknowledged,
    /// or, with `budget` (bytes a tick), as many of them as fit, in priority order. `None`
    /// when the budget leaves no room for a message this tick.
    pub fn update(
        &mut self,
        tick: u32,
        now: &[CubeState],
        bodies: &[Body],
        budget: Option<f64>,
    ) -> Option<Update> {
        let changed = (0..now.len()).filter(|&i| self.acked[i].1 != now[i]);
        let Some(per_tick) = budget else {
            let cubes = changed.map(|i| cube(i, now)).collect();
            return Some(Update { tick, cubes });
        };
        self.bucket = (self.bucket + per_tick).min(per_tick * BUCKET_TICKS);
        let player = bodies[PLAYER].position;
        let mut wanted: Vec<usize> = Vec::new();
        for i in changed {
            let d = crate::wire::distance(bodies[i].position, player);
            // Near cubes first, moving ones before settled ones; every waiting cube gains
            // something each tick, so none waits forever.
            let moving = if bodies[i].awake { 2.0 } else { 0.0 };
            self.priority[i] += 1.0 + moving + 40.0 / (1.0 + d);
            wanted.push(i);
        }
        // Room for the header (tick and count: 4 bytes at most) and the datagram's overhead.
        let room = self.bucket - (DATAGRAM_OVERHEAD + 4) as f64;
        if room < 0.0 {
            return None;
        }
        let fits = (room * 8.0 / CUBE_BITS as f64) as usize;
        wanted.sort_by(|&a, &b| {
            self.priority[b]
                .total_cmp(&self.priority[a])
                .then(a.cmp(&b))
        });
        wanted.truncate(fits);
        wanted.sort_unstable();
        for &i in &wanted {
            self.priority[i] = 0.0;
        }
        let cubes = wanted.into_iter().map(|i| cube(i, now)).collect();
        Some(Update { tick, cubes })
    }
}

fn cube(i: usize, now: &[CubeState]) -> CubeUpdate {
    CubeUpdate {
        id: i as u16,
        state: now[i],
    }
}
