//! The `tick-10x100` case: a game's traffic at 60 Hz, measured in bytes on the wire.
//!
//! Each side of a peer (client and server) turns its loop once per tick, as a game does: read
//! what arrived, queue the tick's ten 100-byte messages (the even ones reliable, the odd ones
//! unreliable), send. The ticks run on the wall clock, not compressed: acknowledgements are
//! timed (quinn delays one up to its `max_ack_delay`, hopnet 2's delayed ACKs wait a few
//! milliseconds, renet and laminar carry them on the next packet going the other way, and
//! every retransmission timer runs on the clock), so ticks packed closer in time would change
//! which ACKs ride with data and which leave alone: the bytes this case measures. The client
//! ticks half a tick after the server, so that each side's messages have arrived before the
//! other's next turn, alike for every peer.
//!
//! Every datagram of both directions goes through the harness's relay at 0 % loss, which counts
//! datagrams and their UDP payload bytes as they arrive ([`Relay::traffic`]): what the peer put
//! on the wire, the same way for every peer; a hopnet that batches messages shows it here by
//! itself. The count covers a window of exactly `ticks` ticks of each side, after `warmup`
//! ticks (the connection's first exchanges are not a game's steady state) and before `cooldown`
//! ticks (so the window ends in the steady state too); its edges fall a quarter tick before a
//! server tick, where both sides are quiet. A row's bytes are
//! `(payload bytes + 28 × datagrams) / ticks`, the mean of the two directions.
//!
//! After the last tick both sides keep turning, sending nothing, until every reliable message
//! has arrived both ways or the drain deadline passes; the row's note says whether all did.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::relay::{Count, Relay, Traffic};

/// IPv4 and UDP headers: what each datagram costs on the wire beyond its UDP payload.
pub const IP_UDP_HEADER: u64 = 28;

/// How long the client waits, once both sides are ready, before the first tick: time for the
/// server's loop to see the start.
const LEAD: Duration = Duration::from_millis(50);

/// The case's shape.
#[derive(Debug, Clone)]
pub struct TickPlan {
    /// Ticks before the counted window.
    pub warmup: u32,
    /// Ticks counted.
    pub ticks: u32,
    /// Ticks after the counted window.
    pub cooldown: u32,
    /// Time between ticks.
    pub period: Duration,
    /// Messages per tick and side (half of them reliable).
    pub per_tick: u32,
    /// Bytes per message.
    pub size: usize,
    /// How long, after the last tick, the reliable messages may take to arrive.
    pub drain: Duration,
    /// How long the connection may take before the first tick.
    pub setup: Duration,
}

impl TickPlan {
    /// 60 Hz, ten 100-byte messages per tick and side; `ticks` counted.
    pub fn sixty_hz(ticks: u32) -> TickPlan {
        TickPlan {
            warmup: 30,
            ticks,
            cooldown: 30,
            period: Duration::from_secs(1) / 60,
            per_tick: 10,
            size: 100,
            drain: Duration::from_secs(2),
            setup: Duration::from_secs(15),
        }
    }

    /// Ticks each side runs.
    pub fn total(&self) -> u32 {
        self.warmup + self.ticks + self.cooldown
    }

    /// Reliable messages each side sends over the whole run.
    pub fn reliable_per_side(&self) -> u64 {
        u64::from(self.total()) * u64::from(self.per_tick.div_ceil(2))
    }

    /// Unreliable messages each side sends over the whole run.
    pub fn unreliable_per_side(&self) -> u64 {
        u64::from(self.total()) * u64::from(self.per_tick / 2)
    }

    /// When `role` turns for tick `k`.
    pub fn at(&self, start: Instant, role: Role, k: u32) -> Instant {
        let offset = match role {
            Role::Server => Duration::ZERO,
            Role::Client => self.period / 2,
        };
        start + self.period * k + offset
    }

