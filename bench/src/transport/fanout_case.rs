//! The fanout cases in the suite: one run per round (hopnet only) and a row each. What a run
//! measures is in [`fanout`](super::fanout) (and [`fanout_workers`](super::fanout_workers)).
//!
//! - `fanout-1000`: 1,000 clients, 300-byte snapshots, `hopnet::Server`; the row's time is
//!   the server's CPU per second of wall time.
//! - `fanout-4000`: 4,000 clients, 340-byte snapshots, `hopnet::Server` (one worker, the
//!   default); `fanout-4000-w1`: `hopnet::WorkerServer` with one worker (what the game's
//!   handle and the worker's thread cost over the plain server); `fanout-4000-w2`: two
//!   workers on `SO_REUSEPORT` sockets; `fanout-4000-w2-shard`: two workers behind one socket
//!   and its reader thread (`Spread::ByAddress`). Their time is the server's CPU per delivered
//!   snapshot, every server thread together; the note gives each over `fanout-4000`'s.
//!   `BENCH_TRANSPORT_CASES=fanout-4000` selects all four.

use super::fanout::{FanoutOutcome, FanoutPlan, FanoutServer};
use super::fanout_run::run_once;
use crate::report::{Row, failures, keep, median};
use hopnet::Spread;

/// The case's name.
pub const CASE: &str = "fanout-1000";
/// The 4,000-client cases' common name (selects them all).
pub const CASE_4000: &str = "fanout-4000";

/// One fanout case across rounds (hopnet only).
pub struct FanoutCase {
    name: &'static str,
    plan: FanoutPlan,
    outcomes: Vec<FanoutOutcome>,
    errors: Vec<String>,
}

impl FanoutCase {
    /// `fanout-1000`: ten seconds of ticks, or two when `quick`.
    pub fn new(quick: bool) -> FanoutCase {
        FanoutCase::with(CASE, FanoutPlan::thirty_hz(if quick { 2 } else { 10 }))
    }

    /// The 4,000-client cases, in the order they run.
    pub fn four_thousand(quick: bool) -> Vec<FanoutCase> {
        let seconds = if quick { 2 } else { 10 };
        [
            ("fanout-4000", FanoutServer::Single),
            (
                "fanout-4000-w1",
                FanoutServer::Workers(1, Spread::ReusePort),
            ),
            (
                "fanout-4000-w2",
                FanoutServer::Workers(2, Spread::ReusePort),
            ),
            (
                "fanout-4000-w2-shard",
                FanoutServer::Workers(2, Spread::ByAddress),
            ),
        ]
        .into_iter()
        .map(|(name, server)| FanoutCase::with(name, FanoutPlan::four_thousand(seconds, server)))
        .collect()
    }

