//! A server app and two client apps on Semi-ordered UDP (the seed's transport, `protocols`
//! feature) over real loopback UDP, each end dropping 10 % of what it sends: the three modes
//! the protocol keeps arrive as they promise both ways (every reliable and semi-ordered
//! message once and intact, each semi-ordered one after every reliable message its sender
//! sent before it; unreliable ones at most once and intact), and a message registered with a
//! mode the protocol cannot keep is refused with an error naming the mode, on either side.

#![cfg(feature = "protocols")]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use hopnet::Delivery;
use hopnet::Impairment;
use hopnet_bevy::prelude::*;
use hopnet_bevy::transport::semi_ordered::{SemiOrderedClient, SemiOrderedServer};
use hopnet_bevy::{NetClient, NetServer};
use hopnet_codec::Rabbit;
use hopnet_protocols::semi_ordered_udp;

const TICK: Duration = Duration::from_millis(16);
const FRAMES: u32 = 40;

/// A reliable (unordered) message: its sender's number and some bytes.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Chat {
    n: u32,
    pad: Vec<u8>,
}

/// A semi-ordered message.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Happened {
    n: u32,
    pad: Vec<u8>,
}

/// An unreliable message.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Position {
    n: u32,
    pad: Vec<u8>,
}

/// A message whose mode the protocol cannot keep.
#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Ordered {
    n: u32,
}

/// Bytes that tell a damaged message, small enough for one package.
fn pad(n: u32, salt: u8) -> Vec<u8> {
    vec![n as u8 ^ salt; (n as usize * 7) % 200]
}

fn lossy(loss: f64, seed: u64) -> Option<Impairment> {
    Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// One arrival: (sender, mode's name, n).
type Arrival = (u64, &'static str, u32);

/// Frames written so far and what arrived, by arrival.
#[derive(Resource, Debug, Default)]
struct Log {
    ready: bool,
    written: u32,
    arrived: Vec<Arrival>,
    /// Semi-ordered messages that arrived before a reliable one sent in an earlier frame.
    overtook: Vec<Arrival>,
}

impl Log {
    fn record(&mut self, arrival: Arrival) {
        if arrival.1 == "Happened" {
            let (from, _, n) = arrival;
            for mode in ["Chat", "Happened"] {
                let had: BTreeSet<u32> = self
                    .arrived
                    .iter()
                    .filter(|a| a.0 == from && a.1 == mode)
                    .map(|a| a.2)
                    .collect();
                if (0..n).any(|m| !had.contains(&m)) {
                    self.overtook.push(arrival);
                }
            }
        }
        self.arrived.push(arrival);
    }
}

fn protocol(app: &mut App, with_ordered: bool) {
    app.add_network_message::<Chat>(Delivery::Reliable)
        .add_network_message::<Happened>(Delivery::SemiOrdered)
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
    mut happened: MessageWriter<ToClients<Happened>>,
    mut position: MessageWriter<ToClients<Position>>,
) {
    if let Some(n) = due(&mut log) {
        chat.write(ToClients::all(Chat { n, pad: pad(n, 1) }));
        happened.write(ToClients::all(Happened { n, pad: pad(n, 2) }));
        position.write(ToClients::all(Position { n, pad: pad(n, 3) }));
    }
}

fn client_writes(
    mut log: ResMut<Log>,
    mut chat: MessageWriter<ToServer<Chat>>,
    mut happened: MessageWriter<ToServer<Happened>>,
    mut position: MessageWriter<ToServer<Position>>,
) {
    if let Some(n) = due(&mut log) {
        chat.write(ToServer::new(Chat { n, pad: pad(n, 1) }));
        happened.write(ToServer::new(Happened { n, pad: pad(n, 2) }));
        position.write(ToServer::new(Position { n, pad: pad(n, 3) }));
    }
}

fn server_records(
    mut log: ResMut<Log>,
    mut chat: MessageReader<FromClient<Chat>>,
    mut happened: MessageReader<FromClient<Happened>>,
    mut position: MessageReader<FromClient<Position>>,
) {
    for m in chat.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 1), "damaged");
        log.record((m.client.0, "Chat", m.message.n));
    }
    for m in happened.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 2), "damaged");
        log.record((m.client.0, "Happened", m.message.n));
    }
    for m in position.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 3), "damaged");
        log.record((m.client.0, "Position", m.message.n));
    }
}

