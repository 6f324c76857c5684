//! The client's handshake against every server the spec allows: our own, and one that, like
//! the spec's author's implementation, answers nothing after verifying a `ChallengeResponse`
//! and parses every later datagram, 4-byte ones included, as a packet (PROTOCOL.md, "The
//! client's handshake").

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::original_server::{OriginalServer, OriginalStats};
use common::{OriginalOnSocket, index_of, payload};
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, Event, Machine, Server, Transmit};

const MESSAGES: u32 = 20;
const SIZE: usize = 5000;

fn link(loss: f64) -> LinkConfig {
    LinkConfig {
        loss,
        ..LinkConfig::default()
    }
}

/// Connects client 0 and echoes `MESSAGES` reliable payloads through the server; returns
/// whether every one came back exactly once.
fn connect_and_echo<S: Machine>(net: &mut SimNetwork<S>) -> Result<(), String> {
    connect_and_echo_with(net, |_| {})
}

/// [`connect_and_echo`], calling `serve` on the server after every event (to echo, for a
/// server without an echo of its own).
fn connect_and_echo_with<S: Machine>(
    net: &mut SimNetwork<S>,
    mut serve: impl FnMut(&mut S),
) -> Result<(), String> {
    let c = net.add_client(Config::default());
    if !net.run_until(Duration::from_secs(10), |n| n.client(c).is_connected()) {
        return Err(format!("not connected: {:?}", net.client(c).stats()));
    }
    if net.client(c).poll_event() != Some(Event::Connected) {
        return Err("Connected is not the first event".into());
    }
    for i in 0..MESSAGES {
        net.client(c)
            .send(&payload(i, SIZE), Delivery::Reliable)
            .map_err(|e| e.to_string())?;
    }
    let mut seen = vec![0u32; MESSAGES as usize];
    net.run_until(Duration::from_secs(60), |n| {
        serve(n.server());
        while let Some(e) = n.client(c).poll_event() {
            if let Event::Message { bytes, .. } = e {
                let i = index_of(&bytes).expect("intact echo") as usize;
                seen[i] += 1;
            }
        }
        seen.iter().all(|&s| s > 0)
    });
    if seen.iter().any(|&s| s != 1) {
        return Err(format!("echoes per message: {seen:?}"));
    }
    Ok(())
}

/// Our [`Server`] as an echo server: sends back every message it received.
fn echo(endpoint: &mut Server) {
    while let Some(e) = endpoint.poll_event() {
        if let Event::Message { bytes, .. } = e.event {
            let sent = endpoint.send(e.connection, &bytes, Delivery::Reliable);
            sent.unwrap();
        }
    }
}

/// The rule's promise to a server that never confirms: it never sees a `ChallengeResponse`
/// after accepting one, and never a datagram that breaks or closes its connection.
fn assert_unbroken(stats: &OriginalStats, context: &str) {
    assert_eq!(stats.late_responses, 0, "{context}: {stats:?}");
    assert_eq!(
        stats.broken + stats.closed_by_end,
        0,
        "{context}: {stats:?}"
    );
}

/// Echoes through the model of the original server over `link`, for each seed; returns its
/// statistics per seed, checked by [`assert_unbroken`].
fn echo_with_original(seeds: std::ops::Range<u64>, link: LinkConfig) -> Vec<OriginalStats> {
    seeds
        .map(|seed| {
            let server = OriginalServer::new(seed);
            let mut net = SimNetwork::with_server(seed, server, link.clone());
            connect_and_echo(&mut net).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let stats = net.server().stats.clone();
            assert_unbroken(&stats, &format!("seed {seed}"));
            stats
        })
        .collect()
}

#[test]
fn a_server_that_never_confirms_accepts_us_and_echoes() {
    for stats in echo_with_original(0..32, link(0.0)) {
        assert_eq!(stats.accepted, 1, "{stats:?}");
        assert_eq!(stats.failed_handshakes, 0, "{stats:?}");
        assert_eq!(stats.echoed, u64::from(MESSAGES));
    }
}

#[test]
fn a_server_that_never_confirms_under_ten_percent_loss() {
    for stats in echo_with_original(0..64, link(0.1)) {
        assert_eq!(stats.accepted, 1, "{stats:?}");
    }
}

#[test]
fn a_server_that_never_confirms_under_loss_and_reordering() {
    // Reordering can put the probe ahead of the response it follows, which fails the
    // original's handshake: the client's next probe starts a new one.
    let lossy = LinkConfig {
        loss: 0.2,
        reorder: 0.2,
        ..LinkConfig::default()
    };
    echo_with_original(0..32, lossy);
}

