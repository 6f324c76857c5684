//! Throughput of the transport: reliable 1 KiB and 64 KiB messages and unreliable 100-byte
//! messages, through the simulated link (no I/O: the cost of the protocol itself) and over
//! loopback UDP with the std driver (the cost of the syscalls too); the receive path alone,
//! with the delivered buffers dropped or handed back (`recycle`); and the send path alone.
//!
//! `cargo bench -p hopnet --bench throughput`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hopnet::sim::{LinkConfig, Pair, SimNetwork};
use hopnet::{Client, Server};
use hopnet::{Config, Delivery, Error, Event, Machine};

const CASES: [(&str, usize, Delivery, usize); 3] = [
    ("reliable_1KiB", 1024, Delivery::Reliable, 256),
    ("reliable_64KiB", 64 * 1024, Delivery::Reliable, 16),
    ("unreliable_100B", 100, Delivery::Unreliable, 1024),
];

fn config() -> Config {
    Config::builder()
        .max_window(1024)
        .initial_window(64)
        .build()
        .expect("valid config")
}

/// Sends `batch` messages client → server through the simulated link and runs it until the
/// server has all of them.
fn sim(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    for (name, size, delivery, batch) in CASES {
        group.throughput(Throughput::Bytes((size * batch) as u64));
        let link = LinkConfig {
            delay: Duration::from_micros(100),
            ..LinkConfig::default()
        };
        let mut net = SimNetwork::new(1, config(), link);
        let client = net.add_client(config());
        assert!(net.run_until(Duration::from_secs(5), |n| n.client(client).is_connected()));
        let payload = vec![0x5a; size];
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let mut sent = 0;
                let mut got = 0;
                while got < batch {
                    while sent < batch {
                        match net.client(client).send(&payload, delivery) {
                            Ok(()) => sent += 1,
                            Err(Error::WouldBlock) => break,
                            Err(e) => panic!("{e}"),
                        }
                    }
                    net.step(Duration::from_micros(100));
                    while let Some(e) = net.server().poll_event() {
                        if matches!(e.event, Event::Message { .. }) {
                            got += 1;
                        }
                    }
                }
            })
        });
    }
    group.finish();
}

/// The same over loopback UDP: a server thread counts what arrives, the client sends a batch
/// and polls until the server has it (unreliable: until it has it or nothing arrived for 1 ms;
/// the share that arrived is printed at the end, since the kernel drops what overflows the
/// receive buffer).
fn udp(c: &mut Criterion) {
    let mut group = c.benchmark_group("udp");
    group.sample_size(10);
    for (name, size, delivery, batch) in CASES {
        group.throughput(Throughput::Bytes((size * batch) as u64));
        let mut server = Server::bind("127.0.0.1:0", config()).expect("bind");
        let addr = server.local_addr().expect("addr");
        let received = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (received, stop) = (received.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    server.poll(Duration::from_millis(1)).expect("poll");
                    while let Some(e) = server.poll_event() {
                        if let Event::Message { .. } = e.event {
                            received.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        };
        let mut client = Client::connect(addr, config()).expect("connect");
        client.wait_connected().expect("connected");
        let payload = vec![0x5a; size];
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let target = received.load(Ordering::Relaxed) + batch as u64;
                let mut sent = 0;
                let mut last = received.load(Ordering::Relaxed);
                let mut last_change = std::time::Instant::now();
                loop {
                    while sent < batch {
                        match client.send(&payload, delivery) {
                            Ok(()) => sent += 1,
                            Err(Error::WouldBlock) => break,
                            Err(e) => panic!("{e}"),
                        }
                    }
                    client.poll(Duration::from_micros(100)).expect("poll");
                    let now = received.load(Ordering::Relaxed);
                    if now >= target {
                        break;
                    }
                    if now != last {
                        last = now;
                        last_change = std::time::Instant::now();
                    } else if delivery == Delivery::Unreliable
                        && sent == batch
                        && last_change.elapsed() > Duration::from_millis(1)
                    {
                        break;
                    }
                }
            })
        });
        let s = client.stats();
        eprintln!(
            "udp/{name}: {} of {} messages arrived; {} packets sent, {} retransmissions, {} chunks lost, srtt {:?}",
            received.load(Ordering::Relaxed),
            s.messages_sent,
            s.packets_sent,
            s.retransmissions,
            s.chunks_lost,
            s.smoothed_rtt
        );
        stop.store(true, Ordering::Relaxed);
        thread.join().expect("server thread");
    }
    group.finish();
}