    /// The counted window: from a quarter tick before the server's first counted tick to a
    /// quarter tick before the server's first tick after it.
    pub fn window(&self, start: Instant) -> (Instant, Instant) {
        let edge = |k: u32| self.at(start, Role::Server, k) - self.period / 4;
        (edge(self.warmup), edge(self.warmup + self.ticks))
    }

    /// Message `i` of tick `k`: its id, then noise ([`noise`](super::noise)).
    pub fn message(&self, k: u32, i: u32) -> Message {
        let id = u64::from(k) * u64::from(self.per_tick) + u64::from(i);
        Message {
            bytes: super::noise(self.size, id),
            reliable: i.is_multiple_of(2),
        }
    }

    /// The messages of tick `k`, in the order they are sent.
    pub fn messages(&self, k: u32) -> Vec<Message> {
        (0..self.per_tick).map(|i| self.message(k, i)).collect()
    }
}

/// One message of a tick.
#[derive(Debug, Clone)]
pub struct Message {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether it is sent reliably.
    pub reliable: bool,
}

/// Which side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The server: ticks on the tick.
    Server,
    /// The client: ticks half a tick later.
    Client,
}

impl Role {
    fn index(self) -> usize {
        match self {
            Role::Server => 0,
            Role::Client => 1,
        }
    }
}

/// What the two sides of one run share.
#[derive(Debug, Default)]
pub struct TickShared {
    start: OnceLock<Instant>,
    server_ready: AtomicBool,
    failed: AtomicBool,
    /// Distinct reliable messages received, by the receiving side's [`Role::index`].
    reliable: [AtomicU64; 2],
    /// Unreliable messages received, likewise.
    unreliable: [AtomicU64; 2],
    /// Messages received twice, or not of the case's shape, both sides.
    odd: AtomicU64,
    /// Turns, both sides, that began more than a quarter tick after their time (a loaded
    /// machine): their traffic may have fallen on the other side of a window's edge.
    late: AtomicU64,
}

impl TickShared {
    /// A fresh state.
    pub fn new() -> Arc<TickShared> {
        Arc::new(TickShared::default())
    }

    /// The first tick's instant, once the client has set it.
    pub fn start(&self) -> Option<Instant> {
        self.start.get().copied()
    }

    /// One idle turn's bookkeeping before the ticks: a server that can send says so; a
    /// client, once the server can, sets the start. Returns the start once it is set.
    pub fn before_start(&self, role: Role, ready: bool) -> Option<Instant> {
        match role {
            Role::Server => {
                if ready {
                    self.server_ready.store(true, Ordering::Relaxed);
                }
            }
            Role::Client => {
                if ready && self.server_ready.load(Ordering::Relaxed) {
                    let _ = self.start.set(Instant::now() + LEAD);
                }
            }
        }
        self.start()
    }

    /// A side's turn for tick `k` begins now: counts it if it is late.
    pub fn turn_began(&self, plan: &TickPlan, start: Instant, role: Role, k: u32) {
        let late = Instant::now().saturating_duration_since(plan.at(start, role, k));
        if late > plan.period / 4 {
            self.late.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether a side has failed: the other stops.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// A side failed.
    pub fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Whether every reliable message of the run has arrived, both ways.
    pub fn all_reliable(&self, plan: &TickPlan) -> bool {
        let want = plan.reliable_per_side();
        self.reliable
            .iter()
            .all(|r| r.load(Ordering::Relaxed) >= want)
    }

    /// What arrived.
    pub fn delivered(&self) -> Delivered {
        let load = |a: &[AtomicU64; 2]| [0, 1].map(|i| a[i].load(Ordering::Relaxed));
        Delivered {
            reliable: load(&self.reliable),
            unreliable: load(&self.unreliable),
            odd: self.odd.load(Ordering::Relaxed),
            late: self.late.load(Ordering::Relaxed),
        }
    }
}

/// What arrived over a run, indexed by the receiving side (server, client).
#[derive(Debug, Clone, Copy, Default)]
pub struct Delivered {
    /// Distinct reliable messages.
    pub reliable: [u64; 2],
    /// Unreliable messages.
    pub unreliable: [u64; 2],
    /// Duplicates and messages not of the case's shape.
    pub odd: u64,
    /// Turns begun more than a quarter tick late, both sides.
    pub late: u64,
}

/// One side's record of the messages it received.
pub struct Tally<'a> {
    plan: &'a TickPlan,
    shared: &'a TickShared,
    side: usize,
    seen: Vec<bool>,
}

impl<'a> Tally<'a> {
    /// Nothing received yet.
    pub fn new(plan: &'a TickPlan, shared: &'a TickShared, role: Role) -> Tally<'a> {
        Tally {
            plan,
            shared,
            side: role.index(),
            seen: vec![false; plan.total() as usize * plan.per_tick as usize],
        }
    }

