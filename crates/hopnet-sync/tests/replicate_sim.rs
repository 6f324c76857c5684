//! Replication in hopnet's simulator: one server, three clients, a world of moving and resting
//! entities in two rooms, a radius of view or a grid, budgets per client, and 0, 10 and 20 % loss.
//! Every update a client receives is checked against the scope it was sent for, every second of
//! every client's wire against its budget, every entity's wait against the accumulator's bound; and
//! when the world stops, the copies converge and the wire goes quiet.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet_codec::Rabbit;
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, ConnectionId, Delivery, Event, ServerEvent};
use hopnet_sync::Tick;
use hopnet_sync::replicate::{
    ByDistance, Grid, Position, Radius, Replica, ReplicateConfig, Replicator, RoomId, Update,
    wire_len,
};

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Body {
    x: f32,
    y: f32,
    hp: u8,
}

const HZ: u32 = 50;
const TICK: Duration = Duration::from_millis(20);
const ENTITIES: u32 = 240;
const CLIENTS: usize = 3;
const RADIUS: f32 = 30.0;
/// Entities with an id divisible by this are in room 1 only; client 0 alone joins it.
const ROOM_ONE_EVERY: u32 = 5;
const ROOM_ONE: RoomId = RoomId(1);
/// The nearest and farthest an entity in scope can be: `ByDistance`'s rates between them.
const NEAR: f32 = 10.0;

/// Where entity `e` is at tick `t` (ticks counted from the run's first), and whether it moves.
fn place(e: u32, t: u32, moving: bool) -> Body {
    let (cx, cy) = ((e % 16) as f32 * 6.0, (e / 16) as f32 * 6.0);
    if !moving || !e.is_multiple_of(3) {
        return Body {
            x: cx,
            y: cy,
            hp: 100,
        };
    }
    let a = t as f32 * 0.05 + e as f32;
    Body {
        x: cx + 2.0 * a.cos(),
        y: cy + 2.0 * a.sin(),
        hp: (100 - (t / 50) % 50) as u8,
    }
}

/// Where client `c` looks from at tick `t`: walking slowly across the world, so entities
/// enter and leave its scope.
fn view(c: usize, t: u32) -> Position {
    let s = t as f32 * 0.04;
    match c {
        0 => [20.0 + 30.0 * (s * 0.3).sin().abs(), 30.0, 0.0],
        1 => [45.0 + 40.0 * (s * 0.2).cos(), 45.0, 0.0],
        _ => [60.0, 20.0 + 40.0 * (s * 0.25).sin().abs(), 0.0],
    }
}

fn in_room_one(e: u32) -> bool {
    e.is_multiple_of(ROOM_ONE_EVERY)
}

/// The grid's cell, when a run uses a grid (the viewer's cell and the eight around it).
const CELL: f32 = 20.0;

/// The scope rule, written again from the test's side: the same rooms, the same radius or
/// grid.
fn in_scope(c: usize, e: u32, body: &Body, v: Position, grid: bool) -> bool {
    let rooms = if in_room_one(e) { c == 0 } else { true };
    let near = if grid {
        let cell = |p: f32| (p / CELL).floor() as i64;
        cell(body.x).abs_diff(cell(v[0])) <= 1 && cell(body.y).abs_diff(cell(v[1])) <= 1
    } else {
        let (dx, dy) = (body.x - v[0], body.y - v[1]);
        dx * dx + dy * dy <= RADIUS * RADIUS
    };
    rooms && near
}

/// The farthest an entity in scope can be from the viewer.
fn farthest(grid: bool) -> f32 {
    if grid {
        2.0 * CELL * 2f32.sqrt()
    } else {
        RADIUS
    }
}

