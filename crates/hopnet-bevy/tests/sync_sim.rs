//! The sync plugins over hopnet's simulator at 0, 10 and 20 % loss: a server app and a client
//! app, stepped together; the client's player walks by its inputs, predicted at once, and
//! ends where the server has it.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use common::{Stepper, app};
use hopnet::sim::LinkConfig;
use hopnet_bevy::prelude::*;
use hopnet_bevy::sim::SimNet;
use hopnet_bevy::sync::AuthoritativeState;
use hopnet_bevy::sync::{
    Corrected, InputApplied, LocalInput, SyncClient, SyncClientPlugin, SyncServer,
    SyncServerPlugin, SyncSettings, SyncStep,
};
use hopnet_sync::input::{INPUT_DELIVERY, InputMessage};
use hopnet_sync::predict::Simulation;

const FRAME: Duration = Duration::from_millis(16);

/// A dot on a line, moved by its input each tick (at most one unit).
#[derive(Clone)]
struct Line;

impl Simulation for Line {
    type State = i32;
    type Input = i8;

    fn step(&self, _tick: u32, x: &mut i32, dx: &i8) {
        *x += i32::from((*dx).clamp(-1, 1));
    }

    fn distance(&self, a: &i32, b: &i32) -> f32 {
        (a - b).unsigned_abs() as f32
    }

    fn blend(&self, from: &i32, to: &i32, t: f32) -> i32 {
        from + ((to - from) as f32 * t).round() as i32
    }
}

/// The corrections the client was told of, after the warm-up (the first `WARM_UP` frames,
/// while the clock finds its lead).
#[derive(Resource, Default)]
struct Seen {
    frame: u32,
    corrections: Vec<Corrected>,
}

const WARM_UP: u32 = 200;

fn record(mut corrected: MessageReader<Corrected>, mut seen: ResMut<Seen>) {
    seen.frame += 1;
    let warm = seen.frame > WARM_UP;
    for c in corrected.read() {
        if warm {
            seen.corrections.push(*c);
        }
    }
}

/// Inputs the server applied as they arrived, and ticks it ran without one.
#[derive(Resource, Default)]
struct Applied {
    arrived: u64,
    missing: u64,
}

fn applied(mut inputs: MessageReader<InputApplied<i8>>, mut seen: ResMut<Applied>) {
    for i in inputs.read() {
        match i.input {
            Some(_) => seen.arrived += 1,
            None => seen.missing += 1,
        }
    }
}

fn stepper(seed: u64, loss: f64) -> Stepper {
    let link = LinkConfig {
        loss,
        delay: Duration::from_millis(50),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    };
    let net = SimNet::new(seed, hopnet::Config::default(), link);
    let mut server = app(FRAME);
    server
        .add_plugins(HopnetServerPlugin)
        .add_plugins(SyncServerPlugin::new(Line, SyncSettings::default()))
        .insert_resource(NetServer::new(net.server()))
        .init_resource::<Applied>()
        .add_systems(Update, applied.after(SyncStep));
    let mut client = app(FRAME);
    client
        .add_plugins(HopnetClientPlugin)
        .add_plugins(SyncClientPlugin::new(Line, SyncSettings::default()))
        .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
        .init_resource::<Seen>()
        .add_systems(Update, record.after(SyncStep));
    Stepper::new(server, vec![client])
}

fn set_input(stepper: &mut Stepper, dx: i8) {
    stepper.clients[0].insert_resource(LocalInput(dx));
}

fn predicted(stepper: &Stepper) -> (u32, i32) {
    let sync = stepper.clients[0].world().resource::<SyncClient<Line>>();
    let (tick, x) = sync.predicted().expect("predicting");
    (tick, *x)
}

