//! A server app and two client apps on WOKE (the seed's transport, `protocols` feature) over
//! real loopback UDP, each end dropping 10 % of what it sends: the two modes WOKE keeps
//! arrive as they promise both ways (every reliable message once and intact, split when larger
//! than a packet; unreliable ones at most once and intact), and a message registered with a
//! mode WOKE cannot keep is refused with an error naming the mode, on either side.

#![cfg(feature = "protocols")]

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use hopnet::Delivery;
use hopnet::Impairment;
use hopnet_bevy::prelude::*;
use hopnet_bevy::transport::woke::{WokeClient, WokeServer};
use hopnet_bevy::{NetClient, NetServer};
use hopnet_codec::Rabbit;
use hopnet_protocols::woke;

const TICK: Duration = Duration::from_millis(16);
const FRAMES: u32 = 40;

/// A reliable message: its sender's number and bytes (now and then more than a packet).
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Chat {
    n: u32,
    pad: Vec<u8>,
}

/// An unreliable message.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Position {
    n: u32,
    pad: Vec<u8>,
}

/// A message whose mode WOKE cannot keep.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Ordered {
    n: u32,
}

fn pad(n: u32, reliable: bool) -> Vec<u8> {
    let len = if reliable && n.is_multiple_of(5) {
        3000
    } else {
        n as usize % 50
    };
    vec![n as u8; len]
}

