//! A player predicted with the sync plugins: one server app and one client app in hopnet's
//! simulator, a player walking by the client's inputs, shown at once on the client and
//! corrected by the server's state when an input went missing.
//!
//! ```sh
//! cargo run -p hopnet-bevy --example bevy_predict -- --rtt-ms 100 --loss 0.1 --seconds 20
//! ```
//!
//! With `--udp` the same two apps talk over loopback UDP through `hopnet::relay`, which loses
//! and delays datagrams each way (half the round trip, 5 ms of jitter), in real time: what a
//! game sees on a bad link, not a seeded replay of it.
//!
//! The client turns its player every second by a fixed script. Prints, at its end, the
//! corrections (how many, how many a minute, their sizes), what became of the inputs on the
//! server, and how far the prediction was from the server's state for the same tick; exits 0.
//! The corrections of the first second are counted apart: inputs made while the clock takes
//! its lead may reach the server after their tick.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use clap::Parser;
use hopnet::Impairment;
use hopnet::relay::Relay;
use hopnet::sim::LinkConfig;
use hopnet_bevy::prelude::*;
use hopnet_bevy::sim::SimNet;
use hopnet_bevy::sync::{
    Corrected, LocalInput, SyncClient, SyncClientPlugin, SyncServer, SyncServerPlugin,
    SyncSettings, SyncStep,
};
use hopnet_codec::Rabbit;
use hopnet_sync::predict::Simulation;

#[derive(Parser, Debug)]
#[command(about = "A player predicted with hopnet-bevy's sync plugins, in the simulator")]
struct Args {
    /// Round trip of the simulated link, in milliseconds.
    #[arg(long, default_value_t = 100)]
    rtt_ms: u64,
    /// Share of datagrams lost each way.
    #[arg(long, default_value_t = 0.1)]
    loss: f64,
    /// Seconds of virtual time to play.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Seed of the simulated network (or of the relay's losses).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Over loopback UDP through a lossy relay, in real time, instead of the simulator.
    #[arg(long)]
    udp: bool,
}

/// The two apps' transports, and the relay between them when they use real sockets.
struct Transports {
    server: NetServer,
    client: NetClient,
    _relay: Option<Relay>,
}

/// The simulator's link, or loopback sockets through a relay that impairs them the same way.
fn transports(args: &Args) -> std::io::Result<Transports> {
    let half_rtt = Duration::from_millis(args.rtt_ms / 2);
    let jitter = Duration::from_millis(5);
    if !args.udp {
        let link = LinkConfig {
            loss: args.loss,
            delay: half_rtt,
            jitter,
            ..LinkConfig::default()
        };
        let net = SimNet::new(args.seed, hopnet::Config::default(), link);
        return Ok(Transports {
            server: NetServer::new(net.server()),
            client: NetClient::new(net.client(hopnet::Config::default())),
            _relay: None,
        });
    }
    let server = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default())
        .map_err(std::io::Error::other)?;
    let impairment = Impairment {
        loss: args.loss,
        delay: half_rtt,
        jitter,
        seed: args.seed,
    };
    let address = server.local_addr().map_err(std::io::Error::other)?;
    let relay = Relay::spawn("127.0.0.1:0", address, impairment)?;
    let client = hopnet::Client::connect(relay.local_addr(), hopnet::Config::default())
        .map_err(std::io::Error::other)?;
    Ok(Transports {
        server: NetServer::new(server),
        client: NetClient::new(client),
        _relay: Some(relay),
    })
}

/// The player: where it stands.
#[derive(Rabbit, Debug, Clone, Copy, Default, PartialEq)]
struct Player {
    x: f32,
    y: f32,
}

/// Which way the player walks: each axis -1, 0 or 1.
#[derive(Rabbit, Debug, Clone, Copy, Default, PartialEq)]
struct Walk {
    dx: i8,
    dy: i8,
}

/// Units walked a tick.
const SPEED: f32 = 0.1;

/// The game's rules, the same on both sides.
#[derive(Clone)]
struct Rules;

impl Simulation for Rules {
    type State = Player;
    type Input = Walk;

    fn step(&self, _tick: u32, p: &mut Player, walk: &Walk) {
        // Clamped: the server trusts a direction, never a speed.
        p.x += SPEED * f32::from(walk.dx.clamp(-1, 1));
        p.y += SPEED * f32::from(walk.dy.clamp(-1, 1));
    }

    fn distance(&self, a: &Player, b: &Player) -> f32 {
        (a.x - b.x).hypot(a.y - b.y)
    }

    fn blend(&self, from: &Player, to: &Player, t: f32) -> Player {
        Player {
            x: from.x + (to.x - from.x) * t,
            y: from.y + (to.y - from.y) * t,
        }
    }
}

const FRAME: Duration = Duration::from_millis(16);

