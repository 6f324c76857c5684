//! sync_lab's run: one server and four clients of the shooter in hopnet's simulator, every
//! part of hopnet-sync in its place, and each measure taken as issue 39 defines it.

mod client;
mod samples;
mod server;

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Event, ServerEvent};
use hopnet_sync::Tick;
use hopnet_sync::input::{InputBuffer, InputBufferConfig, InputMessage, InputSender};
use hopnet_sync::interpolate::{InterpolationConfig, Interpolator};
use hopnet_sync::lag_compensation::LagCompensation;
use hopnet_sync::tick_sync::{TickSync, TickSyncConfig};

use crate::shooter::{Bot, Rules, ShooterInput};
use client::Client;
use samples::{Samples, percentile};
use server::Server;

/// Clients in every run.
pub const CLIENTS: usize = 4;
/// Inputs each message carries with redundancy on.
pub const REDUNDANCY: usize = 8;
/// How long the lab waits for every client to connect.
const CONNECT_WAIT: Duration = Duration::from_secs(60);

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

/// The interpolation's bounds, in time rather than ticks: 0.2 s of dead reckoning at most,
/// 0.1 s to converge back, 2 s of snapshots.
fn interpolation(tick_hz: u32) -> InterpolationConfig {
    let defaults = InterpolationConfig::default();
    InterpolationConfig {
        capacity: defaults.capacity.max(2 * tick_hz as usize),
        max_extrapolation_ticks: defaults.max_extrapolation_ticks.max(tick_hz as f32 / 5.0),
        converge_ticks: defaults.converge_ticks.max(tick_hz as f32 / 10.0),
        ..defaults
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
    // The clients try to connect for as long as the lab waits for them (a minute), not the
    // default 10 s: at a long round trip the handshake may take longer.
    let patient = Config::builder()
        .connect_timeout(CONNECT_WAIT)
        .build()
        .expect("a valid configuration");
    let rules = Rules {
        dt: tick.as_secs_f32(),
    };
    let mut clients: Vec<Client> = (0..CLIENTS)
        .map(|i| Client {
            index: net.add_client(patient.clone()),
            slot: None,
            sync: TickSync::new(TickSyncConfig::new(tick)),
            sender: InputSender::new(if settings.redundancy { REDUNDANCY } else { 1 }, 0),
            rules,
            predictor: None,
            own: None,
            remotes: (0..CLIENTS)
                .map(|_| Interpolator::new(interpolation(settings.tick_hz)))
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
    let connected = net.run_until(CONNECT_WAIT, |n| {
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
            InputBufferConfig {
                max_ahead: (2 * settings.tick_hz).max(128),
                late_window: settings.tick_hz.max(64),
                ..InputBufferConfig::default()
            },
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
