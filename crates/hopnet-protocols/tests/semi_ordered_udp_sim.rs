//! Semi-ordered UDP in hopnet's simulator: 20 % loss both ways, duplication and reordering,
//! many seeds, every mode, across the 24-bit wrap; echoes and forwards.

use std::time::Duration;

use hopnet::sim::SimNetwork;

mod common;
use common::bad_link;
use hopnet_protocols::semi_ordered_udp::{
    Client, ClientMode, Config, EchoCheck, Event, Reliability, SendError, Server,
};

type Net = SimNetwork<Server, Client>;

fn network(seed: u64, config: &Config) -> (Net, usize) {
    let mut net: Net = SimNetwork::with_machines(seed, Server::new(config.clone()), bad_link());
    let client = Client::new(net.server_addr(), config.clone(), net.now());
    let i = net.add_client_machine(client);
    (net, i)
}

/// Sends what the client's window takes, and takes the echoes in.
fn pump(net: &mut Net, i: usize, check: &mut EchoCheck, next: &mut u32, count: u32) {
    let now = net.now();
    while *next < count {
        let payload = check.payload(*next);
        let mode = check.mode(*next);
        match net.client(i).send(now, mode, true, &payload) {
            Ok(_) => {
                check.sent();
                *next += 1;
            }
            Err(SendError::WouldBlock) => break,
            Err(e) => panic!("{e}"),
        }
    }
    while let Some(event) = net.client(i).poll_event() {
        match event {
            Event::Delivered {
                reliability,
                server_targeted,
                payload,
                ..
            } => {
                assert!(!server_targeted, "echoes carry server-targeted 0");
                check.echo(reliability, &payload);
            }
            Event::Forgotten => panic!("the server was forgotten"),
        }
    }
}

fn run_echo(seed: u64, mode: ClientMode, count: u32, config: Config) -> EchoCheck {
    let (mut net, i) = network(seed, &config);
    let mut check = EchoCheck::new(count, 64, mode);
    let mut next = 0;
    let finished = net.run_until(Duration::from_secs(120), |net| {
        pump(net, i, &mut check, &mut next, count);
        next == count && check.all_reliable_back()
    });
    assert!(finished, "seed {seed} {mode:?}: {:?}", check.summary());
    // Let unreliable echoes and the last confirmations arrive.
    net.step(Duration::from_millis(500));
    pump(&mut net, i, &mut check, &mut next, count);
    check
}

#[test]
fn every_mode_survives_a_bad_link_over_many_seeds() {
    for seed in 0..12 {
        for mode in [
            ClientMode::Unordered,
            ClientMode::SemiOrdered,
            ClientMode::Mixed,
        ] {
            let check = run_echo(seed, mode, 150, Config::default());
            assert!(
                check.succeeded(),
                "seed {seed} {mode:?}: {:?}",
                check.summary()
            );
        }
    }
}

#[test]
fn unreliable_packages_come_back_at_most_as_the_link_allows() {
    for seed in 0..4 {
        let check = run_echo(seed, ClientMode::Unreliable, 300, Config::default());
        let s = check.summary();
        assert_eq!((s.sent, s.reliable, check.corrupt()), (300, 0, 0));
        // 20 % loss each way leaves about 64 % (duplicates are counted once).
        assert!((120..=260).contains(&s.echoed), "{s:?}");
    }
}

#[test]
fn semi_order_holds_across_the_24_bit_wrap() {
    for seed in 0..6 {
        for start in [0xff_ff00, 0xff_fff0, 0xff_ffff] {
            let check = run_echo(seed, ClientMode::Mixed, 400, Config::starting_at(start));
            assert!(
                check.succeeded(),
                "seed {seed} start {start}: {:?}",
                check.summary()
            );
            let check = run_echo(
                seed,
                ClientMode::SemiOrdered,
                300,
                Config::starting_at(start),
            );
            assert!(
                check.succeeded(),
                "seed {seed} start {start}: {:?}",
                check.summary()
            );
        }
    }
}

