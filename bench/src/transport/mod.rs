//! The transport suite: hopnet and its peers over loopback UDP (TCP as the kernel's
//! baseline), each through its own idiomatic API, in one process: a server thread and a client
//! thread per case, fresh sockets and a fresh connection each time (the handshake is not timed).
//! The floor, `udp-floor` ([`udp_floor_peer`]), is bare UDP doing hopnet's least per message:
//! what the machine allows a UDP transport, run as a peer so every row has a share of it.
//!
//! - reliable 1 KiB and 64 KiB messages, one way, as fast as the peer's API lets the client
//!   queue them: time from the first send to the receiver holding the last message, reported as
//!   time per message (the JSON's `median_ns`), messages/s and MB/s (10^6 bytes of payload);
//! - at 0 % loss the peers talk directly over loopback; at 5 % loss every UDP peer goes
//!   through the same seeded loss-injecting relay ([`relay`]); TCP and the floor run at 0 %
//!   only;
//! - unreliable 100-byte messages: a ping-pong echo, one message in flight, RTT p50 and p99;
//! - `tick-10x100` ([`tick`]): a game's 60 Hz traffic both ways, in wire bytes per tick;
//! - `fanout-1000` ([`fanout`]): one hopnet server sending 30 Hz snapshots to 1,000 clients,
//!   in server CPU time per second; `fanout-4000` and its worker variants
//!   ([`fanout_case`], [`fanout_workers`]): 4,000 clients on one and two workers, in server
//!   CPU time per delivered snapshot.
//!
//! A case is bounded by a deadline; a peer that has not delivered everything by then is
//! reported with what it delivered, marked incomplete.
//!
//! For profiling one case alone (under `strace -c` or `perf`), the environment variable
//! `BENCH_TRANSPORT_CASES` (comma-separated names, e.g. `reliable-1k,rtt`) limits the cases, and
//! `BENCH_RELIABLE_SCALE` (a whole number) multiplies the reliable cases' message counts, for a
//! transfer long enough to measure the steady state.

pub mod bare_udp;
pub mod fanout;
pub mod fanout_case;
pub mod fanout_clients;
pub mod fanout_run;
pub mod fanout_workers;
pub mod hopnet_peer;
pub mod laminar_peer;
pub mod quinn_peer;
pub mod relay;
pub mod renet_peer;
pub mod tcp_peer;
pub mod tick;
pub mod tick_case;
pub mod udp_floor_peer;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::report::{Row, median, quantile};
use fanout_case::FanoutCase;
use relay::Relay;
use tick_case::TickCase;

/// The peer every row's share is of: what the machine allows.
pub use udp_floor_peer::NAME as FLOOR;

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Interleaved rounds.
    pub rounds: usize,
    /// Short cases.
    pub quick: bool,
    /// Only these peers (empty: all).
    pub only: Vec<String>,
    /// Run every peer's client on one core and its server on the other (`pin`).
    pub pin: bool,
}

/// The core of every peer's client thread (the harness's own thread) and of its server thread,
/// when pinning.
const CLIENT_CORE: usize = 0;
const SERVER_CORE: usize = 1;

/// Whether [`spawn_server`] pins (set once by [`run`]).
static PIN: AtomicBool = AtomicBool::new(false);

/// Puts the calling thread on `core`, best effort (a machine with one core, or a platform
/// without affinity, runs unpinned).
///
/// Why pin: on this 2-core virtual machine the scheduler sometimes leaves a peer's client and
/// server on one core for a whole round (a woken thread goes where its waker runs), and then
/// every peer's throughput falls to what `taskset -c 0` gives (BENCHMARKS.md, "Figures from code
/// comments"), so the medians measured the scheduler's luck. Pinned, each side
/// has a core of its own, as two hosts would; every peer is pinned alike. The relay threads
/// of the lossy cases are not pinned.
fn pin(core: usize) {
    // The machine's cores, read before any pinning: the list comes from the calling thread's
    // affinity, which a thread spawned by a pinned one inherits.
    static CORES: std::sync::OnceLock<Vec<core_affinity::CoreId>> = std::sync::OnceLock::new();
    let ids = CORES.get_or_init(|| core_affinity::get_core_ids().unwrap_or_default());
    if ids.len() > SERVER_CORE
        && let Some(id) = ids.get(core)
    {
        core_affinity::set_for_current(*id);
    }
}