#[derive(Debug, Default)]
struct Report {
    updates: usize,
    /// Entities received outside the scope they were sent for.
    out_of_scope: usize,
    /// Errors a client's replica reported.
    errors: Vec<String>,
    /// Per client: the bytes of every datagram the server sent it, and when.
    wire: Vec<Vec<(Instant, usize)>>,
    /// The longest an entity in a client's scope, changed and not yet acknowledged, waited
    /// between two of its sends, in ticks.
    longest_wait: u32,
    /// Per client: whether its copies equal the server's in-scope world at the end.
    converged: Vec<bool>,
    /// Datagrams with a payload the server sent in the last second (after the world
    /// stopped): the transport's keepalives (a bare header) are not replication's.
    quiet_datagrams: usize,
    /// Updates the replicator sent in the last second.
    quiet_updates: usize,
    /// The smallest number of entities an update carried while some were deferred.
    min_full_update: usize,
    /// Entities in a client's scope at most.
    max_in_scope: usize,
    /// Despawns sent, all clients together (entities left scopes).
    despawns: u64,
    /// The largest link rate hopnet reported for any client.
    max_link_rate: u64,
    /// Datagrams the server's connections dropped for a full queue.
    dropped: u64,
}

struct Run {
    seed: u64,
    loss: f64,
    cap: u64,
    /// One-way delay of the links.
    delay: Duration,
    /// Whether the server sends a small reliable clock too (counted in the budget).
    clock: bool,
    /// Whether the spatial rule is a grid (else a radius).
    grid: bool,
    /// Seconds the world moves, then seconds it rests.
    moving: u32,
    resting: u32,
}

