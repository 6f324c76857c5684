//! The server's side: one client's inputs by tick, each handed out once at its tick, and an
//! account of those that came late or never came.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use super::message::{InputAck, InputMessage, MAX_INPUTS_PER_MESSAGE};
use crate::Tick;

/// The bounds an [`InputBuffer`] holds a client to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputBufferConfig {
    /// Inputs for ticks more than this far after the next one to simulate are dropped: the
    /// buffer holds at most this many plus one.
    pub max_ahead: Tick,
    /// How long, in ticks, an input that missed its tick may still arrive to be counted late
    /// rather than lost; older ones are dropped as too old.
    pub late_window: Tick,
    /// Messages taken per tick; more (a flood) are dropped unread.
    pub max_messages_per_tick: u32,
}

impl Default for InputBufferConfig {
    fn default() -> Self {
        InputBufferConfig {
            max_ahead: 128,
            late_window: 64,
            max_messages_per_tick: 8,
        }
    }
}

/// What happened to a client's inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputStats {
    /// Messages taken in.
    pub messages: u64,
    /// Distinct inputs stored before their tick.
    pub received: u64,
    /// Ticks whose input was there when the tick was simulated.
    pub on_time: u64,
    /// Ticks simulated without their input (the game repeated or guessed one).
    pub missing: u64,
    /// Of the missing, inputs that arrived afterwards (within `late_window`).
    pub late: u64,
    /// Of the missing, inputs that never arrived within `late_window`.
    pub lost: u64,
    /// Copies of inputs already held or applied (the redundancy's, or a duplicate tick).
    pub duplicates: u64,
    /// Inputs for ticks older than the late window: dropped.
    pub too_old: u64,
    /// Inputs for ticks beyond `max_ahead`: dropped.
    pub too_far_ahead: u64,
    /// Messages dropped unread beyond `max_messages_per_tick`.
    pub flooded: u64,
    /// Inputs beyond [`MAX_INPUTS_PER_MESSAGE`] in one message: dropped.
    pub excess: u64,
    /// Calls to [`InputBuffer::take`] for a tick already past (ignored).
    pub retaken: u64,
}

impl InputStats {
    /// Ticks that expected an input: those simulated from the first tick the client sent an
    /// input for.
    pub fn expected(&self) -> u64 {
        self.on_time + self.missing
    }

    /// The share of expected inputs that arrived after their tick.
    pub fn late_share(&self) -> f64 {
        share(self.late, self.expected())
    }

