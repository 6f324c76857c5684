//! One run: the scene on the server, C clients over hopnet's simulator, and each measure
//! taken as issue 40 defines it.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use hopnet::proto::{Client, Server};
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Event, ServerEvent};

use crate::compare::Sizes;
use crate::counted::{Counted, IP_UDP};
use crate::scene::{Body, CUBES, PLAYER, Scene};
use crate::server::Peer;
use crate::view::View;
use crate::wire::{CubeState, Update, angle_deg, distance};

/// Bits of a cube in the article's raw state: quaternion, linear velocity and position as
/// 32-bit floats, and the flag.
pub const RAW_BITS: u64 = 128 + 96 + 96 + 1;
/// Cubes whose staleness is measured: the nearest to the player cube.
const NEAR: usize = 50;
/// The harness's time step.
const FRAME: Duration = Duration::from_millis(1);
/// How long the clients may take to connect.
const CONNECT_WAIT: Duration = Duration::from_secs(30);
/// Encoded sizes of the comparison rows are taken every this many ticks.
const COMPARE_EVERY: u32 = 10;

/// The command line's values.
#[derive(Debug, Clone)]
pub struct Settings {
    pub clients: usize,
    pub seconds: u64,
    pub seed: u64,
    pub hz: u32,
    pub loss: f64,
    pub rtt_ms: u64,
    pub budget_kbps: Option<f64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            clients: 4,
            seconds: 30,
            seed: 1,
            hz: 60,
            loss: 0.0,
            rtt_ms: 50,
            budget_kbps: None,
        }
    }
}

/// The last line's measures, under the names.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub cubes: usize,
    pub raw_kbps: f64,
    pub sent_kbps_mean: f64,
    pub sent_kbps_max_second: f64,
    pub position_error_p99_m: f64,
    pub orientation_error_p99_deg: f64,
    pub near_stale_ticks_p99: f64,
    pub budget_exceeded_seconds: u64,
}

/// The server's state at one tick, kept while a client may still show that tick.
struct Truth {
    tick: u32,
    bodies: Vec<Body>,
    states: Vec<CubeState>,
    near: Vec<usize>,
}

/// What the clients showed, over every cube and tick after the first second.
#[derive(Default)]
struct Samples {
    position: Vec<f32>,
    orientation: Vec<f32>,
    stale: Vec<f32>,
}

impl Settings {
    fn check(&self) -> Result<(), String> {
        if self.clients == 0 || self.clients > 64 {
            return Err("--clients must be in 1..=64".into());
        }
        if self.seconds == 0 || self.seconds > 3600 {
            return Err("--seconds must be in 1..=3600".into());
        }
        if self.hz == 0 || self.hz > 240 {
            return Err("--hz must be in 1..=240".into());
        }
        if !(0.0..=1.0).contains(&self.loss) {
            return Err("--loss must be in 0..=1".into());
        }
        if self.rtt_ms > 10_000 {
            return Err("--rtt-ms must be at most 10000".into());
        }
        if let Some(k) = self.budget_kbps
            && !(k.is_finite() && k > 0.0)
        {
            return Err("--budget-kbps must be a positive number".into());
        }
        Ok(())
    }
}

