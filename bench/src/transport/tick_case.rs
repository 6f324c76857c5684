//! `tick-10x100` in the suite: its peers, one run of each per round (the first peer rotating),
//! and its rows. What a run measures is in [`tick`](super::tick).

use super::hopnet_peer::{self, Flavor};
use super::tick::{IP_UDP_HEADER, TickOutcome, TickPlan};
use super::{laminar_peer, quinn_peer, renet_peer};
use crate::report::{Row, failures, keep, median};

/// The case's name.
pub const CASE: &str = "tick-10x100";

type TickFn = fn(&TickPlan) -> Result<TickOutcome, String>;

struct Cell {
    peer: &'static str,
    run: TickFn,
    outcomes: Vec<TickOutcome>,
    errors: Vec<String>,
}

/// The case across rounds.
pub struct TickCase {
    plan: TickPlan,
    cells: Vec<Cell>,
}

/// Bytes and datagrams per tick, one direction, from a window's count.
fn per_tick(plan: &TickPlan, c: super::relay::Count) -> (f64, f64) {
    let ticks = f64::from(plan.ticks.max(1));
    let wire = c.bytes + IP_UDP_HEADER * c.datagrams;
    (wire as f64 / ticks, c.datagrams as f64 / ticks)
}

/// The row's figure: wire bytes per tick, the mean of the two directions.
fn bytes_per_tick(plan: &TickPlan, o: &TickOutcome) -> f64 {
    let (a, _) = per_tick(plan, o.window[0]);
    let (b, _) = per_tick(plan, o.window[1]);
    (a + b) / 2.0
}

/// What arrived, as the note says it.
fn delivery_note(plan: &TickPlan, o: &TickOutcome) -> String {
    let (want_r, want_u) = (plan.reliable_per_side(), plan.unreliable_per_side());
    let d = &o.delivered;
    let reliable = if d.reliable.iter().all(|&r| r == want_r) {
        format!("every reliable message arrived ({want_r} each way)")
    } else {
        format!(
            "reliable messages MISSING: c→s {}/{want_r}, s→c {}/{want_r}",
            d.reliable[0], d.reliable[1]
        )
    };
    let mut note = format!(
        "{reliable}; unreliable c→s {}/{want_u}, s→c {}/{want_u}",
        d.unreliable[0], d.unreliable[1]
    );
    if d.odd > 0 {
        note.push_str(&format!("; {} duplicates or malformed", d.odd));
    }
    if d.late > 0 {
        note.push_str(&format!(
            "; turns begun over a quarter tick late: {}",
            d.late
        ));
    }
    note
}

impl TickCase {
    /// The case for these peers (`hopnet` always runs; `only` empty: all); `quick` counts 60
    /// ticks instead of 600.
    pub fn new(only: &[String], quick: bool) -> TickCase {
        let peers: [(&'static str, TickFn); 5] = [
            ("hopnet", |p| hopnet_peer::tick(p, Flavor::Extended)),
            ("hopnet-spec", |p| hopnet_peer::tick(p, Flavor::Spec)),
            ("renet", renet_peer::tick),
            ("laminar", laminar_peer::tick),
            ("quinn", quinn_peer::tick),
        ];
        let cells = peers
            .into_iter()
            .filter(|(name, _)| {
                only.is_empty() || *name == "hopnet" || only.iter().any(|o| o == name)
            })
            .map(|(peer, run)| Cell {
                peer,
                run,
                outcomes: Vec::new(),
                errors: Vec::new(),
            })
            .collect();
        TickCase {
            plan: TickPlan::sixty_hz(if quick { 60 } else { 600 }),
            cells,
        }
    }

    /// One run of every peer.
    pub fn round(&mut self, round: usize) {
        let n = self.cells.len();
        for k in 0..n {
            let cell = &mut self.cells[(k + round) % n];
            eprint!("round {} {CASE} {} ... ", round + 1, cell.peer);
            let plan = &self.plan;
            keep(
                (cell.run)(plan),
                &mut cell.outcomes,
                &mut cell.errors,
                |o| {
                    let (b0, d0) = per_tick(plan, o.window[0]);
                    let (b1, d1) = per_tick(plan, o.window[1]);
                    format!(
                        "per tick c→s {d0:.2} datagrams {b0:.1} B, s→c {d1:.2} datagrams \
                     {b1:.1} B; {}",
                        delivery_note(plan, o)
                    )
                },
            );
        }
    }

    /// One row per peer: the median round's bytes, its datagrams and deliveries in the note.
    pub fn rows(self, rounds: usize) -> Vec<Row> {
        let plan = &self.plan;
        self.cells
            .into_iter()
            .map(|mut c| {
                c.outcomes
                    .sort_by(|a, b| bytes_per_tick(plan, a).total_cmp(&bytes_per_tick(plan, b)));
                let mut all: Vec<f64> =
                    c.outcomes.iter().map(|o| bytes_per_tick(plan, o)).collect();
                let med = median(&mut all);
                let mut notes = Vec::new();
                if let Some(o) =
                    med.and_then(|m| c.outcomes.iter().find(|o| bytes_per_tick(plan, o) == m))
                {
                    let (b0, d0) = per_tick(plan, o.window[0]);
                    let (b1, d1) = per_tick(plan, o.window[1]);
                    notes.push(format!(
                        "per tick: c→s {d0:.2} datagrams, {b0:.1} B; s→c {d1:.2} datagrams, \
                         {b1:.1} B (UDP payload + {IP_UDP_HEADER} B per datagram, {} ticks)",
                        plan.ticks
                    ));
                    if all.len() > 1 {
                        notes.push(format!("rounds {:.1}–{:.1} B", all[0], all[all.len() - 1]));
                    }
                    notes.push(delivery_note(plan, o));
                    notes.extend(o.notes.iter().cloned());
                    let slip = c
                        .outcomes
                        .iter()
                        .map(|o| o.window_slip)
                        .max()
                        .unwrap_or_default();
                    if slip.as_millis() >= 2 {
                        notes.push(format!("window read up to {} ms late", slip.as_millis()));
                    }
                }
                let incomplete: Vec<String> = c
                    .outcomes
                    .iter()
                    .filter(|o| {
                        o.delivered
                            .reliable
                            .iter()
                            .any(|&r| r < plan.reliable_per_side())
                    })
                    .map(|o| {
                        format!(
                            "{}/{}",
                            o.delivered.reliable[0].min(o.delivered.reliable[1]),
                            plan.reliable_per_side()
                        )
                    })
                    .collect();
                if !incomplete.is_empty() {
                    notes.push(format!(
                        "incomplete at the {} s drain deadline in {} of {rounds} rounds: {}",
                        plan.drain.as_secs(),
                        incomplete.len(),
                        incomplete.join(", ")
                    ));
                }
                notes.extend(failures(&c.errors, rounds));
                Row {
                    suite: "transport",
                    peer: c.peer.to_string(),
                    case: CASE.to_string(),
                    median_ns: None,
                    bytes: med.map(|m| m.round() as u64),
                    ratio: None,
                    note: notes.join("; "),
                    bytes_ratio: true,
                }
            })
            .collect()
    }
}
