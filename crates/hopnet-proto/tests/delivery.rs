//! The guarantees of every delivery mode, either way, with the extensions on and off and each
//! one alone, over a simulated link that loses 20 % of datagrams, duplicates and reorders them, for many
//! seeds: reliable modes exactly once, the others at most once, reliable ordered messages in
//! the order they were sent, semi-ordered ones after every reliable message sent before them,
//! sequenced ones never after a newer one, tracked ones reported exactly once each (and an
//! acknowledged one really arrived).

mod common;

use std::collections::HashMap;
use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, ConfigBuilder, Delivery, Error, Event, MessageId, Stats};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn code(d: Delivery) -> u8 {
    Delivery::ALL.iter().position(|&m| m == d).unwrap() as u8
}

/// Message `i` of mode `d`, `len` bytes: index, mode, then a pattern.
fn message(i: u32, d: Delivery, len: usize) -> Vec<u8> {
    let mut b: Vec<u8> = (0..len.max(5))
        .map(|k| (k as u32 ^ i.wrapping_mul(31)) as u8)
        .collect();
    b[..4].copy_from_slice(&i.to_le_bytes());
    b[4] = code(d);
    b
}

fn parse(b: &[u8]) -> (u32, Delivery) {
    let i = u32::from_le_bytes(b[..4].try_into().unwrap());
    (i, Delivery::ALL[usize::from(b[4])])
}

fn lossy() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        duplicate: 0.05,
        reorder: 0.1,
        reorder_delay: Duration::from_millis(15),
        delay: Duration::from_millis(10),
        jitter: Duration::from_millis(2),
        ..LinkConfig::default()
    }
}

fn base() -> ConfigBuilder {
    // A patient client: at 20 % loss each way the handshake may take a while.
    Config::builder().connect_timeout(Duration::from_secs(60))
}

/// What one run delivered, and to whom.
struct Run {
    /// Messages in the order the receiver got them.
    order: Vec<(u32, Delivery)>,
    sent: Vec<(u32, Delivery, usize)>,
    tracked: HashMap<MessageId, u32>,
    outcomes: HashMap<u32, Vec<bool>>,
    extended: bool,
    /// The most messages the receiver held back, and the sender held, at once.
    max_held: u64,
    max_waiting: u64,
}

/// One end of the connection under test: the client, or the server's side of it.
#[derive(Clone, Copy)]
enum End {
    Client,
    Server,
}

fn events(net: &mut SimNetwork, end: End) -> Vec<Event> {
    match end {
        End::Client => std::iter::from_fn(|| net.client(0).poll_event()).collect(),
        End::Server => std::iter::from_fn(|| net.server().poll_event().map(|e| e.event)).collect(),
    }
}

fn stats(net: &mut SimNetwork, end: End) -> Option<Stats> {
    match end {
        End::Client => Some(net.client(0).stats()),
        End::Server => {
            let id = net.server().connections().next()?;
            net.server().stats(id)
        }
    }
}

fn send(net: &mut SimNetwork, from: End, bytes: &[u8], d: Delivery) -> Result<MessageId, Error> {
    match from {
        End::Client if d == Delivery::Tracked => net.client(0).send_tracked(bytes),
        End::Client => net.client(0).send(bytes, d).map(|()| MessageId(u64::MAX)),
        End::Server => {
            let id = net.server().connections().next().ok_or(Error::Closed)?;
            if d == Delivery::Tracked {
                net.server().send_tracked(id, bytes)
            } else {
                net.server()
                    .send(id, bytes, d)
                    .map(|()| MessageId(u64::MAX))
            }
        }
    }
}