    fn with(name: &'static str, plan: FanoutPlan) -> FanoutCase {
        FanoutCase {
            name,
            plan,
            outcomes: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The case's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether the row's time is per delivered snapshot (the 4,000-client cases) rather than
    /// per second.
    fn per_snapshot(&self) -> bool {
        self.name != CASE
    }

    fn figure(&self, o: &FanoutOutcome) -> f64 {
        if self.per_snapshot() {
            o.cpu_per_snapshot()
        } else {
            o.cpu_per_second()
        }
    }

    /// One run.
    pub fn round(&mut self, round: usize) {
        eprint!("round {} {} hopnet ... ", round + 1, self.name);
        keep(
            run_once(&self.plan),
            &mut self.outcomes,
            &mut self.errors,
            |o| {
                format!(
                    "server CPU {:.1} % of a core ({:.0} ns per snapshot; threads {:?}), {} snapshots left queued, {}/{} arrived, {:?} UDP receive-buffer drops on the machine",
                    o.cpu_per_second() / 1e7,
                    o.cpu_per_snapshot(),
                    o.server.threads,
                    o.server.left,
                    o.arrived,
                    o.expected,
                    o.rcvbuf_errors
                )
            },
        );
    }

    /// The row: the median round's figure; the note says what the rounds saw.
    pub fn rows(self, rounds: usize) -> Vec<Row> {
        let plan = &self.plan;
        let mut fig: Vec<f64> = self.outcomes.iter().map(|o| self.figure(o)).collect();
        let med = median(&mut fig);
        let mut notes = Vec::new();
        if let Some(m) = med {
            let mut cpu: Vec<f64> = self.outcomes.iter().map(|o| o.cpu_per_second()).collect();
            let cpu_med = median(&mut cpu).unwrap_or(0.0);
            if self.per_snapshot() {
                notes.push(format!(
                    "{m:.0} ns of server CPU per delivered snapshot (rounds {:.0}–{:.0}), {:.1} % of a core, {} workers",
                    fig[0],
                    fig[fig.len() - 1],
                    cpu_med / 1e7,
                    plan.workers()
                ));
            }
            notes.push(format!(
                "server CPU {:.1} % of a core (rounds {:.1}–{:.1} %), {} clients, {:.0} s at {:.0} Hz",
                cpu_med / 1e7,
                cpu[0] / 1e7,
                cpu[cpu.len() - 1] / 1e7,
                plan.clients,
                plan.period.as_secs_f64() * f64::from(plan.ticks),
                1.0 / plan.period.as_secs_f64()
            ));
            if plan.server == FanoutServer::Single {
                let left: u64 = self.outcomes.iter().map(|o| o.server.left).sum();
                let ticks_left: u32 = self.outcomes.iter().map(|o| o.server.ticks_left).sum();
                notes.push(if left == 0 {
                    "no snapshot left queued past its tick (checked after every flush)".to_string()
                } else {
                    format!("SNAPSHOTS LEFT QUEUED past their tick: {left} in {ticks_left} ticks")
                });
            }
            let arrived: u64 = self.outcomes.iter().map(|o| o.arrived).sum();
            let expected: u64 = self.outcomes.iter().map(|o| o.expected).sum();
            notes.push(format!("snapshots arrived {arrived}/{expected}"));
            let drops: u64 = self.outcomes.iter().filter_map(|o| o.rcvbuf_errors).sum();
            if arrived < expected {
                notes.push(format!(
                    "{drops} UDP datagrams dropped for a full receive buffer on the machine meanwhile"
                ));
            }
            let connected = self.outcomes.iter().map(|o| o.clients).min().unwrap_or(0);
            if connected < plan.clients {
                notes.push(format!(
                    "incomplete: only {connected}/{} clients connected",
                    plan.clients
                ));
            }
            let late: u32 = self.outcomes.iter().map(|o| o.server.late).sum();
            if late > 0 {
                notes.push(format!("{late} ticks took longer than a period"));
            }
            let dropped: u64 = self
                .outcomes
                .iter()
                .map(|o| o.server.send_failures + o.server.send_errors + o.server.disconnected)
                .sum();
            if dropped > 0 {
                notes.push(format!(
                    "{dropped} send failures, send errors or disconnections"
                ));
            }
        }
        notes.extend(failures(&self.errors, rounds));
        vec![Row {
            suite: "transport",
            peer: "hopnet".to_string(),
            case: self.name.to_string(),
            median_ns: med,
            bytes: Some(plan.size as u64),
            ratio: None,
            note: notes.join("; "),
            bytes_ratio: false,
        }]
    }
}

/// Adds to each worker row of the 4,000-client cases its time over `fanout-4000`'s (one
/// worker): the goal is at most 1.15 with two.
pub fn worker_ratios(rows: &mut [Row]) {
    let base = rows
        .iter()
        .find(|r| r.case == CASE_4000)
        .and_then(|r| r.median_ns);
    let Some(base) = base else { return };
    for r in rows.iter_mut() {
        if r.case.starts_with("fanout-4000-")
            && let Some(m) = r.median_ns
        {
            r.note = format!(
                "{:.2}× fanout-4000's CPU per snapshot; {}",
                m / base,
                r.note
            );
        }
    }
}
