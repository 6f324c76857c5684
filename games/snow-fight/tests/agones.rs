//! The server in an Agones fleet: the `server` example, run as a process with `--agones`,
//! against the stand-in SDK server (`snow_fight::fleet::standin`; the real SDK server is a Go
//! program we cannot run here). Its calls arrive in order with the right values: the
//! capacities and `Ready` once it listens, health pings on its timer, `PlayerConnect` and
//! `PlayerDisconnect` with the players' ids and the `players` counter's count as bots join and
//! leave, and `Shutdown` only after SIGTERM and after the round in play ended (today's server
//! is one match; its "last match" ends with the current round's `GameOver`). A stand-in that
//! drops every connection and comes back is called again, and play goes on meanwhile. With
//! `--matches`, the players of every match are tracked and the drain waits for every match.
//!
//! Needs the `agones` feature; the server's binary is the example's, which `cargo test`
//! builds with the tests.

#![cfg(feature = "agones")]

mod fleet_run;

use std::time::{Duration, Instant};

use fleet_run::{Bot, HEALTH_MS, ServerProcess, first, has, reports, wait_for};
use snow_fight::fleet::standin::StandIn;

const LONG: Duration = Duration::from_secs(30);

fn pair(method: &str, value: &str) -> (String, String) {
    (method.to_string(), value.to_string())
}

#[test]
fn ready_health_players_and_a_drain_that_ends_with_shutdown() {
    let standin = StandIn::start(0, &["players"]).unwrap();
    let mut server = ServerProcess::start(&standin);
    server.wait_ready(&standin);

    // Joined one by one, so that their ids are 1, 2, 3; the round starts with the second.
    let mut bots = Vec::new();
    for (i, id) in ["1", "2", "3"].into_iter().enumerate() {
        bots.push(Bot::join(server.addr, 10 + i as u64));
        wait_for(&format!("PlayerConnect({id})"), LONG, || {
            has(&standin.calls(), "PlayerConnect", id)
        });
    }
    bots[2].leave();
    wait_for("PlayerDisconnect(3)", LONG, || {
        has(&standin.calls(), "PlayerDisconnect", "3")
    });
    assert!(
        bots[0].game_overs().is_empty(),
        "the round ended before the drain: the test's timing is off"
    );

    let sigterm = Instant::now();
    server.sigterm();
    // Draining (once its loop saw the signal), the server places no one new.
    wait_for("the drain", LONG, || {
        server.log().contains("asked to drain")
    });
    let late = Bot::join(server.addr, 40);
    wait_for("the late bot's refusal", LONG, || {
        late.heard.lock().unwrap().errors > 0
    });
    let status = server.wait(LONG).expect("the server exits after its drain");
    assert!(status.success(), "the drained server exits 0: {status}");

    let calls = standin.calls();
    assert_eq!(
        reports(&calls),
        vec![
            pair("SetPlayerCapacity", "8"),
            pair("UpdateCounter", "players capacity=8"),
            pair("UpdateCounter", "players count=0"),
            pair("Ready", ""),
            pair("PlayerConnect", "1"),
            pair("UpdateCounter", "players count=1"),
            pair("PlayerConnect", "2"),
            pair("UpdateCounter", "players count=2"),
            pair("PlayerConnect", "3"),
            pair("UpdateCounter", "players count=3"),
            pair("PlayerDisconnect", "3"),
            pair("UpdateCounter", "players count=2"),
            pair("Shutdown", ""),
        ],
        "the SDK calls, in order"
    );
    let shutdown = first(&calls, "Shutdown", "").unwrap().at;
    assert!(shutdown > sigterm, "Shutdown only after SIGTERM");
    // The round in play at SIGTERM was played to its end, and heard, before Shutdown.
    for bot in &bots[..2] {
        let ends = bot.game_overs();
        assert_eq!(ends.len(), 1, "one round, ended after the drain request");
        assert!(
            ends[0] > sigterm && ends[0] < shutdown,
            "GameOver, then Shutdown"
        );
    }
    assert_eq!(standin.players(), vec!["1".to_string(), "2".to_string()]);

    // Health pings on the timer, from Ready to Shutdown.
    let ready = first(&calls, "Ready", "").unwrap().at;
    let pings: Vec<Instant> = calls
        .iter()
        .filter(|c| c.method == "Health" && c.at >= ready && c.at <= shutdown)
        .map(|c| c.at)
        .collect();
    let span = shutdown - ready;
    let expected = span.as_millis() as f64 / HEALTH_MS as f64;
    assert!(
        (pings.len() as f64) >= expected * 0.6 && (pings.len() as f64) <= expected * 1.4 + 2.0,
        "{} pings in {span:?} at one every {HEALTH_MS} ms",
        pings.len()
    );
    let longest = pings.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert!(
        longest < Duration::from_millis(HEALTH_MS * 4),
        "a gap of {longest:?} between pings"
    );
}

