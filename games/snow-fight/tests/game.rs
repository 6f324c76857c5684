//! The whole game in-process: a `GameServer` and bots over `hopnet`'s simulated lossy network
//! with a virtual clock. Deterministic and fast.

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Delivery, Event};
use hopnet_snow_fight as wire;
use snow_fight::Input;
use snow_fight::session::{ClientEvent, GameServer};

use crate::play::{TICK_RATE, bots, events, server, tick};

fn link() -> LinkConfig {
    LinkConfig {
        loss: 0.05,
        delay: Duration::from_millis(20),
        ..LinkConfig::default()
    }
}

/// Plays until every bot saw `GameOver` (or a minute of virtual time). Returns each bot's events.
fn play(seed: u64, n: usize) -> (Vec<Vec<ClientEvent>>, GameServer) {
    let mut net = SimNetwork::new(seed, hopnet::Config::default(), link());
    let mut server = server(seed, 8);
    let mut players = bots(&mut net, n, |i| seed * 100 + i as u64);
    let mut seen: Vec<Vec<ClientEvent>> = vec![Vec::new(); n];
    for _ in 0..60 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, bot) in players.iter_mut().enumerate() {
            seen[i].extend(events(&mut net, i, bot));
            bot.maybe_ping(net.client(i), now);
        }
        if players.iter().all(|b| !b.results.is_empty()) {
            break;
        }
    }
    (seen, server)
}

#[test]
fn two_bots_play_a_round_to_game_over() {
    let (seen, server) = play(3, 2);
    for (i, events) in seen.iter().enumerate() {
        let joined = events
            .iter()
            .position(|e| matches!(e, ClientEvent::Joined(_)));
        let first_snapshot = events.iter().position(|e| *e == ClientEvent::Snapshot);
        assert!(joined.is_some(), "bot {i} saw Connect");
        assert!(
            joined < first_snapshot,
            "bot {i}: Connect before any snapshot"
        );
        let snapshots = events
            .iter()
            .filter(|e| **e == ClientEvent::Snapshot)
            .count();
        assert!(snapshots > 60, "bot {i} saw {snapshots} snapshots");
        assert!(
            events.iter().any(|e| matches!(e, ClientEvent::Pong(_))),
            "bot {i} got a Pong"
        );
    }
    let results: Vec<bool> = seen
        .iter()
        .map(|events| {
            let overs: Vec<bool> = events
                .iter()
                .filter_map(|e| match e {
                    ClientEvent::GameOver(result) => Some(result.won),
                    _ => None,
                })
                .collect();
            assert_eq!(overs.len(), 1, "one GameOver each: {overs:?}");
            overs[0]
        })
        .collect();
    assert_eq!(
        results.iter().filter(|w| **w).count(),
        1,
        "one won, one lost: {results:?}"
    );
    let outcome = server.outcomes()[0];
    eprintln!("{outcome:?}");
    assert!(outcome.winner.is_some());
    assert_eq!(server.stats().rounds, 1);
}

#[test]
fn the_game_is_deterministic() {
    let (a, sa) = play(9, 2);
    let (b, sb) = play(9, 2);
    assert_eq!(a, b);
    assert_eq!(sa.outcomes(), sb.outcomes());
}

