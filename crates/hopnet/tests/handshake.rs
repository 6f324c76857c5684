//! The client's handshake against the four kinds of server the spec allows (PROTOCOL.md, "The
//! client's handshake"): a model of the spec author's, which answers nothing after verifying a
//! `ChallengeResponse` and parses every later datagram, 4-byte ones included, as a packet; our
//! own [`Server`]; a strict reader of the spec, which never answers an `ACK`, drops
//! reserved bits and chunk 255 without `FIN`, and forgets a connection after 15 s without a
//! valid packet; and that strict reader with one pepper per address, which challenges every
//! `Init` before verification, a probe included, with the same pepper again. Each completes an echo with our client at 0 %, 10 % and 20 % loss, through the
//! sans-I/O API in the simulator and through the std and tokio drivers on real sockets, and
//! none of them sees anything it objects to.

// The test peers and helpers the machines' tests use, in hopnet-proto.
#[path = "../../hopnet-proto/tests/common/mod.rs"]
mod common;

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use common::servers::{EchoEndpoint, Kind, TestServer};
use common::strict_server::StrictServer;
use common::{OnSocket, index_of, payload};
use hopnet::Impairment;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, Error, Event, Machine, proto::Client};

const MESSAGES: u32 = 20;
const SIZE: usize = 5000;
const LOSSES: [f64; 3] = [0.0, 0.1, 0.2];

fn link(loss: f64) -> LinkConfig {
    LinkConfig {
        loss,
        ..LinkConfig::default()
    }
}

/// Connects client 0 and echoes `MESSAGES` reliable payloads through the server; returns
/// whether every one came back exactly once.
fn connect_and_echo<S: Machine>(net: &mut SimNetwork<S>) -> Result<(), String> {
    connect_and_echo_with(net, Config::default(), |_| {})
}

/// [`connect_and_echo`] with a client configuration, calling `serve` on the server after every
/// event (to echo, for a server without an echo of its own).
fn connect_and_echo_with<S: Machine>(
    net: &mut SimNetwork<S>,
    config: Config,
    mut serve: impl FnMut(&mut S),
) -> Result<(), String> {
    let c = net.add_client(config);
    if !net.run_until(Duration::from_secs(10), |n| n.client(c).is_connected()) {
        let failure = net.client(c).handshake_failure();
        return Err(format!(
            "not connected: {failure:?} {:?}",
            net.client(c).stats()
        ));
    }
    if net.client(c).poll_event() != Some(Event::Connected) {
        return Err("Connected is not the first event".into());
    }
    echo_messages(net, c, 0, &mut serve)
}

/// Sends `MESSAGES` reliable payloads (indexes from `first`) from client `c` and runs until
/// each came back; an error unless every one came back exactly once.
fn echo_messages<S: Machine>(
    net: &mut SimNetwork<S>,
    c: usize,
    first: u32,
    serve: &mut impl FnMut(&mut S),
) -> Result<(), String> {
    for i in first..first + MESSAGES {
        net.client(c)
            .send(&payload(i, SIZE), Delivery::Reliable)
            .map_err(|e| e.to_string())?;
    }
    let mut seen = vec![0u32; MESSAGES as usize];
    net.run_until(Duration::from_secs(60), |n| {
        serve(n.server());
        while let Some(e) = n.client(c).poll_event() {
            if let Event::Message { bytes, .. } = e {
                let i = index_of(&bytes).expect("intact echo") - first;
                seen[i as usize] += 1;
            }
        }
        seen.iter().all(|&s| s > 0)
    });
    if seen.iter().any(|&s| s != 1) {
        return Err(format!("echoes per message: {seen:?}"));
    }
    Ok(())
}

/// Echoes through a server of `kind` over `link` in the simulator, for each seed, and checks
/// that the server objected to nothing; returns the servers.
fn echo_in_sim(kind: Kind, seeds: std::ops::Range<u64>, link: LinkConfig) -> Vec<TestServer> {
    seeds
        .map(|seed| {
            let server = TestServer::new(kind, seed);
            let mut net = SimNetwork::with_server(seed, server, link.clone());
            connect_and_echo(&mut net)
                .unwrap_or_else(|e| panic!("{kind:?} seed {seed} {link:?}: {e}"));
            if let Some(objection) = net.server().objection() {
                panic!("{kind:?} seed {seed} {link:?}: {objection}");
            }
            // Stragglers (a probe still on its way) must not disturb the server either.
            net.step(Duration::from_secs(1));
            let server = std::mem::replace(net.server(), TestServer::new(kind, 0));
            if let Some(objection) = server.objection() {
                panic!("{kind:?} seed {seed} {link:?}, after: {objection}");
            }
            server
        })
        .collect()
}

