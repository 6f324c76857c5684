//! Congestion control for reliable chunks: a window counted in chunks that tells random loss
//! from congestion.
//!
//! A lossy game link (Wi-Fi, mobile) drops datagrams at random, whatever the sending rate; a
//! congested bottleneck drops them because its queue is full. Halving the window on every loss
//! (NewReno) throttles the first kind to a crawl (BENCHMARKS.md, "Figures from code comments")
//! without helping anyone. So the window reacts to what congestion looks
//! like, not to isolated losses:
//!
//! - **Queue (delay).** Once per round trip the controller estimates how many of its chunks
//!   wait in a queue: the smallest RTT sample of the round above the smallest RTT ever seen,
//!   less a jitter floor (1 ms, or on a shorter path a quarter of that smallest RTT but at
//!   least 100 us, a thread's wake-up on a loaded host), times the delivery rate (Little's
//!   law; TCP Vegas's `diff`).
//! - **Growth.** Slow start (one chunk per acknowledged chunk) until a queue of [`ALPHA`]
//!   chunks shows, checked within the round as in HyStart; the window then drops by the queue
//!   it built. After that, per round trip while the queue holds fewer than [`ALPHA`] chunks:
//!   an eighth more up to 85 % of the window that last met congestion, then one chunk, then a
//!   quarter of the distance past it (CUBIC's shape: quick back, careful around the old
//!   limit); half the excess less above [`BETA`] chunks. A bottleneck queue longer than that
//!   band does not overflow from our own traffic.
//! - **Loss.** A loss is congestion when the queue estimate is long ([`LOSS_QUEUE`] plus an
//!   eighth of the window, more than one round's growth can build): the window shrinks by the
//!   share of the RTT that was queueing, at least a fifth and at most half. A loss episode
//!   halves it: a round losing clearly more than the link's random loss rate (more than 3
//!   standard deviations and 1 chunk above the expected count, at least 2 chunks), which
//!   catches a queue too short to show in the RTT, or a policer that drops without queueing.
//!   The random loss rate is a moving average (about 8 rounds) learnt only from rounds whose
//!   window is below the one that last met congestion (congestion loss grows with the
//!   window, random loss does not), so a queue that overflows at a steady rate is not taken
//!   for a lossy link; it starts at zero (a new link is clean until shown otherwise) and never
//!   exceeds [`MAX_RANDOM_LOSS`]. A retransmission timeout after a whole RTO without any
//!   acknowledgement (a blackout) restarts from the floor in slow start (RFC 5681); a timeout
//!   while acknowledgements still arrive is one lost chunk. Each reaction happens once per
//!   round trip of losses, as in NewReno. Any other loss is random: the chunk is sent again
//!   and the window stays. Timer values and backoff stay RFC 6298's, with Karn's rule
//!   (`rtt.rs`).
//!
//! The window never drops below a configured floor nor grows above the configured maximum.

use std::time::Duration;

/// Below this many queued chunks the window grows (after slow start).
pub(crate) const ALPHA: f64 = 3.0;
/// Above this many queued chunks the window shrinks.
pub(crate) const BETA: f64 = 6.0;
/// From this many queued chunks on, a loss counts as congestion (a queue this long that still
/// overflows is full, whatever fills it).
pub(crate) const LOSS_QUEUE: f64 = 2.0 * BETA;
/// The largest random loss share the controller learns to tolerate. (An ACK lost on the way
/// back costs its chunk a resend too, so 10 % random loss each way is a 19 % share.)
pub(crate) const MAX_RANDOM_LOSS: f64 = 0.3;
/// Weight of one round in the random loss estimate.
const LOSS_GAIN: f64 = 1.0 / 8.0;
/// The random loss estimate learns from rounds whose window is at most this share of the
/// window at the last congestion reaction.
const LEARN_BELOW: f64 = 0.85;
/// Past this share of the window that last met congestion, the window grows by one chunk
/// per round trip (until it is past that window).
const CAREFUL_FROM: f64 = 0.85;
/// Losses a round needs before it can be a loss episode.
const MIN_EPISODE_LOSSES: u32 = 2;
/// RTT samples of a round after which slow start may end within the round.
const SLOW_START_SAMPLES: u32 = 8;
/// Queueing delay below this (or a quarter of the base RTT, if smaller) is jitter.
const DELAY_FLOOR: Duration = Duration::from_millis(1);
/// The jitter floor is never below this (a thread's wake-up on a loaded host).
const MIN_DELAY_FLOOR: Duration = Duration::from_micros(100);

