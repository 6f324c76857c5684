//! The `fanout-1000` case: one hopnet server sends a 300-byte snapshot to each of 1,000
//! clients at 30 Hz, unreliably; what does that cost the server's core?
//!
//! The server is `hopnet::Server` on the server thread (pinned to its core
//! when pinning), looping as a game server does: at each tick `poll(0)` (read what came: the
//! clients' keepalives), one shared [`Payload`] built (the snapshot encoded once), handed to
//! every connection with `Server::send_payload`, then `flush`; it sleeps until the next
//! tick. The clients are hopnet `Client`s on the harness's thread ([`fanout_clients`],
//! pinned to the other core), each on a socket bound to its own loopback address.
//!
//! The row's time is the server thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) per second of
//! wall time over the ticks: 250,000,000 is a quarter of a core. On loopback the kernel
//! delivers a datagram to its receiving socket inside the sender's system call, so this
//! includes the receiving side's kernel work, which a network card would take off the
//! server's core.
//!
//! After each tick's flush the harness checks that no datagram is still queued (`QueueCheck`):
//! the endpoint has nothing more to transmit, and the socket took every datagram the
//! connections wrote. The CPU time of this check is left out of the row.
//!
//! [`fanout_clients`]: super::fanout_clients

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hopnet::Server;
use hopnet::{ConnectionId, Delivery, Event, Machine, Payload};

use super::tick::sleep_until;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Which server the case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FanoutServer {
    /// `hopnet::Server`: one machine on the server thread (the default, one worker).
    Single,
    /// `hopnet::WorkerServer` with this many workers, spread this way; the game's loop on the
    /// server thread (see [`fanout_workers`](super::fanout_workers)).
    Workers(usize, hopnet::Spread),
}

/// The case's shape.
#[derive(Debug, Clone)]
pub struct FanoutPlan {
    /// The server.
    pub server: FanoutServer,
    /// Clients.
    pub clients: usize,
    /// Time between snapshots.
    pub period: Duration,
    /// Snapshots sent to each client.
    pub ticks: u32,
    /// Bytes per snapshot.
    pub size: usize,
    /// How long the clients may take to connect.
    pub setup: Duration,
    /// How long the clients keep reading after the last tick once nothing more comes.
    pub drain: Duration,
}

impl FanoutPlan {
    /// 1,000 clients, 300-byte snapshots at 30 Hz, for `seconds`.
    pub fn thirty_hz(seconds: u32) -> FanoutPlan {
        FanoutPlan {
            server: FanoutServer::Single,
            clients: 1000,
            period: Duration::from_secs(1) / 30,
            ticks: 30 * seconds,
            size: 300,
            setup: Duration::from_secs(30),
            drain: Duration::from_millis(300),
        }
    }
}

impl FanoutPlan {
    /// 4,000 clients, 340-byte snapshots at 30 Hz, for `seconds`, on `server`.
    pub fn four_thousand(seconds: u32, server: FanoutServer) -> FanoutPlan {
        FanoutPlan {
            server,
            clients: 4000,
            size: 340,
            setup: Duration::from_secs(60),
            ..FanoutPlan::thirty_hz(seconds)
        }
    }
}

/// The server's CPU time so far (this thread's).
pub(crate) fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// What the two threads share.
#[derive(Debug, Default)]
pub(crate) struct FanoutShared {
    /// Clients connected, set once the harness stops connecting.
    pub(crate) connected: OnceLock<usize>,
    /// The server has finished its ticks (or failed).
    pub(crate) done: AtomicBool,
    /// The server's connections when the ticks began.
    pub(crate) accepted: AtomicUsize,
    /// The clients failed: the server stops.
    pub(crate) abort: AtomicBool,
}

/// What the server measured.
#[derive(Debug, Clone, Default)]
pub struct ServerOutcome {
    /// CPU time over the ticks, the check left out.
    pub cpu: Duration,
    /// Wall time over the ticks.
    pub wall: Duration,
    /// Snapshots handed to connections.
    pub queued: u64,
    /// `send_payload` failures.
    pub send_failures: u64,
    /// Ticks after whose flush some snapshot was still queued.
    pub ticks_left: u32,
    /// Snapshots found still queued, all ticks together.
    pub left: u64,
    /// Ticks whose work took longer than the period.
    pub late: u32,
    /// Datagrams the kernel refused.
    pub send_errors: u64,
    /// Connections that ended during the ticks.
    pub disconnected: u64,
    /// With workers: each worker's CPU time over the ticks (the reader's last, with
    /// `Spread::ByAddress`), included in `cpu`.
    pub threads: Vec<Duration>,
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct FanoutOutcome {
    /// The server's side.
    pub server: ServerOutcome,
    /// Clients connected.
    pub clients: usize,
    /// Snapshots the clients received.
    pub arrived: u64,
    /// Snapshots that should have arrived.
    pub expected: u64,
    /// UDP datagrams the kernel dropped for a full receive buffer during the run (Linux's
    /// `RcvbufErrors`, every socket of the machine's), if it says.
    pub rcvbuf_errors: Option<u64>,
}

impl FanoutOutcome {
    /// The server's CPU nanoseconds per second of wall time.
    pub fn cpu_per_second(&self) -> f64 {
        self.server.cpu.as_nanos() as f64 / self.server.wall.as_secs_f64().max(1e-9)
    }