/// Spawns a peer's server thread, on `SERVER_CORE` when pinning.
pub fn spawn_server<F, T>(f: F) -> std::thread::JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::spawn(move || {
        if PIN.load(Ordering::Relaxed) {
            pin(SERVER_CORE);
        }
        f()
    })
}

/// A reliable case's server thread, running, and what its client needs.
pub struct ReliableServer {
    /// The state both threads share.
    pub shared: Arc<Shared>,
    /// Where the client sends: the server, or the relay in front of it.
    pub target: SocketAddr,
    /// The lossy relay, when there is one; dropped when the case ends.
    pub relay: Option<Relay>,
    /// The server thread.
    pub thread: std::thread::JoinHandle<Result<(), String>>,
}

/// Starts the server thread of a reliable case, whose socket is bound at `addr`: routes the
/// client through the relay when `p.loss` asks for one, and runs `serve(shared, give_up)`,
/// where `give_up` leaves a few seconds past the deadline for the last deliveries.
pub fn start_reliable(
    addr: SocketAddr,
    p: &Params,
    serve: impl FnOnce(&Shared, Instant) -> Result<(), String> + Send + 'static,
) -> Result<ReliableServer, String> {
    let (target, relay) = route(addr, p.loss, p.seed)?;
    let shared = Shared::new();
    let sh = shared.clone();
    let grace = p.deadline + Duration::from_secs(5);
    let thread = spawn_server(move || serve(&sh, Instant::now() + grace));
    Ok(ReliableServer {
        shared,
        target,
        relay,
        thread,
    })
}

impl ReliableServer {
    /// Ends the case once its client is done with `client`: see [`Shared::finish`].
    pub fn finish(self, client: Result<(), String>, p: &Params) -> Result<Outcome, String> {
        self.shared
            .finish(self.thread, self.relay, client, p.count, p.deadline)
    }
}

/// One reliable-throughput case.
#[derive(Debug, Clone)]
pub struct Params {
    /// Bytes per message.
    pub size: usize,
    /// Messages to deliver.
    pub count: u64,
    /// Loss rate injected by the relay (0: direct).
    pub loss: f64,
    /// The relay's seed.
    pub seed: u64,
    /// How long the timed phase may take.
    pub deadline: Duration,
}

/// What a reliable case measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// From the first send to the last delivery (or the deadline).
    pub elapsed: Duration,
    /// Messages the receiver got.
    pub delivered: u64,
    /// Messages it should have got.
    pub wanted: u64,
}

/// The state a server and a client thread share during a reliable case.
///
/// The receiver counts every message, so its counter has a cache line of its own: on the line
/// the sender reads (`done`, the start time), each count would take the line from the sender's
/// core, and the harness would slow the peer it measures (BENCHMARKS.md, "Stop 23").
#[derive(Debug, Default)]
pub struct Shared {
    /// Messages delivered to the receiver.
    pub delivered: OwnLine<AtomicU64>,
    /// Set when every message arrived, or the case is over.
    pub done: AtomicBool,
    /// Set once, before the first send; read without a lock by the sender's deadline check.
    started: OnceLock<Instant>,
    finished: Mutex<Option<Instant>>,
}

/// A value alone on its cache line (128 bytes: two lines, for the adjacent-line prefetcher).
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct OwnLine<T>(pub T);

impl<T> std::ops::Deref for OwnLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl Shared {
    /// A fresh state.
    pub fn new() -> Arc<Shared> {
        Arc::new(Shared::default())
    }

    /// The client is connected and sends its first message now.
    pub fn start(&self) {
        let _ = self.started.set(Instant::now());
    }

    /// When the timed phase began.
    pub fn started(&self) -> Option<Instant> {
        self.started.get().copied()
    }

