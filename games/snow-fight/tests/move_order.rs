//! The direction a player walks is the one its client sent last, whatever the loss: a `Move`
//! resent after a loss must not overtake the newer one.

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use snow_fight::Dir;
use snow_fight::Input;
use snow_fight::session::GameClient;

use crate::play::{TICK_RATE, events, server, tick};

/// A player alone (the round never starts, so nothing hurts it) changes direction twice in
/// quick succession, 40 times over a link that loses 20 % each way; once the client has had
/// nothing unacknowledged for a second, the server must have it walking the direction sent
/// last.
#[test]
fn the_server_walks_the_direction_sent_last_at_20_percent_loss() {
    let dirs = [Dir::NORTH, Dir::EAST, Dir::SOUTH, Dir::WEST, Dir::NONE];
    let mut wrong = Vec::new();
    let mut resent = 0;
    for seed in [1, 2, 3] {
        let mut net = SimNetwork::new(
            seed,
            hopnet::Config::default(),
            LinkConfig {
                loss: 0.2,
                delay: Duration::from_millis(50),
                ..LinkConfig::default()
            },
        );
        let mut server = server(seed, 8);
        net.add_client(hopnet::Config::default());
        let mut game = GameClient::new();
        for _ in 0..20 * TICK_RATE {
            if game.me().is_some() {
                break;
            }
            tick(&mut net, &mut server);
            events(&mut net, 0, &mut game);
        }
        assert!(game.me().is_some(), "seed {seed}: never joined");
        for pair in 0..40usize {
            let first = dirs[(pair + seed as usize) % dirs.len()];
            let last = dirs[(pair * 3 + 1) % dirs.len()];
            for (at, dir) in [(0, first), (3, last)] {
                for _ in 0..at {
                    tick(&mut net, &mut server);
                    events(&mut net, 0, &mut game);
                }
                game.send_input(net.client(0), Input::Move(dir));
            }
            // Until the client has had nothing unacknowledged for a second (at most 30 s:
            // the retransmission timer backs off under loss), sending what it owes.
            let mut quiet = 0;
            for _ in 0..TICK_RATE * 30 {
                tick(&mut net, &mut server);
                events(&mut net, 0, &mut game);
                let now = net.now();
                game.send_requests(net.client(0), now);
                quiet = if net.client(0).stats().pending_reliable == 0 {
                    quiet + 1
                } else {
                    0
                };
                if quiet == TICK_RATE {
                    break;
                }
            }
            assert_eq!(quiet, TICK_RATE, "seed {seed}, pair {pair}: never quiet");
            let walking = game.me().expect("alive").movement;
            if walking != last {
                wrong.push((seed, pair, first, last, walking));
            }
        }
        resent += game.stats().moves_resent;
    }
    assert!(
        wrong.is_empty(),
        "(seed, pair, first, last, walking): {wrong:?}"
    );
    assert!(resent > 0, "no Move was overtaken: the test shows nothing");
}