    /// The server's CPU nanoseconds per snapshot delivered.
    pub fn cpu_per_snapshot(&self) -> f64 {
        self.server.cpu.as_nanos() as f64 / self.arrived.max(1) as f64
    }
}

/// Finds what is still queued after a flush, in the endpoint and in the driver.
///
/// The endpoint: whatever `poll_transmit` still gives (taken out and counted, never sent).
/// The driver: a batch the kernel had no room for waits there, written by the endpoint but not
/// yet taken by the socket; so every datagram the connections wrote (their `packets_sent`)
/// must be one the socket took (`sent`, or refused: `send_errors`) or one this check took out.
struct QueueCheck {
    buf: Vec<u8>,
    /// The connections' datagrams and the socket's count before the ticks.
    written_base: u64,
    out_base: u64,
    /// Datagrams taken out of the endpoint by this check.
    taken: u64,
}

/// Datagrams the connections `ids` have written.
fn written(server: &mut Server, ids: &[ConnectionId]) -> u64 {
    let endpoint = server.machine();
    ids.iter()
        .filter_map(|&id| endpoint.stats(id))
        .map(|s| s.packets_sent)
        .sum()
}

/// Datagrams the socket has taken.
fn out(server: &Server) -> u64 {
    let s = server.socket_stats();
    s.sent + s.send_errors
}

impl QueueCheck {
    fn new(server: &mut Server, ids: &[ConnectionId]) -> QueueCheck {
        QueueCheck {
            buf: Vec::with_capacity(1 << 16),
            written_base: written(server, ids),
            out_base: out(server),
            taken: 0,
        }
    }

    /// Datagrams still queued now.
    fn left(&mut self, server: &mut Server, ids: &[ConnectionId]) -> u64 {
        let mut in_endpoint = 0;
        while let Some(t) = server
            .machine()
            .poll_transmit(Instant::now(), &mut self.buf, 64)
        {
            in_endpoint += t.datagrams() as u64;
        }
        self.taken += in_endpoint;
        let written = written(server, ids).saturating_sub(self.written_base);
        let out = out(server).saturating_sub(self.out_base);
        let in_driver = written.saturating_sub(self.taken + out);
        in_endpoint + in_driver
    }
}

/// Accepts until every client the harness connected is in (`turn`: one round of the server,
/// its events); the connections, also stored in `shared.accepted`.
pub(crate) fn accept(
    plan: &FanoutPlan,
    shared: &FanoutShared,
    mut turn: impl FnMut() -> Result<Vec<hopnet::ServerEvent>, String>,
) -> Result<Vec<ConnectionId>, String> {
    let give_up = Instant::now() + plan.setup + Duration::from_secs(5);
    let mut ids: Vec<ConnectionId> = Vec::with_capacity(plan.clients);
    loop {
        for ev in turn()? {
            if ev.event == Event::Connected {
                ids.push(ev.connection);
            }
        }
        if shared.connected.get().is_some_and(|&n| ids.len() >= n) {
            break;
        }
        if shared.abort.load(Ordering::Relaxed) {
            return Err("the clients failed".into());
        }
        if Instant::now() > give_up {
            return Err(format!("{} connections accepted", ids.len()));
        }
    }
    shared.accepted.store(ids.len(), Ordering::Relaxed);
    Ok(ids)
}

/// The server thread: accept, then the ticks.
pub(crate) fn serve(
    mut server: Server,
    plan: &FanoutPlan,
    shared: &FanoutShared,
) -> Result<ServerOutcome, String> {
    let mut ids = accept(plan, shared, || {
        server.poll(Duration::from_millis(5)).map_err(err)?;
        Ok(std::iter::from_fn(|| server.poll_event()).collect())
    })?;
    let mut out = ServerOutcome::default();
    let mut check = QueueCheck::new(&mut server, &ids);
    let start = Instant::now() + Duration::from_millis(20);
    sleep_until(start);
    let cpu_start = thread_cpu();
    let mut checking = Duration::ZERO;
    for k in 0..plan.ticks {
        if shared.abort.load(Ordering::Relaxed) {
            return Err("the clients failed".into());
        }
        sleep_until(start + plan.period * k);
        let began = Instant::now();
        server.poll(Duration::ZERO).map_err(err)?;
        while let Some(ev) = server.poll_event() {
            if let Event::Disconnected { .. } = ev.event {
                out.disconnected += 1;
                ids.retain(|&id| id != ev.connection);
            }
        }
        let snapshot = Payload::from(super::noise(plan.size, u64::from(k)));
        for &id in &ids {
            match server
                .machine()
                .send_payload(id, &snapshot, Delivery::Unreliable)
            {
                Ok(()) => out.queued += 1,
                Err(_) => out.send_failures += 1,
            }
        }
        server.flush().map_err(err)?;
        if began.elapsed() > plan.period {
            out.late += 1;
        }
        let c = thread_cpu();
        let left = check.left(&mut server, &ids);
        if left > 0 {
            out.ticks_left += 1;
            out.left += left;
        }
        checking += thread_cpu().saturating_sub(c);
    }
    let end = start + plan.period * plan.ticks;
    sleep_until(end);
    out.cpu = thread_cpu().saturating_sub(cpu_start + checking);
    out.wall = Instant::now().saturating_duration_since(start);
    out.send_errors = server.socket_stats().send_errors;
    Ok(out)
}

impl FanoutPlan {
    /// The server's workers (1 for `Single`).
    pub fn workers(&self) -> usize {
        match self.server {
            FanoutServer::Single => 1,
            FanoutServer::Workers(n, _) => n,
        }
    }
}
