//! What the protocols' tests share: the simulator's links, the loopback impairment, a
//! server machine on a thread, and a machine's output drained.

#![allow(dead_code)]

pub mod rtype_player;
pub mod seed_instance;
pub mod semi_ordered;
pub mod woke;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet::Machine;
use hopnet::sim::LinkConfig;
use hopnet::tokio::Driver as AsyncDriver;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::moves;

/// 20 % loss, duplication, reordering and jitter: the simulator link.
pub fn bad_link() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        duplicate: 0.05,
        reorder: 0.2,
        reorder_delay: Duration::from_millis(30),
        delay: Duration::from_millis(10),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    }
}

/// A link of 10 ms each way, give or take 5, losing `loss` of its datagrams.
pub fn lossy_link(loss: f64) -> LinkConfig {
    LinkConfig {
        loss,
        delay: Duration::from_millis(10),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    }
}

/// 10 % of a driver's outgoing datagrams dropped.
pub fn lossy(seed: u64) -> Option<Impairment> {
    Some(Impairment {
        loss: 0.1,
        seed,
        ..Impairment::default()
    })
}

/// A server on loopback, on its own thread, through 10 % loss, until it is stopped.
pub struct Served<M> {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: thread::JoinHandle<M>,
}

impl<M: Machine + Send + 'static> Served<M> {
    pub fn start(machine: M) -> Served<M> {
        let mut driver = Driver::bind("127.0.0.1:0", machine).unwrap();
        driver.set_impairment(lossy(7));
        let addr = driver.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                driver.poll(Duration::from_millis(5)).unwrap();
            }
            driver.into_machine()
        });
        Served { addr, stop, handle }
    }

    /// Stops the server; its machine, for its counts.
    pub fn stop(self) -> M {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap()
    }
}

/// Sends what `machine` has at `now` (each datagram at most `max_len` bytes), then runs its
/// timers if due.
pub fn drain<M: Machine>(machine: &mut M, now: Instant, buf: &mut Vec<u8>, max_len: usize) {
    while let Some(t) = machine.poll_transmit(now, buf, 1) {
        assert!(t.size <= max_len, "a datagram of {} bytes", t.size);
    }
    if machine.poll_timeout().is_some_and(|t| t <= now) {
        machine.handle_timeout(now);
    }
}

/// Where the first `n` of an R-TYPE player's [`moves`] take its ship, from its spawn point.
pub fn walked(n: usize) -> (i32, i32) {
    moves(n).iter().fold((0, 0), |(x, y), a| match a {
        Action::Left => (x - 1, y),
        Action::Right => (x + 1, y),
        Action::Up => (x, y - 1),
        Action::Down => (x, y + 1),
        _ => (x, y),
    })
}

/// A server machine and the client `client` makes (given the server's address), each under
/// hopnet's tokio driver on loopback, each losing 10 % of what it sends: `play` drives the
/// client while the server serves, then `inspect` reads the server's machine.
pub fn on_tokio<S: Machine, C: Machine, R>(
    server: S,
    client: impl FnOnce(SocketAddr) -> C,
    play: impl AsyncFnOnce(&mut AsyncDriver<C>),
    inspect: impl FnOnce(&mut S) -> R,
) -> R {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut server = AsyncDriver::bind("127.0.0.1:0", server).await.unwrap();
        server.set_impairment(lossy(1));
        let addr = server.local_addr().unwrap();
        let mut driver = AsyncDriver::bind("127.0.0.1:0", client(addr))
            .await
            .unwrap();
        driver.set_impairment(lossy(2));
        let serve = async {
            loop {
                server.poll(Duration::from_millis(5)).await.unwrap();
            }
        };
        tokio::select! {
            () = serve => unreachable!("the server serves until the client is done"),
            () = play(&mut driver) => {}
        }
        inspect(server.machine())
    })
}