    /// A message arrived.
    pub fn receive(&mut self, bytes: &[u8]) {
        let id = super::tag_of(bytes);
        let fresh = bytes.len() == self.plan.size
            && usize::try_from(id)
                .ok()
                .and_then(|i| self.seen.get_mut(i))
                .is_some_and(|seen| !std::mem::replace(seen, true));
        if !fresh {
            self.shared.odd.fetch_add(1, Ordering::Relaxed);
        } else if (id % u64::from(self.plan.per_tick)).is_multiple_of(2) {
            self.shared.reliable[self.side].fetch_add(1, Ordering::Relaxed);
        } else {
            self.shared.unreliable[self.side].fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One side of a peer, turned once per tick by [`run_side`].
pub trait Side {
    /// One turn of the side's loop: read what arrived (each message's bytes to `received`),
    /// queue `out` (possibly empty), send.
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String>;

    /// Whether the side can send: a server knows its client.
    fn ready(&self) -> bool {
        true
    }

    /// What the row's note should add about this side (retransmissions, say).
    fn note(&mut self) -> Option<String> {
        None
    }
}

/// Sleeps until `t`, or returns at once if it has passed.
pub fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        thread::sleep(t - now);
    }
}

/// Runs one side: idle turns until both sides are ready and the start is set (the client sets
/// it), the ticks, then the drain. Returns the side's note. A failure stops the other side.
pub fn run_side(
    side: &mut dyn Side,
    plan: &TickPlan,
    role: Role,
    shared: &TickShared,
) -> Result<Option<String>, String> {
    let result = ticks(side, plan, role, shared);
    if result.is_err() {
        shared.fail();
    }
    result
}

fn ticks(
    side: &mut dyn Side,
    plan: &TickPlan,
    role: Role,
    shared: &TickShared,
) -> Result<Option<String>, String> {
    let give_up = Instant::now() + plan.setup;
    let start = loop {
        if shared.failed() {
            return Err("the other side failed".into());
        }
        side.turn(&[], &mut |_| {})?;
        if let Some(start) = shared.before_start(role, side.ready()) {
            break start;
        }
        if Instant::now() > give_up {
            return Err("the two sides did not get ready".into());
        }
        thread::sleep(Duration::from_millis(1));
    };
    let mut tally = Tally::new(plan, shared, role);
    for k in 0..plan.total() {
        if shared.failed() {
            return Err("the other side failed".into());
        }
        sleep_until(plan.at(start, role, k));
        shared.turn_began(plan, start, role, k);
        let out = plan.messages(k);
        side.turn(&out, &mut |b| tally.receive(b))?;
    }
    let end = plan.at(start, role, plan.total()) + plan.drain;
    let mut k = plan.total();
    while !shared.all_reliable(plan) && !shared.failed() && Instant::now() < end {
        sleep_until(plan.at(start, role, k));
        k += 1;
        side.turn(&[], &mut |b| tally.receive(b))?;
    }
    Ok(side.note())
}

/// What one run of a peer measured.
#[derive(Debug, Clone)]
pub struct TickOutcome {
    /// The counted window: client to server, server to client.
    pub window: [Count; 2],
    /// How late the window's edges were read, at most.
    pub window_slip: Duration,
    /// What arrived over the whole run.
    pub delivered: Delivered,
    /// The sides' notes.
    pub notes: Vec<String>,
}

/// Reads the relay's counters at the window's edges, once the start is known.
pub fn spawn_sampler(
    traffic: Arc<Traffic>,
    shared: Arc<TickShared>,
    plan: TickPlan,
) -> JoinHandle<Option<Window>> {
    thread::spawn(move || {
        let give_up = Instant::now() + plan.setup + Duration::from_secs(1);
        let start = loop {
            if let Some(s) = shared.start() {
                break s;
            }
            if shared.failed() || Instant::now() > give_up {
                return None;
            }
            thread::sleep(Duration::from_millis(1));
        };
        let (a, b) = plan.window(start);
        let read = |t: Instant| -> Option<Window> {
            // In steps, so that a failed run does not keep this thread for the whole window.
            while Instant::now() < t {
                if shared.failed() {
                    return None;
                }
                sleep_until(t.min(Instant::now() + Duration::from_millis(50)));
            }
            let counts = [traffic.to_server.read(), traffic.to_client.read()];
            Some((counts, Instant::now().saturating_duration_since(t)))
        };
        let (first, slip_a) = read(a)?;
        let (last, slip_b) = read(b)?;
        Some((
            [last[0].since(first[0]), last[1].since(first[1])],
            slip_a.max(slip_b),
        ))
    })
}

/// Runs a peer whose sides are [`Side`]s: `server` on the server thread (pinned when pinning),
/// the client made by `connect` (given the relay's address) on the calling thread.
pub fn run_pair<S, C>(
    plan: &TickPlan,
    relay: Relay,
    server: S,
    connect: impl FnOnce(SocketAddr, &TickShared) -> Result<C, String>,
) -> Result<TickOutcome, String>
where
    S: Side + Send + 'static,
    C: Side,
{
    let shared = TickShared::new();
    let sampler = spawn_sampler(relay.traffic(), shared.clone(), plan.clone());
    let srv = {
        let (shared, plan) = (shared.clone(), plan.clone());
        super::spawn_server(move || {
            let mut server = server;
            run_side(&mut server, &plan, Role::Server, &shared)
        })
    };
    let client = connect(relay.addr(), &shared)
        .and_then(|mut c| run_side(&mut c, plan, Role::Client, &shared));
    let (client_note, server_note, window) = join_run(client, srv, sampler, relay, &shared)?;
    finish(
        window,
        &shared,
        [
            server_note.map(|n| format!("server {n}")),
            client_note.map(|n| format!("client {n}")),
        ],
    )
}

/// The counts of the window's edges and how late the later read was.
pub type Window = ([Count; 2], Duration);

/// Ends a run once the client side returned: a failed client fails the run (so that the
/// server stops waiting), then the server and the sampler are joined and the relay closed.
/// The sides' results, the client's first, and the window.
pub fn join_run<C, S>(
    client: Result<C, String>,
    server: JoinHandle<Result<S, String>>,
    sampler: JoinHandle<Option<Window>>,
    relay: Relay,
    shared: &TickShared,
) -> Result<(C, S, Option<Window>), String> {
    if client.is_err() {
        shared.fail();
    }
    let server = server
        .join()
        .unwrap_or_else(|_| Err("server thread panicked".into()));
    let window = sampler.join().ok().flatten();
    drop(relay);
    let client = client.map_err(|e| format!("client: {e}"))?;
    let server = server.map_err(|e| format!("server: {e}"))?;
    Ok((client, server, window))
}

/// The outcome from the window's counts and the shared state.
pub fn finish(
    window: Option<Window>,
    shared: &TickShared,
    notes: [Option<String>; 2],
) -> Result<TickOutcome, String> {
    let (window, window_slip) = window.ok_or("the counting window was not read")?;
    Ok(TickOutcome {
        window,
        window_slip,
        delivered: shared.delivered(),
        notes: notes.into_iter().flatten().collect(),
    })
}