fn run(r: &Run) -> Report {
    let link = LinkConfig {
        loss: r.loss,
        delay: r.delay,
        jitter: Duration::from_millis(5),
        reorder: 0.02,
        ..LinkConfig::default()
    };
    // With the clock, a congestion window held at 4 chunks: what the link carries is then
    // 4 datagrams per round trip, below what the world asks for across a long one.
    let server_config = if r.clock {
        Config::builder()
            .initial_window(4)
            .min_window(4)
            .max_window(4)
            .build()
            .expect("a valid configuration")
    } else {
        Config::default()
    };
    let mut net = SimNetwork::new(r.seed, server_config, link);
    let indices: Vec<usize> = (0..CLIENTS)
        .map(|_| net.add_client(Config::default()))
        .collect();
    let addrs: Vec<SocketAddr> = indices.iter().map(|&i| net.client_addr(i)).collect();
    let mut conns: HashMap<SocketAddr, ConnectionId> = HashMap::new();
    assert!(
        net.run_until(Duration::from_secs(30), |n| {
            while let Some(ServerEvent {
                connection,
                peer,
                event,
            }) = n.server().poll_event()
            {
                if event == Event::Connected {
                    conns.insert(peer, connection);
                }
            }
            conns.len() == CLIENTS
        }),
        "clients connect"
    );
    let conn: Vec<ConnectionId> = addrs.iter().map(|a| conns[a]).collect();
    let config = ReplicateConfig::default();
    let rep = Replicator::<ConnectionId, u32, Body>::new(config.clone())
        .with_priority(ByDistance { near: NEAR });
    let mut rep = if r.grid {
        rep.with_spatial(Grid {
            cell: CELL,
            reach: 1,
        })
    } else {
        rep.with_spatial(Radius(RADIUS))
    };
    let mut replicas: Vec<Replica<u32, Body>> =
        (0..CLIENTS).map(|_| Replica::new(config.clone())).collect();
    for (c, id) in conn.iter().enumerate() {
        rep.add_client(*id, view(c, 0), Some(r.cap));
    }
    rep.client_join(&conn[0], ROOM_ONE);
    let mut report = Report {
        wire: vec![Vec::new(); CLIENTS],
        min_full_update: usize::MAX,
        ..Report::default()
    };
    // The scope each client was sent each tick for: the test's own rule over the world then.
    let mut scopes: HashMap<(usize, Tick), Vec<u32>> = HashMap::new();
    let mut worlds: HashMap<Tick, Vec<Body>> = HashMap::new();
    // (client, entity) → the tick it was last sent, while it keeps being needed.
    let mut last_sent: HashMap<(usize, u32), Tick> = HashMap::new();
    net.record_batches(true);
    let _ = net.take_batches();
    let start_tick: Tick = 1000;
    let ticks = (r.moving + r.resting) * HZ;
    let quiet_from = net.now() + Duration::from_secs(u64::from(r.moving + r.resting - 1));
    for t in 0..ticks {
        let tick = start_tick + t;
        let moving = t < r.moving * HZ;
        let world: Vec<Body> = (0..ENTITIES).map(|e| place(e, t, moving)).collect();
        for (e, body) in world.iter().enumerate() {
            let e = e as u32;
            rep.set(e, body.clone(), [body.x, body.y, 0.0]);
            if t == 0 && in_room_one(e) {
                rep.entity_leave(&e, RoomId::DEFAULT);
                rep.entity_join(e, ROOM_ONE);
            }
        }
        rep.set_tick(tick);
        let now = net.now();
        for (c, &id) in conn.iter().enumerate() {
            let v = view(c, t.min(r.moving * HZ));
            rep.set_view(&id, v);
            let stats = net.server().stats(id).expect("connected");
            report.max_link_rate = report.max_link_rate.max(stats.send_rate().unwrap_or(0));
            rep.set_link(&id, &stats);
            let scope: Vec<u32> = (0..ENTITIES)
                .filter(|&e| in_scope(c, e, &world[e as usize], v, r.grid))
                .collect();
            report.max_in_scope = report.max_in_scope.max(scope.len());
            let mut carried = Vec::new();
            let sent = rep.send(&id, now, |bytes| {
                let u: Update<u32, Body> = hopnet_codec::from_bytes(bytes).expect("decodes");
                carried.extend(u.spawns.iter().map(|s| s.entity));
                carried.extend(u.changes.iter().map(|s| s.entity));
                net.server().send_tracked(id, bytes).ok()
            });
            if sent.is_some() && now >= quiet_from {
                report.quiet_updates += 1;
            }
            if let Some(sent) = &sent
                && sent.deferred > 0
            {
                report.min_full_update = report.min_full_update.min(sent.entities);
            }
            for e in carried {
                if let Some(prev) = last_sent.insert((c, e), tick) {
                    report.longest_wait = report.longest_wait.max(tick - prev);
                }
            }
            // An entity that left the scope, or that the client has as it is, waits for nothing.
            last_sent.retain(|&(cc, e), _| cc != c || scope.contains(&e));
            scopes.insert((c, tick), scope);
        }
        // A game's reliable traffic (here a clock, five times a second): hopnet measures the
        // round trip, and so the link's rate, from reliable messages' acknowledgements.
        if r.clock && t % (HZ / 5) == 0 {
            for c in &conn {
                let clock = tick.to_le_bytes();
                if net.server().send(*c, &clock, Delivery::Reliable).is_ok() {
                    rep.charge(c, now, wire_len(clock.len(), 0));
                }
            }
        }
        worlds.insert(tick, world);
        // What the server sends now leaves now; then the tick's time passes.
        net.step(Duration::ZERO);
        count_wire(&mut net, &addrs, &mut report);
        for _ in 0..TICK.as_millis() {
            net.step(Duration::from_millis(1));
            count_wire(&mut net, &addrs, &mut report);
            while let Some(ServerEvent {
                connection, event, ..
            }) = net.server().poll_event()
            {
                match event {
                    Event::Acknowledged { id } => rep.acknowledged(&connection, id),
                    Event::Lost { id } => rep.lost(&connection, id),
                    _ => {}
                }
            }
            for (c, &i) in indices.iter().enumerate() {
                while let Some(event) = net.client(i).poll_event() {
                    let Event::Message { bytes, reliable } = event else {
                        continue;
                    };
                    if reliable && bytes.len() == 4 {
                        continue; // the clock
                    }
                    report.updates += 1;
                    let u: Update<u32, Body> = hopnet_codec::from_bytes(&bytes).expect("decodes");
                    let scope = &scopes[&(c, u.tick)];
                    report.out_of_scope += u
                        .spawns
                        .iter()
                        .map(|s| s.entity)
                        .chain(u.changes.iter().map(|s| s.entity))
                        .filter(|e| !scope.contains(e))
                        .count();
                    if let Err(e) = replicas[c].apply(&bytes) {
                        report
                            .errors
                            .push(format!("client {c} tick {}: {e}", u.tick));
                    }
                }
            }
        }
        // Entities the client has as they are now need nothing: their wait is over.
        for (c, replica) in replicas.iter().enumerate() {
            last_sent.retain(|&(cc, e), _| {
                cc != c || replica.get(&e) != Some(&worlds[&tick][e as usize])
            });
        }
        worlds.retain(|&w, _| w + 2 * HZ > tick);
        scopes.retain(|&(_, w), _| w + 2 * HZ > tick);
    }
    report.dropped = conn
        .iter()
        .filter_map(|c| net.server().stats(*c))
        .map(|s| s.datagrams_dropped)
        .sum();
    report.despawns = conn
        .iter()
        .filter_map(|c| rep.stats(c))
        .map(|s| s.despawns)
        .sum();
    let last = start_tick + ticks - 1;
    for (c, replica) in replicas.iter().enumerate() {
        let world = &worlds[&last];
        let scope = &scopes[&(c, last)];
        let same = replica.len() == scope.len()
            && scope
                .iter()
                .all(|&e| replica.get(&e) == Some(&world[e as usize]));
        report.converged.push(same);
    }
    report.quiet_datagrams = report
        .wire
        .iter()
        .flatten()
        .filter(|(at, len)| *at >= quiet_from && *len > hopnet_proto::HEADER_LEN)
        .count();
    report
}

