//! Component replication with scope, priority and budget, as two apps over the simulator: a
//! client holds only entities in its scope (rooms and a radius), entities entering and
//! leaving scope spawn and despawn on it, its bytes stay under its cap every second at 0 and
//! 10 % loss, a world at rest costs nothing once acknowledged, and the copies converge.

mod common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use bevy::prelude::*;
use common::{Stepper, app};
use hopnet::sim::LinkConfig;
use hopnet_bevy::client::{ClientReplication, ServerEntities};
use hopnet_bevy::prelude::*;
use hopnet_bevy::server::{ClientViews, ServerReplication};
use hopnet_bevy::sim::SimNet;
use hopnet_bevy::{InRooms, ServerEntity};
use hopnet_codec::Rabbit;
use hopnet_sync::replicate::{Radius, RoomId};

#[derive(Component, Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Body {
    x: i32,
    y: i32,
    hue: u16,
}

/// 50 frames a second.
const FRAME: Duration = Duration::from_millis(20);
const PER_SECOND: u32 = 50;
/// Client 0's cap, in bytes per second: far less than the moving world needs.
const CAP: u64 = 1_200;
const ENTITIES: i32 = 60;
/// Entity 30 (x = 300) is in this room alone.
const ROOM: RoomId = RoomId(7);

/// Whether the server's bodies move.
#[derive(Resource)]
struct Moving(bool);

#[derive(Component, Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Label(u32);

fn relabel(moving: Res<Moving>, mut labels: Query<&mut Label>) {
    if moving.0 {
        for mut l in &mut labels {
            l.0 += 3;
        }
    }
}

fn wiggle(moving: Res<Moving>, mut bodies: Query<&mut Body>) {
    if moving.0 {
        for mut b in &mut bodies {
            b.y += 1;
        }
    }
}

fn protocol(app: &mut App) {
    app.replicate::<Body>();
}

/// A client app on a new client of `net`, its replicated types registered by `register`.
fn client_app(net: &SimNet, register: impl FnOnce(&mut App)) -> App {
    let mut client = app(FRAME);
    client
        .add_plugins(HopnetClientPlugin)
        .insert_resource(NetClient::new(net.client(hopnet::Config::default())));
    register(&mut client);
    client
}

struct Run {
    stepper: Stepper,
    ids: Vec<ConnectionId>,
    /// Per client, the server's entities in its scope over the last frames, newest last.
    scopes: Vec<VecDeque<BTreeSet<u64>>>,
    /// Per client, every server entity it ever held.
    ever: Vec<BTreeSet<u64>>,
    /// Per client, the most frames a held entity had been out of its scope.
    max_lag: [usize; 2],
}

/// How many frames back a client's entity may have been in scope: a despawn's way over the
/// link, and under client 0's tight cap its wait for the budget (the budget carries one
/// largest update, 504 bytes, which at 1,200 bytes a second refills in 21 frames); a second.
const LAG: usize = 50;

impl Run {
    fn new(loss: f64, seed: u64) -> Run {
        let link = LinkConfig {
            loss,
            delay: Duration::from_millis(20),
            jitter: Duration::from_millis(5),
            ..LinkConfig::default()
        };
        let net = SimNet::new(seed, hopnet::Config::default(), link);
        let mut server = app(FRAME);
        server
            .add_plugins(HopnetServerPlugin)
            .insert_resource(NetServer::new(net.server()))
            .insert_resource(Moving(true))
            .add_systems(Update, wiggle);
        protocol(&mut server);
        server
            .world_mut()
            .resource_mut::<ServerReplication<Body>>()
            .set_spatial(Radius(100.0));
        for i in 0..ENTITIES {
            let mut e = server.world_mut().spawn((
                Replicated,
                Body {
                    x: i * 10,
                    y: 0,
                    hue: i as u16,
                },
                ScopePosition([(i * 10) as f32, 0.0, 0.0]),
            ));
            if i == 30 {
                e.insert(InRooms(vec![ROOM]));
            }
        }
        let clients = (0..2).map(|_| client_app(&net, protocol)).collect();
        let mut stepper = Stepper::new(server, clients);
        assert!(stepper.run_until(500, |s| s.all_connected()));
        let ids: Vec<_> = (0..2).map(|i| stepper.client_id(i)).collect();
        {
            let mut views = stepper.server.world_mut().resource_mut::<ClientViews>();
            // Client 0: starts at x = 0, capped, in both rooms; client 1: at x = 300, the
            // default room alone, no cap.
            views.set_view(ids[0], [0.0; 3]);
            views.set_cap(ids[0], Some(CAP));
            views.set_rooms(ids[0], vec![RoomId::DEFAULT, ROOM]);
            views.set_view(ids[1], [300.0, 0.0, 0.0]);
        }
        // What was in scope before the views were set leaves the clients.
        stepper.frames(LAG as u32);
        Run {
            stepper,
            ids,
            scopes: vec![VecDeque::new(); 2],
            ever: vec![BTreeSet::new(); 2],
            max_lag: [0; 2],
        }
    }