/// Sends `count` messages of random modes and sizes from `from` to the other end, and runs
/// until every reliable one is acknowledged and every tracked one reported.
fn run(seed: u64, client: Config, server: Config, from: End, count: u32) -> Run {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xd311);
    let mut net = SimNetwork::new(seed, server, lossy());
    net.add_client(client);
    assert!(
        net.run_until(Duration::from_secs(60), |n| n.client(0).is_connected()),
        "seed {seed}: no connection"
    );
    // Time for the negotiation (offers are resent for a few seconds).
    net.step(Duration::from_secs(3));
    let to = match from {
        End::Client => End::Server,
        End::Server => End::Client,
    };
    let extended = net.client(0).extensions().is_some();
    let mut r = Run {
        order: Vec::new(),
        sent: Vec::new(),
        tracked: HashMap::new(),
        outcomes: HashMap::new(),
        extended,
        max_held: 0,
        max_waiting: 0,
    };
    let collect = |net: &mut SimNetwork, r: &mut Run| {
        if let Some(s) = stats(net, to) {
            r.max_held = r.max_held.max(s.held_back);
        }
        if let Some(s) = stats(net, from) {
            r.max_waiting = r.max_waiting.max(s.ordered_waiting);
        }
        for e in events(net, to) {
            if let Event::Message { bytes, .. } = e {
                let (i, d) = parse(&bytes);
                let len = r.sent[i as usize].2;
                let intact = bytes == message(i, d, len);
                assert!(intact, "seed {seed}: message {i} corrupted");
                r.order.push((i, d));
            }
        }
        for e in events(net, from) {
            let (id, acked) = match e {
                Event::Acknowledged { id } => (id, true),
                Event::Lost { id } => (id, false),
                _ => continue,
            };
            let i = r.tracked[&id];
            r.outcomes.entry(i).or_default().push(acked);
        }
    };
    for i in 0..count {
        let d = Delivery::ALL[rng.random_range(0..Delivery::ALL.len())];
        let len = match rng.random_range(0..10) {
            0 => rng.random_range(505..3000),
            1 => 5,
            _ => rng.random_range(5..400),
        };
        r.sent.push((i, d, len));
        let bytes = message(i, d, len);
        loop {
            match send(&mut net, from, &bytes, d) {
                Ok(id) => {
                    if d == Delivery::Tracked {
                        r.tracked.insert(id, i);
                    }
                    break;
                }
                Err(Error::WouldBlock) => {
                    net.step(Duration::from_millis(5));
                    collect(&mut net, &mut r);
                }
                Err(e) => panic!("seed {seed}: {e}"),
            }
        }
        if rng.random_bool(0.2) {
            net.step(Duration::from_millis(rng.random_range(0..20)));
            collect(&mut net, &mut r);
        }
    }
    let done = net.run_until(Duration::from_secs(300), |n| {
        stats(n, from).is_some_and(|s| s.pending_reliable == 0)
    });
    // Tracked reports come within their timeout; stragglers in flight arrive.
    net.step(Duration::from_secs(3));
    collect(&mut net, &mut r);
    assert!(done, "seed {seed}: reliable messages still pending");
    r
}

/// Checks every guarantee of a run.
fn check(seed: u64, r: &Run) {
    let mut at: HashMap<u32, usize> = HashMap::new();
    for (pos, &(i, d)) in r.order.iter().enumerate() {
        assert!(
            at.insert(i, pos).is_none(),
            "seed {seed}: message {i} ({d:?}) delivered twice"
        );
    }
    let mut newest_sequenced = None;
    for &(i, d) in &r.order {
        if d == Delivery::Sequenced && r.extended {
            assert!(
                newest_sequenced.is_none_or(|n| i > n),
                "seed {seed}: sequenced {i} after {newest_sequenced:?}"
            );
            newest_sequenced = Some(i);
        }
    }
    for &(i, d, _) in &r.sent {
        if d.is_reliable() {
            assert!(
                at.contains_key(&i),
                "seed {seed}: reliable {i} ({d:?}) lost"
            );
        }
        let Some(&pos) = at.get(&i) else { continue };
        // What it must follow, and that it did.
        let follows = |e: Delivery| match d {
            Delivery::ReliableOrdered => e.is_ordered(),
            Delivery::SemiOrdered => e.is_reliable(),
            _ => false,
        };
        for &(j, e, _) in &r.sent[..i as usize] {
            if follows(e) {
                let before = at.get(&j).is_some_and(|&p| p < pos);
                assert!(before, "seed {seed}: {d:?} {i} before {e:?} {j}");
            }
        }
        if d == Delivery::Tracked {
            let outcomes = r.outcomes.get(&i).map_or(&[][..], |v| &v[..]);
            assert_eq!(
                outcomes.len(),
                1,
                "seed {seed}: tracked {i} reported {outcomes:?}"
            );
        }
    }
    for (&i, outcomes) in &r.outcomes {
        if outcomes == &[true] {
            assert!(
                at.contains_key(&i),
                "seed {seed}: tracked {i} acknowledged, never arrived"
            );
        }
    }
}

