//! The lab's server: the shooter's authority, inputs applied at their ticks, shots judged with
//! or without lag compensation, and the history every measure is checked against.

use std::collections::HashMap;
use std::time::Instant;

use hopnet_proto::sim::SimNetwork;
use hopnet_proto::{ConnectionId, Delivery};
use hopnet_sync::Tick;
use hopnet_sync::input::InputBuffer;
use hopnet_sync::lag_compensation::LagCompensation;
use hopnet_sync::predict::Simulation;

use super::FIRST_TICK;
use crate::shooter::{Player, Rules, ShooterInput, Snapshot, ray_hit};

pub(super) struct Server {
    pub(super) rules: Rules,
    pub(super) slots: HashMap<ConnectionId, usize>,
    pub(super) conns: Vec<ConnectionId>,
    pub(super) players: Vec<Player>,
    pub(super) buffers: Vec<InputBuffer<ShooterInput>>,
    pub(super) last_input: Vec<ShooterInput>,
    pub(super) lag: LagCompensation<usize, Player>,
    /// Every tick's players, from `FIRST_TICK`: the truth remote errors are measured against.
    pub(super) history: Vec<Vec<Player>>,
    /// The server's verdict on each shot: (shooter, tick) → target hit.
    pub(super) verdicts: HashMap<(usize, Tick), Option<usize>>,
    pub(super) next: Tick,
    pub(super) next_at: Instant,
}

impl Server {
    pub(super) fn start_positions(i: usize) -> Player {
        let corner: [(f32, f32); 4] = [(8.0, 8.0), (32.0, 8.0), (32.0, 32.0), (8.0, 32.0)];
        let (x, y) = corner[i % corner.len()];
        let heading = (20.0 - y).atan2(20.0 - x);
        Player {
            x,
            y,
            heading,
            input_tick: 0,
        }
    }

    /// Simulates tick `self.next`, judges its shots, and sends every client its snapshot.
    pub(super) fn tick(&mut self, net: &mut SimNetwork, lag_compensation: bool) {
        let t = self.next;
        let now = net.now();
        let mut shots = Vec::new();
        for (i, player) in self.players.iter_mut().enumerate() {
            match self.buffers[i].take(t) {
                Some(input) => {
                    self.rules.step(t, player, &input);
                    self.last_input[i] = input;
                    if input.shoot {
                        shots.push((i, input.view()));
                    }
                }
                None => {
                    // Missing: the last input again, without its shot; the player shows no
                    // new input's effect.
                    let repeat = ShooterInput {
                        shoot: false,
                        ..self.last_input[i]
                    };
                    let shown = player.input_tick;
                    self.rules.step(t, player, &repeat);
                    player.input_tick = shown;
                }
            }
        }
        let frame: Vec<(usize, Player)> = self.players.iter().copied().enumerate().collect();
        self.lag.record(t, frame.clone());
        // Shots that came after their tick: judged now, from where the shooter was at its tick.
        let mut late_shots = Vec::new();
        for (i, buffer) in self.buffers.iter_mut().enumerate() {
            for (tick, input) in buffer.take_late() {
                if input.shoot {
                    late_shots.push((i, tick, input.view()));
                }
            }
        }
        for (shooter, view) in shots {
            let targets = if lag_compensation {
                self.lag.rewind(t, view).entities
            } else {
                frame.clone()
            };
            let hit = ray_hit((shooter, &self.players[shooter]), &targets);
            self.verdicts.insert((shooter, t), hit);
        }
        for (shooter, tick, view) in late_shots {
            let at = self.lag.rewind(t, f64::from(tick));
            let Some(from) = at.get(shooter).copied() else {
                continue;
            };
            let targets = if lag_compensation {
                self.lag.rewind(t, view).entities
            } else {
                frame.clone()
            };
            let hit = ray_hit((shooter, &from), &targets);
            self.verdicts.insert((shooter, tick), hit);
        }
        self.history.push(self.players.clone());
        for (i, conn) in self.conns.iter().enumerate() {
            let snapshot = Snapshot {
                tick: t,
                you: i as u8,
                ack: self.buffers[i].ack(now),
                players: self.players.clone(),
            };
            let bytes = hopnet_codec::to_bytes(&snapshot).expect("a snapshot encodes");
            // A full send buffer is the transport's to report; the snapshot is simply not sent.
            let _ = net.server().send(*conn, &bytes, Delivery::Sequenced);
        }
        self.next += 1;
    }

    /// Where the server had player `i` at the fractional tick `at`, if it has simulated it.
    pub(super) fn truth(&self, i: usize, at: f64) -> Option<Player> {
        use hopnet_sync::interpolate::Interpolate;
        let base = at - f64::from(FIRST_TICK);
        if base < 0.0 {
            return None;
        }
        let lo = base.floor() as usize;
        let a = self.history.get(lo)?.get(i)?;
        let b = self.history.get(lo + 1)?.get(i)?;
        Some(a.lerp(b, (base - lo as f64) as f32))
    }
}
