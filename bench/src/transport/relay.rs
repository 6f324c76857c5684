//! The loss-injecting UDP relay every UDP peer goes through at 5 % loss.
//!
//! Two threads, one per direction, each blocked on one socket and forwarding on the other; a
//! datagram is dropped when a seeded SplitMix64 draw says so. Each direction has its own
//! generator, seeded the same way for every peer, so every peer sees the same sequence of drop
//! decisions (the n-th datagram in a direction is dropped or not alike for all).
//!
//! The relay must not be the bottleneck, and must not drop anything itself: its sockets have
//! 4 MiB buffers (where the OS allows), it receives with UDP GRO (a sender's GSO batch, or a
//! run of equal-sized datagrams the kernel coalesced, arrives in one call) and forwards the
//! datagrams it keeps from one received batch with one GSO send. The drop decision is still
//! made per datagram, in arrival order; a peer that sends one datagram per call is relayed one
//! datagram per call, as before. Through `quinn-udp`, which falls back to one datagram per
//! call where the platform has no GSO/GRO.
//!
//! It also counts, per direction, the datagrams it receives and their UDP payload bytes
//! ([`Relay::traffic`]): at 0 % loss it is a counting wire, which is how the `tick-10x100` case
//! measures every peer's bytes alike. A GRO batch is counted as the datagrams it holds (split
//! at its stride, as it is forwarded), so what is counted is what the sender put on the wire.

use hopnet_snow_fight::sample::SplitMix64;
use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use quinn_udp::{RecvMeta, Transmit, UdpSocketState};

/// The largest UDP datagram, and so the largest GRO batch.
const SLOT: usize = 1 << 16;
/// Datagrams per GSO send at most (Linux's limit).
const MAX_SEGMENTS: usize = 64;
/// Socket buffers asked for (capped by the OS).
const SOCKET_BUFFER: usize = 4 << 20;

/// The relay's drop decisions: hopnet-snow-fight' SplitMix64, drawn as a probability.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// One direction: its sockets, its drop decisions and its buffers.
struct Pump {
    rx: UdpSocket,
    rx_state: UdpSocketState,
    tx: UdpSocket,
    tx_state: UdpSocketState,
    rng: Rng,
    loss: f64,
    buf: Vec<u8>,
    out: Vec<u8>,
    forwarded: Arc<AtomicU64>,
    dropped: Arc<AtomicU64>,
    /// This direction's counter of [`Relay::traffic`].
    counted: Arc<Counter>,
}

/// Datagrams and their UDP payload bytes, one direction, as they arrived at the relay.
#[derive(Debug, Default)]
pub struct Counter {
    datagrams: AtomicU64,
    bytes: AtomicU64,
}

