//! The client's view over `hopnet`'s simulated network: its own player predicted (the view
//! moves the tick a key is pressed, a round trip before the snapshots show it), the
//! corrections counted when loss delays the moves.

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use snow_fight::session::{ClientView, GameClient, ViewStats};
use snow_fight::{Config, Dir, Input};

use crate::play::{TICK_RATE, bots, events, server, tick};

fn link(loss: f64) -> LinkConfig {
    LinkConfig {
        loss,
        delay: Duration::from_millis(50),
        ..LinkConfig::default()
    }
}

#[test]
fn the_local_player_moves_in_the_view_the_tick_the_key_is_pressed() {
    let mut net = SimNetwork::new(5, hopnet::Config::default(), link(0.0));
    let mut server = server(5, 8);
    net.add_client(hopnet::Config::default());
    let mut game = GameClient::new();
    let config = Config::for_tick_rate(TICK_RATE);
    let mut view = ClientView::new(config.clone());
    // Two seconds to join and measure the round trip (a ping every quarter second), and a few
    // steps north and back: the view measures from the snapshots at which tick the server
    // applies a `Move` sent at its clock's tick, and steers its clock by that.
    for t in 0..2 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for event in events(&mut net, 0, &mut game) {
            view.observe(&game, &event, now);
        }
        if game.player().is_some() && t % (TICK_RATE / 4) == 0 {
            game.send_ping(net.client(0), now);
        }
        for (at, dir) in [(TICK_RATE, Dir::NORTH), (TICK_RATE + 3, Dir::SOUTH)] {
            if t == at {
                let input = Input::Move(dir);
                game.send_input(net.client(0), input);
                view.sent(&input, now);
            }
        }
        if t == TICK_RATE + 6 {
            game.send_input(net.client(0), Input::Move(Dir::NONE));
            view.sent(&Input::Move(Dir::NONE), now);
        }
        view.update(now);
    }
    let before = view.me().expect("joined and predicting");
    let served = game.me().expect("alive").pos;
    assert!(
        before.dist(served) < 1e-4,
        "standing: {before:?} {served:?}"
    );

    // The warm-up's moves may have cost corrections (the clock not yet measured); none after.
    let corrected = view.stats().corrections;
    // The key: a Move east, sent as the spec's client sends it.
    let input = Input::Move(Dir::EAST);
    game.send_input(net.client(0), input);
    view.sent(&input, net.now());
    let mut shown = Vec::new();
    let mut snapshots = Vec::new();
    for _ in 0..20 {
        tick(&mut net, &mut server);
        let now = net.now();
        for event in events(&mut net, 0, &mut game) {
            view.observe(&game, &event, now);
        }
        view.update(now);
        // What a frame draws of the local player.
        let me = game.player().unwrap();
        let drawn = view
            .view(now)
            .into_iter()
            .find_map(|e| e.player().filter(|p| p.owner == me).map(|p| p.pos))
            .expect("drawn");
        shown.push(drawn.x - before.x);
        snapshots.push(game.me().unwrap().pos.x - before.x);
    }
    let speed = config.player_speed;
    // The next tick, the view has walked one step; the snapshots show nothing for a round
    // trip (100 ms: six ticks at 60 Hz).
    assert!(
        (shown[0] - speed).abs() < 1e-4,
        "the first frame after the key: {shown:?}"
    );
    assert!(
        snapshots[..5].iter().all(|x| *x == 0.0),
        "snapshots: {snapshots:?}"
    );
    // It keeps walking a step a tick, and the server agrees with it in the end.
    for w in shown.windows(2) {
        assert!((w[1] - w[0] - speed).abs() < 1e-3, "{shown:?}");
    }
    assert!(snapshots[19] > 10.0 * speed, "{snapshots:?}");
    let stats = view.stats();
    assert!(stats.agreed > 0, "{stats:?}");
    assert_eq!(
        stats.corrections, corrected,
        "no loss, no correction: {stats:?}"
    );
}

/// The seeds the bots' games are played at: 11 is the one this test was first written with.
const SEEDS: [u64; 3] = [11, 1, 2];

/// The losses the issue asks the simulator tests to run at.
const LOSSES: [f64; 3] = [0.0, 0.1, 0.2];

/// One bot's game, seen by the test: what its view did, and what the server did with its
/// player.
struct Played {
    stats: ViewStats,
    /// Snapshots that showed the server had walked the player since the previous one; the
    /// steps up to the end of a round the client has heard end left out (its `GameOver`,
    /// reliable, can overtake the round's last snapshots, and stops the prediction, as it
    /// should).
    walked: u32,
    /// Of those, the ones that came while the view was not predicting.
    walked_unpredicted: u32,
    /// Ticks of the test's loop at which the view was predicting.
    predicting: u32,
}