/// The echo with one kind of server at every loss rate; without loss, exactly one handshake.
fn every_loss_in_sim(kind: Kind) {
    for loss in LOSSES {
        for server in echo_in_sim(kind, 0..16, link(loss)) {
            let (accepted, failed) = server.handshakes();
            if loss == 0.0 {
                assert_eq!((accepted, failed), (1, 0), "{kind:?}: {}", server.summary());
            } else {
                assert!(accepted >= 1, "{kind:?}: {}", server.summary());
            }
        }
    }
}

#[test]
fn every_kind_of_server_in_the_simulator_at_0_10_and_20_percent_loss() {
    for kind in Kind::ALL {
        every_loss_in_sim(kind);
    }
}

#[test]
fn servers_that_never_confirm_under_loss_and_reordering() {
    // Reordering can put the probe ahead of the response it follows, which fails the
    // handshake of a server that reads the next datagram as the response: the client's next
    // probe starts a new one.
    let lossy = LinkConfig {
        loss: 0.2,
        reorder: 0.2,
        ..LinkConfig::default()
    };
    for kind in [Kind::Original, Kind::Strict, Kind::SamePepper] {
        echo_in_sim(kind, 0..16, lossy.clone());
    }
}

#[test]
fn our_server_sees_init_response_and_one_probe() {
    for seed in 0..16 {
        let mut server = EchoEndpoint::new(Config::default(), seed);
        server.record = true;
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
        for d in [init, probe] {
            assert_eq!(
                d[..2],
                [0x05, 0xff],
                "REL | FIN, chunk 255, no reserved bit"
            );
        }
        let sequence = |d: &[u8]| u16::from_be_bytes([d[2], d[3]]);
        assert!(sequence(init) >= 0xff00, "just behind 0: {init:02x?}");
        assert_eq!(
            sequence(probe),
            sequence(init) - 1,
            "the next sequence down"
        );
    }
}

#[test]
fn our_server_under_heavy_loss_and_duplication() {
    fn echo(endpoint: &mut hopnet::proto::Server) {
        while let Some(e) = endpoint.poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                endpoint
                    .send(e.connection, &bytes, Delivery::Reliable)
                    .unwrap();
            }
        }
    }
    for seed in 0..32 {
        let lossy = common::lossy(0.3, 0.1, 0.1);
        let mut net = SimNetwork::new(seed, Config::default(), lossy);
        connect_and_echo_with(&mut net, Config::default(), echo)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

#[test]
fn an_idle_client_keeps_its_connection_to_a_strict_server() {
    // The strict server forgets a connection after 15 s without a valid packet: our
    // keepalives (and the extended client's offers) must be packets it takes as valid. It
    // sends nothing while idle (the spec has no keepalive), so the client waits longer.
    let patient = || Config::builder().idle_timeout(Duration::from_secs(60));
    let extended = patient().extensions(true).build().unwrap();
    for (seed, config) in [(1, patient().build().unwrap()), (2, extended)] {
        let server = TestServer::new(Kind::Strict, seed);
        let mut net = SimNetwork::with_server(seed, server, link(0.1));
        connect_and_echo_with(&mut net, config.clone(), |_| {})
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        net.step(Duration::from_secs(40));
        assert!(net.client(0).is_connected(), "seed {seed}");
        echo_messages(&mut net, 0, MESSAGES, &mut |_| {})
            .unwrap_or_else(|e| panic!("seed {seed}, after 40 s idle: {e}"));
        assert_eq!(net.server().objection(), None, "seed {seed}");
        assert_eq!(net.client(0).extensions(), None);
    }
}

/// The blocking driver's documented usage (`connect`, `wait_connected`, then `send`) against a
/// server of `kind` on a real socket, each side dropping `loss` of what it sends; returns the
/// server once every echo came back.
fn std_driver_echo(kind: Kind, seed: u64, loss: f64) -> TestServer {
    use hopnet::Client;
    let server = OnSocket::spawn(TestServer::new(kind, seed), seed, loss);
    let mut client = Client::connect(server.addr, Config::default()).unwrap();
    client.set_impairment(Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    }));
    client
        .wait_connected()
        .unwrap_or_else(|e| panic!("{kind:?} loss {loss}: {e}"));
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
    let server = server.stop();
    assert_eq!(back, MESSAGES, "{kind:?} loss {loss}: {}", server.summary());
    server
}