impl Counter {
    fn add(&self, bytes: usize) {
        self.datagrams.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// The counts now.
    pub fn read(&self) -> Count {
        Count {
            datagrams: self.datagrams.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

/// A reading of a [`Counter`], or the difference of two.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    /// Datagrams.
    pub datagrams: u64,
    /// Their UDP payload bytes (no IP or UDP header).
    pub bytes: u64,
}

impl Count {
    /// What was counted between `earlier` and `self`.
    pub fn since(self, earlier: Count) -> Count {
        Count {
            datagrams: self.datagrams.saturating_sub(earlier.datagrams),
            bytes: self.bytes.saturating_sub(earlier.bytes),
        }
    }
}

/// Both directions' counters.
#[derive(Debug, Default)]
pub struct Traffic {
    /// From the client to the server.
    pub to_server: Arc<Counter>,
    /// From the server to the client.
    pub to_client: Arc<Counter>,
}

impl Pump {
    fn new(
        rx: UdpSocket,
        tx: UdpSocket,
        seed: u64,
        loss: f64,
        forwarded: Arc<AtomicU64>,
        dropped: Arc<AtomicU64>,
        counted: Arc<Counter>,
    ) -> io::Result<Pump> {
        let rx_state = UdpSocketState::new((&rx).into())?;
        let tx_state = UdpSocketState::new((&tx).into())?;
        for (state, sock) in [(&rx_state, &rx), (&tx_state, &tx)] {
            let _ = state.set_recv_buffer_size(sock.into(), SOCKET_BUFFER);
            let _ = state.set_send_buffer_size(sock.into(), SOCKET_BUFFER);
        }
        Ok(Pump {
            rx,
            rx_state,
            tx,
            tx_state,
            rng: Rng::new(seed),
            loss,
            buf: vec![0; SLOT],
            out: Vec::with_capacity(SLOT),
            forwarded,
            dropped,
            counted,
        })
    }

    /// Receives one datagram or GRO batch: its source, length and stride; `None` on a timeout.
    fn recv(&mut self) -> Option<(SocketAddr, usize, usize)> {
        let mut bufs = [IoSliceMut::new(&mut self.buf)];
        let mut meta = [RecvMeta::default()];
        match self.rx_state.recv((&self.rx).into(), &mut bufs, &mut meta) {
            Ok(1) => {
                let m = meta[0];
                let len = m.len.min(SLOT);
                let stride = if m.stride == 0 { len } else { m.stride };
                Some((m.addr, len, stride))
            }
            _ => None,
        }
    }

    /// Drops or forwards each datagram of the batch just received (`len` bytes split at
    /// `stride`), in order, one draw per datagram; the kept ones leave in GSO batches.
    fn forward(&mut self, len: usize, stride: usize, to: SocketAddr) {
        let max = self.tx_state.max_gso_segments().clamp(1, MAX_SEGMENTS);
        let stride = stride.max(1);
        // An empty datagram is one datagram too.
        let n = len.div_ceil(stride).max(1);
        self.out.clear();
        let mut segment = 0;
        let mut count = 0;
        for i in 0..n {
            let d = &self.buf[(i * stride).min(len)..((i + 1) * stride).min(len)];
            self.counted.add(d.len());
            if self.rng.chance(self.loss) {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            if count > 0 && (count == max || d.len() > segment) {
                send(&self.tx, &self.tx_state, &self.out, segment, count, to);
                self.forwarded.fetch_add(count as u64, Ordering::Relaxed);
                self.out.clear();
                count = 0;
            }
            if count == 0 {
                segment = d.len();
            }
            self.out.extend_from_slice(d);
            count += 1;
        }
        if count > 0 {
            send(&self.tx, &self.tx_state, &self.out, segment, count, to);
            self.forwarded.fetch_add(count as u64, Ordering::Relaxed);
        }
    }
}

/// One send of `count` datagrams of `segment` bytes (the last may be shorter).
fn send(
    tx: &UdpSocket,
    state: &UdpSocketState,
    contents: &[u8],
    segment: usize,
    count: usize,
    to: SocketAddr,
) {
    let transmit = Transmit {
        destination: to,
        ecn: None,
        contents,
        segment_size: (count > 1).then_some(segment),
        src_ip: None,
    };
    // Until the kernel takes it: the relay itself never drops.
    while let Err(e) = state.send(tx.into(), &transmit) {
        if e.kind() != io::ErrorKind::WouldBlock {
            return;
        }
        std::thread::sleep(Duration::from_micros(20));
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
    traffic: Arc<Traffic>,
}

impl Relay {
    /// Forwards between one client (the first to send to [`Relay::addr`]) and `server`.
    pub fn spawn(server: SocketAddr, loss: f64, seed: u64) -> io::Result<Relay> {
        let front = UdpSocket::bind("127.0.0.1:0")?;
        let back = UdpSocket::bind("127.0.0.1:0")?;
        let addr = front.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let client: Arc<Mutex<Option<SocketAddr>>> = Arc::new(Mutex::new(None));
        let forwarded = Arc::new(AtomicU64::new(0));
        let dropped = Arc::new(AtomicU64::new(0));
        let traffic: Arc<Traffic> = Arc::default();
        let mut threads = Vec::new();
        let c2s = Pump::new(
            front.try_clone()?,
            back.try_clone()?,
            seed ^ 0x00c1_1e47,
            loss,
            forwarded.clone(),
            dropped.clone(),
            traffic.to_server.clone(),
        )?;
        let s2c = Pump::new(
            back.try_clone()?,
            front.try_clone()?,
            seed ^ 0x5e4e_4e40,
            loss,
            forwarded.clone(),
            dropped.clone(),
            traffic.to_client.clone(),
        )?;
        // Blocking, with a timeout to see `stop` (quinn-udp made them non-blocking): one slot
        // per receive, so a blocking `recvmmsg` returns as soon as anything (a datagram or a
        // GRO batch) is there.
        for sock in [&front, &back] {
            sock.set_nonblocking(false)?;
            sock.set_read_timeout(Some(Duration::from_millis(20)))?;
        }
        // client -> server
        {
            let mut pump = c2s;
            let (stop, client) = (stop.clone(), client.clone());
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Some((from, len, stride)) = pump.recv() else {
                        continue;
                    };
                    {
                        let mut c = client.lock().unwrap();
                        if c.is_none() {
                            *c = Some(from);
                        }
                    }
                    pump.forward(len, stride, server);
                }
            }));
        }
        // server -> client
        {
            let mut pump = s2c;
            let (stop, client) = (stop.clone(), client);
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Some((from, len, stride)) = pump.recv() else {
                        continue;
                    };
                    let Some(to) = *client.lock().unwrap() else {
                        continue;
                    };
                    if from != server {
                        continue;
                    }
                    pump.forward(len, stride, to);
                }
            }));
        }
        Ok(Relay {
            addr,
            stop,
            threads,
            forwarded,
            dropped,
            traffic,
        })
    }

    /// Where the client sends.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The datagrams and bytes received from each side so far (dropped ones included).
    pub fn traffic(&self) -> Arc<Traffic> {
        self.traffic.clone()
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
