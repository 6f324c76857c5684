//! `fanout-1000` in the suite: one run per round (hopnet only) and its row. What a run
//! measures is in [`fanout`](super::fanout).

use super::fanout::{FanoutOutcome, FanoutPlan, run_once};
use crate::report::{Row, failures, keep, median};

/// The case's name.
pub const CASE: &str = "fanout-1000";

/// The case across rounds (hopnet only).
pub struct FanoutCase {
    plan: FanoutPlan,
    outcomes: Vec<FanoutOutcome>,
    errors: Vec<String>,
}

impl FanoutCase {
    /// Ten seconds of ticks, or two when `quick`.
    pub fn new(quick: bool) -> FanoutCase {
        FanoutCase {
            plan: FanoutPlan::thirty_hz(if quick { 2 } else { 10 }),
            outcomes: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// One run.
    pub fn round(&mut self, round: usize) {
        eprint!("round {} {CASE} hopnet ... ", round + 1);
        keep(
            run_once(&self.plan),
            &mut self.outcomes,
            &mut self.errors,
            |o| {
                format!(
                    "server CPU {:.1} % of a core, {} snapshots left queued, {}/{} arrived",
                    o.cpu_per_second() / 1e7,
                    o.server.left,
                    o.arrived,
                    o.expected
                )
            },
        );
    }

    /// The row: the median round's CPU per second; the note says what the rounds saw.
    pub fn rows(self, rounds: usize) -> Vec<Row> {
        let plan = &self.plan;
        let mut cpu: Vec<f64> = self.outcomes.iter().map(|o| o.cpu_per_second()).collect();
        let med = median(&mut cpu);
        let mut notes = Vec::new();
        if let Some(m) = med {
            notes.push(format!(
                "server CPU {:.1} % of a core (rounds {:.1}–{:.1} %), {} clients, {:.0} s at {:.0} Hz",
                m / 1e7,
                cpu[0] / 1e7,
                cpu[cpu.len() - 1] / 1e7,
                plan.clients,
                plan.period.as_secs_f64() * f64::from(plan.ticks),
                1.0 / plan.period.as_secs_f64()
            ));
            let left: u64 = self.outcomes.iter().map(|o| o.server.left).sum();
            let ticks_left: u32 = self.outcomes.iter().map(|o| o.server.ticks_left).sum();
            notes.push(if left == 0 {
                "no snapshot left queued past its tick (checked after every flush)".to_string()
            } else {
                format!("SNAPSHOTS LEFT QUEUED past their tick: {left} in {ticks_left} ticks")
            });
            let arrived: u64 = self.outcomes.iter().map(|o| o.arrived).sum();
            let expected: u64 = self.outcomes.iter().map(|o| o.expected).sum();
            notes.push(format!("snapshots arrived {arrived}/{expected}"));
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
            case: CASE.to_string(),
            median_ns: med,
            bytes: Some(plan.size as u64),
            ratio: None,
            note: notes.join("; "),
            bytes_ratio: false,
        }]
    }
}
