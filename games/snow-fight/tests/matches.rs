//! Many matches in one server process, over real loopback sockets: four matches of two play
//! at once with eight bots, each to its `GameOver`; a match made to panic is ended (its players
//! disconnected) while the others play on to their end; and a match whose every tick sleeps
//! does not hold up the ticks of the others. Once through the library type ([`MatchHost`]),
//! once through the `server` example run as a process (`--matches 4`), whose A2S answer gives
//! the process's totals. And the players of a match that ended play the next one (secure
//! carrier), the matches run on the browsers' carrier (WebTransport's server, UDP bots) with
//! their queries on the game's port, and a drained host ends its matches and closes their
//! players.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{ConnectTokenBuilder, Key};
use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::source_query::{
    Challenge, ChallengeNumber, INFO_PAYLOAD, InfoRequest, InfoResponse,
};
use snow_fight::Config;
use snow_fight::host::{AnswerQueries, MatchHost, MatchInfo, MatchesConfig};
use snow_fight::net::{play_bot, play_bot_on};
use snow_fight::session::{BotPlayer, ServerConfig};
use snow_fight::world::Phase;

const TICK_RATE: u32 = 30;
const ROUND_SECS: u32 = 3;
/// How long a slow match's every tick takes.
const SLOW_TICK: Duration = Duration::from_millis(300);
/// The longest a healthy match may go between two ticks (its own tick is 33 ms) while
/// another's ticks take [`SLOW_TICK`]: the bound this file holds the host to.
const HEALTHY_GAP: Duration = Duration::from_millis(200);

