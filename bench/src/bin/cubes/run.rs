//! One run: the scene on the server, C clients over hopnet's simulator, and each measure
//! taken as issue 40 defines it.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use hopnet::proto::{Client, Server};
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Event, ServerEvent};

use hopnet::proto::ConnectionId;

use crate::compare::Sizes;
use crate::counted::{Counted, IP_UDP, Net};
use crate::local::Local;
use crate::replicated::Replicated;
use crate::scene::{Body, CUBES, PLAYER, Scene};
use crate::wire::{Cube, angle_deg, distance};

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
    /// Which sync sends the cubes.
    pub scheme: SchemeKind,
}

/// The two ways of sending the cubes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemeKind {
    /// hopnet-sync's replication (the default).
    Replicated,
    /// The game-side scheme on tracked messages alone (`CUBES_SYNC=local`).
    Local,
}

/// The sync of a run.
enum Scheme {
    Replicated(Box<Replicated>),
    Local(Local),
}

impl Scheme {
    fn send_tick(
        &mut self,
        tick: u32,
        now: &[Cube],
        bodies: &[Body],
        net: &mut Net,
    ) -> Result<(), String> {
        match self {
            Scheme::Replicated(r) => {
                let at = net.now();
                r.send_tick(tick, now, bodies, net, at)
            }
            Scheme::Local(l) => l.send_tick(tick, now, bodies, net),
        }
    }

    fn event(&mut self, client: usize, event: &Event) {
        match self {
            Scheme::Replicated(r) => r.event(client, event),
            Scheme::Local(l) => l.event(client, event),
        }
    }

    fn charge(&mut self, client: usize, bytes: u64, net: &Net) {
        match self {
            Scheme::Replicated(r) => r.charge(client, bytes, net.now()),
            Scheme::Local(l) => l.charge(client, bytes),
        }
    }

    fn receive(&mut self, client: usize, bytes: &[u8]) -> Result<(), String> {
        match self {
            Scheme::Replicated(r) => r.receive(client, bytes),
            Scheme::Local(l) => l.receive(client, bytes),
        }
    }

