//! The client's view over `hopnet`'s simulated network: its own player predicted (the view
//! moves the tick a key is pressed, a round trip before the snapshots show it), the
//! corrections counted when loss delays the moves.

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use snow_fight::session::{ClientView, GameClient};
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

/// Bots play for `seconds` over a link with `loss`; the corrections of each bot's view.
fn corrections(loss: f64, seconds: u32) -> Vec<(u64, u64, f32)> {
    let mut net = SimNetwork::new(11, hopnet::Config::default(), link(loss));
    let mut server = server(11, 8);
    let mut players = bots(&mut net, 3, |i| 40 + i as u64);
    for bot in &mut players {
        bot.ping_every = Duration::from_millis(250);
    }
    for _ in 0..seconds * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, bot) in players.iter_mut().enumerate() {
            events(&mut net, i, bot);
            bot.maintain(net.client(i), now);
        }
    }
    players
        .iter()
        .map(|b| {
            let s = b.view.stats();
            assert!(s.predicted > u64::from(seconds * TICK_RATE) / 2, "{s:?}");
            (s.agreed, s.corrections, s.largest)
        })
        .collect()
}

#[test]
fn corrections_are_counted_and_sized_at_20_percent_loss() {
    let lossy = corrections(0.2, 20);
    let clean = corrections(0.0, 20);
    eprintln!("20 % loss: {lossy:?}\nno loss: {clean:?}");
    let speed = Config::for_tick_rate(TICK_RATE).player_speed;
    for (agreed, corrected, largest) in &lossy {
        assert!(*corrected > 0, "a lost Move costs a correction");
        assert!(agreed > corrected, "most snapshots agree");
        // A Move resent after a loss lands a few ticks late: a few steps, not a teleport.
        assert!(*largest > 0.0 && *largest < 30.0 * speed, "{largest}");
    }
    let total = |v: &[(u64, u64, f32)]| v.iter().map(|c| c.1).sum::<u64>();
    assert!(
        total(&lossy) > total(&clean),
        "loss makes corrections: {} at 20 %, {} at none",
        total(&lossy),
        total(&clean)
    );
}