fn game() -> Config {
    Config {
        min_players: 2,
        max_ticks: ROUND_SECS * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

/// `matches` matches of two players each, no samples, `intermission_secs` between rounds
/// (the server's default when `None`).
fn two_player_matches(matches: usize, intermission_secs: Option<u32>) -> MatchesConfig {
    let mut server = ServerConfig {
        max_players: 2,
        game: game(),
        sample_every: 0,
        ..ServerConfig::default()
    };
    if let Some(secs) = intermission_secs {
        server.intermission_secs = secs;
    }
    MatchesConfig::new(matches, server)
}

/// Bots, each on its own thread until its first `GameOver`, [`Bots::stop`], or the deadline.
struct Bots {
    stop: Arc<AtomicBool>,
    finished: Arc<AtomicUsize>,
    deadline: Instant,
    threads: Vec<JoinHandle<(usize, bool)>>,
}

impl Bots {
    /// One bot of each of `seeds` against `addr`, for at most `secs` seconds.
    fn start(addr: SocketAddr, seeds: std::ops::Range<u64>, secs: u64) -> Bots {
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicUsize::new(0));
        let deadline = Instant::now() + Duration::from_secs(secs);
        let threads = seeds
            .map(|seed| {
                let (stop, finished) = (stop.clone(), finished.clone());
                thread::spawn(move || {
                    let mut player = BotPlayer::new(game(), seed);
                    play_bot(addr, hopnet::Config::default(), &mut player, |p, _| {
                        !p.results.is_empty()
                            || stop.load(Ordering::Relaxed)
                            || Instant::now() > deadline
                    })
                    .unwrap();
                    let early = !stop.load(Ordering::Relaxed);
                    finished.fetch_add(1, Ordering::Relaxed);
                    (player.results.len(), early)
                })
            })
            .collect();
        Bots {
            stop,
            finished,
            deadline,
            threads,
        }
    }

    /// How many are done.
    fn finished(&self) -> usize {
        self.finished.load(Ordering::Relaxed)
    }

    /// Whether their deadline has passed.
    fn late(&self) -> bool {
        Instant::now() > self.deadline
    }

    /// Tells those still playing to stop.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Each one's round results and whether it was done before [`stop`](Self::stop) (played,
    /// or disconnected), once all are done.
    fn join(self) -> Vec<(usize, bool)> {
        self.threads
            .into_iter()
            .map(|b| b.join().unwrap())
            .collect()
    }
}

/// The longest time between two ticks of a match.
fn longest_gap(ticks: &[Instant]) -> Duration {
    ticks
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or_default()
}

#[test]
fn a_panicking_match_is_ended_and_a_slow_one_holds_up_no_other() {
    let driver = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
    let ticks: Arc<Mutex<HashMap<u64, Vec<Instant>>>> = Arc::default();
    let mut config = two_player_matches(4, Some(1));
    config.game.seed = 3;
    let seen = ticks.clone();
    // The first four matches: 1 panics a little into its round, 2 sleeps in every tick of
    // its round; 0 and 3 play. The matches after them (slots taken again) only play.
    config.hook = Some(Arc::new(move |info: MatchInfo, server| {
        let running = server.world().phase() == Phase::Running;
        seen.lock()
            .unwrap()
            .entry(info.number)
            .or_default()
            .push(Instant::now());
        if info.number == 1 && running && server.world().tick() > 15 {
            panic!("match 1 made to panic by the test");
        }
        if info.number == 2 && running {
            thread::sleep(SLOW_TICK);
        }
    }));
    let mut host = MatchHost::new(driver, config).unwrap();
    let addr = host.local_addr().unwrap();

    let bots = Bots::start(addr, 40..48, 40);
    let mut all_placed = false;
    // Done: the two matches that play to their end (4 bots, and the matches after their
    // intermission) and the one that panics (2 bots).
    let mut ids = Vec::new();
    host.run(|host| {
        if host.players() == vec![Some(2); 4] && !all_placed {
            all_placed = true;
            ids = host.roster().iter().map(|e| e.player).collect();
        }
        (bots.finished() >= 6 && host.stats().ended >= 2) || bots.late()
    })
    .unwrap();
    bots.stop();
    let results = bots.join();
    // Acknowledgements and closes get out.
    let linger = Instant::now() + Duration::from_millis(200);
    host.run(|_| Instant::now() > linger).unwrap();

    assert!(all_placed, "eight bots in four matches of two at once");
    ids.dedup();
    assert_eq!(ids.len(), 8, "player ids unique in the process: {ids:?}");
    let stats = host.stats().clone();
    assert_eq!(stats.failed, 1, "{stats:?}");
    assert!(stats.ended >= 2, "{stats:?}");
    let played = results.iter().filter(|(rounds, _)| *rounds >= 1).count();
    assert_eq!(
        played, 4,
        "the bots of matches 0 and 3 saw GameOver: {results:?}"
    );
    let cut_off = results
        .iter()
        .filter(|&&(rounds, early)| rounds == 0 && early)
        .count();
    assert_eq!(
        cut_off, 2,
        "the panicked match's bots were disconnected: {results:?}"
    );

    let ticks = ticks.lock().unwrap();
    let slow = longest_gap(&ticks[&2]);
    assert!(slow >= SLOW_TICK, "match 2 was slow: {slow:?}");
    for number in [0, 3] {
        let gap = longest_gap(&ticks[&number]);
        eprintln!("match {number}: longest gap between ticks {gap:?} (match 2's: {slow:?})");
        assert!(
            gap < HEALTHY_GAP,
            "match {number}'s ticks were {gap:?} apart while match 2's took {SLOW_TICK:?}"
        );
    }
}

/// The `server` example, built beside this test by `cargo test`.
fn server_example() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let dir = deps.parent().and_then(|d| d.parent()).unwrap();
    let exe = dir
        .join("examples")
        .join(format!("server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.is_file(),
        "{} was not built (cargo test builds the examples)",
        exe.display()
    );
    exe
}

/// A child process, killed when the test ends however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `A2S_INFO` with its challenge, answered by the crate's own decoder; `None` when no answer
/// came in time.
fn info(socket: &UdpSocket, to: SocketAddr) -> Option<InfoResponse> {
    let mut buf = [0u8; 1400];
    let mut challenge = Vec::new();
    for _ in 0..2 {
        let request = to_bytes(&InfoRequest {
            payload: INFO_PAYLOAD.into(),
            challenge: challenge.clone(),
        })
        .unwrap();
        socket.send_to(&request, to).unwrap();
        let (n, _) = socket.recv_from(&mut buf).ok()?;
        if let Ok(Challenge { challenge: c }) = from_bytes(&buf[..n]) {
            challenge = vec![ChallengeNumber(c)];
            continue;
        }
        return from_bytes(&buf[..n]).ok();
    }
    None
}

#[test]
fn the_server_example_plays_four_matches_at_once_with_eight_bots() {
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let _server = Killed(
        Command::new(server_example())
            .args(["--bind", &addr.to_string(), "--matches", "4"])
            .args(["--max-players", "2", "--min-players", "2"])
            .args(["--tick-rate", &TICK_RATE.to_string()])
            .args(["--round-secs", &ROUND_SECS.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let asker = UdpSocket::bind("127.0.0.1:0").unwrap();
    asker
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let listening = Instant::now() + Duration::from_secs(20);
    let empty = loop {
        if let Some(info) = info(&asker, addr) {
            break info;
        }
        assert!(Instant::now() < listening, "the server never answered");
    };
    assert_eq!((empty.players, empty.max_players), (0, 8), "4 matches of 2");

    let bots = Bots::start(addr, 60..68, 40);
    // All eight in the process's totals at once: four matches of two.
    let mut most = 0;
    while most < 8 && bots.finished() == 0 && !bots.late() {
        if let Some(info) = info(&asker, addr) {
            assert_eq!(info.max_players, 8);
            most = most.max(info.players);
        }
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(most, 8, "the A2S totals counted every match's players");
    let results = bots.join();
    assert!(
        results.iter().all(|&(rounds, early)| rounds >= 1 && early),
        "every bot's match played to its GameOver: {results:?}"
    );
}

#[test]
fn a_drained_host_ends_its_unstarted_matches_and_closes_their_players() {
    let driver = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
    let mut host = MatchHost::new(driver, two_player_matches(2, None)).unwrap();
    let addr = host.local_addr().unwrap();
    // One player: its match waits for a second one, and never starts.
    let lone = Bots::start(addr, 7..8, 20);
    host.run(|host| host.total_players() == 1 || lone.late())
        .unwrap();
    assert_eq!(host.players(), vec![Some(1), Some(0)]);
    host.drain();
    host.run(|host| host.drained() || lone.late()).unwrap();
    assert!(host.drained(), "{:?}", host.stats());
    assert_eq!(host.players(), vec![None, None]);
    // Its connection is closed, and the bot is told.
    host.run(|_| lone.finished() == 1 || lone.late()).unwrap();
    assert_eq!(lone.join(), [(0, true)]);
    let stats = host.stats();
    assert_eq!((stats.started, stats.ended, stats.failed), (2, 2, 0));
    assert_eq!(stats.turned_away, 1);
}

/// Two rounds' results of a bot over the secure carrier, connecting with a token of `key`.
fn secure_bot(addr: SocketAddr, key: Key, id: u64, deadline: Instant) -> JoinHandle<Vec<u32>> {
    thread::spawn(move || {
        let token = ConnectTokenBuilder::new(SECURE_PROTOCOL, id, [addr])
            .issue(&key, SystemTime::now())
            .unwrap();
        let client = hopnet::Client::connect_secure(token, hopnet::Config::default()).unwrap();
        let mut player = BotPlayer::new(game(), id);
        play_bot_on(client, &mut player, |p, _| {
            p.results.len() >= 2 || Instant::now() > deadline
        })
        .unwrap();
        player.results.iter().map(|r| r.time).collect()
    })
}

const SECURE_PROTOCOL: u64 = 0x6d61_7463;

#[test]
fn the_players_of_a_match_that_ended_play_the_next_over_the_secure_carrier() {
    let key = Key::generate();
    let driver = hopnet::Server::bind_secure(
        "127.0.0.1:0",
        hopnet::Config::default(),
        SECURE_PROTOCOL,
        key.clone(),
    )
    .unwrap();
    let mut host = MatchHost::new(driver, two_player_matches(2, Some(1))).unwrap();
    let addr = host.local_addr().unwrap();
    let deadline = Instant::now() + Duration::from_secs(40);
    let bots: Vec<_> = (0..4)
        .map(|i| secure_bot(addr, key.clone(), 80 + i, deadline))
        .collect();
    host.run(|_| bots.iter().all(|b| b.is_finished()) || Instant::now() > deadline)
        .unwrap();
    let ends: Vec<Vec<u32>> = bots.into_iter().map(|b| b.join().unwrap()).collect();
    for times in &ends {
        // The second `GameOver` came from the match it was placed in next, on the process's
        // clock: later than the first.
        assert_eq!(times.len(), 2, "every bot played two matches: {ends:?}");
        assert!(times[1] > times[0], "{ends:?}");
    }
    let stats = host.stats();
    assert!(stats.ended >= 2 && stats.failed == 0, "{stats:?}");
    assert_eq!(stats.turned_away, 0, "{stats:?}");
}

#[test]
fn the_matches_run_on_the_browsers_carrier_too() {
    use hopnet_webtransport::{Certificate, WebTransportConfig};
    let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let driver = hopnet_webtransport::Server::bind(
        loopback,
        WebTransportConfig::new(loopback, certificate),
        hopnet::Config::default(),
    )
    .unwrap();
    let mut host = MatchHost::new(driver, two_player_matches(2, None)).unwrap();
    host.answer_queries(snow_fight::net::Listing::default())
        .unwrap();
    let addr = host.local_addr().unwrap();
    assert_eq!(host.query_addr(), Some(addr));
    let bots = Bots::start(addr, 90..94, 30);
    // Queries on the game's port, answered between the turns.
    let asker = UdpSocket::bind("127.0.0.1:0").unwrap();
    asker.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 1400];
    let mut challenge = Vec::new();
    let mut answer = None;
    let mut most_placed = 0;
    let mut asked = Instant::now();
    host.run(|host| {
        most_placed = most_placed.max(host.total_players());
        if answer.is_none()
            && host.total_players() == 4
            && asked.elapsed() > Duration::from_millis(50)
        {
            asked = Instant::now();
            let request = to_bytes(&InfoRequest {
                payload: INFO_PAYLOAD.into(),
                challenge: challenge.clone(),
            })
            .unwrap();
            asker.send_to(&request, addr).unwrap();
        }
        if let Ok((n, _)) = asker.recv_from(&mut buf) {
            match from_bytes::<Challenge>(&buf[..n]) {
                Ok(Challenge { challenge: c }) => challenge = vec![ChallengeNumber(c)],
                Err(_) => answer = from_bytes::<InfoResponse>(&buf[..n]).ok(),
            }
        }
        bots.finished() == 4 || bots.late()
    })
    .unwrap();
    let results = bots.join();
    assert_eq!(most_placed, 4);
    assert!(
        results.iter().all(|&(rounds, early)| rounds >= 1 && early),
        "{results:?}"
    );
    let info = answer.expect("an A2S_INFO answer");
    assert_eq!((info.players, info.max_players), (4, 4));
}
