//! The scheme on hopnet-sync's replication: a [`Replicator`] on the server and a [`Replica`]
//! per client. Every cube is relevant to every client (one room, no spatial rule: the measures
//! cover all cubes); priorities grow by distance to the player cube and faster for cubes in
//! motion; each client's budget is the smaller of `--budget-kbps` and what hopnet's
//! congestion controller says its link carries; deltas per cube against its acknowledged
//! state.

use std::time::Instant;

use hopnet::Event;
use hopnet::proto::ConnectionId;
use hopnet_sync::replicate::{Candidate, Replica, ReplicateConfig, Replicator};

use crate::counted::Net;
use crate::scene::{Body, PLAYER};
use crate::wire::{Cube, CubeId};

/// The largest update without a budget: a busy tick's changes in one message (hopnet splits
/// it into chunks), rather than spread over later ticks.
const UNBUDGETED_UPDATE: usize = 16 * 1024;

/// Under a budget, the fewest wire bytes an update cut short by it is sent with: a
/// datagram's own headers (hopnet's 4 bytes, IPv4's and UDP's 28) at most 8 % of it. At
/// 64 kbit/s, an update about every third tick rather than a thin one every tick.
const BUDGETED_UPDATE: usize = 400;

/// The share of `--budget-kbps` given to the replicator as its cap: its count of an update's
/// bytes is hopnet's spec header and the IPv4 and UDP headers per datagram, and a datagram
/// now and then carries a few bytes more (acknowledgements ride along).
const CAP_SHARE: f64 = 0.99;

pub struct Replicated {
    server: Replicator<usize, CubeId, Cube>,
    replicas: Vec<Replica<CubeId, Cube>>,
    conns: Vec<ConnectionId>,
    /// Per client: wire bytes the replicator counted for its updates, bytes really sent, and
    /// the difference already charged (hopnet's own datagrams: acknowledgements).
    counted: Vec<(u64, u64, u64)>,
}

/// How fast a cube's priority grows for a client: cubes within some 8 m of the player cube
/// (where the 50 nearest are) about 21 times as fast as far ones, falling off steeply past
/// it, so that the near ones take turns rather than the nearest few taking every update;
/// cubes in motion three times as fast as settled ones.
fn rate(_: &usize, c: &Candidate<'_, CubeId, Cube>) -> f32 {
    let moving = if c.state.awake { 3.0 } else { 1.0 };
    let d = c.distance / 8.0;
    moving * (1.0 + 20.0 / (1.0 + d * d * d * d))
}

impl Replicated {
    /// Clients on `conns`, holding nothing yet, each capped at `budget_kbps`.
    pub fn new(conns: &[ConnectionId], budget_kbps: Option<f64>) -> Replicated {
        let config = ReplicateConfig {
            // Budgets counted as the measures count: IPv4 and UDP headers too.
            datagram_overhead: 28,
            max_update_bytes: if budget_kbps.is_some() {
                ReplicateConfig::default().max_update_bytes
            } else {
                UNBUDGETED_UPDATE
            },
            min_budgeted_update: BUDGETED_UPDATE,
            ..ReplicateConfig::default()
        };
        let mut server = Replicator::new(config.clone()).with_priority(rate);
        let cap = budget_kbps.map(|k| (CAP_SHARE * k * 1000.0 / 8.0) as u64);
        for i in 0..conns.len() {
            server.add_client(i, [0.0; 3], cap);
        }
        Replicated {
            server,
            replicas: conns.iter().map(|_| Replica::new(config.clone())).collect(),
            conns: conns.to_vec(),
            counted: vec![(0, 0, 0); conns.len()],
        }
    }

    /// Sets the world of this tick and sends each client its update.
    pub fn send_tick(
        &mut self,
        tick: u32,
        now: &[Cube],
        bodies: &[Body],
        net: &mut Net,
        at: Instant,
    ) -> Result<(), String> {
        self.server.set_tick(tick);
        for (i, (cube, body)) in now.iter().zip(bodies).enumerate() {
            self.server
                .set(CubeId(i as u16), cube.clone(), body.position);
        }
        let player = bodies[PLAYER].position;
        let mut failed = None;
        for (i, &conn) in self.conns.iter().enumerate() {
            self.server.set_view(&i, player);
            if let Some(stats) = net.server().stats(conn) {
                self.server.set_link(&i, &stats);
            }
            let sent = self.server.send(&i, at, |bytes| {
                match net.server().send_tracked(conn, bytes) {
                    Ok(id) => Some(id),
                    Err(e) => {
                        failed = Some(format!("sending tick {tick}: {e}"));
                        None
                    }
                }
            });
            if let Some(sent) = sent {
                self.counted[i].0 += sent.wire_bytes as u64;
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// The server's event about `client`'s updates.
    pub fn event(&mut self, client: usize, event: &Event) {
        match event {
            Event::Acknowledged { id } => self.server.acknowledged(&client, *id),
            Event::Lost { id } => self.server.lost(&client, *id),
            _ => {}
        }
    }

    /// `bytes` went to `client` on the wire at `at`: what the replicator did not count itself
    /// is charged to the client's budget.
    pub fn charge(&mut self, client: usize, bytes: u64, at: Instant) {
        let (counted, real, charged) = &mut self.counted[client];
        *real += bytes;
        let extra = real.saturating_sub(*counted + *charged);
        if extra > 0 {
            *charged += extra;
            self.server.charge(&client, at, extra as usize);
        }
    }

    /// `client` received a message: its update applied.
    pub fn receive(&mut self, client: usize, bytes: &[u8]) -> Result<(), String> {
        self.replicas[client]
            .apply(bytes)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Per client: bytes the replicator counted, bytes sent, bytes charged besides.
    pub fn totals(&self) -> &[(u64, u64, u64)] {
        &self.counted
    }

    /// What `client` shows of cube `i`.
    pub fn shown(&self, client: usize, i: usize) -> Option<&Cube> {
        self.replicas[client].get(&CubeId(i as u16))
    }
}