/// The configuration of the transport suite's `hopnet` rows: the extensions, QUIC's
/// 1,200-byte datagram, no LZ4 (the payloads are one byte repeated).
fn extended_1200() -> hopnet::ConfigBuilder {
    Config::builder()
        .extensions(true)
        .compression(false)
        .max_datagram_size(1200)
}

/// The receive path alone, timed from the datagrams to the application done with the
/// messages: a client takes a burst of 64 reliable 1 KiB messages, each in one 1,200-byte
/// extended datagram, and drops or recycles each message once read. Only the client's
/// `handle`, `poll_event` and the drop or `recycle` are timed; the server's sending and the
/// acknowledgements going back are not.
fn receive(c: &mut Criterion) {
    const BURST: usize = 64;
    const LEN: usize = 1024;
    let mut group = c.benchmark_group("receive");
    group.throughput(Throughput::Bytes((BURST * LEN) as u64));
    let config = extended_1200()
        .initial_window(BURST as u32)
        .pacing(false)
        .build()
        .expect("valid config");
    for recycled in [false, true] {
        let mut pair = Pair::new(config.clone());
        pair.drive();
        assert!(pair.client().extensions().is_some());
        let (id, server) = (pair.id(), pair.server_addr());
        let payload = vec![0x5a; LEN];
        let name = if recycled {
            "1KiB_recycled"
        } else {
            "1KiB_dropped"
        };
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    for _ in 0..BURST {
                        pair.server()
                            .send(id, &payload, Delivery::Reliable)
                            .expect("room for a burst");
                    }
                    let now = pair.now();
                    let batches = pair.take_outgoing();
                    let start = Instant::now();
                    let mut got = 0;
                    for batch in batches.iter().filter(|b| b.from == server) {
                        for datagram in batch.datagrams() {
                            pair.client().handle(now, server, datagram);
                        }
                    }
                    while let Some(e) = pair.client().poll_event() {
                        if let Event::Message { bytes, .. } = e {
                            got += 1;
                            if recycled {
                                pair.client().recycle(bytes);
                            }
                        }
                    }
                    timed += start.elapsed();
                    assert_eq!(got, BURST);
                    // The acknowledgements go back; a millisecond passes for the delayed ones.
                    pair.step(Duration::from_millis(1));
                }
                timed
            })
        });
    }
    group.finish();
}

/// The send path alone, as `receive` is the receive path: a client queues a burst of 64
/// reliable 1 KiB messages, writes them in GSO-shaped batches (one 1,200-byte extended
/// datagram each), and reads the acknowledgements that answer them. Only the client's `send`,
/// `poll_transmit` and its `handle` of the acknowledgements are timed; the server's receiving
/// and its acknowledging are not. Time is the bench's own virtual clock, moved on by 2 ms a
/// burst, so that the delayed acknowledgements leave and the pacer refills.
fn send(c: &mut Criterion) {
    const BURST: usize = 64;
    const LEN: usize = 1024;
    let mut group = c.benchmark_group("send");
    group.throughput(Throughput::Bytes((BURST * LEN) as u64));
    let config = extended_1200().build().expect("valid config");
    let mut pair = Pair::new(config);
    pair.drive();
    assert!(pair.client().extensions().is_some());
    let (client, server) = (pair.client_addr(), pair.server_addr());
    let payload = vec![0x5a; LEN];
    let mut now = pair.now();
    let mut out = Vec::new();
    let mut batches: Vec<(Vec<u8>, hopnet::Transmit)> = Vec::new();
    let mut acks: Vec<Vec<u8>> = Vec::new();
    group.bench_function(BenchmarkId::from_parameter("1KiB"), |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                for _ in 0..BURST {
                    pair.client()
                        .send(&payload, Delivery::Reliable)
                        .expect("room for a burst");
                }
                timed += start.elapsed();
                // Until the server has the burst: a fresh connection's window and pacer let
                // only part of it go at first.
                let mut got = 0;
                for _ in 0..1000 {
                    if got == BURST {
                        break;
                    }
                    let start = Instant::now();
                    let mut used = 0;
                    loop {
                        if used == batches.len() {
                            batches.push((
                                Vec::new(),
                                hopnet::Transmit {
                                    destination: server,
                                    size: 0,
                                    segment_size: 0,
                                },
                            ));
                        }
                        let (buf, transmit) = &mut batches[used];
                        match pair.client().poll_transmit(now, buf, 64) {
                            Some(t) => *transmit = t,
                            None => break,
                        }
                        used += 1;
                    }
                    timed += start.elapsed();
                    // The server reads and acknowledges (not timed).
                    for (buf, transmit) in &batches[..used] {
                        for datagram in transmit.split(buf) {
                            pair.server().handle(now, client, datagram);
                        }
                    }
                    while let Some(e) = pair.server().poll_event() {
                        if let Event::Message { bytes, .. } = e.event {
                            got += 1;
                            pair.server().recycle(bytes);
                        }
                    }
                    now += Duration::from_millis(2);
                    pair.server().handle_timeout(now);
                    acks.clear();
                    while let Some(t) = pair.server().poll_transmit(now, &mut out, 64) {
                        acks.extend(t.split(&out).map(<[u8]>::to_vec));
                    }
                    let start = Instant::now();
                    for datagram in &acks {
                        pair.client().handle(now, server, datagram);
                    }
                    timed += start.elapsed();
                    pair.client().handle_timeout(now);
                }
                assert_eq!(got, BURST, "the server has the burst");
            }
            timed
        })
    });
    group.finish();
}