    fn server_entities(&mut self) -> Vec<Entity> {
        let world = self.stepper.server.world_mut();
        world
            .query_filtered::<Entity, With<Replicated>>()
            .iter(world)
            .collect()
    }

    /// The server entities client `i` holds in its world, and their bodies.
    fn held(&mut self, i: usize) -> BTreeMap<u64, Body> {
        let world = self.stepper.clients[i].world_mut();
        world
            .query::<(&ServerEntity, &Body)>()
            .iter(world)
            .map(|(s, b)| (s.0, b.clone()))
            .collect()
    }

    /// One frame, then the scope checks.
    fn frame(&mut self) {
        self.stepper.frame();
        let entities = self.server_entities();
        for i in 0..2 {
            let rep = self
                .stepper
                .server
                .world()
                .resource::<ServerReplication<Body>>();
            let scope: BTreeSet<u64> = entities
                .iter()
                .filter(|&&e| rep.in_scope(self.ids[i], e))
                .map(|e| e.to_bits())
                .collect();
            self.scopes[i].push_back(scope);
            if self.scopes[i].len() > LAG {
                self.scopes[i].pop_front();
            }
            let held = self.held(i);
            for id in held.keys() {
                let age = self.scopes[i].iter().rev().position(|s| s.contains(id));
                let Some(age) = age else {
                    panic!("client {i} holds {id}, out of its scope for {LAG} frames");
                };
                self.max_lag[i] = self.max_lag[i].max(age);
            }
            self.ever[i].extend(held.keys());
            let map = self.stepper.clients[i].world().resource::<ServerEntities>();
            assert_eq!(map.len(), held.len(), "one local entity per server entity");
        }
    }

    fn frames(&mut self, n: u32) {
        for _ in 0..n {
            self.frame();
        }
    }

    /// The server's record of what it sent client `i`, in bytes on the wire.
    fn sent_bytes(&self, i: usize) -> u64 {
        let rep = self
            .stepper
            .server
            .world()
            .resource::<ServerReplication<Body>>();
        rep.replicator()
            .stats(&self.ids[i])
            .map_or(0, |s| s.wire_bytes)
    }

    fn received_bytes(&self, i: usize) -> u64 {
        let c = self.stepper.clients[i].world();
        c.resource::<ClientReplication<Body>>().stats().wire_bytes
    }

    fn set_view(&mut self, i: usize, x: f32) {
        let id = self.ids[i];
        let mut views = self
            .stepper
            .server
            .world_mut()
            .resource_mut::<ClientViews>();
        views.set_view(id, [x, 0.0, 0.0]);
    }
}