fn lossy(loss: f64, seed: u64) -> Option<Impairment> {
    Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// Frames written so far and what arrived: (sender, mode's name, n), by arrival.
#[derive(Resource, Debug, Default)]
struct Log {
    ready: bool,
    written: u32,
    arrived: Vec<(u64, &'static str, u32)>,
}

fn protocol(app: &mut App, with_ordered: bool) {
    app.add_network_message::<Chat>(Delivery::Reliable)
        .add_network_message::<Position>(Delivery::Unreliable);
    if with_ordered {
        app.add_network_message::<Ordered>(Delivery::ReliableOrdered);
    }
    app.init_resource::<Log>();
}

fn due(log: &mut Log) -> Option<u32> {
    (log.ready && log.written < FRAMES).then(|| {
        log.written += 1;
        log.written - 1
    })
}

fn server_writes(
    mut log: ResMut<Log>,
    mut chat: MessageWriter<ToClients<Chat>>,
    mut position: MessageWriter<ToClients<Position>>,
) {
    if let Some(n) = due(&mut log) {
        chat.write(ToClients::all(Chat {
            n,
            pad: pad(n, true),
        }));
        position.write(ToClients::all(Position {
            n,
            pad: pad(n, false),
        }));
    }
}

fn client_writes(
    mut log: ResMut<Log>,
    mut chat: MessageWriter<ToServer<Chat>>,
    mut position: MessageWriter<ToServer<Position>>,
) {
    if let Some(n) = due(&mut log) {
        chat.write(ToServer::new(Chat {
            n,
            pad: pad(n, true),
        }));
        position.write(ToServer::new(Position {
            n,
            pad: pad(n, false),
        }));
    }
}

fn server_records(
    mut log: ResMut<Log>,
    mut chat: MessageReader<FromClient<Chat>>,
    mut position: MessageReader<FromClient<Position>>,
) {
    for m in chat.read() {
        assert_eq!(m.message.pad, pad(m.message.n, true), "damaged");
        log.arrived.push((m.client.0, "Chat", m.message.n));
    }
    for m in position.read() {
        assert_eq!(m.message.pad, pad(m.message.n, false), "damaged");
        log.arrived.push((m.client.0, "Position", m.message.n));
    }
}

fn client_records(
    mut log: ResMut<Log>,
    mut chat: MessageReader<FromServer<Chat>>,
    mut position: MessageReader<FromServer<Position>>,
) {
    for m in chat.read() {
        assert_eq!(m.message.pad, pad(m.message.n, true), "damaged");
        log.arrived.push((0, "Chat", m.message.n));
    }
    for m in position.read() {
        assert_eq!(m.message.pad, pad(m.message.n, false), "damaged");
        log.arrived.push((0, "Position", m.message.n));
    }
}

struct Apps {
    server: App,
    clients: Vec<App>,
}

impl Apps {
    /// A WOKE server app and two client apps, each end dropping `loss` of what it sends.
    fn new(with_ordered: bool, loss: f64) -> Apps {
        let mut transport = WokeServer::bind("127.0.0.1:0", woke::Config::default()).unwrap();
        transport.driver().set_impairment(lossy(loss, 1));
        let addr = transport.driver().local_addr().unwrap();
        let mut server = common::app(TICK);
        server
            .add_plugins(HopnetServerPlugin)
            .insert_resource(NetServer::new(transport))
            .add_systems(Update, (server_writes, server_records));
        protocol(&mut server, with_ordered);
        let clients = (0..2)
            .map(|i| {
                let mut transport = WokeClient::connect(addr, woke::Config::default()).unwrap();
                transport.driver().set_impairment(lossy(loss, 10 + i));
                let mut client = common::app(TICK);
                client
                    .add_plugins(HopnetClientPlugin)
                    .insert_resource(NetClient::new(transport))
                    .add_systems(Update, (client_writes, client_records));
                protocol(&mut client, with_ordered);
                client
            })
            .collect();
        Apps { server, clients }
    }

    fn all(&mut self) -> impl Iterator<Item = &mut App> {
        std::iter::once(&mut self.server).chain(&mut self.clients)
    }

    fn frame(&mut self) {
        for app in self.all() {
            app.update();
        }
    }

    /// Frames a few milliseconds of real time apart until `done`, for at most `limit`.
    fn run(&mut self, limit: Duration, mut done: impl FnMut(&Apps) -> bool) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            self.frame();
            if done(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    fn connected(&self) -> bool {
        self.server
            .world()
            .resource::<NetServer>()
            .clients()
            .count()
            == 2
            && self
                .clients
                .iter()
                .all(|c| c.world().resource::<NetClient>().is_connected())
    }

    fn start(&mut self) {
        for app in self.all() {
            app.world_mut().resource_mut::<Log>().ready = true;
        }
    }

    fn log(app: &App) -> &Log {
        app.world().resource::<Log>()
    }
}

// At 10 % loss, unreliable messages are checked for what WOKE promises of them (at most
// once, intact, one that was sent), not for a share: they wait behind reliable ones for room
// in WOKE's one packet a tick, so they leave in batches (about eight to a packet here), and a
// lost packet takes a whole batch; more than the 10 % can go missing. Without loss, all of
// them must arrive.

/// What one sender's messages did at one receiver: per mode, the numbers that arrived, each
/// at most once.
fn arrivals(got: &[(u64, &'static str, u32)], from: u64) -> BTreeMap<&'static str, Vec<u32>> {
    let mut by_mode: BTreeMap<&'static str, Vec<u32>> = BTreeMap::new();
    for &(sender, mode, n) in got {
        if sender == from {
            by_mode.entry(mode).or_default().push(n);
        }
    }
    for (mode, ns) in &mut by_mode {
        let len = ns.len();
        ns.sort_unstable();
        ns.dedup();
        assert_eq!(ns.len(), len, "{mode}: a message arrived twice");
        assert!(ns.iter().all(|&n| n < FRAMES), "{mode}: one never sent");
    }
    by_mode
}

#[test]
fn reliable_and_unreliable_keep_their_promise_over_woke() {
    run_and_check(0.1);
}

/// Without loss every unreliable message arrives too: what goes missing at 10 % is whole
/// lost packets, not the transport.
#[test]
fn without_loss_every_unreliable_message_arrives_over_woke() {
    let apps = run_and_check(0.0);
    let all: Vec<u32> = (0..FRAMES).collect();
    for client in &apps.clients {
        assert_eq!(arrivals(&Apps::log(client).arrived, 0)["Position"], all);
    }
    let server = apps.server.world().resource::<NetServer>();
    for id in server.clients().map(|c| c.0) {
        assert_eq!(
            arrivals(&Apps::log(&apps.server).arrived, id)["Position"],
            all
        );
    }
}

/// Runs the apps at `loss` until every reliable message arrived, and checks what WOKE
/// promises of both modes.
fn run_and_check(loss: f64) -> Apps {
    let mut apps = Apps::new(false, loss);
    assert!(
        apps.run(Duration::from_secs(10), Apps::connected),
        "not connected"
    );
    apps.start();
    let all: Vec<u32> = (0..FRAMES).collect();
    let reliable_done = |apps: &Apps| {
        let server = Apps::log(&apps.server);
        apps.clients.iter().all(|c| {
            Apps::log(c)
                .arrived
                .iter()
                .filter(|a| a.1 == "Chat")
                .count()
                == FRAMES as usize
        }) && server.arrived.iter().filter(|a| a.1 == "Chat").count() == 2 * FRAMES as usize
    };
    assert!(
        apps.run(Duration::from_secs(60), reliable_done),
        "reliable messages missing after a minute"
    );
    // Unreliable commands wait behind reliable ones for room in WOKE's one packet a tick:
    // a second for the last of them to leave.
    apps.run(Duration::from_secs(1), |_| false);

    for client in &apps.clients {
        let got = arrivals(&Apps::log(client).arrived, 0);
        assert_eq!(got["Chat"], all);
    }
    let server = apps.server.world().resource::<NetServer>();
    let ids: Vec<u64> = server.clients().map(|c| c.0).collect();
    assert_eq!(ids.len(), 2);
    for id in ids {
        let got = arrivals(&Apps::log(&apps.server).arrived, id);
        assert_eq!(got["Chat"], all, "from client {id}");
    }
    for app in apps.all() {
        let errors = &app.world().resource::<common::Errors>().0;
        assert!(errors.is_empty(), "{errors:?}");
    }
    apps
}

#[test]
fn a_mode_woke_cannot_keep_is_refused_by_name() {
    let mut apps = Apps::new(true, 0.1);
    assert!(
        apps.run(Duration::from_secs(10), Apps::connected),
        "not connected"
    );
    let client = apps.server.world().resource::<NetServer>().clients().next();
    apps.server
        .world_mut()
        .write_message(ToClients::one(client.unwrap(), Ordered { n: 1 }));
    apps.clients[0]
        .world_mut()
        .write_message(ToServer::new(Ordered { n: 2 }));
    apps.run(Duration::from_millis(500), |_| false);

    for app in [&apps.server, &apps.clients[0]] {
        let errors = &app.world().resource::<common::Errors>().0;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("ReliableOrdered") && errors[0].contains("WOKE"),
            "{errors:?}"
        );
    }
    assert!(
        apps.clients[1]
            .world()
            .resource::<common::Errors>()
            .0
            .is_empty()
    );
    // Nothing of the refused mode went out, and the connections stay open.
    assert!(apps.connected());
}
