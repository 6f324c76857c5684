//! The loss-injecting UDP relay every UDP peer goes through at 5 % loss.
//!
//! Two threads, one per direction, each blocked in `recv_from` on one socket and forwarding on
//! the other; a datagram is dropped when a seeded SplitMix64 draw says so. Each direction has
//! its own generator, seeded the same way for every peer, so every peer sees the same sequence
//! of drop decisions (the n-th datagram in a direction is dropped or not alike for all).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// SplitMix64, as in `game_messages::sample`.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// A running relay; stops when dropped.
pub struct Relay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Datagrams forwarded and dropped, both directions.
    pub forwarded: Arc<AtomicU64>,
    /// Datagrams dropped.
    pub dropped: Arc<AtomicU64>,
}

impl Relay {
    /// Forwards between one client (the first to send to [`Relay::addr`]) and `server`.
    pub fn spawn(server: SocketAddr, loss: f64, seed: u64) -> io::Result<Relay> {
        let front = UdpSocket::bind("127.0.0.1:0")?;
        let back = UdpSocket::bind("127.0.0.1:0")?;
        front.set_read_timeout(Some(Duration::from_millis(20)))?;
        back.set_read_timeout(Some(Duration::from_millis(20)))?;
        let addr = front.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let client: Arc<Mutex<Option<SocketAddr>>> = Arc::new(Mutex::new(None));
        let forwarded = Arc::new(AtomicU64::new(0));
        let dropped = Arc::new(AtomicU64::new(0));
        let mut threads = Vec::new();
        // client -> server
        {
            let (rx, tx) = (front.try_clone()?, back.try_clone()?);
            let (stop, client) = (stop.clone(), client.clone());
            let (fw, dr) = (forwarded.clone(), dropped.clone());
            threads.push(std::thread::spawn(move || {
                let mut rng = Rng::new(seed ^ 0x00c1_1e47);
                let mut buf = vec![0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok((n, from)) = rx.recv_from(&mut buf) else {
                        continue;
                    };
                    {
                        let mut c = client.lock().unwrap();
                        if c.is_none() {
                            *c = Some(from);
                        }
                    }
                    if rng.chance(loss) {
                        dr.fetch_add(1, Ordering::Relaxed);
                    } else if tx.send_to(&buf[..n], server).is_ok() {
                        fw.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        // server -> client
        {
            let (rx, tx) = (back, front);
            let (stop, client) = (stop.clone(), client);
            let (fw, dr) = (forwarded.clone(), dropped.clone());
            threads.push(std::thread::spawn(move || {
                let mut rng = Rng::new(seed ^ 0x5e4e_4e40);
                let mut buf = vec![0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok((n, from)) = rx.recv_from(&mut buf) else {
                        continue;
                    };
                    let Some(to) = *client.lock().unwrap() else {
                        continue;
                    };
                    if from != server {
                        continue;
                    }
                    if rng.chance(loss) {
                        dr.fetch_add(1, Ordering::Relaxed);
                    } else if tx.send_to(&buf[..n], to).is_ok() {
                        fw.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        Ok(Relay {
            addr,
            stop,
            threads,
            forwarded,
            dropped,
        })
    }

    /// Where the client sends.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
