//! The echo contract (50 messages of 3,000 bytes, each back exactly once and intact, as the
//! `echo` example checks them) against every reading of the handshake we know, at 0, 10 and
//! 20 % loss both ways: above all the server that challenges a repeated `Init` with the same
//! pepper (`common/same_pepper_server.rs`), whose re-challenge our client must answer when its
//! `ChallengeResponse` is lost (PROTOCOL.md, "The client's handshake", the re-answer rule).
//! In the simulator over 20 seeds per case, and over loopback sockets with the blocking driver.

// The test peers and helpers the machines' tests use, in hopnet-proto.
#[path = "../../hopnet-proto/tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::servers::{Kind, TestServer};
use common::{OnSocket, index_of, payload};
use hopnet::Impairment;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, Event};

const MESSAGES: u32 = 50;
const SIZE: usize = 3000;
const LOSSES: [f64; 3] = [0.0, 0.1, 0.2];
const SEEDS: u64 = 20;

/// Connects, echoes [`MESSAGES`] reliable payloads and checks each came back once, intact.
fn echo_contract(kind: Kind, seed: u64, loss: f64) -> Result<TestServer, String> {
    let link = LinkConfig {
        loss,
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::with_server(seed, TestServer::new(kind, seed), link);
    let c = net.add_client(Config::default());
    if !net.run_until(Duration::from_secs(10), |n| n.client(c).is_connected()) {
        return Err(format!(
            "not connected: {:?}",
            net.client(c).handshake_failure()
        ));
    }
    for i in 0..MESSAGES {
        net.client(c)
            .send(&payload(i, SIZE), Delivery::Reliable)
            .map_err(|e| e.to_string())?;
    }
    let mut seen = vec![0u32; MESSAGES as usize];
    let mut corrupt = 0;
    net.run_until(Duration::from_secs(60), |n| {
        while let Some(e) = n.client(c).poll_event() {
            if let Event::Message { bytes, .. } = e {
                match index_of(&bytes).filter(|&i| i < MESSAGES && bytes.len() == SIZE) {
                    Some(i) => seen[i as usize] += 1,
                    None => corrupt += 1,
                }
            }
        }
        seen.iter().all(|&s| s > 0)
    });
    if corrupt > 0 || seen.iter().any(|&s| s != 1) {
        return Err(format!("{corrupt} corrupt, echoes per message {seen:?}"));
    }
    net.step(Duration::from_secs(1));
    let server = std::mem::replace(net.server(), TestServer::new(kind, 0));
    if let Some(objection) = server.objection() {
        return Err(format!("the server objected: {objection}"));
    }
    Ok(server)
}

/// Every seed at every loss rate against `kind`; fails with the list of seeds that failed.
fn every_seed(kind: Kind) {
    let mut failed = Vec::new();
    for loss in LOSSES {
        for seed in 0..SEEDS {
            if let Err(e) = echo_contract(kind, seed, loss) {
                failed.push(format!("loss {loss} seed {seed}: {e}"));
            }
        }
    }
    assert!(failed.is_empty(), "{kind:?}:\n{}", failed.join("\n"));
}

#[test]
fn the_same_pepper_server_in_every_seed() {
    every_seed(Kind::SamePepper);
}

#[test]
fn the_other_readings_in_every_seed() {
    for kind in [Kind::Original, Kind::Ours, Kind::Strict] {
        every_seed(kind);
    }
}

/// The same-pepper server challenges again: at 20 % loss some seeds lose a response, and
/// those connect only by answering a pepper a second time.
#[test]
fn the_same_pepper_is_answered_again_when_a_response_is_lost() {
    let rechallenged = (0..SEEDS)
        .filter_map(|seed| echo_contract(Kind::SamePepper, seed, 0.2).ok())
        .filter(|s| match s {
            TestServer::SamePepper(s) => s.stats.rechallenges > 0,
            _ => false,
        })
        .count();
    assert!(rechallenged > 0, "no seed exercised a re-challenge");
}

/// The contract over loopback sockets: the blocking driver's client losing `loss` of what it
/// sends, the server on its own socket losing as much of what it sends.
fn on_sockets(kind: Kind, seed: u64, loss: f64) -> Result<(), String> {
    use hopnet::Client;
    let server = OnSocket::spawn(TestServer::new(kind, seed), seed, loss);
    let mut client = Client::connect(server.addr, Config::default()).map_err(|e| e.to_string())?;
    client.set_impairment(Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    }));
    client.wait_connected().map_err(|e| e.to_string())?;
    let mut sent = 0;
    let mut seen = vec![0u32; MESSAGES as usize];
    let start = Instant::now();
    while seen.contains(&0) && start.elapsed() < Duration::from_secs(30) {
        while sent < MESSAGES {
            match client.send(&payload(sent, SIZE), Delivery::Reliable) {
                Ok(()) => sent += 1,
                Err(hopnet::Error::WouldBlock) => break,
                Err(e) => return Err(e.to_string()),
            }
        }
        client
            .poll(Duration::from_millis(5))
            .map_err(|e| e.to_string())?;
        while let Some(e) = client.poll_event() {
            if let Event::Message { bytes, .. } = e {
                let i = index_of(&bytes).filter(|&i| i < MESSAGES && bytes.len() == SIZE);
                seen[i.ok_or("a corrupt echo")? as usize] += 1;
            }
        }
    }
    let server = server.stop();
    if seen.iter().any(|&s| s != 1) {
        return Err(format!("echoes per message {seen:?}: {}", server.summary()));
    }
    match server.objection() {
        Some(o) => Err(format!("the server objected: {o}")),
        None => Ok(()),
    }
}

#[test]
fn every_reading_over_loopback_sockets() {
    let mut failed = Vec::new();
    for kind in Kind::ALL {
        for (seed, loss) in (1..).zip(LOSSES) {
            if let Err(e) = on_sockets(kind, seed, loss) {
                failed.push(format!("{kind:?} loss {loss}: {e}"));
            }
        }
    }
    // The same-pepper server at 20 % loss, over more seeds: the case the rule is for.
    for seed in 10..20 {
        if let Err(e) = on_sockets(Kind::SamePepper, seed, 0.2) {
            failed.push(format!("SamePepper loss 0.2 seed {seed}: {e}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
