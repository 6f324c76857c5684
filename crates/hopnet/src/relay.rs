//! A lossy UDP relay: a thread that forwards datagrams between clients and a server over real
//! sockets, dropping and delaying them on the way, so a demo or a test can run real processes
//! over a bad link.
//!
//! Clients send to the relay's address instead of the server's. For each client address the
//! relay opens its own upstream socket, so the server still sees one address per client.
//!
//! ```no_run
//! use std::time::Duration;
//! use hopnet::Impairment;
//! use hopnet::relay::Relay;
//!
//! let server = "127.0.0.1:7000".parse().unwrap();
//! let lossy = Impairment { loss: 0.1, delay: Duration::from_millis(30), ..Impairment::default() };
//! let relay = Relay::spawn("127.0.0.1:0", server, lossy).unwrap();
//! println!("connect clients to {}", relay.local_addr());
//! ```

use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::any_local;
use hopnet_proto::impairment::{Impaired, Impairment};

/// Clients a relay serves at most; datagrams from further clients are dropped.
const MAX_CLIENTS: usize = 1024;

/// Counters of a relay, readable while it runs.
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Datagrams forwarded.
    pub forwarded: AtomicU64,
    /// Datagrams dropped by the impairment (or by the relay's bounds).
    pub dropped: AtomicU64,
}

/// A datagram held back: whether it goes to the server, the client it is from or for, and
/// its bytes.
type Pending = (bool, SocketAddr, Vec<u8>);

/// A running relay; stops when dropped.
#[derive(Debug)]
pub struct Relay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    stats: Arc<RelayStats>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    /// Listens on `listen` and forwards to `server`, impairing both directions alike.
    pub fn spawn(
        listen: impl ToSocketAddrs,
        server: SocketAddr,
        impairment: Impairment,
    ) -> io::Result<Relay> {
        let front = UdpSocket::bind(listen)?;
        front.set_nonblocking(true)?;
        let addr = front.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Arc::new(RelayStats::default());
        let state = RelayLoop {
            front,
            server,
            upstream: HashMap::new(),
            impaired: Impaired::new(impairment),
            stats: stats.clone(),
            buf: vec![0; 65536],
        };
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("hopnet-relay".into())
            .spawn(move || state.run(&flag))?;
        Ok(Relay {
            addr,
            stop,
            stats,
            thread: Some(thread),
        })
    }

    /// The address clients should send to.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The relay's counters.
    pub fn stats(&self) -> &RelayStats {
        &self.stats
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct RelayLoop {
    front: UdpSocket,
    server: SocketAddr,
    upstream: HashMap<SocketAddr, UdpSocket>,
    impaired: Impaired<Pending>,
    stats: Arc<RelayStats>,
    buf: Vec<u8>,
}

impl RelayLoop {
    fn run(mut self, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            let mut busy = false;
            while let Ok((n, client)) = self.front.recv_from(&mut self.buf) {
                busy = true;
                if !self.upstream.contains_key(&client) {
                    if self.upstream.len() >= MAX_CLIENTS {
                        self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    let Ok(sock) = UdpSocket::bind(any_local(self.server)) else {
                        continue;
                    };
                    if sock.set_nonblocking(true).is_err() {
                        continue;
                    }
                    self.upstream.insert(client, sock);
                }
                let bytes = self.buf[..n].to_vec();
                self.enqueue(true, client, bytes);
            }
            let mut from_server = Vec::new();
            for (client, sock) in &self.upstream {
                while let Ok((n, from)) = sock.recv_from(&mut self.buf) {
                    if from == self.server {
                        from_server.push((*client, self.buf[..n].to_vec()));
                    }
                }
            }
            for (client, bytes) in from_server {
                busy = true;
                self.enqueue(false, client, bytes);
            }
            let now = Instant::now();
            while let Some((to_server, client, bytes)) = self.impaired.pop_due(now) {
                busy = true;
                let sent = if to_server {
                    self.upstream
                        .get(&client)
                        .map(|s| s.send_to(&bytes, self.server))
                } else {
                    Some(self.front.send_to(&bytes, client))
                };
                if matches!(sent, Some(Ok(_))) {
                    self.stats.forwarded.fetch_add(1, Ordering::Relaxed);
                } else {
                    self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            if !busy {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }

    fn enqueue(&mut self, to_server: bool, client: SocketAddr, bytes: Vec<u8>) {
        match self.impaired.draw(Instant::now()) {
            Some(at) => self.impaired.hold(at, (to_server, client, bytes)),
            None => {
                self.stats.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}
