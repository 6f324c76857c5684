//! Deltas over a hostile link, without a transport: the server's snapshot code sends through a
//! fake network that loses 20 % of the messages, duplicates and reorders them, delays the
//! acknowledgements, loses some and reports some messages that never arrived as acknowledged
//! (as a forged `ACK` would). Clients decode what arrives. For many seeds, every snapshot a
//! client applies equals the server's snapshot of that tick; a delta against a baseline the
//! client does not hold is reported and followed by a full snapshot after the client's
//! request.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, Event, Payload, ServerEvent, proto::Server};
use hopnet_snow_fight as wire;
use hopnet_snow_fight::Dialect;

use super::GameServer;
use super::Outgoing;
use crate::bot::Bot;
use crate::rng::Rng;
use crate::session::{ClientEvent, GameClient, ServerConfig};
use crate::snapshot::to_snapshot;
use crate::world::Config;

const TICK_RATE: u32 = 60;

/// What the link does to a message, per message.
#[derive(Clone, Copy)]
struct Link {
    loss: f64,
    duplicate: f64,
    /// Ticks a message may take (0 to this), so messages overtake each other.
    max_delay: u32,
    /// A message lost on the way is acknowledged anyway.
    false_ack: f64,
}

/// One message in flight to a client: when it arrives, and the tracked id to acknowledge.
struct InFlight {
    at: u32,
    to: usize,
    bytes: Payload,
    track: Option<u64>,
}

/// The network between the server and its clients, driven by the test's ticks.
struct Net {
    rng: Rng,
    link: Link,
    now: u32,
    next_id: u64,
    to_clients: Vec<InFlight>,
    /// (tick, client, id, acknowledged or lost) for the server.
    reports: Vec<(u32, usize, u64, bool)>,
}

/// True with probability `p`.
fn chance(rng: &mut Rng, p: f64) -> bool {
    f64::from(rng.unit_f32()) < p
}

impl Net {
    fn delay(&mut self) -> u32 {
        self.now + 1 + self.rng.below(self.link.max_delay + 1)
    }

    /// Sends; returns the id of a tracked message.
    fn push(&mut self, c: ConnectionId, bytes: &Payload, tracked: bool) -> Option<u64> {
        let to = c.0 as usize;
        let track = tracked.then(|| {
            self.next_id += 1;
            self.next_id
        });
        let lost = chance(&mut self.rng, self.link.loss);
        if lost {
            if let Some(id) = track {
                // Forged or spurious: reported as arrived. Otherwise reported lost later.
                let acked = chance(&mut self.rng, self.link.false_ack);
                let at = self.now + if acked { 2 } else { 30 };
                self.reports.push((at, to, id, acked));
            }
            return track;
        }
        let copies = if chance(&mut self.rng, self.link.duplicate) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let at = self.delay();
            self.to_clients.push(InFlight {
                at,
                to,
                bytes: bytes.clone(),
                track,
            });
        }
        track
    }
}

impl Outgoing for Net {
    fn send_message(&mut self, c: ConnectionId, bytes: &[u8], _: hopnet::Delivery) -> bool {
        self.push(c, &Payload::from(bytes), false);
        true
    }

    fn send(&mut self, c: ConnectionId, payload: &Payload) -> bool {
        self.push(c, payload, false);
        true
    }

    fn send_tracked(&mut self, c: ConnectionId, payload: &Payload) -> Option<u64> {
        self.push(c, payload, true)
    }
}

/// Joins a client to the server, by its messages, as connection `i`.
fn join(server: &mut GameServer, endpoint: &mut Server, i: usize, deltas: bool) {
    let connection = ConnectionId(i as u64);
    let peer: SocketAddr = format!("127.0.0.1:{}", 1000 + i).parse().unwrap();
    let mut event = |event| {
        server.handle(
            endpoint,
            ServerEvent {
                connection,
                peer,
                event,
            },
        )
    };
    event(Event::Connected);
    let mut message = |m: &wire::ClientMessage| {
        let bytes = Dialect::Spec.to_bytes(m).unwrap();
        event(Event::Message {
            bytes,
            reliable: true,
        });
    };
    message(&wire::ClientMessage::init(1u32));
    if deltas {
        message(&wire::ClientMessage::deltas(2u32));
    }
}

/// What a run saw.
#[derive(Default, Debug)]
struct Seen {
    applied: u64,
    deltas: u64,
    missing: u64,
    after_missing: u64,
}