#[test]
fn a_lost_sdk_server_is_called_again_and_play_goes_on() {
    let mut standin = StandIn::start(0, &["players"]).unwrap();
    let mut server = ServerProcess::start(&standin);
    server.wait_ready(&standin);
    let first_bot = Bot::join(server.addr, 20);
    wait_for("PlayerConnect(1)", LONG, || {
        has(&standin.calls(), "PlayerConnect", "1")
    });

    // The sidecar goes away; a player joins meanwhile and the round starts.
    standin.stop();
    let lost_at = Instant::now();
    let second_bot = Bot::join(server.addr, 21);
    wait_for("the second bot's join", LONG, || {
        second_bot.heard.lock().unwrap().player == Some(2)
    });
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !has(&standin.calls(), "PlayerConnect", "2"),
        "nothing reaches a stopped stand-in"
    );
    standin.restart().unwrap();
    let back_at = Instant::now();

    wait_for("PlayerConnect(2) after the comeback", LONG, || {
        has(&standin.calls(), "PlayerConnect", "2")
    });
    wait_for("the count after the comeback", LONG, || {
        has(&standin.calls(), "UpdateCounter", "players count=2")
    });
    wait_for("health pings after the comeback", LONG, || {
        standin
            .calls()
            .iter()
            .filter(|c| c.method == "Health" && c.at > back_at)
            .count()
            >= 3
    });
    // Play went on: the round both bots were in ended normally for each.
    wait_for("both bots' GameOver", LONG, || {
        !first_bot.game_overs().is_empty() && !second_bot.game_overs().is_empty()
    });
    let calls = standin.calls();
    assert!(
        !calls.iter().any(|c| c.at > lost_at && c.at < back_at),
        "no call while the stand-in was down"
    );
    let connect_2 = first(&calls, "PlayerConnect", "2").unwrap();
    assert!(connect_2.at > back_at);
    assert!(
        !has(&calls, "Shutdown", ""),
        "no Shutdown without a drain, even as rounds end"
    );
    assert_eq!(standin.players(), vec!["1".to_string(), "2".to_string()]);
    assert!(
        server.wait(Duration::ZERO).is_none(),
        "the server still runs"
    );
}

#[test]
fn many_matches_report_every_player_and_drain_after_the_last_match() {
    let standin = StandIn::start(0, &["players"]).unwrap();
    let mut server = ServerProcess::start_with(&standin, &["--matches", "2", "--max-players", "2"]);
    server.wait_ready(&standin);
    // Four bots fill the two matches of two; each match's round starts when it is full.
    let bots: Vec<Bot> = (0..4).map(|i| Bot::join(server.addr, 50 + i)).collect();
    wait_for("four PlayerConnects", LONG, || {
        standin
            .calls()
            .iter()
            .filter(|c| c.method == "PlayerConnect")
            .count()
            == 4
    });
    assert!(
        bots.iter().all(|b| b.game_overs().is_empty()),
        "a round ended before the drain: the test's timing is off"
    );
    let sigterm = Instant::now();
    server.sigterm();
    let status = server.wait(LONG).expect("the server exits after its drain");
    assert!(status.success(), "the drained server exits 0: {status}");

    let calls = standin.calls();
    let reported = reports(&calls);
    assert_eq!(
        reported[..4],
        [
            pair("SetPlayerCapacity", "4"),
            pair("UpdateCounter", "players capacity=4"),
            pair("UpdateCounter", "players count=0"),
            pair("Ready", ""),
        ],
        "the capacity is both matches' players, then Ready"
    );
    assert_eq!(reported.last(), Some(&pair("Shutdown", "")), "{reported:?}");
    let mut connected: Vec<&str> = calls
        .iter()
        .filter(|c| c.method == "PlayerConnect")
        .map(|c| c.value.as_str())
        .collect();
    connected.sort();
    connected.dedup();
    assert_eq!(connected.len(), 4, "four distinct players: {connected:?}");
    assert!(
        has(&calls, "UpdateCounter", "players count=4"),
        "{reported:?}"
    );
    let shutdown = first(&calls, "Shutdown", "").unwrap().at;
    assert!(shutdown > sigterm, "Shutdown only after SIGTERM");
    // Both matches played their round to its end, heard by every bot, before Shutdown.
    for bot in &bots {
        let ends = bot.game_overs();
        assert_eq!(
            ends.len(),
            1,
            "one round each, ended after the drain request"
        );
        assert!(
            ends[0] > sigterm && ends[0] < shutdown,
            "GameOver, then Shutdown"
        );
    }
}