#[test]
fn packages_not_for_the_server_are_forwarded_to_every_other_peer() {
    for seed in 0..6 {
        let config = Config::default();
        let (mut net, a) = network(seed, &config);
        let b = net.add_client_machine(Client::new(net.server_addr(), config.clone(), net.now()));
        let c = net.add_client_machine(Client::new(net.server_addr(), config.clone(), net.now()));
        // Each makes itself known with one reliable package for the server.
        for peer in [a, b, c] {
            let now = net.now();
            net.client(peer)
                .send(now, Reliability::Unordered, true, b"hello")
                .unwrap();
        }
        assert!(net.run_until(Duration::from_secs(30), |net| {
            net.server().peers() == 3 && [a, b, c].iter().all(|&p| net.client(p).unconfirmed() == 0)
        }));
        let count = 200u32;
        let mut sent = 0u32;
        let mut got = [Vec::new(), Vec::new()];
        let done = net.run_until(Duration::from_secs(120), |net| {
            let now = net.now();
            while sent < count {
                let mode = if sent.is_multiple_of(2) {
                    Reliability::SemiOrdered
                } else {
                    Reliability::Unordered
                };
                match net.client(a).send(now, mode, false, &sent.to_be_bytes()) {
                    Ok(_) => sent += 1,
                    Err(_) => break,
                }
            }
            while let Some(Event::Delivered { payload, .. }) = net.client(a).poll_event() {
                assert_eq!(
                    payload, b"hello",
                    "only its own greeting comes back to the sender"
                );
            }
            for (k, peer) in [b, c].into_iter().enumerate() {
                while let Some(Event::Delivered {
                    reliability,
                    payload,
                    ..
                }) = net.client(peer).poll_event()
                {
                    if payload != b"hello" {
                        let i = u32::from_be_bytes(payload[..4].try_into().unwrap());
                        assert_eq!(reliability == Reliability::SemiOrdered, i.is_multiple_of(2));
                        got[k].push(i);
                    }
                }
            }
            got.iter().all(|g| g.len() == count as usize)
        });
        assert!(done, "seed {seed}: {} {}", got[0].len(), got[1].len());
        for g in &got {
            let mut sorted = g.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), count as usize, "each forward once");
            // A semi-ordered forward comes after every forward sent before it.
            for (pos, &i) in g.iter().enumerate() {
                if i.is_multiple_of(2) {
                    let before = g[..pos].iter().filter(|&&j| j < i).count();
                    assert_eq!(before, i as usize, "seed {seed}: {i} came early");
                }
            }
        }
        assert_eq!(net.server().stats().forwarded, 2 * u64::from(count));
    }
}

/// A client whose window is wider than the server's: under loss, more packages wait at the
/// server behind a missing one than the server could echo at once. The missing one must still
/// be taken (what it releases is echoed beyond the limit), or everything waits forever.
#[test]
fn a_wide_client_window_does_not_deadlock_the_server() {
    for seed in 0..3 {
        let wide = Config {
            max_unconfirmed: 4096,
            ..Config::default()
        };
        let mut net: Net =
            SimNetwork::with_machines(seed, Server::new(Config::default()), bad_link());
        let (server, now) = (net.server_addr(), net.now());
        let i = net.add_client_machine(Client::new(server, wide, now));
        let count = 3000;
        let mut check = EchoCheck::new(count, 32, ClientMode::SemiOrdered);
        let mut next = 0;
        let done = net.run_until(Duration::from_secs(120), |net| {
            pump(net, i, &mut check, &mut next, count);
            next == count && check.all_reliable_back()
        });
        assert!(done, "seed {seed}: {:?}", check.summary());
        assert!(check.succeeded(), "seed {seed}: {:?}", check.summary());
        assert_eq!(net.server().stats().dropped, 0);
    }
}