/// The whole scenario at one loss rate: client 0 walks from x = 0 to x = 500 under its cap
/// while every body moves, then the world stops.
fn scenario(loss: f64, seed: u64) {
    let mut run = Run::new(loss, seed);
    let bits = |run: &mut Run, x: i32| {
        let all = run.server_entities();
        let world = run.stepper.server.world();
        all.into_iter()
            .find(|&e| {
                world
                    .get::<Body>(e)
                    .is_some_and(|b| b.hue == (x / 10) as u16)
            })
            .unwrap()
            .to_bits()
    };
    let (at_0, at_300, at_500) = (bits(&mut run, 0), bits(&mut run, 300), bits(&mut run, 500));

    // Two seconds at x = 0, then five walking to x = 500, then two at x = 500; every second
    // of it under the cap, as sent and as received.
    let mut seconds = Vec::new();
    let mut x = 0.0;
    for second in 0..9 {
        let (sent, received) = (run.sent_bytes(0), run.received_bytes(0));
        for _ in 0..PER_SECOND {
            if (2..7).contains(&second) {
                x += 500.0 / (5 * PER_SECOND) as f32;
                run.set_view(0, x);
            }
            run.frame();
        }
        let sent = run.sent_bytes(0) - sent;
        let received = run.received_bytes(0) - received;
        // Whole seconds of 50 frames of 20 ms each.
        assert!(sent <= CAP, "second {second}: {sent} bytes sent, cap {CAP}");
        assert!(received <= CAP, "second {second}: {received} received");
        seconds.push(sent);
        if second == 1 {
            let held = run.held(0);
            assert!(held.contains_key(&at_0), "in scope at the start");
            assert!(!held.contains_key(&at_500), "not yet");
        }
    }
    // The budget bound: the moving world needs more than the cap, so most seconds used most
    // of it, and states were left for later.
    assert!(
        seconds.iter().filter(|&&s| s > CAP / 2).count() >= 6,
        "{seconds:?}"
    );
    let stats = {
        let rep = run
            .stepper
            .server
            .world()
            .resource::<ServerReplication<Body>>();
        rep.replicator().stats(&run.ids[0]).unwrap().clone()
    };
    assert!(stats.deferred > 0, "{stats:?}");
    assert!(
        stats.despawns > 0,
        "entities left client 0's scope: {stats:?}"
    );

    // The world stops: the copies converge to the server's, in scope exactly.
    run.stepper.server.insert_resource(Moving(false));
    run.frames(3 * PER_SECOND);
    let server: BTreeMap<u64, Body> = {
        let world = run.stepper.server.world_mut();
        world
            .query_filtered::<(Entity, &Body), With<Replicated>>()
            .iter(world)
            .map(|(e, b)| (e.to_bits(), b.clone()))
            .collect()
    };
    for i in 0..2 {
        let held = run.held(i);
        let scope = run.scopes[i].back().unwrap().clone();
        assert_eq!(
            held.keys().copied().collect::<BTreeSet<_>>(),
            scope,
            "client {i}"
        );
        for (id, body) in &held {
            assert_eq!(body, &server[id], "client {i}, entity {id}");
        }
        let replica = run.stepper.clients[i]
            .world()
            .resource::<ClientReplication<Body>>();
        assert_eq!(replica.replica().len(), held.len());
    }
    let held = run.held(0);
    assert!(
        held.contains_key(&at_500) && !held.contains_key(&at_0),
        "walked"
    );
    assert!(run.ever[0].contains(&at_0) && run.ever[0].contains(&at_300));
    // Entity 30 is in a room client 1 is not in: never sent, though within its radius.
    assert!(!run.ever[1].contains(&at_300));
    assert_eq!(run.held(1).len(), 20, "x = 200 to 400 but 300");

    // At rest and acknowledged: nothing more is sent.
    let before: Vec<u64> = (0..2).map(|i| run.sent_bytes(i)).collect();
    run.frames(PER_SECOND);
    let after: Vec<u64> = (0..2).map(|i| run.sent_bytes(i)).collect();
    assert_eq!(before, after, "a world at rest costs nothing");
    // The uncapped client, standing still, holds nothing out of its scope now.
    assert_eq!(run.max_lag[1], 0);
    run.stepper.assert_no_errors();
}

#[test]
fn scope_budget_and_convergence_without_loss() {
    scenario(0.0, 1);
}

#[test]
fn scope_budget_and_convergence_at_ten_percent_loss() {
    scenario(0.1, 2);
}

