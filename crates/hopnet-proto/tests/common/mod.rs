//! Test peers shared by the integration tests (a module of each test crate that uses them).

#![allow(dead_code)]

pub mod echo_out;
pub mod original_server;
pub mod same_pepper_server;
pub mod secure;
pub mod servers;
pub mod strict_server;

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hopnet_proto::Machine;
use hopnet_proto::sim::{Batch, LinkConfig};
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

/// A server [`Machine`] (a model, or our [`hopnet_proto::Server`] wrapped as one) on a real
/// loopback socket, in a thread of its own, dropping a `loss` fraction of what it sends.
pub struct OnSocket<M: Machine + Send + 'static> {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<M>>,
}

impl<M: Machine + Send + 'static> OnSocket<M> {
    pub fn spawn(mut server: M, seed: u64, loss: f64) -> OnSocket<M> {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        let addr = socket.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
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
            }
            server
        });
        OnSocket {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the thread and hands back the server, for its statistics.
    pub fn stop(mut self) -> M {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().expect("running");
        thread.join().expect("the server thread")
    }
}

impl<M: Machine + Send + 'static> Drop for OnSocket<M> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The datagrams of `batches` sent from `from`.
pub fn sent_by(batches: &[Batch], from: SocketAddr) -> Vec<Vec<u8>> {
    batches
        .iter()
        .filter(|b| b.from == from)
        .flat_map(|b| b.datagrams().map(<[u8]>::to_vec).collect::<Vec<_>>())
        .collect()
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