fn count_wire(net: &mut SimNetwork, addrs: &[SocketAddr], report: &mut Report) {
    let now = net.now();
    let server = net.server_addr();
    for batch in net.take_batches() {
        if batch.from != server {
            continue;
        }
        let Some(c) = addrs.iter().position(|a| *a == batch.transmit.destination) else {
            continue;
        };
        for d in batch.datagrams() {
            report.wire[c].push((now, d.len()));
        }
    }
}

/// The most bytes any one-second window (half open, starting at any datagram) holds.
fn max_second(wire: &[(Instant, usize)]) -> usize {
    let mut best = 0;
    let mut sum = 0;
    let mut j = 0;
    for i in 0..wire.len() {
        while j < wire.len() && wire[j].0 < wire[i].0 + Duration::from_secs(1) {
            sum += wire[j].1;
            j += 1;
        }
        best = best.max(sum);
        sum -= wire[i].1;
    }
    best
}

/// The priority accumulator's bound on a wait, in ticks: in steady state an entity is sent
/// once its priority reaches the level the budget lets through, which is at most the sum of
/// all rates over the entities a tick carries, `n × r_max / k`, reached at the slowest rate:
/// `n × r_max / (k × r_min)`. Twice that, for the transients.
fn wait_bound(n: usize, k: usize, grid: bool) -> u32 {
    let r_max = 1.0f32;
    let r_min = 1.0 / (1.0 + farthest(grid) / NEAR);
    (2.0 * n as f32 * r_max / (k.max(1) as f32 * r_min)).ceil() as u32
}

