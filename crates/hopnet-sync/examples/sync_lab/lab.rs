//! sync_lab's run: one server and four clients of the shooter in hopnet's simulator, every
//! part of hopnet-sync in its place, and each measure taken as issue 39 defines it.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, ConnectionId, Delivery, Event, ServerEvent};
use hopnet_sync::Tick;
use hopnet_sync::input::{
    INPUT_DELIVERY, InputBuffer, InputBufferConfig, InputMessage, InputSender,
};
use hopnet_sync::interpolate::{InterpolationConfig, Interpolator};
use hopnet_sync::lag_compensation::LagCompensation;
use hopnet_sync::predict::{PredictConfig, Predictor, Reconciled, Simulation};
use hopnet_sync::tick_sync::{TickSync, TickSyncConfig};

use crate::shooter::{Bot, Player, Rules, ShooterInput, Snapshot, position_error, ray_hit};

/// Clients in every run.
pub const CLIENTS: usize = 4;
/// Inputs each message carries with redundancy on.
pub const REDUNDANCY: usize = 8;
/// Measures start this long after every client is connected and in step.
pub const WARMUP: Duration = Duration::from_secs(3);
/// After the measured play, play goes on unmeasured this long, so that the server judges the
/// shots and inputs of the measured play's last ticks (the clients run ahead of it).
pub const DRAIN: Duration = Duration::from_secs(1);
/// The server's first tick.
const FIRST_TICK: Tick = 1000;
/// The harness's time step: the clients' frames and the server's tick deadlines are checked
/// this often.
const FRAME: Duration = Duration::from_millis(1);

/// What a run simulates.
#[derive(Debug, Clone)]
pub struct Settings {
    pub rtt_ms: u64,
    pub jitter_ms: u64,
    pub loss: f64,
    pub seconds: u64,
    pub seed: u64,
    pub tick_hz: u32,
    pub prediction: bool,
    pub lag_compensation: bool,
    pub redundancy: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rtt_ms: 100,
            jitter_ms: 10,
            loss: 0.05,
            seconds: 30,
            seed: 1,
            tick_hz: 60,
            prediction: true,
            lag_compensation: true,
            redundancy: true,
        }
    }
}

/// The measures, as issue 39 names them.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub input_to_view_ticks_p50: f64,
    pub input_to_view_ticks_p99: f64,
    pub corrections_per_minute: f64,
    pub correction_p99: f64,
    pub remote_error_p50: f64,
    pub remote_error_p99: f64,
    pub late_inputs: f64,
    pub lost_inputs: f64,
    pub shots: u64,
    pub hits_seen: u64,
    pub hits_agreed: f64,
}

/// The samples a run gathers, turned into a [`Report`] at its end.
#[derive(Debug, Default)]
struct Samples {
    input_to_view: Vec<f64>,
    remote_error: Vec<f64>,
    shots: u64,
    /// Shots that hit on the shooter's screen: (shooter, tick, target).
    seen: Vec<(usize, Tick, usize)>,
}

/// The nearest-rank percentile (0 for no samples).
fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

struct Server {
    rules: Rules,
    slots: HashMap<ConnectionId, usize>,
    conns: Vec<ConnectionId>,
    players: Vec<Player>,
    buffers: Vec<InputBuffer<ShooterInput>>,
    last_input: Vec<ShooterInput>,
    lag: LagCompensation<usize, Player>,
    /// Every tick's players, from `FIRST_TICK`: the truth remote errors are measured against.
    history: Vec<Vec<Player>>,
    /// The server's verdict on each shot: (shooter, tick) → target hit.
    verdicts: HashMap<(usize, Tick), Option<usize>>,
    next: Tick,
    next_at: Instant,
}

