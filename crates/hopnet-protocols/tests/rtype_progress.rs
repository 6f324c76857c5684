//! What an R-TYPE session has seen so far, kept while it runs: a session that fails still
//! says how far it got (the example client prints it as its summary on failure).

use std::time::{Duration, Instant};

use hopnet::Impairment;
use hopnet_protocols::rtype::{
    Entry, Host, HostConfig, SessionConfig, SessionError, SessionProgress, SessionSummary,
    play_tracked,
};

/// A session of 10 moves against a host of its own, with every datagram of the client lost at
/// the rate `loss`: the host (kept alive for its counts), what the session saw, and its end.
fn play(
    entry: Entry,
    within: Duration,
    loss: f64,
) -> (Host, SessionProgress, Result<SessionSummary, SessionError>) {
    let host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let config = SessionConfig {
        lobby: host.local_addr(),
        entry,
        moves: 10,
        deadline: Instant::now() + within,
        impairment: (loss > 0.0).then(|| Impairment {
            loss,
            seed: 7,
            ..Impairment::default()
        }),
        extrapolation: Default::default(),
    };
    let mut progress = SessionProgress::default();
    let end = play_tracked(&config, &mut progress);
    (host, progress, end)
}

#[test]
fn a_session_cut_off_from_its_instance_keeps_the_instance_and_port() {
    // Every datagram of the client lost: the lobby (TCP) answers, the instance never hears.
    let (host, progress, end) = play(Entry::Create("void".into()), Duration::from_secs(2), 1.0);
    let err = end.unwrap_err();
    assert!(matches!(err, SessionError::Deadline(_)), "{err}");
    assert_eq!(host.instance_count(), 1);
    let port = progress.port.expect("the lobby said JOINED");
    assert_ne!(port, 0);
    assert!(progress.instance.is_some(), "{progress:?}");
    assert_eq!(
        (progress.entities, progress.checks, progress.moves),
        (0, 0, 0),
        "{progress:?}"
    );
}

#[test]
fn a_refusal_in_the_lobby_knows_no_instance() {
    let (_host, progress, end) = play(Entry::Join, Duration::from_secs(10), 0.0);
    let err = end.unwrap_err();
    assert!(matches!(err, SessionError::Refused(_)), "{err}");
    assert_eq!(progress, SessionProgress::default());
}

#[test]
fn a_session_that_succeeds_ends_with_its_summary() {
    let (_host, progress, end) = play(Entry::Create("arena".into()), Duration::from_secs(30), 0.0);
    let summary = end.unwrap();
    assert_eq!(
        progress,
        SessionProgress {
            instance: Some(summary.instance),
            port: Some(summary.port),
            entities: summary.entities,
            checks: summary.checks,
            resyncs: summary.resyncs,
            moves: 10,
            position_error: summary.position_error,
        }
    );
    assert_eq!(summary.moves, 10);
}