fn check(r: &Run) {
    let report = run(r);
    let rule = if r.grid { "grid" } else { "radius" };
    let tag = format!("seed {} loss {} {rule}", r.seed, r.loss);
    assert!(report.updates > 100, "{tag}: {} updates", report.updates);
    assert_eq!(report.out_of_scope, 0, "{tag}");
    assert!(
        report.despawns > 10,
        "{tag}: views move, entities leave scopes"
    );
    assert!(report.errors.is_empty(), "{tag}: {:?}", report.errors);
    for (c, wire) in report.wire.iter().enumerate() {
        let most = max_second(wire);
        assert!(
            most as u64 <= r.cap,
            "{tag}: client {c} got {most} bytes in a second, over {}",
            r.cap
        );
        // The budget is used, not just respected: at least a third of it in the busiest second.
        assert!(most as u64 > r.cap / 3, "{tag}: client {c} got {most}");
    }
    let bound = wait_bound(report.max_in_scope, report.min_full_update, r.grid);
    assert!(
        report.longest_wait <= bound,
        "{tag}: an entity waited {} ticks, over the bound {bound} ({} in scope, {} a tick)",
        report.longest_wait,
        report.max_in_scope,
        report.min_full_update
    );
    assert!(
        report.converged.iter().all(|&c| c),
        "{tag}: {:?}",
        report.converged
    );
    assert_eq!(
        report.quiet_updates, 0,
        "{tag}: the world at rest still costs"
    );
    assert_eq!(
        report.quiet_datagrams, 0,
        "{tag}: the world at rest still costs"
    );
    eprintln!(
        "{tag}: {} updates, busiest seconds {:?} of {}, longest wait {} ticks (bound {bound})",
        report.updates,
        report
            .wire
            .iter()
            .map(|w| max_second(w))
            .collect::<Vec<_>>(),
        r.cap,
        report.longest_wait
    );
}

const CAP: u64 = 8_000;

/// A run under the cap: the world moves 6 s, then rests; even seeds use a grid.
fn capped(seed: u64, loss: f64, resting: u32) -> Run {
    Run {
        seed,
        loss,
        cap: CAP,
        delay: Duration::from_millis(25),
        clock: false,
        grid: seed.is_multiple_of(2),
        moving: 6,
        resting,
    }
}

#[test]
fn without_loss() {
    for seed in [1, 2] {
        check(&capped(seed, 0.0, 4));
    }
}

#[test]
fn at_ten_percent_loss() {
    for seed in [3, 4] {
        check(&capped(seed, 0.10, 4));
    }
}

#[test]
fn at_twenty_percent_loss() {
    for seed in [5, 6] {
        check(&capped(seed, 0.20, 5));
    }
}

/// Without a cap, the budget is what the link carries: a client across a long round trip
/// gets fewer bytes (the congestion window's worth per round trip), not a queue, and still
/// converges.
#[test]
fn the_budget_follows_the_link() {
    let near = run(&Run {
        seed: 7,
        loss: 0.0,
        cap: u64::MAX,
        delay: Duration::from_millis(10),
        clock: true,
        grid: false,
        moving: 4,
        resting: 2,
    });
    let far = run(&Run {
        seed: 7,
        loss: 0.0,
        cap: u64::MAX,
        delay: Duration::from_millis(120),
        clock: true,
        grid: false,
        moving: 4,
        resting: 2,
    });
    let busiest = |r: &Report| r.wire.iter().map(|w| max_second(w)).max().unwrap_or(0) as u64;
    let (near_bytes, far_bytes) = (busiest(&near), busiest(&far));
    eprintln!(
        "near: {near_bytes} bytes in its busiest second (link {}), far: {far_bytes} (link {})",
        near.max_link_rate, far.max_link_rate
    );
    assert!(
        far_bytes <= far.max_link_rate,
        "{far_bytes} over {}",
        far.max_link_rate
    );
    assert!(far_bytes < near_bytes, "{far_bytes} not under {near_bytes}");
    assert_eq!(far.dropped, 0, "no queue overflowed");
    assert!(far.errors.is_empty(), "{:?}", far.errors);
    assert!(far.converged.iter().all(|&c| c), "{:?}", far.converged);
}