/// Congestion controller state.
#[derive(Debug, Clone)]
pub(crate) struct Congestion {
    window: u32,
    ssthresh: u32,
    min: u32,
    max: u32,
    /// Losses of chunks sent before this transmission id belong to an event already handled.
    recovery_until: u64,
    /// The round trip ends when a chunk sent at or after this transmission id is acknowledged.
    round_end: u64,
    /// Chunks acknowledged and lost in the current round, its RTT samples and the smallest.
    round_acked: u32,
    round_lost: u32,
    round_samples: u32,
    round_min_rtt: Option<Duration>,
    /// Chunks acknowledged and lost in the last complete round.
    last_acked: u32,
    last_lost: u32,
    /// The share of chunks the link loses at random (learnt, see the module doc).
    random_loss: f64,
    /// The window when the controller last reacted to congestion (`u32::MAX` before).
    reacted_at: u32,
    /// Estimated chunks of ours waiting in a queue, from the last complete round.
    queued: f64,
    /// The share of the last complete round's smallest RTT that was not queueing
    /// (base RTT / round RTT): the factor that would empty the queue.
    drain: f64,
}

/// Chunks of ours in a queue: `acked` chunks delivered in a round trip of `rtt` (the delivery
/// rate) times the queueing delay above `base` (Little's law; TCP Vegas's `diff`).
fn queue_estimate(acked: u32, rtt: Duration, base: Duration) -> f64 {
    let delay = rtt
        .saturating_sub(base)
        .saturating_sub(DELAY_FLOOR.min((base / 4).max(MIN_DELAY_FLOOR)));
    if rtt.is_zero() {
        return 0.0;
    }
    f64::from(acked) * delay.as_secs_f64() / rtt.as_secs_f64()
}

impl Congestion {
    pub fn new(initial: u32, min: u32, max: u32) -> Congestion {
        Congestion {
            window: initial,
            ssthresh: u32::MAX,
            min,
            max,
            recovery_until: 0,
            round_end: 0,
            round_acked: 0,
            round_lost: 0,
            round_samples: 0,
            round_min_rtt: None,
            last_acked: 0,
            last_lost: 0,
            random_loss: 0.0,
            reacted_at: u32::MAX,
            queued: 0.0,
            drain: 1.0,
        }
    }

    /// Chunks that may be in flight.
    pub fn window(&self) -> u32 {
        self.window
    }

    fn in_slow_start(&self) -> bool {
        self.window < self.ssthresh
    }

    /// Leaves slow start without the queue it built.
    fn end_slow_start(&mut self, queued: f64) {
        let drained = f64::from(self.window) - queued;
        self.window = (drained.max(0.0) as u32).clamp(self.min, self.max);
        self.ssthresh = self.window;
    }

    /// A chunk sent with transmission id `tx_id` was acknowledged while in flight. `sample` is
    /// its RTT if it was sent once (Karn's rule), `min_rtt` the smallest RTT seen so far, and
    /// `next_tx_id` the id the next transmission will get.
    pub fn on_ack(
        &mut self,
        tx_id: u64,
        sample: Option<Duration>,
        min_rtt: Option<Duration>,
        next_tx_id: u64,
    ) {
        self.round_acked = self.round_acked.saturating_add(1);
        if let Some(r) = sample {
            self.round_samples = self.round_samples.saturating_add(1);
            self.round_min_rtt = Some(self.round_min_rtt.map_or(r, |m| m.min(r)));
        }
        if tx_id >= self.round_end {
            self.end_round(min_rtt, next_tx_id);
        }
        if !self.in_slow_start() {
            return;
        }
        // Slow start ends as soon as this round's samples show a queue (as in HyStart), not a
        // round later with twice the window.
        if self.round_samples >= SLOW_START_SAMPLES
            && let (Some(round), Some(base)) = (self.round_min_rtt, min_rtt)
        {
            let queued = queue_estimate(self.last_acked.max(self.round_acked), round, base);
            if queued >= ALPHA {
                self.end_slow_start(queued);
                return;
            }
        }
        self.window = self.window.saturating_add(1).min(self.max);
    }

