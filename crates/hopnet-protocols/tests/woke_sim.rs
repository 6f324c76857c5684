//! WOKE in hopnet's simulator: 20 % loss both ways, duplication and reordering, many seeds;
//! reliable, split and unreliable commands echoed; the two limits and ConnectionClosed.

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};

mod common;
use common::bad_link;
use hopnet_protocols::woke::{
    Client, CloseReason, Config, EchoCheck, Event, MAX_PENDING_RELIABLE, MAX_SPLIT_DATA, Server,
};

type Net = SimNetwork<Server, Client>;

fn network(seed: u64, link: LinkConfig) -> (Net, usize) {
    let mut net: Net = SimNetwork::with_machines(seed, Server::new(Config::default()), link);
    let (server, now) = (net.server_addr(), net.now());
    let i = net.add_client_machine(Client::new(server, Config::default(), now));
    (net, i)
}

fn pump(net: &mut Net, i: usize, check: &mut EchoCheck, next: &mut u32, count: u32) {
    let limit = (MAX_PENDING_RELIABLE / 2) as u32;
    while *next < count && check.outstanding() < limit {
        let (kind, data) = check.command(*next);
        net.client(i).send(kind, &data, check.reliable()).unwrap();
        check.sent();
        *next += 1;
        if !check.reliable() {
            break;
        }
    }
    while let Some(event) = net.client(i).poll_event() {
        match event {
            Event::Connected(id) => check.connected(id),
            Event::Command(c) => check.echo(c.kind, &c.data, c.reliable),
            Event::Closed(reason) => panic!("closed: {reason:?}"),
        }
    }
}

fn run_echo(seed: u64, count: u32, size: usize, reliable: bool) -> (Net, EchoCheck) {
    let (mut net, i) = network(seed, bad_link());
    let mut check = EchoCheck::new(count, size, reliable);
    let mut next = 0;
    let done = net.run_until(Duration::from_secs(60), |net| {
        pump(net, i, &mut check, &mut next, count);
        next == count && (!reliable || check.all_back())
    });
    assert!(done, "seed {seed}: {:?}", check.summary());
    net.step(Duration::from_millis(300));
    pump(&mut net, i, &mut check, &mut next, count);
    (net, check)
}

#[test]
fn reliable_commands_come_back_once_over_many_seeds() {
    for seed in 0..10 {
        let (mut net, check) = run_echo(seed, 200, 64, true);
        assert!(check.succeeded(), "seed {seed}: {:?}", check.summary());
        assert_eq!(net.server().stats().dropped, 0);
    }
}

#[test]
fn split_commands_come_back_whole() {
    for seed in 0..6 {
        // Three and a bit parts each, and one command of a single part's size exactly.
        let (_, check) = run_echo(seed, 12, 3 * MAX_SPLIT_DATA + 100, true);
        assert!(check.succeeded(), "seed {seed}: {:?}", check.summary());
    }
    let (_, check) = run_echo(99, 3, 40_000, true);
    assert!(check.succeeded(), "{:?}", check.summary());
}

#[test]
fn unreliable_commands_come_back_as_the_link_allows() {
    for seed in 0..4 {
        let (_, check) = run_echo(seed, 150, 32, false);
        let s = check.summary();
        assert!(s.client_id != 0 && check.corrupt() == 0 && s.sent == 150);
        // 20 % loss each way leaves about 64 %.
        assert!((60..=140).contains(&s.echoed), "seed {seed}: {s:?}");
    }
}

#[test]
fn clients_get_distinct_nonzero_ids_and_closed_connections_end() {
    let (mut net, a) = network(5, bad_link());
    let (server, now) = (net.server_addr(), net.now());
    let b = net.add_client_machine(Client::new(server, Config::default(), now));
    assert!(net.run_until(Duration::from_secs(10), |net| {
        net.client(a).client_id().is_some() && net.client(b).client_id().is_some()
    }));
    let (ia, ib) = (net.client(a).client_id(), net.client(b).client_id());
    assert!(ia != ib && ia != Some(0) && ib != Some(0));
    assert_eq!(net.server().connections(), 2);
    let now = net.now();
    net.client(a).close(now);
    // ConnectionClosed may be lost: then the 32 unacknowledged packets end it on the server.
    assert!(
        net.run_until(Duration::from_secs(10), |net| net.server().connections()
            == 1)
    );
    assert_eq!(net.server().stats().closed, 1);
}

#[test]
fn a_silent_peer_is_dropped_after_32_unacknowledged_packets() {
    let (mut net, a) = network(6, LinkConfig::default());
    assert!(net.run_until(Duration::from_secs(5), |net| {
        net.client(a).client_id().is_some()
    }));
    // The server stops hearing the client: its packets go unacknowledged.
    net.set_uplink(LinkConfig {
        loss: 1.0,
        ..LinkConfig::default()
    });
    let start = net.now();
    assert!(
        net.run_until(Duration::from_secs(5), |net| net.server().connections()
            == 0)
    );
    let took = net.now() - start;
    // 32 ticks at 30 Hz, and the acknowledgement in flight.
    assert!(
        took >= Duration::from_millis(1000) && took < Duration::from_millis(1300),
        "{took:?}"
    );
    assert_eq!(net.server().stats().dropped, 1);
    // The client hears the server's ConnectionClosed, or stops hearing it: either way it ends.
    assert!(net.run_until(Duration::from_secs(5), |net| net.client(a).is_closed()));
}

#[test]
fn more_than_1024_pending_reliable_commands_end_the_connection() {
    let (mut net, a) = network(7, LinkConfig::default());
    assert!(net.run_until(Duration::from_secs(5), |net| {
        net.client(a).client_id().is_some()
    }));
    for i in 0..=MAX_PENDING_RELIABLE as u16 {
        net.client(a).send(i % 1024, &[0; 8], true).unwrap();
    }
    net.step(Duration::from_millis(100));
    let mut reason = None;
    while let Some(e) = net.client(a).poll_event() {
        if let Event::Closed(r) = e {
            reason = Some(r);
        }
    }
    assert_eq!(reason, Some(CloseReason::TooManyPending));
}
