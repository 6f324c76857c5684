//! Throughput of the transport: reliable 1 KiB and 64 KiB messages and unreliable 100-byte
//! messages, through the simulated link (no I/O: the cost of the protocol itself) and over
//! loopback UDP with the std driver (the cost of the syscalls too).
//!
//! `cargo bench -p netproto --bench throughput`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use netproto::io::blocking::{Client, Server};
use netproto::sim::{LinkConfig, SimNetwork};
use netproto::{Config, Delivery, Error, Event};

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

criterion_group!(benches, sim, udp);
criterion_main!(benches);