    /// The share of expected inputs that never arrived (counting those still awaited, `pending`
    /// from [`InputBuffer::awaited`], as lost).
    pub fn lost_share(&self, pending: u64) -> f64 {
        share(self.lost + pending, self.expected())
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// One client's inputs on the server.
#[derive(Debug, Clone)]
pub struct InputBuffer<I> {
    config: InputBufferConfig,
    slots: BTreeMap<Tick, I>,
    /// The next tick the server simulates: inputs before it are past.
    next: Tick,
    /// Ticks simulated without their input, oldest first, until a late copy or the window's
    /// end.
    missed: VecDeque<Tick>,
    /// Inputs that came after their tick, for the game's one-off effects (a shot judged late).
    arrived_late: VecDeque<(Tick, I)>,
    newest: Option<(Tick, Instant)>,
    messages_this_tick: u32,
    /// The first tick the client sent an input for: ticks before it expect none.
    first: Option<Tick>,
    stats: InputStats,
}

impl<I> InputBuffer<I> {
    /// An empty buffer; the server's next tick is 0 until the first [`take`](Self::take)
    /// (see [`starting_at`](Self::starting_at)).
    pub fn new(config: InputBufferConfig) -> InputBuffer<I> {
        InputBuffer::starting_at(config, 0)
    }

    /// An empty buffer for a client that joins when the server's next tick is `next`.
    pub fn starting_at(config: InputBufferConfig, next: Tick) -> InputBuffer<I> {
        InputBuffer {
            config,
            slots: BTreeMap::new(),
            next,
            missed: VecDeque::new(),
            arrived_late: VecDeque::new(),
            newest: None,
            messages_this_tick: 0,
            first: None,
            stats: InputStats::default(),
        }
    }

    /// Takes a message in at `now`: each input stored for its tick, or dropped and counted.
    pub fn receive(&mut self, now: Instant, message: &InputMessage<I>)
    where
        I: Clone,
    {
        self.messages_this_tick = self.messages_this_tick.saturating_add(1);
        if self.messages_this_tick > self.config.max_messages_per_tick {
            self.stats.flooded += 1;
            return;
        }
        self.stats.messages += 1;
        let skip = message.inputs.len().saturating_sub(MAX_INPUTS_PER_MESSAGE);
        self.stats.excess += skip as u64;
        for (tick, input) in message.ticks().skip(skip) {
            self.store(tick, input);
        }
        // Acknowledged even when too old to apply: a client whose clock is behind learns its
        // round trip from it, and stops sending what is useless. Never a tick beyond the
        // bound: a hostile claim is not echoed.
        let in_bounds = message.newest - self.next.min(message.newest) <= self.config.max_ahead;
        if in_bounds && self.newest.is_none_or(|(t, _)| message.newest > t) {
            self.newest = Some((message.newest, now));
        }
    }

    /// Stores one input, or counts why not.
    fn store(&mut self, tick: Tick, input: &I)
    where
        I: Clone,
    {
        if tick < self.next {
            if self.next - tick > self.config.late_window {
                self.stats.too_old += 1;
                return;
            }
            if let Some(i) = self.missed.iter().position(|&t| t == tick) {
                self.missed.remove(i);
                self.stats.late += 1;
                self.arrived_late.push_back((tick, input.clone()));
                // Bounded as the missed ticks are: a game that never drains loses the oldest.
                while self.arrived_late.len() > self.config.late_window as usize {
                    self.arrived_late.pop_front();
                }
            } else {
                self.stats.duplicates += 1;
            }
            return;
        }
        if tick - self.next > self.config.max_ahead {
            self.stats.too_far_ahead += 1;
            return;
        }
        match self.slots.entry(tick) {
            Entry::Occupied(_) => self.stats.duplicates += 1,
            Entry::Vacant(slot) => {
                slot.insert(input.clone());
                self.stats.received += 1;
                self.first = Some(self.first.map_or(tick, |f| f.min(tick)));
            }
        }
    }

    /// The input for `tick`, which the server simulates now, handed out once. Ticks are
    /// taken in order; a tick already past gives `None` (counted).
    pub fn take(&mut self, tick: Tick) -> Option<I> {
        if tick < self.next {
            self.stats.retaken += 1;
            return None;
        }
        // Ticks the server skipped: their inputs will never be applied.
        while let Some(entry) = self.slots.first_entry() {
            if *entry.key() >= tick {
                break;
            }
            entry.remove();
        }
        self.next = tick + 1;
        self.messages_this_tick = 0;
        let input = self.slots.remove(&tick);
        if input.is_some() {
            self.stats.on_time += 1;
        } else if self.first.is_some_and(|f| tick >= f) {
            self.stats.missing += 1;
            self.missed.push_back(tick);
        }
        while let Some(&t) = self.missed.front() {
            if self.next - t <= self.config.late_window {
                break;
            }
            self.missed.pop_front();
            self.stats.lost += 1;
        }
        input
    }

    /// The inputs that arrived after their tick was simulated without them, each once, oldest
    /// first: state cannot be rewound for them, but an event in them (a shot, judged with
    /// lag compensation) can still be applied.
    pub fn take_late(&mut self) -> impl Iterator<Item = (Tick, I)> + '_ {
        self.arrived_late.drain(..)
    }

    /// The acknowledgement to send the client at `now`, once it sent anything in bounds.
    pub fn ack(&self, now: Instant) -> Option<InputAck> {
        let (newest, at) = self.newest?;
        let held = now.saturating_duration_since(at).as_micros();
        Some(InputAck {
            newest,
            held_us: u32::try_from(held).unwrap_or(u32::MAX),
            late: self.stats.late as u32,
        })
    }

    /// Inputs held for ticks not yet simulated.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no input waits for its tick.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Missed ticks whose input may still arrive late.
    pub fn awaited(&self) -> u64 {
        self.missed.len() as u64
    }

    /// What happened to this client's inputs.
    pub fn stats(&self) -> &InputStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(newest: Tick, inputs: Vec<u32>) -> InputMessage<u32> {
        InputMessage { newest, inputs }
    }

    #[test]
    fn inputs_are_applied_at_their_tick_once() {
        let now = Instant::now();
        let mut b = InputBuffer::starting_at(InputBufferConfig::default(), 10);
        b.receive(now, &msg(12, vec![10, 11, 12]));
        b.receive(now, &msg(12, vec![10, 11, 12]));
        assert_eq!(b.stats().duplicates, 3);
        assert_eq!(b.take(10), Some(10));
        assert_eq!(b.take(11), Some(11));
        assert_eq!(b.take(11), None);
        assert_eq!(b.stats().retaken, 1);
        assert_eq!(b.take(12), Some(12));
        assert_eq!(b.ack(now).map(|a| a.newest), Some(12));
    }

    #[test]
    fn late_and_lost_are_told_apart() {
        let now = Instant::now();
        let config = InputBufferConfig {
            late_window: 4,
            ..InputBufferConfig::default()
        };
        let mut b = InputBuffer::starting_at(config, 0);
        b.receive(now, &msg(0, vec![0]));
        assert_eq!(b.take(0), Some(0));
        assert_eq!(b.take(1), None);
        assert_eq!(b.take(2), None);
        b.receive(now, &msg(1, vec![1])); // tick 1 late
        b.receive(now, &msg(1, vec![1])); // and again: a duplicate
        assert_eq!(b.take_late().collect::<Vec<_>>(), [(1, 1)]);
        assert_eq!(b.take_late().count(), 0);
        for t in 3..10 {
            b.take(t);
        }
        let s = b.stats();
        assert_eq!((s.on_time, s.late), (1, 1));
        // 2..=9 never came; 2..=5 are past the window: lost; the rest still awaited.
        assert_eq!(s.lost, 4);
        assert_eq!(b.awaited(), 4);
        assert_eq!(s.missing, 9);
    }

    #[test]
    fn ticks_far_ahead_or_behind_are_dropped_and_counted() {
        let now = Instant::now();
        let mut b = InputBuffer::starting_at(InputBufferConfig::default(), 1000);
        b.receive(now, &msg(u32::MAX, vec![1, 2, 3]));
        b.receive(now, &msg(5, vec![1, 2]));
        let s = b.stats();
        assert_eq!((s.too_far_ahead, s.too_old), (3, 2));
        assert!(b.is_empty());
        assert_eq!(
            b.ack(now).map(|a| a.newest),
            Some(5),
            "too old to apply, but acknowledged; the hostile future tick is not"
        );
        // Ticks near zero with many inputs do not underflow.
        b.receive(now, &msg(1, vec![0; 32]));
        assert_eq!(b.stats().too_old, 4);
    }

    #[test]
    fn a_flood_is_cut_per_tick_and_memory_stays_bounded() {
        let now = Instant::now();
        let config = InputBufferConfig::default();
        let mut b = InputBuffer::starting_at(config.clone(), 0);
        for round in 0..1000u32 {
            for i in 0..1000u32 {
                let newest = round * 7 + i;
                b.receive(now, &msg(newest, vec![i; 40]));
            }
            b.take(round);
            assert!(b.len() <= config.max_ahead as usize + 1);
            assert!(b.awaited() <= u64::from(config.late_window));
        }
        let s = b.stats();
        assert_eq!(
            s.flooded,
            1000 * (1000 - u64::from(config.max_messages_per_tick))
        );
        assert_eq!(s.excess, 1000 * 8 * 8);
    }
}