/// Three bots play for 20 seconds over a link with `loss`, the network and server seeded
/// `seed`.
fn play(loss: f64, seed: u64) -> Vec<Played> {
    let mut net = SimNetwork::new(seed, hopnet::Config::default(), link(loss));
    let mut server = server(seed, 8);
    let mut players = bots(&mut net, 3, |i| 40 + i as u64);
    for bot in &mut players {
        bot.ping_every = Duration::from_millis(250);
    }
    let mut played: Vec<Played> = players
        .iter()
        .map(|_| Played {
            stats: ViewStats::default(),
            walked: 0,
            walked_unpredicted: 0,
            predicting: 0,
        })
        .collect();
    let mut last = vec![None; players.len()];
    for _ in 0..20 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, (bot, p)) in players.iter_mut().zip(&mut played).enumerate() {
            events(&mut net, i, bot);
            bot.maintain(net.client(i), now);
            let predicting = bot.view.tick().is_some();
            let mine = bot.client.latest().zip(bot.client.me().map(|me| me.pos));
            if let (Some((before, from)), Some((at, to))) = (last[i], mine)
                && at != before
                && from != to
                && bot.results.last().is_none_or(|r| before >= r.time)
            {
                p.walked += 1;
                p.walked_unpredicted += u32::from(!predicting);
            }
            last[i] = mine;
            p.predicting += u32::from(predicting);
        }
    }
    for (bot, p) in players.iter().zip(&mut played) {
        p.stats = bot.view.stats().clone();
    }
    played
}

/// Every step the server walked the local player, the view was predicting it, one step a
/// tick; whatever the loss, and however long the bot lived (one that joins late under loss or
/// dies early predicts fewer ticks, which says nothing about the prediction).
#[test]
fn the_view_predicts_every_step_the_server_walks_at_0_10_and_20_percent_loss() {
    for loss in LOSSES {
        for seed in SEEDS {
            for (i, p) in play(loss, seed).iter().enumerate() {
                let at = format!("loss {loss}, seed {seed}, bot {i}");
                let s = &p.stats;
                // The bot walked: there was something to predict.
                assert!(p.walked >= TICK_RATE, "{at}: walked {}", p.walked);
                assert_eq!(p.walked_unpredicted, 0, "{at}: walked {}", p.walked);
                // One predicted step a tick: neither stalled nor racing (the clock runs a
                // little fast or slow while it steers, and a restart steps to the clock).
                let per_tick = s.predicted as f64 / f64::from(p.predicting);
                assert!(
                    (0.95..=1.05).contains(&per_tick),
                    "{at}: {} steps in {} ticks: {s:?}",
                    s.predicted,
                    p.predicting
                );
            }
        }
    }
}

#[test]
fn corrections_are_counted_and_sized_and_grow_with_loss() {
    let speed = Config::for_tick_rate(TICK_RATE).player_speed;
    let mut totals = [0u64; LOSSES.len()];
    for seed in SEEDS {
        let mut by_loss = [0u64; LOSSES.len()];
        for (l, loss) in LOSSES.into_iter().enumerate() {
            for (i, p) in play(loss, seed).iter().enumerate() {
                let s = &p.stats;
                let at = format!("loss {loss}, seed {seed}, bot {i}");
                eprintln!(
                    "{at}: agreed {}, corrected {}, largest {}",
                    s.agreed, s.corrections, s.largest
                );
                if loss > 0.0 {
                    assert!(s.corrections > 0, "{at}: a lost Move costs a correction");
                }
                assert!(
                    s.agreed > s.corrections,
                    "{at}: most snapshots agree: {s:?}"
                );
                // A Move resent after a loss lands a few ticks late: a few steps, not a
                // teleport.
                assert!(s.largest < 30.0 * speed, "{at}: {}", s.largest);
                // Each correction sized.
                assert_eq!(s.sizes.len() as u64, s.corrections, "{at}");
                by_loss[l] += s.corrections;
            }
        }
        assert!(
            by_loss[1] > by_loss[0] && by_loss[2] > by_loss[0],
            "seed {seed}: loss makes corrections: {by_loss:?} at {LOSSES:?}"
        );
        for (t, n) in totals.iter_mut().zip(by_loss) {
            *t += n;
        }
    }
    assert!(
        totals[0] < totals[1] && totals[1] < totals[2],
        "more loss, more corrections: {totals:?} at {LOSSES:?}"
    );
}