/// The script: a new direction every second, round a square.
fn steer(time: Res<Time>, mut input: ResMut<LocalInput<Walk>>) {
    const TURNS: [Walk; 4] = [
        Walk { dx: 1, dy: 0 },
        Walk { dx: 0, dy: 1 },
        Walk { dx: -1, dy: 0 },
        Walk { dx: 0, dy: -1 },
    ];
    let second = time.elapsed().as_secs() as usize;
    input.0 = TURNS[second % TURNS.len()];
}

/// The corrections, as the client saw them.
#[derive(Resource, Default)]
struct Corrections(Vec<Corrected>);

fn count(mut corrected: MessageReader<Corrected>, mut seen: ResMut<Corrections>) {
    seen.0.extend(corrected.read().copied());
}

/// The prediction of each tick, to compare with the server's state for it at the end.
#[derive(Resource, Default)]
struct Predicted(std::collections::BTreeMap<u32, Player>);

fn remember(sync: Res<SyncClient<Rules>>, mut predicted: ResMut<Predicted>) {
    if let Some((tick, state)) = sync.predicted() {
        predicted.0.insert(tick, *state);
    }
}

fn main() -> AppExit {
    let args = Args::parse();
    let transports = match transports(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bevy_predict: cannot open the sockets or the relay: {e}");
            return AppExit::error();
        }
    };
    let settings = SyncSettings::default();
    let app = || {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
        app
    };

    let mut server = app();
    server
        .add_plugins(HopnetServerPlugin)
        .add_plugins(SyncServerPlugin::new(Rules, settings.clone()))
        .insert_resource(transports.server);

    let mut client = app();
    client
        .add_plugins(HopnetClientPlugin)
        .add_plugins(SyncClientPlugin::new(Rules, settings))
        .insert_resource(transports.client)
        .init_resource::<Corrections>()
        .init_resource::<Predicted>()
        .add_systems(Update, steer.before(SyncStep))
        .add_systems(Update, (count, remember).after(SyncStep));

    let frames = args.seconds * 1000 / FRAME.as_millis() as u64;
    let start = std::time::Instant::now();
    for frame in 1..=frames {
        server.update();
        client.update();
        if args.udp {
            // Real sockets, real time: each frame waits for its moment on the clock.
            let due = start + FRAME * frame as u32;
            std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
        }
    }

    let corrections = client.world().resource::<Corrections>().0.clone();
    let mut sizes: Vec<f32> = corrections.iter().map(|c| c.size).collect();
    sizes.sort_by(f32::total_cmp);
    let sync = client.world().resource::<SyncClient<Rules>>();
    let stats = sync.stats();
    let Some((server_tick, on_server)) = sync.server_state() else {
        eprintln!("bevy_predict: the client never heard the server's state");
        return AppExit::error();
    };
    let predicted = client.world().resource::<Predicted>();
    let gap = predicted
        .0
        .get(&server_tick)
        .map(|p| Rules.distance(p, on_server));
    // The first second of prediction, while the clock takes its lead: inputs made then may
    // reach the server after their tick.
    let first = predicted.0.keys().next().copied().unwrap_or_default();
    let warm_up = corrections.iter().filter(|c| c.tick < first + 60).count();
    let sync_server = server.world().resource::<SyncServer<Rules>>();
    let inputs = sync_server
        .clients()
        .next()
        .and_then(|c| Some((sync_server.input_stats(c)?.clone(), sync_server.awaited(c)?)));

    let p99 = sizes
        .get((sizes.len() * 99 / 100).min(sizes.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    let mean = sizes.iter().sum::<f32>() / sizes.len().max(1) as f32;
    println!(
        "bevy_predict: {} s at {} ms round trip, {} % loss each way, {}",
        args.seconds,
        args.rtt_ms,
        args.loss * 100.0,
        if args.udp {
            "loopback UDP through a lossy relay"
        } else {
            "in the simulator"
        }
    );
    println!(
        "  client: {} ticks predicted, {} ahead of the newest server state it holds, round trip {:?}",
        stats.predicted,
        sync.clock().tick().saturating_sub(server_tick),
        sync.clock().rtt().unwrap_or_default()
    );
    if let Some((inputs, awaited)) = inputs {
        println!(
            "  server: inputs on time {}, late {}, lost {} ({:.2} % late, {:.2} % lost)",
            inputs.on_time,
            inputs.late,
            inputs.lost + awaited,
            100.0 * inputs.late_share(),
            100.0 * inputs.lost_share(awaited)
        );
    }
    println!(
        "  corrections: {} ({:.1} a minute; {warm_up} in the first second), size mean {mean:.3}, p99 {p99:.3}, largest {:.3} (units; a tick walks {SPEED})",
        sizes.len(),
        sizes.len() as f64 * 60.0 / args.seconds as f64,
        stats.largest
    );
    match gap {
        Some(gap) => println!(
            "  the prediction of tick {server_tick} against the server's state for it: {gap:.3} apart"
        ),
        None => println!("  tick {server_tick} was not predicted (no input made for it)"),
    }
    AppExit::Success
}