/// Runs `settings`; the report and the comparison rows' sizes, or why it could not run.
pub fn run(settings: &Settings) -> Result<(Report, Sizes), String> {
    settings.check()?;
    let hz = settings.hz;
    let tick_len = Duration::from_secs(1) / hz;
    let link = LinkConfig {
        loss: settings.loss,
        delay: Duration::from_millis(settings.rtt_ms) / 2,
        ..LinkConfig::default()
    };
    let server = Server::with_seed(Config::default(), settings.seed ^ 0x5eed);
    let mut net: SimNetwork<Server, Counted> =
        SimNetwork::with_machines(settings.seed, server, link);
    let patient = Config::builder()
        .connect_timeout(CONNECT_WAIT)
        .build()
        .map_err(|e| e.to_string())?;
    for i in 0..settings.clients {
        let inner = Client::with_seed(
            patient.clone(),
            net.server_addr(),
            net.now(),
            settings.seed.wrapping_mul(1000).wrapping_add(i as u64),
        );
        net.add_client_machine(Counted {
            inner,
            since: None,
            per_second: Vec::new(),
        });
    }
    let mut connected = 0;
    let all = net.run_until(CONNECT_WAIT, |n| {
        while let Some(ServerEvent { event, .. }) = n.server().poll_event() {
            if let Event::Connected = event {
                connected += 1;
            }
        }
        connected == settings.clients
    });
    if !all {
        return Err("the clients did not connect within 30 s of virtual time".into());
    }

    let mut scene = Scene::new(settings.seed, hz);
    let initial: Vec<CubeState> = scene.bodies().iter().map(CubeState::quantize).collect();
    // Both ends load the scene as it starts; from then on only the wire tells the clients.
    let mut peers = Vec::new();
    let mut peer_of_addr = HashMap::new();
    let mut peer_of_conn = HashMap::new();
    for i in 0..settings.clients {
        let addr = net.client_addr(i);
        let conn = net
            .server()
            .connection_of(addr)
            .ok_or("a client connected without a connection")?;
        peer_of_addr.insert(addr, i);
        peer_of_conn.insert(conn, i);
        peers.push(Peer::new(conn, &initial));
    }
    let mut views: Vec<View> = (0..settings.clients).map(|_| View::new(&initial)).collect();
    // Bytes a tick under the budget; a tenth is kept back for what the bucket cannot foresee.
    let per_tick = settings
        .budget_kbps
        .map(|k| 0.9 * k * 1000.0 / 8.0 / hz as f64);

    let start = net.now();
    for i in 0..settings.clients {
        net.client(i).since = Some(start);
    }
    net.record_batches(true);
    let ticks = settings.seconds as u32 * hz;
    let mut history: VecDeque<Truth> = VecDeque::new();
    let mut samples = Samples::default();
    let mut sizes = Sizes::default();
    let mut problems: Vec<String> = Vec::new();
    let mut next_tick = 1u32;
    // CUBES_DEBUG: each second's bytes and most cubes awake, on standard error.
    let debug = std::env::var_os("CUBES_DEBUG").is_some();
    let mut awake_per_second: Vec<usize> = Vec::new();
    let end = start + Duration::from_secs(settings.seconds);

    while net.now() < end {
        net.step(FRAME);
        let now = net.now();
        // What the server sent each client is charged to that client's bucket.
        let server_addr = net.server_addr();
        for batch in net.take_batches() {
            if batch.from != server_addr {
                continue;
            }
            if let Some(&p) = peer_of_addr.get(&batch.transmit.destination) {
                let bytes: u64 = batch.datagrams().map(|d| d.len() as u64 + IP_UDP).sum();
                peers[p].bucket -= bytes as f64;
            }
        }
        while let Some(ServerEvent {
            connection, event, ..
        }) = net.server().poll_event()
        {
            let Some(&p) = peer_of_conn.get(&connection) else {
                continue;
            };
            match event {
                Event::Acknowledged { id } => peers[p].acknowledged(id),
                Event::Lost { id } => peers[p].lost(id),
                Event::Disconnected { reason } => {
                    problems.push(format!("client {p} disconnected: {reason:?}"));
                }
                _ => {}
            }
        }
        while start + tick_len * next_tick <= now && next_tick <= ticks {
            let tick = next_tick;
            next_tick += 1;
            scene.step();
            let bodies = scene.bodies();
            let states: Vec<CubeState> = bodies.iter().map(CubeState::quantize).collect();
            if debug {
                let awake = bodies.iter().filter(|b| b.awake).count();
                let second = ((tick - 1) / hz) as usize;
                awake_per_second.resize(awake_per_second.len().max(second + 1), 0);
                awake_per_second[second] = awake_per_second[second].max(awake);
            }
            if tick.is_multiple_of(COMPARE_EVERY) {
                let behind = tick.checked_sub(crate::compare::DELTA_BEHIND);
                let base = history.iter().find(|t| Some(t.tick) == behind);
                sizes.add(&bodies, &states, base.map(|t| t.states.as_slice()));
            }
            for peer in &mut peers {
                let Some(update) = peer.update(tick, &states, &bodies, per_tick) else {
                    continue;
                };
                let bytes = hopnet_codec::to_bytes(&update).map_err(|e| e.to_string())?;
                let conn = peer.conn;
                let id = net
                    .server()
                    .send_tracked(conn, &bytes)
                    .map_err(|e| format!("sending tick {tick}: {e}"))?;
                peer.sent(id, tick, update.cubes);
            }
            history.push_back(Truth {
                tick,
                near: nearest(&bodies),
                bodies,
                states,
            });
            while history.len() > 2 * hz as usize + 8 {
                history.pop_front();
            }
        }
        for (i, view) in views.iter_mut().enumerate() {
            while let Some(event) = net.client(i).inner.poll_event() {
                let Event::Message { bytes, .. } = event else {
                    continue;
                };
                let update: Update = match hopnet_codec::from_bytes(&bytes) {
                    Ok(u) => u,
                    Err(e) => {
                        problems.push(format!("client {i} could not decode an update: {e}"));
                        continue;
                    }
                };
                view.apply(&update);
                if update.tick >= hz
                    && let Some(truth) = history.iter().find(|t| t.tick == update.tick)
                {
                    sample(view, truth, &mut samples);
                }
            }
        }
    }
    if let Some(p) = problems.first() {
        return Err(format!("{p} ({} problems)", problems.len()));
    }

    let seconds = settings.seconds as usize;
    if debug {
        for (s, bytes) in net.client(0).per_second.iter().enumerate() {
            let awake = awake_per_second.get(s).copied().unwrap_or(0);
            eprintln!(
                "second {s}: {} kbit/s, at most {awake} cubes awake",
                bytes * 8 / 1000
            );
        }
    }
    let kbps = |bytes: u64| bytes as f64 * 8.0 / 1000.0;
    let first = &net.client(0).per_second;
    let total: u64 = first.iter().take(seconds).sum();
    let max_second = first.iter().take(seconds).copied().max().unwrap_or(0);
    let mut exceeded = 0;
    if let Some(k) = settings.budget_kbps {
        for s in 0..seconds {
            let over = (0..settings.clients).any(|i| {
                net.client(i)
                    .per_second
                    .get(s)
                    .is_some_and(|&b| kbps(b) > k)
            });
            exceeded += u64::from(over);
        }
    }
    let report = Report {
        cubes: CUBES,
        raw_kbps: (CUBES as u64 * RAW_BITS * u64::from(hz)) as f64 / 1000.0,
        sent_kbps_mean: kbps(total) / settings.seconds as f64,
        sent_kbps_max_second: kbps(max_second),
        position_error_p99_m: percentile(&mut samples.position, 99.0),
        orientation_error_p99_deg: percentile(&mut samples.orientation, 99.0),
        near_stale_ticks_p99: percentile(&mut samples.stale, 99.0),
        budget_exceeded_seconds: exceeded,
    };
    Ok((report, sizes))
}

/// The `NEAR` cubes nearest the player cube (the player itself not counted).
fn nearest(bodies: &[Body]) -> Vec<usize> {
    let player = bodies[PLAYER].position;
    let mut order: Vec<(f64, usize)> = (0..bodies.len())
        .filter(|&i| i != PLAYER)
        .map(|i| (distance(bodies[i].position, player), i))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    order.into_iter().take(NEAR).map(|(_, i)| i).collect()
}

/// What `view` shows at `truth`'s tick against the server's state then.
fn sample(view: &mut View, truth: &Truth, samples: &mut Samples) {
    view.note_fresh(truth.tick, &truth.states);
    for (shown, body) in view.states().zip(&truth.bodies) {
        samples
            .position
            .push(distance(shown.position(), body.position) as f32);
        samples
            .orientation
            .push(angle_deg(shown.rotation.rotation(), body.rotation) as f32);
    }
    for &i in &truth.near {
        samples.stale.push(view.age(i, truth.tick) as f32);
    }
}

/// The `p`-th percentile (nearest rank) of `values`; 0 for none.
fn percentile(values: &mut [f32], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0 * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1;
    let (_, v, _) = values.select_nth_unstable_by(rank, f32::total_cmp);
    f64::from(*v)
}
