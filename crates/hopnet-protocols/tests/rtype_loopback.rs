//! The whole R-TYPE program path over real loopback sockets: the lobby on TCP, then two
//! players on one instance over UDP, with 10 % of the datagrams lost both ways (hopnet's
//! impairment on the instance's socket and on each player's). Every round succeeds.

use std::thread;
use std::time::{Duration, Instant};

mod common;
use common::lossy;

use hopnet_protocols::rtype::{Entry, Host, HostConfig, SessionConfig, SessionError, play};

fn session(host: &Host, entry: Entry, moves: usize, seed: u64) -> SessionConfig {
    SessionConfig {
        lobby: host.local_addr(),
        entry,
        moves,
        deadline: Instant::now() + Duration::from_secs(30),
        impairment: lossy(seed),
        extrapolation: Default::default(),
    }
}

#[test]
fn create_and_join_over_a_lossy_link() {
    for round in 0..3u64 {
        let host = Host::bind(
            "127.0.0.1:0".parse().unwrap(),
            HostConfig {
                impairment: lossy(100 + round),
            },
        )
        .unwrap();
        let creator = session(&host, Entry::Create(format!("arena{round}")), 40, 2 * round);
        let joiner = session(&host, Entry::Join, 30, 2 * round + 1);
        let created = thread::spawn(move || play(&creator));
        // The joiner lists once the instance is there.
        let start = Instant::now();
        while host.instance_count() == 0 {
            assert!(start.elapsed() < Duration::from_secs(10));
            thread::sleep(Duration::from_millis(5));
        }
        let joined = play(&joiner).unwrap_or_else(|e| panic!("round {round}: joiner: {e}"));
        let created = created
            .join()
            .unwrap()
            .unwrap_or_else(|e| panic!("round {round}: creator: {e}"));
        assert_eq!(created.moves, 40);
        assert_eq!(joined.moves, 30);
        assert_eq!(
            (joined.instance, joined.port),
            (created.instance, created.port)
        );
        assert_eq!(joined.listed.len(), 1);
        assert_eq!(joined.listed[0].name, format!("arena{round}"));
        assert_eq!(joined.listed[0].game, "RTYPE");
        // Each settled on a CHECK count that agreed with what it knew.
        assert!(created.checks >= 1 && joined.checks >= 1);
        assert!(created.entities >= 1 && joined.entities >= 1);
        eprintln!(
            "round {round}: {:?} {created:?} {joined:?}",
            start.elapsed()
        );
        let summary = host.shutdown();
        assert_eq!(summary.instances, 1);
        assert_eq!(summary.lobby_connections, 2);
    }
}

#[test]
fn join_with_nothing_listed_is_refused() {
    let host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let err = play(&session(&host, Entry::Join, 5, 0)).unwrap_err();
    assert!(matches!(err, SessionError::Refused(_)), "{err}");
}

#[test]
fn a_lobby_that_is_not_there_fails_fast() {
    let host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let config = session(&host, Entry::Join, 5, 0);
    drop(host);
    let start = Instant::now();
    assert!(play(&config).is_err());
    assert!(start.elapsed() < Duration::from_secs(10));
}
