//! Test peers shared by the integration tests (a module of each test crate that uses them).

#![allow(dead_code)]

pub mod original_server;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet::sim::LinkConfig;
use original_server::{OriginalServer, OriginalStats};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A simulated link that loses, reorders and duplicates these fractions of the datagrams.
pub fn lossy(loss: f64, reorder: f64, duplicate: f64) -> LinkConfig {
    LinkConfig {
        loss,
        reorder,
        duplicate,
        ..LinkConfig::default()
    }
}

/// The [`OriginalServer`] model on a real loopback socket, in a thread of its own, dropping a
/// `loss` fraction of what it sends.
pub struct OriginalOnSocket {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<OriginalStats>>,
    thread: Option<JoinHandle<()>>,
}

impl OriginalOnSocket {
    pub fn spawn(seed: u64, loss: f64) -> OriginalOnSocket {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        let addr = socket.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Arc::new(Mutex::new(OriginalStats::default()));
        let (stop2, stats2) = (stop.clone(), stats.clone());
        let thread = std::thread::spawn(move || {
            let mut server = OriginalServer::new(seed);
            let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
            let mut buf = vec![0u8; 65536];
            let mut out = Vec::new();
            while !stop2.load(Ordering::Relaxed) {
                let now = Instant::now();
                if let Ok((n, from)) = socket.recv_from(&mut buf) {
                    server.handle(now, from, &buf[..n]);
                }
                let now = Instant::now();
                if server.poll_timeout().is_some_and(|t| t <= now) {
                    server.handle_timeout(now);
                }
                while let Some(t) = server.poll_transmit(now, &mut out, 1) {
                    if !rng.random_bool(loss) {
                        let _ = socket.send_to(&out, t.destination);
                    }
                }
                *stats2.lock().unwrap() = server.stats.clone();
            }
        });
        OriginalOnSocket {
            addr,
            stop,
            stats,
            thread: Some(thread),
        }
    }

    pub fn stats(&self) -> OriginalStats {
        self.stats.lock().unwrap().clone()
    }
}

impl Drop for OriginalOnSocket {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A payload whose bytes say which message it is: its index, then the index's low byte.
pub fn payload(i: u32, len: usize) -> Vec<u8> {
    let mut bytes = vec![i as u8; len.max(4)];
    bytes[..4].copy_from_slice(&i.to_le_bytes());
    bytes
}

/// The index of a [`payload`], if its bytes are intact.
pub fn index_of(bytes: &[u8]) -> Option<u32> {
    let i = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    bytes[4..].iter().all(|&b| b == i as u8).then_some(i)
}