/// One unreliable 100-byte echo, client → server → client, with each side called as the std
/// driver calls it on a round of I/O: its timers, its datagrams, the application's events and
/// answer, everything it has to send, and when it next needs a call. No sockets: the cost of the
/// protocol on a round trip's way, for the spec's wire and the extended one side by side.
fn echo(c: &mut Criterion) {
    let mut group = c.benchmark_group("echo");
    let configs = [
        ("100B_spec", Config::default()),
        (
            "100B_extended",
            extended_1200().build().expect("valid config"),
        ),
    ];
    for (name, config) in configs {
        let extended = config.extensions().is_some();
        let mut pair = Pair::new(config);
        pair.drive();
        assert_eq!(pair.client().extensions().is_some(), extended);
        let (id, client, server) = (pair.id(), pair.client_addr(), pair.server_addr());
        let ping = vec![0x5a; 100];
        let mut now = pair.now();
        let mut out = Vec::new();
        // The datagrams on their way, end to end in one buffer, and where each ends: reused,
        // so that the bench allocates nothing per echo of its own.
        let mut carried: Vec<u8> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                now += Duration::from_micros(10);
                // The client sends (its `send`: queue, then flush).
                pair.client()
                    .send(&ping, Delivery::Unreliable)
                    .expect("unreliable send");
                carry(
                    &mut carried,
                    &mut ends,
                    |buf| pair.client().poll_transmit(now, buf, 64),
                    &mut out,
                );
                // The server's round: timers, datagrams, the echo, its flush, its next timer.
                pair.server().handle_timeout(now);
                for datagram in carried_datagrams(&carried, &ends) {
                    pair.server().handle(now, client, datagram);
                }
                while let Some(e) = pair.server().poll_event() {
                    if let Event::Message { bytes, .. } = e.event {
                        pair.server()
                            .send(id, &bytes, Delivery::Unreliable)
                            .expect("unreliable send");
                        pair.server().recycle(bytes);
                    }
                }
                carry(
                    &mut carried,
                    &mut ends,
                    |buf| pair.server().poll_transmit(now, buf, 64),
                    &mut out,
                );
                std::hint::black_box(pair.server().poll_timeout());
                // The client's round.
                pair.client().handle_timeout(now);
                for datagram in carried_datagrams(&carried, &ends) {
                    pair.client().handle(now, server, datagram);
                }
                let mut got = 0;
                while let Some(e) = pair.client().poll_event() {
                    if let Event::Message { bytes, .. } = e {
                        got += 1;
                        pair.client().recycle(bytes);
                    }
                }
                while pair.client().poll_transmit(now, &mut out, 64).is_some() {}
                std::hint::black_box(pair.client().poll_timeout());
                assert_eq!(got, 1, "the echo came back");
            })
        });
    }
    group.finish();
}

/// Takes every datagram `poll` writes into `out` and keeps them in `carried`, end to end.
fn carry(
    carried: &mut Vec<u8>,
    ends: &mut Vec<usize>,
    mut poll: impl FnMut(&mut Vec<u8>) -> Option<hopnet::Transmit>,
    out: &mut Vec<u8>,
) {
    carried.clear();
    ends.clear();
    while let Some(t) = poll(out) {
        for datagram in t.split(out) {
            carried.extend_from_slice(datagram);
            ends.push(carried.len());
        }
    }
}

/// The datagrams `carry` kept.
fn carried_datagrams<'a>(carried: &'a [u8], ends: &'a [usize]) -> impl Iterator<Item = &'a [u8]> {
    ends.iter().scan(0, move |start, &end| {
        Some(&carried[std::mem::replace(start, end)..end])
    })
}

criterion_group!(benches, sim, udp, receive, send, echo);
criterion_main!(benches);
