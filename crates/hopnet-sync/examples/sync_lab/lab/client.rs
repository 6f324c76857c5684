//! The lab's client: a bot playing from its screen, its clock ahead of the server's, its own
//! player predicted, the others interpolated; and what its screen shows, measured.

use std::collections::VecDeque;
use std::time::Instant;

use hopnet_proto::sim::SimNetwork;
use hopnet_sync::Tick;
use hopnet_sync::input::{INPUT_DELIVERY, InputSender};
use hopnet_sync::interpolate::Interpolator;
use hopnet_sync::predict::{PredictConfig, Predictor, Reconciled};
use hopnet_sync::tick_sync::TickSync;

use super::Settings;
use super::samples::Samples;
use super::server::Server;
use crate::shooter::{Bot, Player, Rules, ShooterInput, Snapshot, position_error, ray_hit};

pub(super) struct Client {
    pub(super) index: usize,
    pub(super) slot: Option<usize>,
    pub(super) sync: TickSync,
    pub(super) sender: InputSender<ShooterInput>,
    pub(super) rules: Rules,
    pub(super) predictor: Option<Predictor<Rules>>,
    /// The newest authoritative state of the client's own player, and its tick.
    pub(super) own: Option<(Tick, Player)>,
    pub(super) remotes: Vec<Interpolator<Player>>,
    pub(super) bot: Bot,
    /// Inputs whose effect is not yet on this client's screen.
    pub(super) awaiting: VecDeque<Tick>,
    /// The sizes of the corrections made while measuring.
    pub(super) corrections: Vec<f64>,
}

impl Client {
    fn interpolation_delay(&self) -> f64 {
        // One snapshot interval, one more for a lost snapshot, and the jitter the samples show.
        2.0 + self.sync.jitter_ticks()
    }

    pub(super) fn receive(&mut self, now: Instant, bytes: &[u8], measuring: bool) {
        let Ok(snapshot) = hopnet_codec::from_bytes::<Snapshot>(bytes) else {
            return;
        };
        let slot = usize::from(snapshot.you);
        self.slot = Some(slot);
        self.sync.on_server_tick(now, snapshot.tick);
        if let Some(ack) = snapshot.ack {
            let acked = self.sender.on_ack(now, &ack);
            self.sync.on_acked(acked);
        }
        for (i, player) in snapshot.players.iter().enumerate() {
            if i == slot {
                if self.own.is_none_or(|(t, _)| snapshot.tick > t) {
                    self.own = Some((snapshot.tick, *player));
                }
                if let Some(p) = &mut self.predictor
                    && let Reconciled::Corrected { size, .. } = p.reconcile(snapshot.tick, player)
                    && measuring
                {
                    self.corrections.push(f64::from(size));
                }
            } else if let Some(remote) = self.remotes.get_mut(i) {
                remote.push(snapshot.tick, *player);
            }
        }
    }

    /// What this client's screen shows of itself.
    fn shown_self(&self) -> Option<Player> {
        match &self.predictor {
            Some(p) => Some(*p.displayed()),
            None => self.own.map(|(_, p)| p),
        }
    }

    /// Runs client tick `t`: the bot plays from its screen, the input goes out (and is
    /// predicted), and the screen is measured against the server's truth.
    pub(super) fn tick(
        &mut self,
        t: Tick,
        now: Instant,
        settings: &Settings,
        net: &mut SimNetwork,
        server: &Server,
        samples: Option<&mut Samples>,
    ) {
        let (Some(slot), Some((own_tick, own))) = (self.slot, self.own) else {
            return;
        };
        if settings.prediction && self.predictor.is_none() {
            // The player stands still until its first input: its state before tick `t` is
            // the newest the server sent.
            // Four seconds of history: longer than any lead the clock takes here.
            let config = PredictConfig {
                history: (4 * settings.tick_hz as usize).max(128),
                tolerance: 0.001,
                smoothing_ticks: (settings.tick_hz / 10).max(6),
            };
            self.predictor = Some(Predictor::new(
                self.rules,
                config,
                t.max(own_tick + 1) - 1,
                own,
            ));
        }
        let Some(render) = self.sync.arriving_tick_estimate(now) else {
            return;
        };
        let render = render - self.interpolation_delay();
        let others: Vec<(usize, Player)> = self
            .remotes
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| *i != slot && *i < server.players.len())
            .filter_map(|(i, r)| r.sample(render).map(|p| (i, p)))
            .collect();
        let me = self.shown_self().unwrap_or(own);
        let mut input = self.bot.play(&me, &others);
        let whole = render.max(0.0).floor();
        input.view_tick = whole as Tick;
        input.view_frac = ((render.max(0.0) - whole) * 256.0).floor().min(255.0) as u8;
        let scheduled = self.sender.push(t, input);
        if let Some(p) = &mut self.predictor {
            p.predict(scheduled, input);
        }
        if let Some(message) = self.sender.message(now) {
            let bytes = hopnet_codec::to_bytes(&message).expect("an input message encodes");
            let _ = net.client(self.index).send(&bytes, INPUT_DELIVERY);
        }
        let Some(samples) = samples else {
            self.awaiting.clear();
            return;
        };
        self.awaiting.push_back(scheduled);
        let me = self.shown_self().unwrap_or(own);
        while let Some(&first) = self.awaiting.front() {
            if first > me.input_tick {
                break;
            }
            self.awaiting.pop_front();
            samples
                .input_to_view
                .push(f64::from(t.saturating_sub(first)));
        }
        if input.shoot {
            samples.shots += 1;
            if let Some(target) = ray_hit((slot, &me), &others) {
                samples.seen.push((slot, scheduled, target));
            }
        }
        for (i, shown) in &others {
            if let Some(truth) = server.truth(*i, render) {
                samples
                    .remote_error
                    .push(f64::from(position_error(shown, &truth)));
            }
        }
    }
}