/// Plays `ticks` ticks with three clients (two asking for deltas) over `link`.
fn run(seed: u64, link: Link, ticks: u32, snapshot_rate: Option<u32>) -> Seen {
    let mut server = GameServer::new(ServerConfig {
        seed,
        max_players: 3,
        game: Config {
            min_players: 3,
            max_ticks: u32::MAX,
            ..Config::for_tick_rate(TICK_RATE)
        },
        sample_every: 0,
        snapshot_rate,
        delta_window: 64,
        ..ServerConfig::default()
    });
    let mut endpoint = Server::new(hopnet::Config::default());
    let mut net = Net {
        rng: Rng::new(seed ^ 0x5eed),
        link,
        now: 0,
        next_id: 0,
        to_clients: Vec::new(),
        reports: Vec::new(),
    };
    let wants = [true, true, false];
    let mut clients: Vec<GameClient> = Vec::new();
    let mut bots = Vec::new();
    for (i, deltas) in wants.iter().enumerate() {
        join(&mut server, &mut endpoint, i, *deltas);
        let player = i as u32 + 1;
        let mut client = GameClient::new();
        if *deltas {
            client = client.with_deltas();
        }
        // The `Connect` the server answered (its reply went nowhere: no real connection).
        let connect = wire::ServerMessage::response(
            1u32,
            wire::ResponseKind::Connect(wire::Connect {
                player: wire::PlayerId(player),
                snapshot: to_snapshot(server.world()),
            }),
        );
        let t0 = Instant::now();
        client.handle(&hopnet_codec::to_bytes(&connect).unwrap(), t0);
        clients.push(client);
        bots.push(Bot::new(player, seed * 10 + i as u64));
    }
    // The server's snapshot of every tick it sent one.
    let mut sent: BTreeMap<u32, Arc<wire::Snapshot>> = BTreeMap::new();
    let mut seen = Seen::default();
    let mut recovering = [false; 3];
    let start = Instant::now();
    for _ in 0..ticks {
        net.now += 1;
        let now = start + Duration::from_secs(1) / TICK_RATE * net.now;
        // The server's tick, its snapshots through the fake network.
        server.time = server.time.wrapping_add(1);
        server.world.step();
        let players: Vec<_> = (0..3).map(|i| (ConnectionId(i), i as u32 + 1)).collect();
        if server.snapshot_due() {
            server.send_snapshots(&mut net, &players);
            let (t, s) = server.last_snapshot.clone().expect("just sent");
            sent.insert(t, s);
        }
        // What reaches the server back.
        let (due, later): (Vec<_>, Vec<_>) =
            net.reports.drain(..).partition(|(at, ..)| *at <= net.now);
        net.reports = later;
        for (_, to, id, acked) in due {
            let c = ConnectionId(to as u64);
            if acked {
                server.acknowledged(c, id);
            } else {
                server.lost(c, id);
            }
        }
        // What reaches the clients: decoded, checked, acknowledged.
        let (due, later): (Vec<_>, Vec<_>) =
            net.to_clients.drain(..).partition(|m| m.at <= net.now);
        net.to_clients = later;
        for m in due {
            let client = &mut clients[m.to];
            let event = client.handle(&m.bytes, now);
            match event {
                Some(ClientEvent::Snapshot) => {
                    let (t, snapshot) = client.snapshot().expect("applied");
                    assert_eq!(
                        Some(snapshot),
                        sent.get(&t).map(|s| &**s),
                        "seed {seed}: client {} applied tick {t}",
                        m.to
                    );
                    seen.applied += 1;
                    if recovering[m.to] {
                        recovering[m.to] = false;
                        seen.after_missing += 1;
                    }
                }
                Some(ClientEvent::BaselineMissing(_)) => {
                    seen.missing += 1;
                    recovering[m.to] = true;
                }
                _ => {}
            }
            if let Some(id) = m.track {
                // The client's transport acknowledges what arrives, decodable or not; the
                // acknowledgement may be lost (then the sender reports the message lost).
                let acked = !chance(&mut net.rng, net.link.loss);
                let at = net.now + if acked { 1 + net.rng.below(3) } else { 30 };
                net.reports.push((at, m.to, id, acked));
            }
        }
        // The clients' requests and actions, reliably (they reach the server next tick).
        for (i, client) in clients.iter_mut().enumerate() {
            if let Some(request) = client.pending_request(now) {
                let bytes = Dialect::Spec.to_bytes(&request).unwrap();
                server.handle(
                    &mut endpoint,
                    ServerEvent {
                        connection: ConnectionId(i as u64),
                        peer: "127.0.0.1:9".parse().unwrap(),
                        event: Event::Message {
                            bytes,
                            reliable: true,
                        },
                    },
                );
            }
            for input in bots[i].think(client.entities(), server.world.config()) {
                let _ = server.world.apply(i as u32 + 1, input);
            }
        }
        // Forget what no delta can name any more.
        let oldest = server.time.saturating_sub(200);
        sent.retain(|t, _| *t >= oldest);
    }
    seen.deltas = clients.iter().map(|c| c.stats().deltas).sum();
    let spec = clients[2].stats();
    assert_eq!(spec.deltas, 0, "the spec client gets full snapshots only");
    assert!(spec.snapshots > 0);
    seen
}

const HOSTILE: Link = Link {
    loss: 0.2,
    duplicate: 0.1,
    max_delay: 4,
    false_ack: 0.05,
};

#[test]
fn every_applied_snapshot_is_the_servers_over_a_hostile_link() {
    let mut total = Seen::default();
    for seed in 1..=12 {
        let seen = run(seed, HOSTILE, 600, None);
        total.applied += seen.applied;
        total.deltas += seen.deltas;
        total.missing += seen.missing;
        total.after_missing += seen.after_missing;
    }
    // The checks ran, and on deltas, and the recovery path was taken.
    assert!(total.applied > 5_000, "{total:?}");
    assert!(total.deltas > total.applied / 2, "{total:?}");
    assert!(total.missing > 0, "{total:?}");
    assert!(total.after_missing > 0, "{total:?}");
}

#[test]
fn at_a_lower_snapshot_rate_too() {
    for seed in 20..=23 {
        let seen = run(seed, HOSTILE, 600, Some(20));
        assert!(seen.deltas > 0, "{seen:?}");
    }
}

#[test]
fn without_loss_every_snapshot_after_the_first_is_a_delta() {
    let clean = Link {
        loss: 0.0,
        duplicate: 0.0,
        max_delay: 0,
        false_ack: 0.0,
    };
    let seen = run(5, clean, 300, None);
    assert_eq!(seen.missing, 0);
    // Two delta clients, 300 ticks each: full snapshots for the few ticks before the first
    // acknowledgement comes back (a tick out, up to four back), deltas after.
    assert!(seen.deltas >= 2 * 290, "{seen:?}");
}
