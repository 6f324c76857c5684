//! The game-side scheme, built on hopnet's tracked messages alone: each tick, one message per
//! client with every cube whose state differs from the newest that client acknowledged of it,
//! whole, under a 10-bit id; with a budget, a priority accumulator of its own picks what fits.
//! What `replicated` does with hopnet-sync's parts, written out in the game, for comparison.

use std::collections::HashMap;

use hopnet::Event;
use hopnet::proto::{ConnectionId, MessageId};

use crate::counted::Net;
use crate::scene::{Body, PLAYER};
use crate::wire::{Cube, CubeId, CubeUpdate, Update, distance};

/// Bytes a datagram costs beyond its message, as budgeted: IPv4 and UDP (28) and hopnet's
/// headers (the bucket is charged what was really sent afterwards).
const DATAGRAM_OVERHEAD: usize = 28 + 16;
/// Bits of one cube in an update at most: id, position, orientation, flag.
const CUBE_BITS: usize = 10 + 44 + 29 + 1;
/// A budget bucket holds at most this many ticks' worth of bytes.
const BUCKET_TICKS: f64 = 2.0;

/// What the server keeps for one client.
struct Peer {
    conn: ConnectionId,
    /// The newest state of each cube the client acknowledged, with its tick.
    acked: Vec<Option<(u32, Cube)>>,
    /// Tracked updates in flight: their tick and cubes.
    in_flight: HashMap<MessageId, (u32, Vec<CubeUpdate>)>,
    /// Each cube's accumulated priority (budget mode).
    priority: Vec<f64>,
    /// Bytes the client may still be sent (budget mode): may go below zero.
    bucket: f64,
}

pub struct Local {
    peers: Vec<Peer>,
    /// Each client's copy: the newest state of each cube it was sent, with its tick.
    views: Vec<Vec<Option<(u32, Cube)>>>,
    /// Bytes a tick under the budget.
    per_tick: Option<f64>,
}

impl Local {
    /// Clients on `conns`, holding nothing yet; `budget_kbps` over `hz` ticks a second.
    pub fn new(conns: &[ConnectionId], cubes: usize, budget_kbps: Option<f64>, hz: u32) -> Local {
        let peers = conns
            .iter()
            .map(|&conn| Peer {
                conn,
                acked: vec![None; cubes],
                in_flight: HashMap::new(),
                priority: vec![0.0; cubes],
                bucket: 0.0,
            })
            .collect();
        Local {
            peers,
            views: vec![vec![None; cubes]; conns.len()],
            // A tenth kept back for what the bucket cannot foresee.
            per_tick: budget_kbps.map(|k| 0.9 * k * 1000.0 / 8.0 / f64::from(hz)),
        }
    }

    /// Sends each client this tick's update.
    pub fn send_tick(
        &mut self,
        tick: u32,
        now: &[Cube],
        bodies: &[Body],
        net: &mut Net,
    ) -> Result<(), String> {
        for peer in &mut self.peers {
            let Some(update) = peer.update(tick, now, bodies, self.per_tick) else {
                continue;
            };
            let bytes = hopnet_codec::to_bytes(&update).map_err(|e| e.to_string())?;
            let id = net
                .server()
                .send_tracked(peer.conn, &bytes)
                .map_err(|e| format!("sending tick {tick}: {e}"))?;
            peer.in_flight.insert(id, (tick, update.cubes));
        }
        Ok(())
    }

    /// The server's event about `client`'s updates.
    pub fn event(&mut self, client: usize, event: &Event) {
        let peer = &mut self.peers[client];
        match event {
            Event::Acknowledged { id } => {
                // What it carried is now the baseline of each of its cubes, unless a newer
                // update was acknowledged first.
                if let Some((tick, cubes)) = peer.in_flight.remove(id) {
                    for c in cubes {
                        let slot = &mut peer.acked[usize::from(c.id.0)];
                        if slot.as_ref().is_none_or(|(t, _)| tick > *t) {
                            *slot = Some((tick, c.state));
                        }
                    }
                }
            }
            // Its cubes are sent again while they differ.
            Event::Lost { id } => {
                peer.in_flight.remove(id);
            }
            _ => {}
        }
    }

    /// `bytes` went to `client` on the wire.
    pub fn charge(&mut self, client: usize, bytes: u64) {
        self.peers[client].bucket -= bytes as f64;
    }

    /// `client` received a message: its update applied.
    pub fn receive(&mut self, client: usize, bytes: &[u8]) -> Result<(), String> {
        let update: Update = hopnet_codec::from_bytes(bytes).map_err(|e| e.to_string())?;
        let view = &mut self.views[client];
        for c in update.cubes {
            if let Some(slot) = view.get_mut(usize::from(c.id.0))
                && slot.as_ref().is_none_or(|(t, _)| update.tick >= *t)
            {
                *slot = Some((update.tick, c.state));
            }
        }
        Ok(())
    }

    /// What `client` shows of cube `i`.
    pub fn shown(&self, client: usize, i: usize) -> Option<&Cube> {
        self.views[client].get(i)?.as_ref().map(|(_, c)| c)
    }
}

impl Peer {
    /// This tick's update: every cube whose state differs from what the client acknowledged,
    /// or, with `budget` (bytes a tick), as many of them as fit, in priority order. `None`
    /// when the budget leaves no room for a message this tick.
    fn update(
        &mut self,
        tick: u32,
        now: &[Cube],
        bodies: &[Body],
        budget: Option<f64>,
    ) -> Option<Update> {
        let acked = &self.acked;
        let changed =
            (0..now.len()).filter(|&i| acked[i].as_ref().is_none_or(|(_, s)| *s != now[i]));
        let Some(per_tick) = budget else {
            let cubes = changed.map(|i| cube(i, now)).collect();
            return Some(Update { tick, cubes });
        };
        self.bucket = (self.bucket + per_tick).min(per_tick * BUCKET_TICKS);
        let player = bodies[PLAYER].position;
        let mut wanted: Vec<usize> = Vec::new();
        for i in changed {
            let d = distance(bodies[i].position, player);
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

fn cube(i: usize, now: &[Cube]) -> CubeUpdate {
    CubeUpdate {
        id: CubeId(i as u16),
        state: now[i].clone(),
    }
}