    fn shown(&self, client: usize, i: usize) -> Option<&Cube> {
        match self {
            Scheme::Replicated(r) => r.shown(client, i),
            Scheme::Local(l) => l.shown(client, i),
        }
    }
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
            scheme: SchemeKind::Replicated,
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
    states: Vec<Cube>,
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
    let mut net: Net = SimNetwork::with_machines(settings.seed, server, link);
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
    let mut conns: Vec<ConnectionId> = Vec::new();
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
        conns.push(conn);
    }
    // The clients hold nothing: every cube reaches them over the wire.
    let mut scheme = match settings.scheme {
        SchemeKind::Replicated => {
            Scheme::Replicated(Box::new(Replicated::new(&conns, settings.budget_kbps)))
        }
        SchemeKind::Local => Scheme::Local(Local::new(&conns, CUBES, settings.budget_kbps, hz)),
    };
    // Per client, the last tick at which its copy of each cube equalled the server's.
    let mut fresh_at: Vec<Vec<u32>> = vec![vec![0; CUBES]; settings.clients];

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
    // The newest tick whose update can have reached a client, `shown_lag` ticks behind the
    // server's (the link's one-way delay, rounded up to the next whole tick): what a client
    // should show at each tick, and what it is measured against.
    let one_way = Duration::from_millis(settings.rtt_ms) / 2;
    let shown_lag = (one_way.as_nanos() / tick_len.as_nanos()) as u32 + 1;
    let kept = 2 * hz as usize + 8 + shown_lag as usize;
    let mut passed: Vec<u32> = Vec::new();

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
                scheme.charge(p, bytes, &net);
            }
        }
        while let Some(ServerEvent {
            connection, event, ..
        }) = net.server().poll_event()
        {
            let Some(&p) = peer_of_conn.get(&connection) else {
                continue;
            };
            if let Event::Disconnected { reason } = &event {
                problems.push(format!("client {p} disconnected: {reason:?}"));
            }
            scheme.event(p, &event);
        }
        while start + tick_len * next_tick <= now && next_tick <= ticks {
            let tick = next_tick;
            next_tick += 1;
            scene.step();
            let bodies = scene.bodies();
            let states: Vec<Cube> = bodies.iter().map(Cube::quantize).collect();
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
            scheme.send_tick(tick, &states, &bodies, &mut net)?;
            history.push_back(Truth {
                tick,
                near: nearest(&bodies),
                bodies,
                states,
            });
            while history.len() > kept {
                history.pop_front();
            }
            passed.push(tick);
        }
        for i in 0..settings.clients {
            while let Some(event) = net.client(i).inner.poll_event() {
                let Event::Message { bytes, .. } = event else {
                    continue;
                };
                if let Err(e) = scheme.receive(i, &bytes) {
                    problems.push(format!("client {i} could not apply an update: {e}"));
                }
            }
        }
        // Every tick, whether or not an update arrived: what each client shows against the
        // server's state of the newest tick that can have reached it.
        for tick in passed.drain(..) {
            let Some(truth) = tick
                .checked_sub(shown_lag)
                .and_then(|t| history.iter().find(|h| h.tick == t))
            else {
                continue;
            };
            for (i, fresh) in fresh_at.iter_mut().enumerate() {
                let measured = (truth.tick >= hz).then_some(&mut samples);
                sample(&scheme, i, fresh, truth, measured);
            }
        }
    }
    if let Some(p) = problems.first() {
        return Err(format!("{p} ({} problems)", problems.len()));
    }

    let seconds = settings.seconds as usize;
    if debug && let Some(last) = history.back() {
        for &i in &last.near {
            let age = last.tick.saturating_sub(fresh_at[0][i]);
            if age > 60 {
                eprintln!(
                    "cube {i}: {age} ticks stale, body {:?}, shown {:?}, server {:?}",
                    last.bodies[i],
                    scheme.shown(0, i),
                    last.states[i]
                );
            }
        }
    }
    if debug {
        if let Scheme::Replicated(r) = &scheme {
            eprintln!("counted, sent, charged besides: {:?}", r.totals());
        }
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

/// What `client` shows at `truth`'s tick against the server's state then: the cubes it
/// shows as the server has them are fresh; with `samples`, the errors of every cube it shows
/// and the age of the near cubes' copies. (A cube not yet shown has no error; its age runs
/// from tick 0.)
fn sample(
    scheme: &Scheme,
    client: usize,
    fresh_at: &mut [u32],
    truth: &Truth,
    samples: Option<&mut Samples>,
) {
    for (i, fresh) in fresh_at.iter_mut().enumerate() {
        if scheme
            .shown(client, i)
            .is_some_and(|shown| same(shown, &truth.states[i]))
        {
            *fresh = truth.tick;
        }
    }
    let Some(samples) = samples else {
        return;
    };
    for (i, body) in truth.bodies.iter().enumerate() {
        if let Some(shown) = scheme.shown(client, i) {
            samples
                .position
                .push(distance(shown.position, body.position) as f32);
            samples
                .orientation
                .push(angle_deg(shown.rotation, body.rotation) as f32);
        }
    }
    for &i in &truth.near {
        samples
            .stale
            .push(truth.tick.saturating_sub(fresh_at[i]) as f32);
    }
}

/// Whether a client's copy shows the server's quantized state: the same grid points, and an
/// orientation within 0.01°. (Near a tie between two components for the largest, a decoded
/// rotation may re-encode as the other, some 0.004° away: the same state to the codec.)
fn same(shown: &Cube, server: &Cube) -> bool {
    shown.position == server.position
        && shown.awake == server.awake
        && angle_deg(shown.rotation, server.rotation) < 0.01
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