#[test]
fn two_types_share_one_budget_and_one_entity_each() {
    let net = SimNet::new(3, hopnet::Config::default(), LinkConfig::default());
    let both = |app: &mut App| {
        app.replicate::<Body>().replicate::<Label>();
    };
    let mut server = app(FRAME);
    server
        .add_plugins(HopnetServerPlugin)
        .insert_resource(NetServer::new(net.server()))
        .insert_resource(hopnet_bevy::ReplicationSettings {
            cap: Some(CAP),
            ..Default::default()
        })
        .insert_resource(Moving(true))
        .add_systems(Update, (wiggle, relabel));
    both(&mut server);
    for i in 0..20 {
        server
            .world_mut()
            .spawn((Replicated, Body { x: i, y: 0, hue: 0 }, Label(i as u32)));
    }
    let mut stepper = Stepper::new(server, vec![client_app(&net, both)]);
    assert!(stepper.run_until(500, |s| s.all_connected()));
    let id = stepper.client_id(0);
    let sent = |s: &Stepper| {
        let w = s.server.world();
        let a = w
            .resource::<ServerReplication<Body>>()
            .replicator()
            .stats(&id);
        let b = w
            .resource::<ServerReplication<Label>>()
            .replicator()
            .stats(&id);
        a.map_or(0, |a| a.wire_bytes) + b.map_or(0, |b| b.wire_bytes)
    };
    let mut seconds = Vec::new();
    for _ in 0..4 {
        let before = sent(&stepper);
        stepper.frames(PER_SECOND);
        seconds.push(sent(&stepper) - before);
    }
    // Both types together under the one cap, and using it.
    assert!(seconds.iter().all(|&s| s <= CAP), "{seconds:?}");
    assert!(seconds.iter().all(|&s| s > CAP / 2), "{seconds:?}");
    // At rest, every server entity is one client entity with both components, as the
    // server's.
    stepper.server.insert_resource(Moving(false));
    stepper.frames(3 * PER_SECOND);
    let world = stepper.server.world_mut();
    let mut server: Vec<(Body, Label)> = world
        .query::<(&Body, &Label)>()
        .iter(world)
        .map(|(b, l)| (b.clone(), l.clone()))
        .collect();
    let world = stepper.clients[0].world_mut();
    let mut mirrored: Vec<(Body, Label)> = world
        .query_filtered::<(&Body, &Label), (With<Replicated>, With<ServerEntity>)>()
        .iter(world)
        .map(|(b, l)| (b.clone(), l.clone()))
        .collect();
    server.sort_by_key(|(b, _)| b.x);
    mirrored.sort_by_key(|(b, _)| b.x);
    assert_eq!(mirrored, server);
    assert_eq!(world.resource::<ServerEntities>().len(), 20);
    assert_eq!(world.query::<&ServerEntity>().iter(world).count(), 20);
    stepper.assert_no_errors();
}