/// Our [`Server`] as an echo server, recording every datagram it receives.
struct Recording {
    endpoint: Server,
    received: Vec<Vec<u8>>,
}

impl Machine for Recording {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.received.push(datagram.to_vec());
        self.endpoint.handle(now, from, datagram);
        echo(&mut self.endpoint);
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>, max: usize) -> Option<Transmit> {
        self.endpoint.poll_transmit(now, buf, max)
    }
    fn poll_timeout(&mut self) -> Option<Instant> {
        self.endpoint.poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.endpoint.handle_timeout(now);
    }
}

#[test]
fn our_server_sees_init_response_and_one_probe() {
    for seed in 0..16 {
        let server = Recording {
            endpoint: Server::with_seed(Config::default(), seed),
            received: Vec::new(),
        };
        let mut net = SimNetwork::with_server(seed, server, link(0.0));
        connect_and_echo(&mut net).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let handshake: Vec<&Vec<u8>> = net
            .server()
            .received
            .iter()
            .take_while(|d| d.len() == 4)
            .collect();
        // Init, ChallengeResponse, then one probe that the server acknowledges: no resends.
        assert_eq!(handshake.len(), 3, "seed {seed}: {handshake:02x?}");
        let (init, probe) = (handshake[0], handshake[2]);
        assert_eq!(init[0] & 0x0f, 0x03, "REL | ACK");
        assert_eq!(probe[1..], init[1..], "same probe chunk and sequence");
        assert_ne!(init[0] >> 4, 0, "a reserved bit is set");
    }
}

#[test]
fn our_server_under_heavy_loss_and_duplication() {
    for seed in 0..32 {
        let lossy = common::lossy(0.3, 0.1, 0.1);
        let mut net = SimNetwork::new(seed, Config::default(), lossy);
        connect_and_echo_with(&mut net, echo).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// The blocking driver's documented usage (`connect`, `wait_connected`, then `send`) against the
/// model on a real socket; returns the messages echoed back.
fn blocking_driver_echo(seed: u64, loss: f64) -> (u32, OriginalStats) {
    use hopnet::io::Impairment;
    use hopnet::io::blocking::Client;
    let server = OriginalOnSocket::spawn(seed, loss);
    let mut client = Client::connect(server.addr, Config::default()).unwrap();
    client.set_impairment(Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    }));
    client.wait_connected().unwrap();
    for i in 0..MESSAGES {
        client.send(&payload(i, SIZE), Delivery::Reliable).unwrap();
    }
    let mut back = 0;
    let start = Instant::now();
    while back < MESSAGES && start.elapsed() < Duration::from_secs(30) {
        client.poll(Duration::from_millis(5)).unwrap();
        while let Some(e) = client.poll_event() {
            if let Event::Message { bytes, .. } = e {
                assert!(index_of(&bytes).is_some());
                back += 1;
            }
        }
    }
    (back, server.stats())
}

#[test]
fn blocking_driver_against_a_server_that_never_confirms() {
    for (seed, loss) in [(1, 0.0), (2, 0.1), (3, 0.1)] {
        let (back, stats) = blocking_driver_echo(seed, loss);
        assert_eq!(back, MESSAGES, "loss {loss}: {stats:?}");
        assert_unbroken(&stats, &format!("loss {loss}"));
    }
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_driver_against_a_server_that_never_confirms() {
    use hopnet::io::async_tokio::TokioClient;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (seed, loss) in [(4, 0.0), (5, 0.1)] {
        let server = OriginalOnSocket::spawn(seed, loss);
        let back = rt.block_on(async {
            let mut client = TokioClient::connect(server.addr, Config::default())
                .await
                .unwrap();
            assert_eq!(client.recv().await.unwrap(), Event::Connected);
            for i in 0..MESSAGES {
                client
                    .send(&payload(i, SIZE), Delivery::Reliable)
                    .await
                    .unwrap();
            }
            let mut back = 0;
            while back < MESSAGES {
                let event = tokio::time::timeout(Duration::from_secs(30), client.recv())
                    .await
                    .expect("echoes within 30 s")
                    .unwrap();
                if let Event::Message { bytes, .. } = event {
                    assert!(index_of(&bytes).is_some());
                    back += 1;
                }
            }
            back
        });
        let stats = server.stats();
        assert_eq!(back, MESSAGES, "loss {loss}: {stats:?}");
        assert_unbroken(&stats, &format!("loss {loss}"));
    }
}
