//! A simulated session at 10 % loss, its client recorded to pcapng, replayed offline into a
//! fresh client of the same seed and configuration: the same events in the same order, and
//! the same datagrams out at the same times.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use hopnet::proto::{Client, Server};
use hopnet::record::{Direction, RecordConfig, Recorded, Recorder, Recording};
use hopnet::replay::replay;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, Event, ServerEvent};

const CLIENT_SEED: u64 = 0x5eed;

/// The client's configuration: tracked messages given long enough, behind the reliable ones
/// at 10 % loss, that some are acknowledged.
fn client_config() -> Config {
    Config::builder()
        .tracked_timeout(Duration::from_secs(4))
        .build()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hopnet-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The client's application: it keeps its events, and once connected queues messages of every
/// size and several deliveries, tracked ones among them (their fate is an event).
fn client_app(client: &mut Client, events: &mut Vec<Event>) {
    while let Some(event) = client.poll_event() {
        let connected = event == Event::Connected;
        events.push(event);
        if connected {
            queue_sends(client);
        }
    }
}

fn queue_sends(client: &mut Client) {
    for i in 0..40u32 {
        let len = [12, 300, 1_500, 4_000][i as usize % 4];
        let bytes: Vec<u8> = (0..len).map(|j| (i as usize + j) as u8).collect();
        let delivery =
            [Delivery::Reliable, Delivery::Tracked, Delivery::Unreliable][i as usize % 3];
        client.send(&bytes, delivery).unwrap();
    }
}

/// An event's kind, to print without its bytes.
fn kind(event: &Event) -> &'static str {
    match event {
        Event::Connected => "connected",
        Event::Message { .. } => "message",
        Event::Acknowledged { .. } => "acknowledged",
        Event::Lost { .. } => "lost",
        Event::Disconnected { .. } => "disconnected",
    }
}

/// A simulated network at 10 % loss each way whose one client (of `config` and
/// [`CLIENT_SEED`]) is recorded to `path`: the network, the client's index and its address.
fn recorded_session(
    path: &std::path::Path,
    config: Config,
) -> (SimNetwork<Server, Recorded<Client>>, usize, SocketAddr) {
    let link = LinkConfig {
        loss: 0.1,
        ..LinkConfig::default()
    };
    let server = Server::with_seed(Config::default(), 11);
    let mut net: SimNetwork<Server, Recorded<Client>> = SimNetwork::with_machines(3, server, link);
    let addr: SocketAddr = "10.0.0.2:40002".parse().unwrap();
    let client = Client::with_seed(config, net.server_addr(), net.now(), CLIENT_SEED);
    let recorder = Recorder::create(RecordConfig::new(path), addr, net.now()).unwrap();
    let bot = net.add_client_machine_at(addr, Recorded::new(client, recorder));
    (net, bot, addr)
}

#[test]
fn a_recorded_lossy_session_replays_to_the_same_events_and_datagrams() {
    let dir = scratch("lossy");
    let path = dir.join("client.pcapng");
    let (mut net, bot, addr) = recorded_session(&path, client_config());

    // The server echoes every message reliably; the client's events are what is compared.
    let mut events = Vec::new();
    net.run_until(Duration::from_secs(20), |n| {
        while let Some(ServerEvent {
            connection, event, ..
        }) = n.server().poll_event()
        {
            if let Event::Message { bytes, .. } = event {
                n.server()
                    .send(connection, &bytes, Delivery::Reliable)
                    .unwrap();
            }
        }
        client_app(n.client(bot).machine(), &mut events);
        false
    });
    let stats = net.client(bot).machine().stats();
    let recorded = net.client(bot).recorder().stats();
    assert!(net.client(bot).recorder().error().is_none());
    drop(net);

    // The session was a lossy one and everything the test compares happened in it.
    assert!(stats.retransmissions > 0, "{stats:?}");
    let kinds: Vec<&str> = events.iter().map(kind).collect();
    assert_eq!(kinds.first(), Some(&"connected"), "{kinds:?}");
    let count = |k: &str| kinds.iter().filter(|&&x| x == k).count();
    assert!(count("message") > 20, "{kinds:?}");
    assert!(count("acknowledged") > 0, "{kinds:?}");
    assert!(count("lost") > 0, "{kinds:?}");

    let recording = Recording::read(&path).unwrap();
    assert_eq!(recording.local, addr);
    assert!(!recording.decrypted);
    assert_eq!(recording.datagrams.len() as u64, recorded.datagrams);
    assert!(
        recording
            .datagrams
            .iter()
            .any(|d| d.direction == Direction::Inbound)
    );

    // A fresh client, the same seed and configuration and sends, made at the replay's start.
    let start = std::time::Instant::now();
    let server_addr = "10.0.0.1:7000".parse().unwrap();
    let mut fresh = Client::with_seed(client_config(), server_addr, start, CLIENT_SEED);
    let mut replayed = Vec::new();
    let written = replay(&recording, &mut fresh, start, |_, c| {
        client_app(c, &mut replayed)
    });
    assert_eq!(replayed.len(), events.len());
    assert!(replayed == events, "the replay's events differ");
    let recorded_out: Vec<_> = recording.outbound().cloned().collect();
    assert_eq!(written.len(), recorded_out.len());
    assert!(written == recorded_out, "the replay wrote other datagrams");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_replay_into_a_client_of_another_seed_differs() {
    let dir = scratch("seed");
    let path = dir.join("client.pcapng");
    let (mut net, bot, _) = recorded_session(&path, Config::default());
    assert!(net.run_until(Duration::from_secs(20), |n| {
        n.client(bot).machine().is_connected()
    }));
    net.step(Duration::from_secs(1));
    drop(net);

    // The handshake's salt comes from the seed: another seed's client is not the one that was
    // recorded, and the server's answers do not connect it.
    let recording = Recording::read(&path).unwrap();
    let start = std::time::Instant::now();
    let server_addr = "10.0.0.1:7000".parse().unwrap();
    let mut other = Client::with_seed(Config::default(), server_addr, start, CLIENT_SEED + 1);
    let written = replay(&recording, &mut other, start, |_, _| {});
    assert!(!other.is_connected());
    assert!(written != recording.outbound().cloned().collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}