fn client_records(
    mut log: ResMut<Log>,
    mut chat: MessageReader<FromServer<Chat>>,
    mut happened: MessageReader<FromServer<Happened>>,
    mut position: MessageReader<FromServer<Position>>,
) {
    for m in chat.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 1), "damaged");
        log.record((0, "Chat", m.message.n));
    }
    for m in happened.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 2), "damaged");
        log.record((0, "Happened", m.message.n));
    }
    for m in position.read() {
        assert_eq!(m.message.pad, pad(m.message.n, 3), "damaged");
        log.record((0, "Position", m.message.n));
    }
}

struct Apps {
    server: App,
    clients: Vec<App>,
}

impl Apps {
    /// A Semi-ordered UDP server app and two client apps, each end dropping `loss` of what
    /// it sends.
    fn new(with_ordered: bool, loss: f64) -> Apps {
        let config = semi_ordered_udp::Config::default();
        let mut transport = SemiOrderedServer::bind("127.0.0.1:0", config).unwrap();
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
                let config = semi_ordered_udp::Config::default();
                let mut transport = SemiOrderedClient::connect(addr, config).unwrap();
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

// At 10 % loss, unreliable messages are checked for what the protocol promises of them (at
// most once, intact, one that was sent), not for a share. Without loss, all of them must
// arrive.

/// What one sender's messages did at one receiver: per mode, the numbers that arrived, each
/// at most once.
fn arrivals(got: &[Arrival], from: u64) -> BTreeMap<&'static str, Vec<u32>> {
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
fn three_modes_keep_their_promise_over_semi_ordered_udp() {
    run_and_check(0.1);
}

/// Without loss every unreliable message arrives too.
#[test]
fn without_loss_every_unreliable_message_arrives_over_semi_ordered_udp() {
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

/// Runs the apps at `loss` until every reliable and semi-ordered message arrived, and checks
/// what the protocol promises of the three modes.
fn run_and_check(loss: f64) -> Apps {
    let mut apps = Apps::new(false, loss);
    assert!(
        apps.run(Duration::from_secs(10), Apps::connected),
        "not connected"
    );
    apps.start();
    let all: Vec<u32> = (0..FRAMES).collect();
    let count = |log: &Log, mode: &str| log.arrived.iter().filter(|a| a.1 == mode).count();
    let reliable_done = |apps: &Apps| {
        let server = Apps::log(&apps.server);
        apps.clients.iter().all(|c| {
            let log = Apps::log(c);
            count(log, "Chat") == FRAMES as usize && count(log, "Happened") == FRAMES as usize
        }) && count(server, "Chat") == 2 * FRAMES as usize
            && count(server, "Happened") == 2 * FRAMES as usize
    };
    assert!(
        apps.run(Duration::from_secs(60), reliable_done),
        "reliable messages missing after a minute"
    );
    // A little longer, for a late duplicate or a last unreliable message.
    apps.run(Duration::from_millis(300), |_| false);

    for client in &apps.clients {
        let log = Apps::log(client);
        let got = arrivals(&log.arrived, 0);
        assert_eq!(got["Chat"], all);
        assert_eq!(got["Happened"], all);
        assert!(log.overtook.is_empty(), "{:?}", log.overtook);
    }
    let server = apps.server.world().resource::<NetServer>();
    let ids: Vec<u64> = server.clients().map(|c| c.0).collect();
    assert_eq!(ids.len(), 2);
    let log = Apps::log(&apps.server);
    for id in ids {
        let got = arrivals(&log.arrived, id);
        assert_eq!(got["Chat"], all, "from client {id}");
        assert_eq!(got["Happened"], all, "from client {id}");
    }
    assert!(log.overtook.is_empty(), "{:?}", log.overtook);
    for app in apps.all() {
        let errors = &app.world().resource::<common::Errors>().0;
        assert!(errors.is_empty(), "{errors:?}");
    }
    apps
}

#[test]
fn a_mode_semi_ordered_udp_cannot_keep_is_refused_by_name() {
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
            errors[0].contains("ReliableOrdered") && errors[0].contains("Semi-ordered UDP"),
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