    /// The receiver got one more message; returns whether that was the last one.
    pub fn deliver(&self, wanted: u64) -> bool {
        let n = self.delivered.fetch_add(1, Ordering::Relaxed) + 1;
        if n == wanted {
            *self.finished.lock().unwrap() = Some(Instant::now());
            self.done.store(true, Ordering::Release);
            return true;
        }
        false
    }

    /// Whether the case is over.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Ends the case (deadline or error).
    pub fn stop(&self) {
        self.done.store(true, Ordering::Release);
    }

    /// Whether the timed phase is past its deadline.
    pub fn past(&self, deadline: Duration) -> bool {
        self.started().is_some_and(|s| s.elapsed() > deadline)
    }

    /// Ends a case whose client measured `client`: stops the server and waits for its thread;
    /// the server's error if it had one, else the client's result.
    pub fn end<T>(
        &self,
        server: std::thread::JoinHandle<Result<(), String>>,
        client: Result<T, String>,
    ) -> Result<T, String> {
        self.stop();
        server
            .join()
            .map_err(|_| "server thread panicked".to_string())??;
        client
    }

    /// Ends a reliable case: stops the server, waits for its thread, closes the relay, and
    /// reports what arrived, the first error (the client's, then the server's) if any.
    pub fn finish<R>(
        &self,
        server: std::thread::JoinHandle<Result<(), String>>,
        relay: R,
        client: Result<(), String>,
        wanted: u64,
        deadline: Duration,
    ) -> Result<Outcome, String> {
        self.stop();
        let server = server
            .join()
            .map_err(|_| "server thread panicked".to_string())?;
        drop(relay);
        client?;
        server?;
        self.outcome(wanted, deadline)
    }

    /// The outcome once both threads are done.
    pub fn outcome(&self, wanted: u64, deadline: Duration) -> Result<Outcome, String> {
        let start = self.started().ok_or("never connected")?;
        let delivered = self.delivered.load(Ordering::Relaxed);
        let end = self
            .finished
            .lock()
            .unwrap()
            .unwrap_or_else(|| start + deadline);
        Ok(Outcome {
            elapsed: end.saturating_duration_since(start),
            delivered,
            wanted,
        })
    }
}

/// The ping loop of every synchronous peer's RTT case: one ping in flight, until `p.count`
/// pings or `p.deadline`. `send(client, i, bytes)` sends ping `i`; `poll(client, i)` turns the
/// peer's loop once and says whether the echo of ping `i` arrived. A ping without an echo
/// within `p.timeout` is lost and left out. The payload is built before the clock starts.
pub fn ping_loop<C>(
    p: &RttParams,
    client: &mut C,
    mut send: impl FnMut(&mut C, u64, Vec<u8>) -> Result<(), String>,
    mut poll: impl FnMut(&mut C, u64) -> Result<bool, String>,
) -> Result<Vec<f64>, String> {
    let start = Instant::now();
    let mut rtts = Vec::with_capacity(p.count as usize);
    for i in 0..p.count {
        if start.elapsed() > p.deadline {
            break;
        }
        let msg = payload(p.size, i);
        let t0 = Instant::now();
        send(client, i, msg)?;
        while t0.elapsed() < p.timeout {
            if poll(client, i)? {
                rtts.push(t0.elapsed().as_nanos() as f64);
                break;
            }
        }
    }
    Ok(rtts)
}

/// Where the client should send: the server itself, or a relay in front of it at `loss`.
pub fn route(
    server: SocketAddr,
    loss: f64,
    seed: u64,
) -> Result<(SocketAddr, Option<Relay>), String> {
    if loss > 0.0 {
        let relay = Relay::spawn(server, loss, seed).map_err(|e| format!("relay: {e}"))?;
        Ok((relay.addr(), Some(relay)))
    } else {
        Ok((server, None))
    }
}

/// A payload of `size` bytes carrying `tag` in its first eight bytes (if it has room).
pub fn payload(size: usize, tag: u64) -> Vec<u8> {
    let mut v = vec![0xa5u8; size];
    let n = size.min(8);
    v[..n].copy_from_slice(&tag.to_le_bytes()[..n]);
    v
}