#[test]
fn a_misbehaving_client_disturbs_no_one() {
    let mut net = SimNetwork::new(5, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(5, 8);
    let (good, mut bot) = (0, bots(&mut net, 1, |_| 1).remove(0));
    let bad = net.add_client(hopnet::Config::default());
    let mut bad_replies = Vec::new();
    let mut good_events = Vec::new();
    for t in 0..120 {
        tick(&mut net, &mut server);
        good_events.extend(events(&mut net, good, &mut bot));
        while let Some(event) = net.client(bad).poll_event() {
            if let Event::Message { bytes, .. } = event {
                bad_replies.push(hopnet_codec::from_bytes::<wire::ServerMessage>(&bytes).unwrap());
            }
        }
        if t == 10 {
            let c = net.client(bad);
            // An action before Init, garbage, then Init twice.
            let action =
                wire::ClientMessage::Action(snow_fight::snapshot::to_action(Input::Break(Some(1))));
            c.send(
                &hopnet_codec::to_bytes(&action).unwrap(),
                Delivery::Reliable,
            )
            .unwrap();
            c.send(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff], Delivery::Reliable)
                .unwrap();
            c.send(
                &hopnet_codec::to_bytes(&wire::ClientMessage::init(7u32)).unwrap(),
                Delivery::Reliable,
            )
            .unwrap();
            c.send(
                &hopnet_codec::to_bytes(&wire::ClientMessage::init(8u32)).unwrap(),
                Delivery::Reliable,
            )
            .unwrap();
        }
    }
    let errors: Vec<u32> = bad_replies
        .iter()
        .filter_map(|m| match m {
            wire::ServerMessage::Response(wire::Response {
                channel,
                kind: wire::ResponseKind::Error(_),
            }) => Some(channel.0),
            _ => None,
        })
        .collect();
    assert_eq!(errors, vec![8], "the second Init gets an Error");
    assert!(bad_replies.iter().any(|m| matches!(
        m,
        wire::ServerMessage::Response(wire::Response {
            kind: wire::ResponseKind::Connect(_),
            ..
        })
    )));
    assert_eq!(
        server.stats().refused,
        3,
        "action before Init, garbage, Init twice"
    );
    assert!(
        good_events
            .iter()
            .any(|e| matches!(e, ClientEvent::Joined(_)))
    );
    let snapshots = good_events
        .iter()
        .filter(|e| **e == ClientEvent::Snapshot)
        .count();
    assert!(
        snapshots > 100,
        "the good client kept getting snapshots: {snapshots}"
    );
    assert_eq!(server.players(), 2);
}

#[test]
fn a_full_game_refuses_init_with_an_error() {
    let mut net = SimNetwork::new(6, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(6, 1);
    let mut players = bots(&mut net, 2, |i| i as u64);
    let mut seen: Vec<Vec<ClientEvent>> = vec![Vec::new(); 2];
    for _ in 0..60 {
        tick(&mut net, &mut server);
        for (i, bot) in players.iter_mut().enumerate() {
            seen[i].extend(events(&mut net, i, bot));
        }
    }
    let joined = seen
        .iter()
        .filter(|ev| ev.iter().any(|e| matches!(e, ClientEvent::Joined(_))))
        .count();
    let refused: Vec<&ClientEvent> = seen
        .iter()
        .flatten()
        .filter(|e| matches!(e, ClientEvent::Error(_)))
        .collect();
    assert_eq!(joined, 1);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(matches!(refused[0], ClientEvent::Error(text) if text.contains("full")));
    assert_eq!(server.players(), 1);
}

/// A bot pings only once joined: before `Connect` it sends `Init` and nothing else (the
/// original implementation's server closes a connection whose first message is not `Init`).
#[test]
fn a_bot_pings_only_once_joined() {
    let mut net = SimNetwork::new(7, hopnet::Config::default(), LinkConfig::default());
    let mut server = server(7, 8);
    let (c, mut bot) = (0, bots(&mut net, 1, |_| 7).remove(0));
    bot.ping_every = Duration::from_millis(100);
    // For two seconds the game does not answer (the transport runs, its events wait).
    for t in 0..4 * TICK_RATE {
        if t < 2 * TICK_RATE {
            net.step(Duration::from_secs(1) / TICK_RATE);
        } else {
            tick(&mut net, &mut server);
        }
        events(&mut net, c, &mut bot);
        let now = net.now();
        bot.maybe_ping(net.client(c), now);
        if t == 2 * TICK_RATE - 1 {
            assert!(net.client(c).is_connected());
            assert_eq!(bot.client.stats().pings, 0, "no ping before Connect");
        }
    }
    assert!(bot.client.player().is_some());
    assert!(
        bot.client.stats().pings >= 5,
        "{}",
        bot.client.stats().pings
    );
}

#[test]
fn the_roster_counts_each_player_s_wins_and_time_since_joining() {
    let (_, server) = play(3, 2);
    let roster = server.roster();
    assert_eq!(roster.iter().map(|e| e.player).collect::<Vec<_>>(), [1, 2]);
    let winner = server.outcomes()[0].winner;
    for entry in &roster {
        let won = server
            .outcomes()
            .iter()
            .filter(|o| o.winner == Some(entry.player))
            .count() as u32;
        assert_eq!(entry.wins, won, "{entry:?}");
        assert!(entry.ticks_joined > 0 && entry.ticks_joined <= server.time());
    }
    let winner = winner.expect("this seed's round has a winner");
    assert!(roster.iter().any(|e| e.player == winner && e.wins == 1));
}
