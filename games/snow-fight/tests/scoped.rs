//! Scoped updates over `hopnet` itself: bots that ask for them play rounds to their
//! `GameOver`, beside a spec client that gets the whole world in every snapshot; a scoped
//! client never holds an entity farther from its player than the server's view radius (and
//! what moves in a tick); a byte cap per client holds; the same over loopback UDP; and on a
//! server of many matches, where a player placed in its next match asks again there.

mod play;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use hopnet::Event;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet_snow_fight as wire;
use snow_fight::Config;
use snow_fight::host::{MatchHost, MatchesConfig};
use snow_fight::net::{UdpServer, play_bot};
use snow_fight::session::{
    BotPlayer, ClientEvent, GameServer, RoundResult, ScopeConfig, ServerConfig,
};

use crate::play::{BotGame, TICK_RATE, server_config, short_game, tick};

/// A short round: 8 seconds at most.
fn game() -> Config {
    Config {
        max_ticks: 8 * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

fn server(seed: u64, players: usize, scope: ScopeConfig) -> GameServer {
    GameServer::new(ServerConfig {
        scope,
        ..server_config(seed, players, game())
    })
}

/// Where a snapshot's player of `owner` stands.
fn player_at(snapshot: &wire::Snapshot, owner: u32) -> Option<[f32; 2]> {
    snapshot.iter().find_map(|e| match &e.kind {
        wire::EntityKind::Player(p) if p.owner.0 == owner => Some([p.position.x, p.position.y]),
        _ => None,
    })
}

fn place(e: &wire::Entity) -> Option<[f32; 2]> {
    match &e.kind {
        wire::EntityKind::Player(p) => Some([p.position.x, p.position.y]),
        wire::EntityKind::Object(o) => Some([o.position.x, o.position.y]),
        wire::EntityKind::Dead => None,
    }
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// What a run saw.
#[derive(Debug, Default)]
struct Seen {
    /// Snapshots the scoped bots applied, and the farthest entity any of them held.
    scoped_applied: u64,
    farthest: f32,
    /// Fewer entities than the server's world in a scoped snapshot, at least once.
    scoped_partial: u64,
    /// Snapshots the spec client applied, each the server's whole world of its tick.
    spec_applied: u64,
    /// `GameOver`s each bot saw.
    game_overs: Vec<usize>,
    /// Bytes of snapshot events a scoped bot and the spec bot received, on average.
    scoped_bytes: u64,
    spec_bytes: u64,
}

/// Plays `ticks` ticks: `scoped` bots asking for scoped updates and one spec bot, on `link`.
fn run(seed: u64, scoped: usize, scope: ScopeConfig, link: LinkConfig, ticks: u32) -> Seen {
    let bots = (0..=scoped).map(|i| {
        let bot = BotPlayer::new(game(), seed * 10 + i as u64);
        if i < scoped { bot.with_scoped() } else { bot }
    });
    let transport = hopnet::Config::default();
    let net = SimNetwork::new(seed, transport.clone(), link);
    let mut sim = BotGame::new(
        net,
        server(seed, scoped + 1, scope.clone()),
        &transport,
        bots,
    );
    let mut seen = Seen {
        game_overs: vec![0; scoped + 1],
        ..Seen::default()
    };
    for _ in 0..ticks {
        sim.tick(|i, bot, event, sent| match event {
            ClientEvent::Snapshot => {
                let (t, held) = bot.client.snapshot().expect("applied");
                let world = sent.get(t).expect("the server sent that tick");
                if i == scoped {
                    assert_eq!(held, world, "seed {seed}: the spec client's tick {t}");
                    seen.spec_applied += 1;
                    return;
                }
                seen.scoped_applied += 1;
                if held.len() < world.len() {
                    seen.scoped_partial += 1;
                }
                let me = bot.client.player().expect("joined");
                // Where the server had our player at that tick: the view.
                let Some(view) = player_at(world, me) else {
                    return;
                };
                for e in held {
                    // What is held is the server's entity of that tick, or an older state of
                    // one that was farther behind.
                    if let Some(p) = place(e) {
                        seen.farthest = seen.farthest.max(distance(view, p));
                    }
                }
            }
            ClientEvent::GameOver(_) => seen.game_overs[i] += 1,
            _ => {}
        });
    }
    let bots = &sim.bots;
    for (i, bot) in bots[..scoped].iter().enumerate() {
        let stats = bot.client.stats();
        assert_eq!(stats.scoped_refused, 0, "seed {seed}: bot {i}: {stats:?}");
        assert_eq!(stats.deltas, 0);
    }
    assert_eq!(
        bots[scoped].client.stats().scoped_updates,
        0,
        "none unasked"
    );
    let received: u64 = bots[..scoped]
        .iter()
        .map(|b| b.client.stats().snapshot_event_bytes)
        .sum();
    seen.scoped_bytes = received / scoped.max(1) as u64;
    seen.spec_bytes = bots[scoped].client.stats().snapshot_event_bytes;
    seen
}

/// How far an entity can be from the player beyond the radius and still be held: the movement
/// of a tick, a player's and a thrown object's (the view is the player's place at the tick).
fn slack() -> f32 {
    let g = game();
    g.player_speed + g.projectile_speed
}

#[test]
fn scoped_bots_play_to_game_over_and_hold_only_what_is_near() {
    let radius = 6.0;
    for seed in 1..=3 {
        let scope = ScopeConfig {
            view_radius: Some(radius),
            client_kbps: None,
        };
        // A round of 8 s and the 3 s intermission, and into the next.
        let seen = run(seed, 3, scope, LinkConfig::default(), 12 * TICK_RATE);
        assert!(
            seen.game_overs.iter().all(|&n| n >= 1),
            "seed {seed}: {seen:?}"
        );
        // Fewer than one a tick: an update goes out only when something in scope changed.
        assert!(seen.scoped_applied > 3 * 20, "{seen:?}");
        assert!(seen.spec_applied > 8 * TICK_RATE as u64, "{seen:?}");
        assert!(
            seen.scoped_partial > 0,
            "the radius left something out: {seen:?}"
        );
        // Only what is near, only when it changed: far less than the whole world each tick.
        assert!(seen.scoped_bytes * 4 < seen.spec_bytes, "{seen:?}");
        assert!(
            seen.farthest <= radius + slack(),
            "seed {seed}: held an entity {} from its player: {seen:?}",
            seen.farthest
        );
    }
}

#[test]
fn scoped_bots_play_to_game_over_on_a_lossy_link() {
    let link = LinkConfig {
        loss: 0.1,
        duplicate: 0.05,
        reorder: 0.1,
        reorder_delay: Duration::from_millis(30),
        delay: Duration::from_millis(15),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    };
    for seed in 1..=2 {
        let scope = ScopeConfig {
            view_radius: None,
            client_kbps: Some(48),
        };
        let seen = run(seed, 2, scope, link.clone(), 12 * TICK_RATE);
        assert!(
            seen.game_overs.iter().all(|&n| n >= 1),
            "seed {seed}: {seen:?}"
        );
        assert!(seen.scoped_applied > 2 * 20, "{seen:?}");
    }
}

#[test]
fn a_cap_per_client_holds_every_second() {
    // 16 kbit/s: 2,000 bytes a second, well under what the whole world every tick costs.
    let cap = 2_000u64;
    let mut net = SimNetwork::new(5, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(
        5,
        2,
        ScopeConfig {
            view_radius: None,
            client_kbps: Some(16),
        },
    );
    let mut bots: Vec<BotPlayer> = (0..2)
        .map(|i| {
            net.add_client(hopnet::Config::default());
            BotPlayer::new(game(), 50 + i).with_scoped()
        })
        .collect();
    let mut last_bytes = 0;
    let mut applied = 0;
    for t in 1..=6 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, bot) in bots.iter_mut().enumerate() {
            while let Some(event) = net.client(i).poll_event() {
                match event {
                    Event::Connected => bot.start(net.client(i)),
                    Event::Message { bytes, .. } => {
                        if let Some(ClientEvent::Snapshot) = bot.handle(net.client(i), &bytes, now)
                        {
                            applied += 1;
                        }
                    }
                    _ => {}
                }
            }
            bot.maintain(net.client(i), now);
        }
        if t % TICK_RATE == 0 {
            let (connection, _) = server.connections()[0];
            let stats = server.scoped_stats(connection).expect("scoped").clone();
            let second = stats.wire_bytes - last_bytes;
            last_bytes = stats.wire_bytes;
            assert!(
                second <= cap,
                "second {}: {second} bytes: {stats:?}",
                t / TICK_RATE
            );
            assert!(
                stats.deferred > 0 || t < TICK_RATE,
                "the cap deferred nothing: {stats:?}"
            );
        }
    }
    assert!(applied > 20, "updates arrived: {applied}");
}

#[test]
fn scoped_bots_play_a_round_over_loopback_udp() {
    let game = short_game(2, 3);
    let config = ServerConfig {
        scope: ScopeConfig {
            view_radius: Some(8.0),
            client_kbps: Some(64),
        },
        ..server_config(4, 2, game.clone())
    };
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut server = UdpServer::bind(
        addr,
        hopnet::Config::default(),
        GameServer::new(config),
        TICK_RATE,
    )
    .unwrap();
    let address = server.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let server_thread = {
        let stop = stop.clone();
        thread::spawn(move || {
            server.run(|_| stop.load(Ordering::Relaxed)).unwrap();
            (
                server.game.outcomes().to_vec(),
                server.game.stats().scoped_updates,
            )
        })
    };
    let bots: Vec<_> = (0..2u64)
        .map(|i| {
            let game = game.clone();
            thread::spawn(move || {
                let mut player = BotPlayer::new(game, 20 + i).with_scoped();
                let mut turns = 0u32;
                play_bot(address, hopnet::Config::default(), &mut player, |p, _| {
                    turns += 1;
                    !p.results.is_empty() || turns > 20_000
                })
                .unwrap();
                (player.results, player.client.stats().scoped_updates)
            })
        })
        .collect();
    let results: Vec<(Vec<RoundResult>, u64)> =
        bots.into_iter().map(|b| b.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    let (outcomes, updates) = server_thread.join().unwrap();
    assert!(
        results.iter().all(|(r, u)| r.len() == 1 && *u > 0),
        "each scoped bot applied updates and saw its GameOver: {results:?}"
    );
    assert!(!outcomes.is_empty(), "the round ended");
    assert!(updates > 0);
}

#[test]
fn scoped_bots_ask_again_in_the_next_match_of_a_server_of_many() {
    let game = short_game(2, 2);
    let mut matches = MatchesConfig::new(
        2,
        ServerConfig {
            max_players: 2,
            game: game.clone(),
            sample_every: 0,
            intermission_secs: 1,
            scope: ScopeConfig {
                view_radius: Some(8.0),
                client_kbps: None,
            },
            ..ServerConfig::default()
        },
    );
    matches.rounds = 1;
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let driver = hopnet::Server::bind(addr, hopnet::Config::default()).unwrap();
    let mut host = MatchHost::new(driver, matches).unwrap();
    let address = host.local_addr().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(40);
    let bots: Vec<_> = (0..4u64)
        .map(|i| {
            let game = game.clone();
            thread::spawn(move || {
                let mut player = BotPlayer::new(game, 70 + i).with_scoped();
                play_bot(address, hopnet::Config::default(), &mut player, |p, _| {
                    p.results.len() >= 2 || std::time::Instant::now() > deadline
                })
                .unwrap();
                (player.results.len(), player.client.stats().clone())
            })
        })
        .collect();
    host.run(|_| bots.iter().all(|b| b.is_finished()) || std::time::Instant::now() > deadline)
        .unwrap();
    for bot in bots {
        let (rounds, stats) = bot.join().unwrap();
        assert_eq!(rounds, 2, "two matches played: {stats:?}");
        assert!(stats.scoped_updates > 0, "{stats:?}");
        // Its first request, and one in the next match, which sent full snapshots until then.
        assert!(stats.scoped_requests >= 2, "{stats:?}");
        assert_eq!(stats.scoped_refused, 0, "{stats:?}");
    }
}