    /// An RTT sample not tied to one chunk's acknowledgement (an ACK frame's, on the extended
    /// wire): it counts toward the round's samples and its smallest.
    pub fn on_sample(&mut self, r: Duration) {
        self.round_samples = self.round_samples.saturating_add(1);
        self.round_min_rtt = Some(self.round_min_rtt.map_or(r, |m| m.min(r)));
    }

    /// Closes the current round trip: estimates the queue from its smallest RTT sample and
    /// moves the window by it.
    fn end_round(&mut self, min_rtt: Option<Duration>, next_tx_id: u64) {
        self.round_end = next_tx_id;
        self.last_acked = self.round_acked;
        self.last_lost = self.round_lost;
        let total = self.round_acked.saturating_add(self.round_lost);
        // Learn only below the window that last met congestion: there, what is lost is lost
        // at random (congestion loss grows with the window, random loss does not).
        if total > 0 && f64::from(self.window) <= LEARN_BELOW * f64::from(self.reacted_at) {
            let share = f64::from(self.round_lost) / f64::from(total);
            self.random_loss =
                (self.random_loss + (share - self.random_loss) * LOSS_GAIN).min(MAX_RANDOM_LOSS);
        }
        (self.queued, self.drain) = match (self.round_min_rtt, min_rtt) {
            (Some(round), Some(base)) if !round.is_zero() => (
                queue_estimate(self.round_acked, round, base),
                base.as_secs_f64() / round.as_secs_f64(),
            ),
            _ => (0.0, 1.0),
        };
        self.round_acked = 0;
        self.round_lost = 0;
        self.round_samples = 0;
        self.round_min_rtt = None;
        if self.in_slow_start() {
            if self.queued >= ALPHA {
                self.end_slow_start(self.queued);
            }
        } else if self.queued < ALPHA {
            // No queue: there is room. As CUBIC, fast back towards the window that last met
            // congestion, carefully around it, then faster again the further past it: a
            // window halved by a loss episode comes back in tens of round trips, not
            // hundreds, and a queue too short to show in the RTT overflows by a chunk or two
            // per cycle, not by an eighth of the window.
            let w = f64::from(self.window);
            let last = f64::from(self.reacted_at);
            let step = if w < CAREFUL_FROM * last {
                w / 8.0
            } else {
                ((w - last) / 4.0).min(w / 8.0)
            };
            self.window = self
                .window
                .saturating_add(step.max(1.0) as u32)
                .min(self.max);
        } else if self.queued > BETA {
            // Give back half of the excess queue each round trip.
            let excess = ((self.queued - BETA) / 2.0).ceil() as u32;
            self.window = self.window.saturating_sub(excess).max(self.min);
            self.ssthresh = self.window;
        }
    }

    /// Whether losses look like congestion rather than random loss, and if so by what factor
    /// the window shrinks.
    fn congestion_factor(&self) -> Option<f64> {
        if self.queued >= LOSS_QUEUE + f64::from(self.window) / 8.0 {
            // Empty the queue the last round saw, giving back at least a fifth and at most
            // half of the window: a deep queue is drained as NewReno would, a shallow one
            // costs less than half the rate.
            return Some(self.drain.clamp(0.5, 0.8));
        }
        // The current round's losses against what random loss would take from it (its size:
        // the larger of its count so far and the last round's).
        let episode = |lost: u32, size: u32| {
            let expected = self.random_loss * f64::from(size);
            let spread = (expected * (1.0 - self.random_loss)).sqrt();
            lost >= MIN_EPISODE_LOSSES && f64::from(lost) > expected + 3.0 * spread + 1.0
        };
        let last = self.last_lost.saturating_add(self.last_acked);
        let size = self.round_lost.saturating_add(self.round_acked).max(last);
        let episode = episode(self.round_lost, size) || episode(self.last_lost, last);
        // A loss episode without a queue to go by: halve, as NewReno.
        episode.then_some(0.5)
    }

