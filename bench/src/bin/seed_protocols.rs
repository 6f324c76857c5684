//! `cargo run --release --bin seed_protocols [--quick]`: the seeds' transports of
//! `hopnet-protocols` on loopback, each end on hopnet's blocking driver on a thread of its
//! own, both ends dropping the same share of their outgoing datagrams (hopnet's
//! `Impairment`, 0 % and 5 %).
//!
//! - `semi-ordered-udp`: the contract's client sends N semi-ordered, server-targeted
//!   packages of 100 bytes; the server echoes each. Done when every echo came back.
//! - `woke`: the contract's client sends N reliable commands of 100 bytes (at most 512 in
//!   flight, as the example does); the server echoes each. WOKE sends one packet per 30 Hz
//!   tick each way, so its rate is the protocol's, not the machine's.
//!
//! A message is one echoed round trip. Messages per second: N over the wall time from the
//! first send to the last echo. CPU per message: the process's CPU time
//! (`CLOCK_PROCESS_CPUTIME_ID`, both ends and the kernel work on their threads) over N.
//! Busy-polling is off (`set_busy_poll(0)`): the drivers sleep until a datagram or a
//! deadline, so CPU is the protocols' work, not spinning. The median of 3 rounds.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet::Machine;
use hopnet_protocols::{semi_ordered_udp as sou, woke};

fn cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn impairment(loss: f64, seed: u64) -> Option<Impairment> {
    (loss > 0.0).then(|| Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// A server machine on its own thread until the flag is set.
fn serve<M: Machine + Send + 'static>(
    machine: M,
    loss: f64,
) -> (
    std::net::SocketAddr,
    Arc<AtomicBool>,
    thread::JoinHandle<()>,
) {
    let mut driver = Driver::bind("127.0.0.1:0", machine).expect("bind");
    driver.set_busy_poll(Duration::ZERO);
    driver.set_impairment(impairment(loss, 1));
    let addr = driver.local_addr().expect("addr");
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handle = thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            driver.poll(Duration::from_millis(5)).expect("poll");
        }
    });
    (addr, stop, handle)
}

/// Wall time and CPU time of one run.
type Sample = (Duration, Duration);

fn semi_ordered(count: u32, loss: f64) -> Sample {
    let (addr, stop, server) = serve(sou::Server::new(sou::Config::default()), loss);
    let client = sou::Client::new(addr, sou::Config::default(), Instant::now());
    let mut driver = Driver::bind("127.0.0.1:0", client).expect("bind");
    driver.set_busy_poll(Duration::ZERO);
    driver.set_impairment(impairment(loss, 2));
    let mut check = sou::EchoCheck::new(count, 100, sou::ClientMode::SemiOrdered);
    let (start, cpu0) = (Instant::now(), cpu());
    let mut next = 0;
    while !(next == count && check.all_reliable_back()) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{:?}",
            check.summary()
        );
        while next < count {
            let payload = check.payload(next);
            let sent = driver
                .machine()
                .send(Instant::now(), check.mode(next), true, &payload);
            if sent.is_err() {
                break;
            }
            check.sent();
            next += 1;
        }
        driver.poll(Duration::from_millis(5)).expect("poll");
        while let Some(event) = driver.machine().poll_event() {
            if let sou::Event::Delivered {
                reliability,
                payload,
                ..
            } = event
            {
                check.echo(reliability, &payload);
            }
        }
    }
    let sample = (start.elapsed(), cpu() - cpu0);
    assert!(check.succeeded(), "{:?}", check.summary());
    stop.store(true, Ordering::Relaxed);
    server.join().expect("server");
    sample
}

fn woke(count: u32, loss: f64) -> Sample {
    let (addr, stop, server) = serve(woke::Server::new(woke::Config::default()), loss);
    let client = woke::Client::new(addr, woke::Config::default(), Instant::now());
    let mut driver = Driver::bind("127.0.0.1:0", client).expect("bind");
    driver.set_busy_poll(Duration::ZERO);
    driver.set_impairment(impairment(loss, 2));
    let mut check = woke::EchoCheck::new(count, 100, true);
    let (start, cpu0) = (Instant::now(), cpu());
    let mut next = 0;
    while !check.all_back() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{:?}",
            check.summary()
        );
        while next < count && check.outstanding() < 512 {
            let (kind, data) = check.command(next);
            driver.machine().send(kind, &data, true).expect("send");
            check.sent();
            next += 1;
        }
        driver.poll(Duration::from_millis(5)).expect("poll");
        while let Some(event) = driver.machine().poll_event() {
            match event {
                woke::Event::Connected(id) => check.connected(id),
                woke::Event::Command(c) => check.echo(c.kind, &c.data, c.reliable),
                woke::Event::Closed(r) => panic!("closed: {r:?}"),
            }
        }
    }
    let sample = (start.elapsed(), cpu() - cpu0);
    assert!(check.succeeded(), "{:?}", check.summary());
    driver.machine().close(Instant::now());
    driver.flush().expect("flush");
    stop.store(true, Ordering::Relaxed);
    server.join().expect("server");
    sample
}

fn median(mut samples: Vec<Sample>) -> Sample {
    samples.sort_by_key(|s| s.0);
    samples[samples.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 1 } else { 3 };
    let (sou_count, woke_count) = if quick { (2_000, 300) } else { (20_000, 2_000) };
    println!("| protocol | loss | messages | messages/s | CPU per message |");
    println!("|---|---:|---:|---:|---:|");
    type Run = fn(u32, f64) -> Sample;
    let cases: [(&str, Run, u32); 2] = [
        ("semi-ordered-udp", semi_ordered, sou_count),
        ("woke", woke, woke_count),
    ];
    for (name, run, count) in cases {
        for loss in [0.0, 0.05] {
            let (wall, cpu) = median((0..rounds).map(|_| run(count, loss)).collect());
            let rate = f64::from(count) / wall.as_secs_f64();
            let per = cpu.as_secs_f64() * 1e6 / f64::from(count);
            println!(
                "| {name} | {:.0} % | {count} | {rate:.0} | {per:.1} µs |",
                loss * 100.0
            );
        }
    }
}