/// A payload of `size` bytes carrying `tag` in its first eight bytes, then pseudo-random bytes
/// from the tag: incompressible, so that a compressing transport gains nothing here it would
/// not on real game data (where it gains less than on a constant fill).
pub fn noise(size: usize, tag: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(size + 8);
    v.extend_from_slice(&tag.to_le_bytes());
    let mut rng = relay::Rng::new(tag ^ 0x7e1c_0000);
    while v.len() < size {
        v.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    v.truncate(size);
    v
}

/// The tag of a payload.
pub fn tag_of(bytes: &[u8]) -> u64 {
    let mut t = [0u8; 8];
    let n = bytes.len().min(8);
    t[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(t)
}

/// An RTT case: `count` pings, each given up after `timeout`.
#[derive(Debug, Clone)]
pub struct RttParams {
    /// Pings.
    pub count: u64,
    /// Bytes per ping.
    pub size: usize,
    /// When a ping counts as lost.
    pub timeout: Duration,
    /// The whole case's budget.
    pub deadline: Duration,
}

type ReliableFn = fn(&Params) -> Result<Outcome, String>;
type RttFn = fn(&RttParams) -> Result<Vec<f64>, String>;

struct PeerImpl {
    name: &'static str,
    reliable: ReliableFn,
    rtt: RttFn,
    /// Whether the peer can run the case at all (`None`) or why not.
    cannot: fn(&Params) -> Option<&'static str>,
}

fn peers() -> Vec<PeerImpl> {
    vec![
        PeerImpl {
            name: udp_floor_peer::NAME,
            reliable: udp_floor_peer::reliable,
            rtt: udp_floor_peer::rtt,
            cannot: udp_floor_peer::cannot,
        },
        PeerImpl {
            name: "hopnet",
            reliable: hopnet_peer::reliable,
            rtt: hopnet_peer::rtt,
            cannot: |_| None,
        },
        PeerImpl {
            name: "hopnet-spec",
            reliable: hopnet_peer::reliable_spec,
            rtt: hopnet_peer::rtt_spec,
            cannot: |_| None,
        },
        PeerImpl {
            name: "laminar",
            reliable: laminar_peer::reliable,
            rtt: laminar_peer::rtt,
            cannot: laminar_peer::cannot,
        },
        PeerImpl {
            name: "renet",
            reliable: renet_peer::reliable,
            rtt: renet_peer::rtt,
            cannot: |_| None,
        },
        PeerImpl {
            name: "quinn",
            reliable: quinn_peer::reliable,
            rtt: quinn_peer::rtt,
            cannot: |_| None,
        },
        PeerImpl {
            name: "tcp",
            reliable: tcp_peer::reliable,
            rtt: tcp_peer::rtt,
            cannot: |p| (p.loss > 0.0).then_some("TCP runs at 0 % only (the relay is UDP)"),
        },
    ]
}

struct Cell {
    peer: &'static str,
    case: String,
    bytes: u64,
    /// Per-message times (ns) of the rounds.
    samples: Vec<f64>,
    incomplete: Vec<String>,
    errors: Vec<String>,
    skip: Option<&'static str>,
    throughput: Vec<(f64, f64)>,
}

/// Whether `BENCH_TRANSPORT_CASES` (if set) names this case.
fn case_selected(name: &str) -> bool {
    match std::env::var("BENCH_TRANSPORT_CASES") {
        Ok(list) => list.split(',').any(|c| c.trim() == name),
        Err(_) => true,
    }
}

/// How many times the reliable cases' message counts are multiplied: 1 unless the environment
/// variable `BENCH_RELIABLE_SCALE` says otherwise. A longer transfer measures the steady state
/// (and gives a profiler more samples) where the default one, a few milliseconds at 1 KiB,
/// includes the congestion window's growth.
fn reliable_scale() -> u64 {
    std::env::var("BENCH_RELIABLE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// Pins as the suite does: the calling thread (every client) on `CLIENT_CORE`, and every
/// later [`spawn_server`] thread on `SERVER_CORE`.
pub fn pin_as_the_suite() {
    PIN.store(true, Ordering::Relaxed);
    pin(CLIENT_CORE);
}

/// Runs the suite.
pub fn run(opts: &Options) -> Vec<Row> {
    PIN.store(false, Ordering::Relaxed);
    if opts.pin {
        pin_as_the_suite();
    }
    let peers: Vec<PeerImpl> = peers()
        .into_iter()
        .filter(|p| {
            opts.only.is_empty()
                || ["hopnet", FLOOR].contains(&p.name)
                || opts.only.iter().any(|o| o == p.name)
        })
        .collect();
    let scale = if opts.quick { 10 } else { 1 };
    let deadline = Duration::from_secs(if opts.quick { 2 } else { 5 });
    let cases: Vec<(String, Params)> = [(1024usize, 20_000u64, "1k"), (65536, 320, "64k")]
        .into_iter()
        .flat_map(|(size, count, label)| {
            [0.0, 0.05].into_iter().map(move |loss| {
                let name = if loss > 0.0 {
                    format!("reliable-{label}-loss5")
                } else {
                    format!("reliable-{label}")
                };
                (
                    name,
                    Params {
                        size,
                        count: count * reliable_scale() / scale,
                        loss,
                        seed: 0x5eed,
                        deadline,
                    },
                )
            })
        })
        .filter(|(name, _)| case_selected(name))
        .collect();
    let rtt = RttParams {
        count: 2000 / scale,
        size: 100,
        timeout: Duration::from_millis(200),
        deadline: Duration::from_secs(10),
    };

    let mut cells: Vec<Cell> = Vec::new();
    for (case, p) in &cases {
        for peer in &peers {
            cells.push(Cell {
                peer: peer.name,
                case: case.clone(),
                bytes: p.size as u64,
                samples: Vec::new(),
                incomplete: Vec::new(),
                errors: Vec::new(),
                skip: (peer.cannot)(p),
                throughput: Vec::new(),
            });
        }
    }
    let mut rtt_samples: Vec<Vec<f64>> = vec![Vec::new(); peers.len()];
    let mut rtt_lost: Vec<u64> = vec![0; peers.len()];
    let mut rtt_errors: Vec<Option<String>> = vec![None; peers.len()];
    let mut tick = case_selected(tick_case::CASE).then(|| TickCase::new(&opts.only, opts.quick));
    let mut fanout = case_selected(fanout_case::CASE).then(|| FanoutCase::new(opts.quick));
    let mut fanout_4000: Vec<FanoutCase> = FanoutCase::four_thousand(opts.quick)
        .into_iter()
        .filter(|c| case_selected(fanout_case::CASE_4000) || case_selected(c.name()))
        .collect();

    for round in 0..opts.rounds {
        for (ci, (case, p)) in cases.iter().enumerate() {
            for k in 0..peers.len() {
                // Rotate which peer goes first from round to round.
                let pi = (k + round) % peers.len();
                let peer = &peers[pi];
                let cell = &mut cells[ci * peers.len() + pi];
                if cell.skip.is_some() {
                    continue;
                }
                eprint!("round {} {case} {} ... ", round + 1, peer.name);
                match (peer.reliable)(p) {
                    Ok(o) if o.delivered > 0 => {
                        let per = o.elapsed.as_nanos() as f64 / o.delivered as f64;
                        let secs = o.elapsed.as_secs_f64();
                        let mps = o.delivered as f64 / secs;
                        let mbs = mps * p.size as f64 / 1e6;
                        eprintln!(
                            "{mps:.0} msg/s, {mbs:.1} MB/s ({}/{})",
                            o.delivered, o.wanted
                        );
                        if o.delivered < o.wanted {
                            cell.incomplete
                                .push(format!("{}/{}", o.delivered, o.wanted));
                        }
                        cell.samples.push(per);
                        cell.throughput.push((mps, mbs));
                    }
                    Ok(o) => {
                        eprintln!("nothing delivered");
                        cell.errors
                            .push(format!("nothing delivered of {}", o.wanted));
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        cell.errors.push(e);
                    }
                }
            }
        }
        for k in 0..peers.len() {
            if !case_selected("rtt") {
                break;
            }
            let pi = (k + round) % peers.len();
            let peer = &peers[pi];
            eprint!("round {} rtt {} ... ", round + 1, peer.name);
            match (peer.rtt)(&rtt) {
                Ok(s) => {
                    let lost = rtt.count - s.len() as u64;
                    let mut c = s.clone();
                    eprintln!(
                        "p50 {:.1} µs, p99 {:.1} µs, {lost} lost",
                        median(&mut c).unwrap_or(0.0) / 1e3,
                        quantile(&mut c, 0.99).unwrap_or(0.0) / 1e3
                    );
                    rtt_lost[pi] += lost;
                    rtt_samples[pi].extend(s);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    rtt_errors[pi] = Some(e);
                }
            }
        }
        if let Some(tick) = &mut tick {
            tick.round(round);
        }
        if let Some(fanout) = &mut fanout {
            fanout.round(round);
        }
        for case in &mut fanout_4000 {
            case.round(round);
        }
    }

    let mut rows = Vec::new();
    for mut c in cells {
        let med = median(&mut c.samples);
        let mut note = String::new();
        if let Some(why) = c.skip {
            note = why.to_string();
        } else if med.is_some() {
            let mut m: Vec<f64> = c.throughput.iter().map(|t| t.0).collect();
            let mut b: Vec<f64> = c.throughput.iter().map(|t| t.1).collect();
            // The rounds' spread: loopback throughput on a shared virtual machine moves a
            // lot from round to round, for every peer.
            let lo = b.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = b.iter().copied().fold(0.0, f64::max);
            note = format!(
                "{:.0} msg/s, {:.1} MB/s (rounds {lo:.0}–{hi:.0})",
                median(&mut m).unwrap_or(0.0),
                median(&mut b).unwrap_or(0.0)
            );
            if !c.incomplete.is_empty() {
                note.push_str(&format!(
                    "; incomplete at the {} s deadline: {}",
                    deadline.as_secs(),
                    c.incomplete.join(", ")
                ));
            }
        }
        if !c.errors.is_empty() {
            if !note.is_empty() {
                note.push_str("; ");
            }
            let mut distinct = c.errors.clone();
            distinct.dedup();
            note.push_str(&format!(
                "failed in {} of {} rounds: {}",
                c.errors.len(),
                opts.rounds,
                distinct.join("; ")
            ));
        }
        rows.push(Row {
            suite: "transport",
            peer: c.peer.to_string(),
            case: c.case,
            median_ns: med,
            bytes: Some(c.bytes),
            ratio: None,
            note,
            bytes_ratio: false,
        });
    }
    for (pi, peer) in peers.iter().enumerate() {
        if !case_selected("rtt") {
            break;
        }
        let s = &mut rtt_samples[pi];
        let total = rtt.count * opts.rounds as u64;
        let note = match &rtt_errors[pi] {
            Some(e) => format!("failed: {e}"),
            None => format!("{} pings, {} lost", total, rtt_lost[pi]),
        };
        let p50 = median(s);
        let p99 = quantile(s, 0.99);
        for (case, v) in [("rtt-p50", p50), ("rtt-p99", p99)] {
            rows.push(Row {
                suite: "transport",
                peer: peer.name.to_string(),
                case: case.to_string(),
                median_ns: v,
                bytes: Some(rtt.size as u64),
                ratio: None,
                note: note.clone(),
                bytes_ratio: false,
            });
        }
    }
    if let Some(tick) = tick {
        rows.extend(tick.rows(opts.rounds));
    }
    if let Some(fanout) = fanout {
        rows.extend(fanout.rows(opts.rounds));
    }
    let first = rows.len();
    for case in fanout_4000 {
        rows.extend(case.rows(opts.rounds));
    }
    fanout_case::worker_ratios(&mut rows[first..]);
    rows
}