    /// A chunk sent with transmission id `tx_id` was declared lost; `blackout` if by the
    /// retransmission timer after nothing at all was acknowledged for a whole RTO.
    /// `next_tx_id` is the id the next transmission will get.
    pub fn on_loss(&mut self, tx_id: u64, next_tx_id: u64, blackout: bool) {
        self.round_lost = self.round_lost.saturating_add(1);
        if tx_id < self.recovery_until {
            return;
        }
        let factor = self.congestion_factor();
        if !blackout && factor.is_none() {
            return;
        }
        self.recovery_until = next_tx_id;
        self.reacted_at = self.window;
        if blackout {
            // Nothing came back for a whole RTO: start again from the floor, slow start up to
            // half the window (RFC 5681).
            self.ssthresh = (self.window / 2).max(self.min);
            self.window = self.min;
        } else {
            let factor = factor.unwrap_or(0.5);
            self.window = ((f64::from(self.window) * factor) as u32).max(self.min);
            self.ssthresh = self.window;
        }
        // What the last round measured no longer holds: measure afresh from here.
        self.round_end = next_tx_id;
        self.round_acked = 0;
        self.round_lost = 0;
        self.round_samples = 0;
        self.round_min_rtt = None;
        self.last_lost = 0;
        self.queued = 0.0;
        self.drain = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Acknowledges `n` chunks with RTT `rtt` over a base of 20 ms, as the sender would,
    /// numbering transmissions from `*tx`.
    fn ack_round(c: &mut Congestion, tx: &mut u64, n: u32, rtt: u64) {
        let base = Some(Duration::from_millis(20));
        let first = *tx;
        *tx += u64::from(n);
        for i in 0..u64::from(n) {
            c.on_ack(first + i, Some(Duration::from_millis(rtt)), base, *tx);
        }
    }

    /// A controller starting at 10 chunks after its first round trip, without a queue: 20.
    fn after_one_round() -> (Congestion, u64) {
        let mut c = Congestion::new(10, 4, 1000);
        let mut tx = 0;
        ack_round(&mut c, &mut tx, 10, 20);
        assert_eq!(c.window(), 20);
        (c, tx)
    }

    #[test]
    fn random_losses_leave_the_window_alone() {
        let (mut c, mut tx) = after_one_round();
        // One loss in 20 with no queue: random, slow start goes on.
        c.on_loss(tx - 5, tx, false);
        ack_round(&mut c, &mut tx, 19, 20);
        assert_eq!(c.window(), 39);
    }

    #[test]
    fn a_queue_ends_slow_start_and_a_loss_with_it_is_congestion() {
        let (mut c, mut tx) = after_one_round();
        ack_round(&mut c, &mut tx, 20, 20);
        assert_eq!(c.window(), 40);
        // 40 chunks per 40 ms with 19 ms of it queueing (beyond the 1 ms floor): 19 queued;
        // slow start ends 8 samples into the round (where it would have doubled to 80).
        ack_round(&mut c, &mut tx, 40, 40);
        let w = c.window();
        assert!(w < 48, "slow start must end: {w}");
        ack_round(&mut c, &mut tx, w, 40);
        let before = c.window();
        c.on_loss(tx - 1, tx, false);
        assert!(
            c.window() < before,
            "a loss with a long queue is congestion"
        );
        let after = c.window();
        assert!(after >= before / 2);
        // Another loss from the same round trip is the same event.
        c.on_loss(tx - 2, tx, false);
        assert_eq!(c.window(), after);
    }

    #[test]
    fn tiny_windows_grow_after_congestion() {
        // The smallest windows take the careful path past the last congestion window (its
        // step bounds cross below 8 chunks).
        let mut c = Congestion::new(4, 4, 1000);
        let mut tx = 0;
        ack_round(&mut c, &mut tx, 4, 20);
        c.on_loss(tx - 1, tx, true);
        assert_eq!(c.window(), 4);
        for _ in 0..40 {
            let w = c.window();
            ack_round(&mut c, &mut tx, w, 20);
        }
        assert!(c.window() > 8, "{}", c.window());
    }

    #[test]
    fn a_loss_episode_or_a_blackout_is_congestion() {
        let (mut c, mut tx) = after_one_round();
        ack_round(&mut c, &mut tx, 20, 20);
        let w = c.window();
        // More than 30 % of a round lost, with no queue at all.
        for i in 0..15 {
            c.on_loss(tx - 1 - i, tx, false);
        }
        assert_eq!(c.window(), w / 2);
        tx += 1;
        c.on_loss(tx, tx + 1, true);
        assert_eq!(c.window(), 4);
    }
}
