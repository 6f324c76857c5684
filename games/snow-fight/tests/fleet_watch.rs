//! `Fleet` in-process against the stand-in SDK server, with a game of its own making (the
//! `Matches` interface a many-match server implements): a drain with no match in play ends at
//! once with `Shutdown`; a call the SDK server refuses is dropped and the calls after it still
//! go out; a drain waits for the match in play.

#![cfg(feature = "agones")]

use std::thread;
use std::time::{Duration, Instant};

use snow_fight::fleet::standin::StandIn;
use snow_fight::fleet::{DrainSignal, Fleet, FleetConfig, Matches};

/// Players by id, whether a match is in play, whether it still places players.
struct Rooms {
    placed: Vec<String>,
    in_play: bool,
    placing: bool,
}

impl Matches for Rooms {
    fn placed(&self) -> Vec<String> {
        self.placed.clone()
    }
    fn stop_placing(&mut self) {
        self.placing = false;
    }
    fn in_play(&self) -> bool {
        self.in_play
    }
}

/// A stand-in SDK server with a `players` counter, a fleet of `capacity` players on it,
/// listening, that drains when its signal is raised, and a game of `placed` players that
/// still places more.
fn listening(
    capacity: i64,
    placed: &[&str],
    in_play: bool,
) -> (StandIn, DrainSignal, Fleet, Rooms) {
    let standin = StandIn::start(0, &["players"]).unwrap();
    let drain = DrainSignal::manual();
    let config = FleetConfig {
        port: Some(standin.port()),
        health_every: Duration::from_millis(100),
        linger: Duration::from_millis(50),
        shutdown_timeout: Duration::from_secs(20),
        ..FleetConfig::new(capacity)
    };
    let mut fleet = Fleet::with_drain(config, drain.clone()).unwrap();
    let game = Rooms {
        placed: placed.iter().map(|p| p.to_string()).collect(),
        in_play,
        placing: true,
    };
    fleet.listening();
    (standin, drain, fleet, game)
}

/// Calls `watch` every 10 ms until it says drained, at most 20 s.
fn watch_until_drained(fleet: &mut Fleet, game: &mut Rooms) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if fleet.watch(game) {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    false
}

fn reports(standin: &StandIn) -> Vec<String> {
    standin
        .calls()
        .into_iter()
        .filter(|c| c.method != "Health" && c.method != "GetGameServer")
        .map(|c| format!("{}({})", c.method, c.value))
        .collect()
}

#[test]
fn a_refused_call_is_dropped_and_a_drain_with_nothing_in_play_shuts_down() {
    // Room for one player: the second's PlayerConnect (and its count) are refused.
    let (standin, drain, mut fleet, mut game) = listening(1, &["a", "b"], false);
    assert!(!fleet.watch(&mut game));
    game.placed = vec!["b".into()];
    assert!(!fleet.watch(&mut game));
    drain.raise();
    assert!(watch_until_drained(&mut fleet, &mut game));
    assert!(!game.placing, "a drained game places no one");
    fleet.finish().unwrap();
    assert_eq!(
        reports(&standin),
        [
            "SetPlayerCapacity(1)",
            "UpdateCounter(players capacity=1)",
            "UpdateCounter(players count=0)",
            "Ready()",
            "PlayerConnect(a)",
            "UpdateCounter(players count=1)",
            "PlayerConnect(b)",
            "UpdateCounter(players count=2)",
            "PlayerDisconnect(a)",
            "UpdateCounter(players count=1)",
            "Shutdown()",
        ]
    );
    assert!(standin.players().is_empty(), "b was refused, a left");
}

#[test]
fn a_drain_waits_for_the_match_in_play() {
    let (standin, drain, mut fleet, mut game) = listening(8, &["1"], true);
    drain.raise();
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        assert!(!fleet.watch(&mut game), "drained while a match plays");
        thread::sleep(Duration::from_millis(10));
    }
    assert!(fleet.draining() && !game.placing);
    let over = Instant::now();
    game.in_play = false;
    assert!(watch_until_drained(&mut fleet, &mut game));
    fleet.finish().unwrap();
    let calls = standin.calls();
    let shutdown = calls.iter().find(|c| c.method == "Shutdown").unwrap();
    assert!(shutdown.at > over, "Shutdown after the match ended");
    assert_eq!(calls.iter().filter(|c| c.method == "Shutdown").count(), 1);
}