impl Server {
    fn start_positions(i: usize) -> Player {
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
    fn tick(&mut self, net: &mut SimNetwork, lag_compensation: bool) {
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
    fn truth(&self, i: usize, at: f64) -> Option<Player> {
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

struct Client {
    index: usize,
    slot: Option<usize>,
    sync: TickSync,
    sender: InputSender<ShooterInput>,
    rules: Rules,
    predictor: Option<Predictor<Rules>>,
    /// The newest authoritative state of the client's own player, and its tick.
    own: Option<(Tick, Player)>,
    remotes: Vec<Interpolator<Player>>,
    bot: Bot,
    /// Inputs whose effect is not yet on this client's screen.
    awaiting: VecDeque<Tick>,
    /// The sizes of the corrections made while measuring.
    corrections: Vec<f64>,
}

impl Client {
    fn interpolation_delay(&self) -> f64 {
        // One snapshot interval, one more for a lost snapshot, and the jitter the samples show.
        2.0 + self.sync.jitter_ticks()
    }

    fn receive(&mut self, now: Instant, bytes: &[u8], measuring: bool) {
        let Ok(snapshot) = hopnet_codec::from_bytes::<Snapshot>(bytes) else {
            return;
        };
        let slot = usize::from(snapshot.you);
        self.slot = Some(slot);
        self.sync.on_server_tick(now, snapshot.tick);
        if let Some(ack) = snapshot.ack {
            let acked = self.sender.on_ack(now, &ack);
            if let Some(rtt) = acked.rtt {
                self.sync.on_rtt(rtt);
            }
            self.sync.on_late_inputs(acked.late);
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
    fn tick(
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
            let config = PredictConfig {
                tolerance: 0.001,
                smoothing_ticks: 6,
                ..PredictConfig::default()
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

/// Runs the lab with `settings`; the report, or why it could not run.
pub fn run(settings: &Settings) -> Result<Report, String> {
    if settings.tick_hz == 0 || settings.tick_hz > 1000 {
        return Err("--tick-hz must be in 1..=1000".into());
    }
    if !(0.0..=1.0).contains(&settings.loss) {
        return Err("--loss must be in 0..=1".into());
    }
    let tick = Duration::from_secs(1) / settings.tick_hz;
    let link = LinkConfig {
        loss: settings.loss,
        delay: Duration::from_millis(settings.rtt_ms) / 2,
        jitter: Duration::from_millis(settings.jitter_ms),
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(settings.seed, Config::default(), link);
    let rules = Rules {
        dt: tick.as_secs_f32(),
    };
    let mut clients: Vec<Client> = (0..CLIENTS)
        .map(|i| Client {
            index: net.add_client(Config::default()),
            slot: None,
            sync: TickSync::new(TickSyncConfig::new(tick)),
            sender: InputSender::new(if settings.redundancy { REDUNDANCY } else { 1 }, 0),
            rules,
            predictor: None,
            own: None,
            remotes: (0..CLIENTS)
                .map(|_| Interpolator::new(InterpolationConfig::default()))
                .collect(),
            bot: Bot::new(settings.seed.wrapping_mul(1000).wrapping_add(i as u64)),
            awaiting: VecDeque::new(),
            corrections: Vec::new(),
        })
        .collect();
    let mut server = Server {
        rules,
        slots: HashMap::new(),
        conns: Vec::new(),
        players: Vec::new(),
        buffers: Vec::new(),
        last_input: Vec::new(),
        // A second of history: more than any view a client here renders.
        lag: LagCompensation::new(settings.tick_hz),
        history: Vec::new(),
        verdicts: HashMap::new(),
        next: FIRST_TICK,
        next_at: net.now(),
    };
    let connected = net.run_until(Duration::from_secs(60), |n| {
        while let Some(ServerEvent {
            connection, event, ..
        }) = n.server().poll_event()
        {
            if let Event::Connected = event {
                server.slots.insert(connection, server.conns.len());
                server.conns.push(connection);
            }
        }
        server.conns.len() == CLIENTS
    });
    if !connected {
        return Err("the clients did not connect within a minute of virtual time".into());
    }
    for i in 0..CLIENTS {
        server.players.push(Server::start_positions(i));
        server.buffers.push(InputBuffer::starting_at(
            InputBufferConfig::default(),
            FIRST_TICK,
        ));
        server.last_input.push(ShooterInput::default());
    }
    server.next_at = net.now();
    let measure_from = net.now() + WARMUP;
    let end = measure_from + Duration::from_secs(settings.seconds);
    let mut samples = Samples::default();
    let mut at_warmup = None;

    while net.now() < end + DRAIN {
        net.step(FRAME);
        let now = net.now();
        let measuring = now >= measure_from && now < end;
        if measuring && at_warmup.is_none() {
            at_warmup = Some(
                server
                    .buffers
                    .iter()
                    .map(|b| b.stats().clone())
                    .collect::<Vec<_>>(),
            );
        }
        // The server: inputs in, then every tick now due.
        while let Some(ServerEvent {
            connection, event, ..
        }) = net.server().poll_event()
        {
            if let Event::Message { bytes, .. } = event
                && let Some(&slot) = server.slots.get(&connection)
                && let Ok(message) = hopnet_codec::from_bytes::<InputMessage<ShooterInput>>(&bytes)
            {
                server.buffers[slot].receive(now, &message);
            }
        }
        while server.next_at <= now {
            server.tick(&mut net, settings.lag_compensation);
            server.next_at += tick;
        }
        // The clients: snapshots in, then the ticks their clocks hand out.
        for client in &mut clients {
            while let Some(event) = net.client(client.index).poll_event() {
                if let Event::Message { bytes, .. } = event {
                    client.receive(now, &bytes, measuring);
                }
            }
            if client.sync.rtt().is_none() {
                // Before the first input is acknowledged, the transport's own round trip (the
                // handshake's) starts the clock.
                if let Some(rtt) = net.client(client.index).stats().smoothed_rtt {
                    client.sync.on_rtt(rtt);
                }
            }
            for t in client.sync.update(now) {
                let samples = measuring.then_some(&mut samples);
                client.tick(t, now, settings, &mut net, &server, samples);
            }
        }
    }

    let minutes = settings.seconds as f64 / 60.0;
    let (mut late, mut lost, mut expected) = (0u64, 0u64, 0u64);
    let warm = at_warmup.unwrap_or_default();
    for (i, b) in server.buffers.iter().enumerate() {
        let (s, w) = (b.stats(), warm.get(i).cloned().unwrap_or_default());
        late += s.late - w.late;
        lost += s.lost - w.lost + b.awaited();
        expected += s.expected() - w.expected();
    }
    let share = |n: u64| {
        if expected == 0 {
            0.0
        } else {
            n as f64 / expected as f64
        }
    };
    let mut corrections: Vec<f64> = clients.iter().flat_map(|c| c.corrections.clone()).collect();
    let agreed = samples
        .seen
        .iter()
        .filter(|(shooter, t, target)| server.verdicts.get(&(*shooter, *t)) == Some(&Some(*target)))
        .count();
    if std::env::var_os("SYNC_LAB_DEBUG").is_some() {
        for (shooter, t, target) in &samples.seen {
            let v = server.verdicts.get(&(*shooter, *t));
            if v != Some(&Some(*target)) {
                eprintln!("disagree: shooter {shooter} tick {t} target {target} verdict {v:?}");
            }
        }
    }
    let hits_seen = samples.seen.len() as u64;
    Ok(Report {
        input_to_view_ticks_p50: percentile(&mut samples.input_to_view, 50.0),
        input_to_view_ticks_p99: percentile(&mut samples.input_to_view, 99.0),
        corrections_per_minute: if minutes > 0.0 {
            corrections.len() as f64 / CLIENTS as f64 / minutes
        } else {
            0.0
        },
        correction_p99: percentile(&mut corrections, 99.0),
        remote_error_p50: percentile(&mut samples.remote_error, 50.0),
        remote_error_p99: percentile(&mut samples.remote_error, 99.0),
        late_inputs: share(late),
        lost_inputs: share(lost),
        shots: samples.shots,
        hits_seen,
        hits_agreed: if hits_seen == 0 {
            0.0
        } else {
            agreed as f64 / hits_seen as f64
        },
    })
}