fn run(loss: f64, seed: u64) {
    let mut s = stepper(seed, loss);
    assert!(
        s.run_until(10_000 / 16, |s| s.all_connected()),
        "seed {seed}: not connected"
    );
    // Walking right, then left, then right, for about 20 seconds.
    for (dx, frames) in [(1, 400), (-1, 300), (1, 500)] {
        set_input(&mut s, dx);
        s.frames(frames);
    }

    // An input is seen on the client's own screen in the frame it is made: no round trip.
    let (_, before) = predicted(&s);
    set_input(&mut s, -1);
    s.frame();
    let (_, after) = predicted(&s);
    assert!(after < before, "seed {seed}: {before} then {after}");

    // The clock runs ahead of the server by about half the 100 ms round trip.
    let (tick, _) = predicted(&s);
    let server_tick = s.server.world().resource::<SyncServer<Line>>().next_tick();
    let lead = i64::from(tick) - i64::from(server_tick);
    assert!(
        (2..=20).contains(&lead),
        "seed {seed} at {loss}: lead {lead}"
    );

    // Redundancy: almost every input reaches the server in time, whatever the loss.
    let client = s.client_id(0);
    let sync_server = s.server.world().resource::<SyncServer<Line>>();
    let stats = sync_server.input_stats(client).unwrap().clone();
    let awaited = sync_server.awaited(client).unwrap();
    let missed = stats.late_share() + stats.lost_share(awaited);
    assert!(stats.on_time > 1000, "seed {seed}: {stats:?}");
    assert!(
        missed <= 0.01,
        "seed {seed} at {loss}: {missed} missed, {stats:?}"
    );
    let applied = s.server.world().resource::<Applied>();
    assert_eq!(applied.arrived, stats.on_time, "seed {seed}");

    // Standing still, the prediction settles where the server has the dot.
    set_input(&mut s, 0);
    s.frames(120);
    let sync = s.clients[0].world().resource::<SyncClient<Line>>();
    let (_, x) = sync.predicted().unwrap();
    let (_, on_server) = sync.server_state().unwrap();
    assert_eq!(x, on_server, "seed {seed} at {loss}");
    assert_eq!(sync.displayed(), Some(on_server), "seed {seed} at {loss}");
    assert_eq!(
        *s.server
            .world()
            .resource::<SyncServer<Line>>()
            .state(client)
            .unwrap(),
        *on_server
    );

    // Corrections after the warm-up come only from inputs that missed their tick, and each
    // is at most the few ticks of walking those inputs held.
    let seen = s.clients[0].world().resource::<Seen>();
    if loss == 0.0 {
        assert!(seen.corrections.is_empty(), "{:?}", seen.corrections);
    }
    assert!(
        seen.corrections.iter().all(|c| c.size <= 4.0),
        "seed {seed} at {loss}: {:?}",
        seen.corrections
    );
    assert!(sync.stats().corrections as usize >= seen.corrections.len());
    s.assert_no_errors();
}

#[test]
fn a_player_predicted_without_loss_is_never_corrected_once_the_clock_has_its_lead() {
    run(0.0, 1);
}

#[test]
fn a_player_predicted_at_10_percent_loss_ends_where_the_server_has_it() {
    for seed in 1..=2 {
        run(0.1, seed);
    }
}

#[test]
fn a_player_predicted_at_20_percent_loss_ends_where_the_server_has_it() {
    for seed in 1..=2 {
        run(0.2, seed);
    }
}

/// A client that speaks the sync messages itself: every frame, a flood of messages for ticks
/// far ahead, duplicates and ticks long past.
fn hostile(
    mut states: MessageReader<FromServer<AuthoritativeState<i32>>>,
    mut send: MessageWriter<ToServer<InputMessage<i8>>>,
    mut server_tick: Local<u32>,
) {
    for state in states.read() {
        *server_tick = (*server_tick).max(state.message.tick);
    }
    for i in 0..20 {
        let newest = match i % 3 {
            0 => u32::MAX - i,
            // The same ticks again and again, a little ahead of the server.
            1 => *server_tick + 2,
            _ => 0,
        };
        send.write(ToServer::new(InputMessage {
            newest,
            inputs: vec![1; 32],
        }));
    }
}

#[test]
fn a_hostile_client_s_inputs_are_dropped_and_counted_and_move_nobody_far() {
    let net = SimNet::new(5, hopnet::Config::default(), LinkConfig::default());
    let mut server = app(FRAME);
    server
        .add_plugins(HopnetServerPlugin)
        .add_plugins(SyncServerPlugin::new(Line, SyncSettings::default()))
        .insert_resource(NetServer::new(net.server()));
    let mut client = app(FRAME);
    // The sync plugins' messages, registered by hand in their order.
    client
        .add_plugins(HopnetClientPlugin)
        .add_client_message::<InputMessage<i8>>(INPUT_DELIVERY)
        .add_server_message::<AuthoritativeState<i32>>(Delivery::Sequenced)
        .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
        .add_systems(Update, hostile.run_if(client_connected));
    let mut s = Stepper::new(server, vec![client]);
    assert!(s.run_until(10_000 / 16, |s| s.all_connected()));
    s.frames(300);
    let id = s.client_id(0);
    let sync = s.server.world().resource::<SyncServer<Line>>();
    let stats = sync.input_stats(id).unwrap();
    assert!(stats.too_far_ahead > 0, "{stats:?}");
    assert!(stats.too_old > 0, "{stats:?}");
    assert!(stats.flooded > 0, "{stats:?}");
    assert!(stats.duplicates > 0, "{stats:?}");
    // At most one input a tick moved the dot, a unit each.
    let x = *sync.state(id).unwrap();
    assert!(
        (0..=i64::from(sync.next_tick())).contains(&i64::from(x)),
        "{x}"
    );
}