/// A server that is no Bevy app sends a client app replication payloads that are wrong in
/// every way: each is refused whole and reported, nothing panics, and a good one still
/// spawns its entity.
#[test]
fn a_client_app_refuses_and_reports_bad_updates() {
    use hopnet_sync::replicate::{Change, Spawn, Update};

    let net = SimNet::new(11, hopnet::Config::default(), LinkConfig::default());
    let client = client_app(&net, protocol);
    let mut network = app(FRAME);
    let stepped = net.clone();
    network.add_systems(Update, move || stepped.with(|n| n.step(FRAME)));
    let mut stepper = Stepper::new(network, vec![client]);
    stepper.frames(50);
    let id = net.with(|n| {
        while n.server().poll_event().is_some() {}
        n.server().connections().next().expect("connected")
    });

    // Body's tag is 0: its payloads start with the tag's byte.
    let tag = hopnet_codec::to_bytes(&0u32).unwrap();
    let with_tag = |update: &[u8]| [tag.as_slice(), update].concat();
    let body = Body { x: 1, y: 2, hue: 3 };
    let update = |spawns, changes| Update::<u64, Body> {
        tick: 10,
        spawns,
        changes,
        despawns: Vec::new(),
    };
    let spawn = |entity| Spawn {
        entity,
        since_age: 0,
        state: body.clone(),
    };
    let bad = [
        // The tag alone.
        tag.clone(),
        // Random bytes after it.
        with_tag(&[0xde, 0xad, 0xbe, 0xef, 0x01]),
        // A delta of an entity never spawned.
        with_tag(
            &hopnet_codec::to_bytes(&update(
                Vec::new(),
                vec![Change {
                    entity: 9,
                    baseline_age: 1,
                    delta: vec![0],
                }],
            ))
            .unwrap(),
        ),
        // One entity spawned twice.
        with_tag(&hopnet_codec::to_bytes(&update(vec![spawn(4), spawn(4)], Vec::new())).unwrap()),
        // A spawn older than tick zero.
        with_tag(
            &hopnet_codec::to_bytes(&update(
                vec![Spawn {
                    entity: 4,
                    since_age: 11,
                    state: body.clone(),
                }],
                Vec::new(),
            ))
            .unwrap(),
        ),
    ];
    let good = with_tag(&hopnet_codec::to_bytes(&update(vec![spawn(4)], Vec::new())).unwrap());
    net.with(|n| {
        for p in bad.iter().chain([&good]) {
            n.server()
                .send(id, p, hopnet::Delivery::ReliableOrdered)
                .unwrap();
        }
    });
    stepper.frames(50);
    let client = &stepper.clients[0];
    let errors = Stepper::errors(client);
    assert_eq!(errors.len(), bad.len(), "{errors:?}");
    assert!(errors.iter().all(|e| e.contains("server")), "{errors:?}");
    let stats = client.world().resource::<ClientReplication<Body>>().stats();
    assert_eq!((stats.refused, stats.updates), (bad.len() as u64, 1));
    let world = stepper.clients[0].world_mut();
    let held: Vec<(ServerEntity, Body)> = world
        .query::<(&ServerEntity, &Body)>()
        .iter(world)
        .map(|(s, b)| (*s, b.clone()))
        .collect();
    assert_eq!(held, [(ServerEntity(4), body)]);
    assert!(world.resource::<NetClient>().is_connected());
}

/// Under a tight cap, the game's priority decides who is fresh: with the default (by
/// distance) the farthest body's copy is older than the nearest's; with a rate that favours
/// the farthest, it is the freshest.
#[test]
fn the_games_priority_orders_the_updates() {
    let ages = |favour_far: bool| {
        let net = SimNet::new(4, hopnet::Config::default(), LinkConfig::default());
        let mut server = app(FRAME);
        server
            .add_plugins(HopnetServerPlugin)
            .insert_resource(NetServer::new(net.server()))
            .insert_resource(hopnet_bevy::ReplicationSettings {
                cap: Some(600),
                ..Default::default()
            })
            .insert_resource(Moving(true))
            .add_systems(Update, wiggle);
        protocol(&mut server);
        if favour_far {
            server
                .world_mut()
                .resource_mut::<ServerReplication<Body>>()
                .set_priority(
                    |_: &ConnectionId, c: &hopnet_sync::replicate::Candidate<'_, u64, Body>| {
                        if c.state.hue == 10 { 100.0 } else { 1.0 }
                    },
                );
        }
        let ids: Vec<u64> = (0..=10)
            .map(|i| {
                let body = Body {
                    x: i * 10,
                    y: 0,
                    hue: i as u16,
                };
                let at = ScopePosition([(i * 10) as f32, 0.0, 0.0]);
                server
                    .world_mut()
                    .spawn((Replicated, body, at))
                    .id()
                    .to_bits()
            })
            .collect();
        let mut stepper = Stepper::new(server, vec![client_app(&net, protocol)]);
        stepper.frames(3 * PER_SECOND);
        let rep = stepper.clients[0]
            .world()
            .resource::<ClientReplication<Body>>();
        let tick = |id: &u64| rep.replica().tick_of(id).expect("arrived");
        (tick(&ids[0]), tick(&ids[10]))
    };
    let (near, far) = ages(false);
    assert!(far < near, "by distance: near {near}, far {far}");
    let (near, far) = ages(true);
    assert!(far > near, "favouring the far one: near {near}, far {far}");
}