fn both(b: ConfigBuilder) -> (Config, Config) {
    let c = b.build().unwrap();
    (c.clone(), c)
}

/// Runs the seeds and checks each; also that the runs held ordered messages back where the
/// wire says they are held: in the receiver with the extensions, in the sender without.
fn many_seeds(seeds: std::ops::Range<u64>, count: u32, configs: impl Fn() -> (Config, Config)) {
    let (mut held, mut waiting) = (0, 0);
    for seed in seeds {
        let (client, server) = configs();
        let want_ext = client.extensions().is_some() && server.extensions().is_some();
        // Half the seeds send from the server to the client.
        let from = if seed % 2 == 0 {
            End::Client
        } else {
            End::Server
        };
        let r = run(seed, client, server, from, count);
        check(seed, &r);
        assert_eq!(r.extended, want_ext, "seed {seed}: extended");
        held += r.max_held;
        waiting += r.max_waiting;
        if !want_ext {
            assert_eq!(
                r.max_held, 0,
                "seed {seed}: held back without order information"
            );
        }
    }
    let (c, _) = configs();
    if c.extensions().is_some() && configs().1.extensions().is_some() {
        assert!(held > 0, "no message was ever held back by the receiver");
    } else {
        assert!(waiting > 0, "no ordered message ever waited in the sender");
    }
}

#[test]
fn spec_wire_keeps_every_guarantee() {
    many_seeds(0..12, 400, || both(base()));
}

#[test]
fn extended_wire_keeps_every_guarantee() {
    many_seeds(0..12, 400, || both(base().extensions(true)));
}

#[test]
fn extended_wire_with_large_datagrams() {
    many_seeds(0..8, 400, || {
        both(base().extensions(true).max_datagram_size(1200))
    });
}

#[test]
fn each_extension_alone_and_none() {
    type Switch = fn(ConfigBuilder) -> ConfigBuilder;
    let only: [(&str, Switch); 5] = [
        ("none", |b| {
            b.batching(false)
                .ack_ranges(false)
                .crc(false)
                .compression(false)
        }),
        ("batching", |b| {
            b.ack_ranges(false).crc(false).compression(false)
        }),
        ("ack ranges", |b| {
            b.batching(false).crc(false).compression(false)
        }),
        ("crc", |b| {
            b.batching(false).ack_ranges(false).compression(false)
        }),
        ("compression", |b| {
            b.batching(false).ack_ranges(false).crc(false)
        }),
    ];
    for (name, switch) in only {
        eprintln!("{name}");
        many_seeds(0..4, 300, || both(switch(base().extensions(true))));
    }
}

#[test]
fn extended_client_and_spec_server_or_the_reverse() {
    many_seeds(0..6, 300, || {
        (
            base().extensions(true).build().unwrap(),
            base().build().unwrap(),
        )
    });
    many_seeds(0..6, 300, || {
        (
            base().build().unwrap(),
            base().extensions(true).build().unwrap(),
        )
    });
}
