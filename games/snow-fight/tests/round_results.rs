//! A round's result reaches each client as that round's, at 20 % loss both ways: six bots play
//! a round and each leaves once it heard a `GameOver`, as the demo's bots do. A bot whose
//! `GameOver` is lost must not hear the next round's first (which, as the others leave, one
//! player still there wins): its first result must be the first round's, matched by its time
//! to the server's list of round ends, and exactly one bot won.

mod play;

use std::time::Duration;

use hopnet::Event;
use hopnet::sim::{LinkConfig, SimNetwork};
use snow_fight::session::{BotPlayer, GameServer};

use crate::play::{TICK_RATE, server_config, short_game, tick};

const BOTS: usize = 6;

fn lossy() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        delay: Duration::from_millis(50),
        ..LinkConfig::default()
    }
}

/// Plays one seed: every bot until its first result (then it closes), the server on until
/// every bot has one or two minutes of virtual time passed. Returns a description of what
/// broke the rule, if anything did.
fn one_round(seed: u64) -> Result<(), String> {
    let game = short_game(BOTS, 20);
    let mut server = GameServer::new(server_config(seed, BOTS, game.clone()));
    let mut net = SimNetwork::new(seed, hopnet::Config::default(), lossy());
    let mut bots: Vec<BotPlayer> = (0..BOTS)
        .map(|i| {
            net.add_client(hopnet::Config::default());
            BotPlayer::new(game.clone(), seed * 100 + i as u64)
        })
        .collect();
    let mut left = [false; BOTS];
    for _ in 0..120 * TICK_RATE {
        tick(&mut net, &mut server);
        let now = net.now();
        for (i, bot) in bots.iter_mut().enumerate() {
            if left[i] {
                continue;
            }
            while let Some(event) = net.client(i).poll_event() {
                match event {
                    Event::Connected => bot.start(net.client(i)),
                    Event::Message { bytes, .. } => {
                        bot.handle(net.client(i), &bytes, now);
                    }
                    Event::Disconnected { reason } => {
                        return Err(format!("bot {i} disconnected: {reason:?}"));
                    }
                    Event::Acknowledged { .. } | Event::Lost { .. } => {}
                }
            }
            bot.maintain(net.client(i), now);
            if !bot.results.is_empty() {
                net.client(i).close();
                left[i] = true;
            }
        }
        if left.iter().all(|&l| l) {
            break;
        }
    }
    let Some((time, outcome)) = server.round_ends().next() else {
        let states: Vec<String> = (0..BOTS)
            .map(|i| {
                let c = net.client(i);
                format!(
                    "bot {i}: connected {} closed {} player {:?} failure {:?}",
                    c.is_connected(),
                    c.is_closed(),
                    bots[i].client.player(),
                    c.handshake_failure()
                )
            })
            .collect();
        return Err(format!(
            "no round ended: {} players, {:?}\n{}",
            server.players(),
            server.world().phase(),
            states.join("\n")
        ));
    };
    let mut winners = 0;
    for (i, bot) in bots.iter().enumerate() {
        let first = *bot
            .results
            .first()
            .ok_or(format!("bot {i} heard no result"))?;
        if first.time != time {
            return Err(format!(
                "bot {i}: its first result is of the round that ended at {}, not {time}: {:?}",
                first.time, bot.results
            ));
        }
        let player = bot.client.player().ok_or(format!("bot {i} never joined"))?;
        if first.won != (outcome.winner == Some(player)) {
            return Err(format!("bot {i} (player {player}): {first:?}, {outcome:?}"));
        }
        winners += usize::from(first.won);
    }
    if winners != 1 {
        return Err(format!("{winners} winners: {outcome:?}"));
    }
    Ok(())
}

#[test]
fn each_client_hears_its_round_s_result_at_20_percent_loss() {
    let failed: Vec<String> = (0..30)
        .filter_map(|seed| one_round(seed).err().map(|e| format!("seed {seed}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
