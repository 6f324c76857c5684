//! The client's side: inputs kept until acknowledged, the newest of them in every message.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::message::{InputAck, InputMessage, MAX_INPUTS_PER_MESSAGE};
use crate::Tick;

/// The most inputs kept waiting for an acknowledgement: past it, the oldest are forgotten
/// (a server that stopped acknowledging does not grow the client's memory).
const MAX_PENDING: usize = 256;

/// What an [`InputSender`] dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Inputs forgotten unacknowledged because `MAX_PENDING` were waiting.
    pub forgotten: u64,
    /// Inputs pushed for a tick at or before one already pushed: the later ones replaced.
    pub rewritten: u64,
}

#[derive(Debug, Clone)]
struct Pending<I> {
    tick: Tick,
    input: I,
    /// When the first message whose newest input this is left: the round trip's start.
    sent: Option<Instant>,
}

/// What an acknowledgement told: give it to the [`TickSync`](crate::tick_sync::TickSync)
/// ([`TickSync::on_acked`](crate::tick_sync::TickSync::on_acked)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Acked {
    /// The round trip it measured, when it names an input still waiting whose message left.
    pub rtt: Option<Duration>,
    /// Inputs the server counted late since the previous acknowledgement.
    pub late: u32,
}

/// A client's inputs on their way to the server.
#[derive(Debug, Clone)]
pub struct InputSender<I> {
    pending: VecDeque<Pending<I>>,
    redundancy: usize,
    delay: Tick,
    acked: Option<Tick>,
    late: Option<u32>,
    stats: SenderStats,
}

impl<I: Clone> InputSender<I> {
    /// Each message carries up to `redundancy` inputs (at least 1, at most
    /// [`MAX_INPUTS_PER_MESSAGE`]); each input is scheduled `delay` ticks after the tick it
    /// is made at (an input delay trades responsiveness for fewer corrections).
    pub fn new(redundancy: usize, delay: Tick) -> InputSender<I> {
        InputSender {
            pending: VecDeque::new(),
            redundancy: redundancy.clamp(1, MAX_INPUTS_PER_MESSAGE),
            delay,
            acked: None,
            late: None,
            stats: SenderStats::default(),
        }
    }

    /// The input delay, in ticks.
    pub fn delay(&self) -> Tick {
        self.delay
    }

    /// Changes the input delay for inputs pushed from now on.
    pub fn set_delay(&mut self, delay: Tick) {
        self.delay = delay;
    }

    /// The input made at tick `made_at`; returns the tick it is scheduled for (the one the
    /// game predicts it at). A tick at or before one already pushed (the clock jumped back)
    /// replaces the inputs from there on.
    pub fn push(&mut self, made_at: Tick, input: I) -> Tick {
        let tick = made_at.saturating_add(self.delay);
        while self.pending.back().is_some_and(|p| p.tick >= tick) {
            self.pending.pop_back();
            self.stats.rewritten += 1;
        }
        if self.acked.is_some_and(|a| tick <= a) {
            // Acknowledged already (a clock that jumped back): the server has this tick.
            self.stats.rewritten += 1;
            return tick;
        }
        self.pending.push_back(Pending {
            tick,
            input,
            sent: None,
        });
        while self.pending.len() > MAX_PENDING {
            self.pending.pop_front();
            self.stats.forgotten += 1;
        }
        tick
    }

    /// The message to send now: the newest inputs not acknowledged, consecutive, up to the
    /// redundancy. `None` when nothing waits.
    pub fn message(&mut self, now: Instant) -> Option<InputMessage<I>> {
        let newest = self.pending.back_mut()?;
        newest.sent.get_or_insert(now);
        let newest = newest.tick;
        let mut count = 0;
        for p in self.pending.iter().rev() {
            if count == self.redundancy || p.tick != newest - count as Tick {
                break;
            }
            count += 1;
        }
        let start = self.pending.len() - count;
        let inputs = self
            .pending
            .range(start..)
            .map(|p| p.input.clone())
            .collect();
        Some(InputMessage { newest, inputs })
    }

    /// The server acknowledged `ack` at `now`: inputs up to its tick are forgotten. Returns
    /// the round trip it measures and the inputs newly counted late.
    pub fn on_ack(&mut self, now: Instant, ack: &InputAck) -> Acked {
        if self.acked.is_some_and(|a| ack.newest <= a) {
            return Acked::default();
        }
        self.acked = Some(ack.newest);
        // The count only grows (wrapping); an older ack reordered after a newer one was
        // refused above.
        let late = self.late.map_or(0, |l| ack.late.wrapping_sub(l));
        self.late = Some(ack.late);
        let mut rtt = None;
        while let Some(p) = self.pending.front() {
            if p.tick > ack.newest {
                break;
            }
            if p.tick == ack.newest
                && let Some(sent) = p.sent
            {
                let held = Duration::from_micros(u64::from(ack.held_us));
                rtt = Some(now.saturating_duration_since(sent).saturating_sub(held));
            }
            self.pending.pop_front();
        }
        Acked { rtt, late }
    }

    /// Inputs waiting for an acknowledgement.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// What it dropped.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_repeats_the_unacknowledged_inputs_up_to_the_redundancy() {
        let now = Instant::now();
        let mut s = InputSender::new(3, 0);
        for t in 1..=5u32 {
            s.push(t, t);
        }
        let m = s.message(now).unwrap();
        assert_eq!((m.newest, m.inputs.clone()), (5, vec![3, 4, 5]));
        let ack = InputAck {
            newest: 5,
            held_us: 10_000,
            late: 3,
        };
        let acked = s.on_ack(now + Duration::from_millis(50), &ack);
        assert_eq!(acked.rtt, Some(Duration::from_millis(40)));
        assert_eq!(acked.late, 0, "the first ack is the baseline");
        s.push(6, 6);
        s.message(now);
        let ack = InputAck {
            newest: 6,
            late: 5,
            ..ack
        };
        assert_eq!(s.on_ack(now, &ack).late, 2);
        assert!(s.message(now).is_none());
    }

    #[test]
    fn the_input_delay_schedules_later() {
        let mut s = InputSender::new(2, 3);
        assert_eq!(s.push(10, 'a'), 13);
        assert_eq!(s.message(Instant::now()).unwrap().newest, 13);
    }

    #[test]
    fn without_acknowledgements_memory_stays_bounded() {
        let mut s = InputSender::new(8, 0);
        for t in 0..10_000u32 {
            s.push(t, [0u8; 16]);
        }
        assert_eq!(s.pending(), MAX_PENDING);
        assert_eq!(s.stats().forgotten, 10_000 - MAX_PENDING as u64);
    }

    #[test]
    fn a_clock_that_jumps_back_rewrites_rather_than_duplicates() {
        let mut s = InputSender::new(8, 0);
        for t in 0..10u32 {
            s.push(t, t);
        }
        s.push(5, 99);
        let m = s.message(Instant::now()).unwrap();
        assert_eq!(m.newest, 5);
        assert_eq!(m.inputs.last(), Some(&99));
        assert_eq!(s.stats().rewritten, 5);
    }
}
