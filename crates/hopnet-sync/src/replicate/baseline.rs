//! What the server knows of one entity at one client: the stay in scope it belongs to, the
//! newest state the client acknowledged (the baseline deltas are written against), and the
//! states sent since, which may or may not have arrived.
//!
//! Tracked updates say when the client has one (`Acknowledged`): that moves the baseline
//! forward, never back; `Lost` moves nothing (it may still have arrived). A delta is only
//! useful if the client can decode it: the client keeps every state of the last
//! [`ReplicateConfig::history`](super::config::ReplicateConfig::history) ticks, and the server writes
//! deltas only against baselines at most
//! [`ReplicateConfig::max_baseline_age`](super::config::ReplicateConfig::max_baseline_age) ticks old
//! (an older one is sent whole instead). An update acknowledged arrived within hopnet's
//! tracked timeout of being sent; as long as that timeout, in ticks, is at most the difference
//! of the two, the client held the update's baseline when it arrived, so any acknowledged
//! state can be the next baseline.

use std::time::{Duration, Instant};

use crate::Tick;

/// The sent-since-acknowledged states kept per entity at most (past it the entity counts as
/// unsettled until a newer acknowledgement).
const MAX_UNSETTLED: usize = 64;

/// An entity in one client's scope.
#[derive(Debug, Clone)]
pub(crate) struct Record<S> {
    /// The tick it entered the client's scope: names this stay.
    pub since: Tick,
    /// The newest state the client acknowledged, and the tick of the update that carried it.
    pub acked: Option<(Tick, S)>,
    /// The ticks and states sent after the acknowledged one, oldest first: any of them may be
    /// what the client shows.
    pub unsettled: Vec<(Tick, S)>,
    /// The newest of them is still in flight (neither acknowledged nor reported lost), and
    /// when it left.
    pub newest_in_flight: Option<Instant>,
    /// More were sent than `unsettled` keeps: the newest tick it let go of.
    pub overflowed: Option<Tick>,
    /// Its accumulated priority.
    pub priority: f32,
    /// Whether anything of it was sent in this stay (if not, leaving scope needs no despawn).
    pub sent_any: bool,
}

impl<S: hopnet_codec::DeltaEncode + Clone> Record<S> {
    pub fn new(since: Tick) -> Self {
        Record {
            since,
            acked: None,
            unsettled: Vec::new(),
            newest_in_flight: None,
            overflowed: None,
            priority: 0.0,
            sent_any: false,
        }
    }

    /// Whether the client may show something other than `now`: it has no state of the entity
    /// yet, or its acknowledged one differs, or a state sent since differs.
    pub fn needs(&self, now: &S) -> bool {
        match &self.acked {
            None => true,
            Some((_, acked)) => {
                self.overflowed.is_some()
                    || !now.unchanged(acked)
                    || self.unsettled.iter().any(|(_, s)| !now.unchanged(s))
            }
        }
    }

    /// Whether it needs sending at `at`: the client may show something other than `now`,
    /// and `now` did not leave within `wait` (about a round trip: sending the same state
    /// again every tick until its acknowledgement comes back would spend a round trip's
    /// budget on copies; after `wait` without one, it was probably lost).
    pub fn needs_sending(&self, now: &S, at: Instant, wait: Duration) -> bool {
        let on_its_way = self.newest_in_flight.is_some_and(|sent| {
            at.saturating_duration_since(sent) < wait
                && self.unsettled.last().is_some_and(|(_, s)| now.unchanged(s))
        });
        self.needs(now) && !on_its_way
    }

    /// The update of `tick` carrying a state of it was reported lost: it may have arrived or
    /// not.
    pub fn lost(&mut self, tick: Tick) {
        if self.unsettled.last().is_some_and(|(t, _)| *t == tick) {
            self.newest_in_flight = None;
        }
    }

    /// A state of it went out in the update of `tick`, at `at`.
    pub fn sent(&mut self, tick: Tick, state: &S, at: Instant) {
        self.sent_any = true;
        self.priority = 0.0;
        if self.unsettled.len() >= MAX_UNSETTLED {
            let (dropped, _) = self.unsettled.remove(0);
            self.overflowed = Some(dropped);
        }
        self.unsettled.push((tick, state.clone()));
        self.newest_in_flight = Some(at);
    }

    /// The update of `tick` arrived carrying `state`: it becomes the baseline if it is newer
    /// than the one acknowledged before.
    pub fn acknowledged(&mut self, tick: Tick, state: S) {
        // The client shows this update's state or a newer one: older unsettled ones are not
        // shown any more.
        self.unsettled.retain(|(t, _)| *t > tick);
        if self.overflowed.is_some_and(|t| t <= tick) {
            self.overflowed = None;
        }
        if self.acked.as_ref().is_none_or(|(t, _)| tick > *t) {
            self.acked = Some((tick, state));
        }
    }
}