/// The tokio driver's usage (`connect`, the `Connected` event, then `send`), as
/// [`std_driver_echo`].
#[cfg(feature = "tokio")]
fn tokio_driver_echo(kind: Kind, seed: u64, loss: f64) -> TestServer {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = OnSocket::spawn(TestServer::new(kind, seed), seed, loss);
    let back = rt.block_on(async {
        let mut client = hopnet::tokio::Client::connect(server.addr, Config::default())
            .await
            .unwrap();
        client.set_impairment(Some(Impairment {
            loss,
            seed,
            ..Impairment::default()
        }));
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
    let server = server.stop();
    assert_eq!(back, MESSAGES, "{kind:?} loss {loss}: {}", server.summary());
    server
}

/// A driver's echo with one kind of server at every loss rate, checked for objections.
fn every_loss_on_sockets(kind: Kind, echo: fn(Kind, u64, f64) -> TestServer) {
    for (seed, loss) in (1..).zip(LOSSES) {
        let server = echo(kind, seed, loss);
        assert_eq!(server.objection(), None, "{kind:?} loss {loss}");
    }
}

#[test]
fn std_driver_with_every_kind_of_server() {
    for kind in Kind::ALL {
        every_loss_on_sockets(kind, std_driver_echo);
    }
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_driver_with_every_kind_of_server() {
    for kind in Kind::ALL {
        every_loss_on_sockets(kind, tokio_driver_echo);
    }
}

/// A client whose server answers nothing, and one whose server answers every `Init` with a
/// `Challenge` but never acknowledges a probe: each gives up at its connect timeout and says
/// which step failed and what it tried.
#[test]
fn a_client_that_gives_up_says_why() {
    let timeout = Duration::from_secs(2);
    let config = Config::builder().connect_timeout(timeout).build().unwrap();
    let server: SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let start = Instant::now();
    for challenged in [false, true] {
        let mut client = Client::with_seed(config.clone(), server, start, 7);
        let mut buf = Vec::new();
        let mut now = start;
        while !client.is_closed() {
            while client.poll_transmit(now, &mut buf, 1).is_some() {
                if challenged && buf[..2] == [0x05, 0xff] {
                    client.handle(now, server, &[0x9a, 0x31, 0x7c, 0x44]);
                }
            }
            now = client.poll_timeout().unwrap().max(now);
            client.handle_timeout(now);
        }
        let failure = client.handshake_failure().expect("a failure");
        assert_eq!(failure.was_challenged(), challenged);
        assert_eq!(failure.waited, timeout);
        let text = failure.to_string();
        if challenged {
            // One pepper, answered again for each probe resent (the re-answer rule), never
            // twice for one salt; every probe goes unacknowledged.
            assert!(failure.challenges >= 2, "{failure:?}");
            assert!(failure.challenges <= failure.probes, "{failure:?}");
            assert!(failure.probes >= 3, "{failure:?}");
            assert!(
                text.starts_with("the server never confirmed the connection"),
                "{text}"
            );
        } else {
            assert!(failure.inits >= 3 && failure.probes == 0, "{failure:?}");
            assert!(text.starts_with("the server never answered"), "{text}");
        }
        let sent = client.send(b"late", Delivery::Reliable);
        assert!(matches!(sent, Err(Error::Handshake(f)) if f == failure));
    }
}

/// The blocking driver's `wait_connected` returns that reason as its error, against a socket
/// that sends one `Challenge` and then nothing, like a server whose acknowledgements never
/// arrive.
#[test]
fn wait_connected_fails_with_the_reason() {
    use hopnet::Client;
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let addr = socket.local_addr().unwrap();
    let answering = std::thread::spawn(move || {
        let mut buf = [0u8; 64];
        let start = Instant::now();
        let mut challenged = false;
        while start.elapsed() < Duration::from_secs(3) {
            if let Ok((4, from)) = socket.recv_from(&mut buf)
                && !challenged
            {
                challenged = true;
                let _ = socket.send_to(&[0xa0, 0x11, 0x5c, 0x42], from);
            }
        }
    });
    let config = Config::builder()
        .connect_timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    let mut client = Client::connect(addr, config).unwrap();
    let error = client.wait_connected().unwrap_err();
    let Error::Handshake(failure) = &error else {
        panic!("{error:?}");
    };
    assert!(failure.was_challenged(), "{failure:?}");
    assert!(
        error
            .to_string()
            .starts_with("the server never confirmed the connection: "),
        "{error}"
    );
    answering.join().unwrap();
}

/// A strict server sees exactly the spec's handshake and one probe it acknowledges, and never
/// has to answer an `ACK`, read a reserved bit or a chunk 255 without `FIN`.
#[test]
fn a_strict_server_sees_only_what_the_spec_defines() {
    for seed in 0..16 {
        let mut net = SimNetwork::with_server(seed, StrictServer::new(seed), link(0.0));
        connect_and_echo(&mut net).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let stats = net.server().stats.clone();
        assert_eq!(stats.violations(), 0, "seed {seed}: {stats:?}");
        assert_eq!((stats.accepted, stats.failed_handshakes), (1, 0));
        assert_eq!(stats.echoed, u64::from(MESSAGES));
    }
}
