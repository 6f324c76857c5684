//! The client's tick, kept ahead of the server's.
//!
//! An input for tick `T` is useful only if it reaches the server before the server simulates
//! `T`. The client therefore runs its own tick ahead of its estimate of the server's: by half
//! the round trip (the server's tick moves on while a snapshot travels to us) plus half the
//! round trip again (while our input travels to it), plus a margin for jitter and for a lost
//! datagram whose input comes in the next one's redundant copy.
//!
//! The estimate is fed by two kinds of samples: a server tick seen at a local instant
//! ([`TickSync::on_server_tick`], every snapshot), and a round-trip time
//! ([`TickSync::on_rtt`], such as the one [`InputSender::on_ack`](crate::input::InputSender::on_ack)
//! measures). The server's count of inputs that came late ([`TickSync::on_late_inputs`]) widens
//! the margin at once, and it narrows again slowly while none come late: the loss and jitter of
//! the path decide the margin, not a guess. Both are smoothed as RFC 6298 smooths a round trip: a mean and a mean deviation.
//! The clock starts with the first server tick, as if the round trip were zero (the inputs
//! that measure it must be sent by then); the first round trip moves it forward at once.
//!
//! The tick never jumps to correct a small error: it runs faster or slower by at most
//! [`TickSyncConfig::max_rate_change`]. Only an error larger than
//! [`TickSyncConfig::max_gap_ticks`] (a stall, a clock that leapt) makes it jump, and that is
//! counted in [`TickSyncStats::jumps`].
//!
//! ```
//! use std::time::{Duration, Instant};
//! use hopnet_sync::tick_sync::{TickSync, TickSyncConfig};
//!
//! let tick = Duration::from_millis(16);
//! let mut sync = TickSync::new(TickSyncConfig::new(tick));
//! let start = Instant::now();
//! // A snapshot of server tick 100 arrives; the round trip is 100 ms.
//! sync.on_rtt(Duration::from_millis(100));
//! sync.on_server_tick(start, 100);
//! let ticks = sync.update(start);
//! // The client now runs about 100 ms (6 ticks) plus a margin ahead of the tick it saw.
//! assert!(sync.tick() >= 106);
//! assert!(ticks.count() <= 1);
//! // A frame later, one more tick (at most the bounded rate faster).
//! let ran = sync.update(start + tick).count();
//! assert!(ran <= 2);
//! ```

use std::time::{Duration, Instant};

use crate::Tick;
use crate::input::Acked;

/// How a [`TickSync`] steers.
#[derive(Debug, Clone, PartialEq)]
pub struct TickSyncConfig {
    /// The duration of one tick.
    pub tick: Duration,
    /// Ticks of margin beyond the round trip and the jitter: one covers a datagram lost and
    /// repaired by the next one's redundant copy of the same input.
    pub safety_ticks: f64,
    /// How many mean deviations of the samples the margin holds.
    pub jitter_factor: f64,
    /// The largest change of the tick's rate: 0.05 runs between 95 % and 105 % of real time.
    pub max_rate_change: f64,
    /// How strongly an error steers the rate: the rate change per tick of error, before the
    /// bound above.
    pub gain: f64,
    /// An error larger than this many ticks is not steered away but jumped over.
    pub max_gap_ticks: f64,
    /// The most ticks one [`update`](TickSync::update) hands out: a clock that leapt forward
    /// does not make the game simulate a flood of ticks.
    pub max_ticks_per_update: u32,
    /// Round-trip samples longer than this are refused as absurd.
    pub max_rtt: Duration,
    /// Ticks of margin added for each input the server reports late.
    pub late_step: f64,
    /// The most margin late inputs add.
    pub max_late_margin: f64,
    /// How fast that margin shrinks while nothing comes late, in ticks per tick.
    pub late_decay: f64,
}

impl TickSyncConfig {
    /// The defaults for a tick of this duration: the bounds that are times (the gap that
    /// jumps, the most ticks at once) are at least 0.3 s and 0.1 s at fast tick rates.
    pub fn new(tick: Duration) -> TickSyncConfig {
        let tick = tick.max(Duration::from_micros(100));
        let ticks_in = |d: Duration| d.as_secs_f64() / tick.as_secs_f64();
        TickSyncConfig {
            tick,
            safety_ticks: 1.5,
            jitter_factor: 2.0,
            max_rate_change: 0.05,
            gain: 0.05,
            max_gap_ticks: ticks_in(Duration::from_millis(300)).max(20.0),
            max_ticks_per_update: (ticks_in(Duration::from_millis(100)) as u32).max(8),
            max_rtt: Duration::from_secs(5),
            late_step: 0.5,
            max_late_margin: 8.0,
            late_decay: 0.002,
        }
    }
}

/// What a [`TickSync`] did that was not plain steering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickSyncStats {
    /// Times the tick jumped because the error was beyond `max_gap_ticks`.
    pub jumps: u64,
    /// Updates whose `now` was before the previous one's (ignored).
    pub clock_backwards: u64,
    /// Updates whose clock leapt by more than `max_ticks_per_update` ticks (clamped).
    pub clock_leaps: u64,
    /// Round-trip samples refused (longer than `max_rtt`).
    pub rejected_rtt: u64,
}

/// A smoothed sample: the mean and the mean deviation, as RFC 6298 keeps a round trip.
#[derive(Debug, Clone, Copy)]
struct Smoothed {
    mean: f64,
    dev: f64,
}

impl Smoothed {
    fn add(this: &mut Option<Smoothed>, sample: f64) {
        match this {
            None => {
                *this = Some(Smoothed {
                    mean: sample,
                    dev: 0.0,
                })
            }
            Some(s) => {
                s.dev += ((sample - s.mean).abs() - s.dev) / 4.0;
                s.mean += (sample - s.mean) / 8.0;
            }
        }
    }
}

/// The client's tick clock: how many ticks to simulate now, kept ahead of the server.
#[derive(Debug, Clone)]
pub struct TickSync {
    config: TickSyncConfig,
    origin: Option<Instant>,
    last: Option<Instant>,
    /// The client's tick as a continuous count; whole ticks are simulated as it crosses them.
    tick: f64,
    /// The server's tick minus our local clock in ticks, at the instant a snapshot arrives.
    offset: Option<Smoothed>,
    /// The round trip, in ticks.
    rtt: Option<Smoothed>,
    rate: f64,
    /// Margin added because inputs came late.
    late_margin: f64,
    synced: bool,
    /// Started before any round trip was known: the first one moves the tick at once.
    provisional: bool,
    stats: TickSyncStats,
}

/// The ticks one [`TickSync::update`] hands to the game to simulate, in order.
#[derive(Debug, Clone)]
pub struct Ticks {
    next: Tick,
    end: Tick,
    /// Whether the tick jumped in this update (the ticks skipped are not handed out).
    pub jumped: bool,
}

impl Iterator for Ticks {
    type Item = Tick;
    fn next(&mut self) -> Option<Tick> {
        (self.next < self.end).then(|| {
            self.next += 1;
            self.next - 1
        })
    }
}

impl TickSync {
    /// A clock not yet synchronised: it hands out no tick before its first server tick.
    pub fn new(config: TickSyncConfig) -> TickSync {
        TickSync {
            config,
            origin: None,
            last: None,
            tick: 0.0,
            offset: None,
            rtt: None,
            rate: 1.0,
            late_margin: 0.0,
            synced: false,
            provisional: false,
            stats: TickSyncStats::default(),
        }
    }

    fn tick_secs(&self) -> f64 {
        self.config.tick.as_secs_f64()
    }

    /// Our local clock in ticks since the first instant we were given.
    fn local(&mut self, now: Instant) -> f64 {
        let origin = *self.origin.get_or_insert(now);
        now.saturating_duration_since(origin).as_secs_f64() / self.tick_secs()
    }

    /// A round-trip sample (refused, and counted, when longer than `max_rtt`).
    pub fn on_rtt(&mut self, rtt: Duration) {
        if rtt > self.config.max_rtt {
            self.stats.rejected_rtt += 1;
            return;
        }
        let ticks = rtt.as_secs_f64() / self.tick_secs();
        Smoothed::add(&mut self.rtt, ticks);
    }

    /// The server counted `late` more of our inputs as arriving after their tick: run further
    /// ahead (by `late_step` each, up to `max_late_margin`).
    pub fn on_late_inputs(&mut self, late: u32) {
        let added = f64::from(late) * self.config.late_step;
        self.late_margin = (self.late_margin + added).min(self.config.max_late_margin);
    }

    /// What an acknowledgement of our inputs told ([`InputSender::on_ack`]): the round trip,
    /// when it measured one, and the inputs the server counted late. The one call a client
    /// makes per acknowledgement, so that neither half is forgotten.
    ///
    /// [`InputSender::on_ack`]: crate::input::InputSender::on_ack
    pub fn on_acked(&mut self, acked: Acked) {
        if let Some(rtt) = acked.rtt {
            self.on_rtt(rtt);
        }
        self.on_late_inputs(acked.late);
    }

    /// The margin late inputs added, in ticks.
    pub fn late_margin(&self) -> f64 {
        self.late_margin
    }

    /// A message stamped with the server's tick `server_tick` arrived at `now`.
    pub fn on_server_tick(&mut self, now: Instant, server_tick: Tick) {
        let local = self.local(now);
        let sample = server_tick as f64 - local;
        // A server that restarted or a stall far beyond the jitter: start the estimate again
        // rather than averaging it in over seconds.
        if let Some(s) = self.offset
            && (sample - s.mean).abs() > self.config.max_gap_ticks
        {
            self.offset = None;
        }
        Smoothed::add(&mut self.offset, sample);
    }

    /// The jitter margin now, in ticks: what the samples wander by, times `jitter_factor`.
    pub fn jitter_ticks(&self) -> f64 {
        let dev = self.offset.map_or(0.0, |s| s.dev) + self.rtt.map_or(0.0, |s| s.dev);
        dev * self.config.jitter_factor
    }

    /// The smoothed round trip, once there is a sample.
    pub fn rtt(&self) -> Option<Duration> {
        self.rtt
            .map(|s| Duration::from_secs_f64((s.mean * self.tick_secs()).max(0.0)))
    }

    /// Our estimate of the tick the server is at `now` (fractional), once a server tick was
    /// seen (taking the round trip as zero until one is known).
    pub fn server_tick_estimate(&mut self, now: Instant) -> Option<f64> {
        let local = self.local(now);
        let offset = self.offset?;
        Some(local + offset.mean + self.half_rtt())
    }

    /// The server tick whose messages arrive about `now` (fractional): the newest state a
    /// client can have, from which interpolation counts its delay back.
    pub fn arriving_tick_estimate(&mut self, now: Instant) -> Option<f64> {
        let local = self.local(now);
        Some(local + self.offset?.mean)
    }

    fn half_rtt(&self) -> f64 {
        self.rtt.map_or(0.0, |s| s.mean / 2.0)
    }

    /// The tick the client should be at `now`: the server's, plus half a round trip, plus the
    /// margin.
    fn target(&mut self, now: Instant) -> Option<f64> {
        let server = self.server_tick_estimate(now)?;
        let half_rtt = self.half_rtt();
        let margin = self.config.safety_ticks + self.jitter_ticks() + self.late_margin;
        Some(server + half_rtt + margin)
    }

    /// Moves the clock to `now` and returns the ticks to simulate, in order. Before the first
    /// samples, none.
    pub fn update(&mut self, now: Instant) -> Ticks {
        let before = self.tick.floor() as Tick;
        let mut ticks = Ticks {
            next: before + 1,
            end: before + 1,
            jumped: false,
        };
        let elapsed = match self.last {
            Some(last) if now < last => {
                self.stats.clock_backwards += 1;
                return ticks;
            }
            Some(last) => (now - last).as_secs_f64() / self.tick_secs(),
            None => 0.0,
        };
        self.last = Some(now);
        let Some(target) = self.target(now) else {
            return ticks;
        };
        let restart = self.provisional && self.rtt.is_some() && target > self.tick;
        if self.rtt.is_some() {
            self.provisional = false;
        }
        if !self.synced || restart {
            let jumped = self.synced;
            self.provisional = self.rtt.is_none();
            self.synced = true;
            self.tick = target;
            let at = self.tick.floor() as Tick;
            return Ticks {
                next: at,
                end: at + 1,
                jumped,
            };
        }
        let max = f64::from(self.config.max_ticks_per_update);
        let elapsed = if elapsed > max {
            self.stats.clock_leaps += 1;
            max
        } else {
            elapsed
        };
        self.late_margin = (self.late_margin - elapsed * self.config.late_decay).max(0.0);
        let error = target - self.tick;
        if error.abs() > self.config.max_gap_ticks {
            self.stats.jumps += 1;
            self.tick = target;
            self.rate = 1.0;
            let at = self.tick.floor() as Tick;
            return Ticks {
                next: at,
                end: at + 1,
                jumped: true,
            };
        }
        let bound = self.config.max_rate_change;
        self.rate = 1.0 + (error * self.config.gain).clamp(-bound, bound);
        self.tick += elapsed * self.rate;
        ticks.end = self.tick.floor() as Tick + 1;
        ticks
    }

    /// The client's current whole tick (the last one handed out).
    pub fn tick(&self) -> Tick {
        self.tick.floor() as Tick
    }

    /// The rate the tick runs at, relative to real time (within `1 ± max_rate_change`).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Whether the clock has its first samples and hands out ticks.
    pub fn is_synced(&self) -> bool {
        self.synced
    }

    /// What it did besides steering.
    pub fn stats(&self) -> &TickSyncStats {
        &self.stats
    }

    /// Its settings.
    pub fn config(&self) -> &TickSyncConfig {
        &self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(10);

    fn synced(start: Instant) -> TickSync {
        let mut s = TickSync::new(TickSyncConfig::new(TICK));
        s.on_rtt(Duration::from_millis(100));
        s.on_server_tick(start, 1000);
        s.update(start);
        s
    }

    #[test]
    fn runs_ahead_by_the_round_trip_and_the_margin() {
        let start = Instant::now();
        let s = synced(start);
        // Seen 1000; the server is at ~1005 now; our input takes 5 more; 1.5 of safety.
        assert_eq!(s.tick(), 1011);
    }

    #[test]
    fn a_small_error_is_steered_at_a_bounded_rate_never_jumped() {
        let start = Instant::now();
        let mut s = synced(start);
        let mut now = start;
        let mut last = s.tick();
        // The server turns out to be 5 ticks further on than first thought.
        for i in 1..=400u32 {
            now += TICK;
            s.on_server_tick(now, 1000 + i + 5);
            let ran: Vec<Tick> = s.update(now).collect();
            assert!(ran.len() <= 2, "at most one extra tick per frame");
            for t in ran {
                assert_eq!(t, last + 1, "no tick skipped");
                last = t;
            }
            assert!((s.rate() - 1.0).abs() <= 0.05 + 1e-9);
        }
        assert_eq!(s.stats().jumps, 0);
        // Caught up: server at 1405 + 5 (half rtt) + 5 + margin.
        let target = 1000.0 + 400.0 + 5.0 + 10.0 + 1.5 + s.jitter_ticks();
        assert!((s.tick - target).abs() < 1.0, "{} vs {target}", s.tick);
    }

    #[test]
    fn a_gap_beyond_the_bound_is_jumped_and_counted() {
        let start = Instant::now();
        let mut s = synced(start);
        let now = start + TICK;
        // The server is 500 ticks further on (it stalled us, or restarted).
        s.on_server_tick(now, 1501);
        let ticks = s.update(now);
        assert!(ticks.jumped);
        assert_eq!(s.stats().jumps, 1);
        assert!(s.tick() > 1500);
    }

    #[test]
    fn a_clock_that_goes_back_is_ignored_and_one_that_leaps_is_clamped() {
        let start = Instant::now() + Duration::from_secs(60);
        let mut s = synced(start);
        let t0 = s.tick();
        assert_eq!(s.update(start - Duration::from_secs(30)).count(), 0);
        assert_eq!(s.stats().clock_backwards, 1);
        assert_eq!(s.tick(), t0);
        // Ten seconds in one update: a bounded number of ticks, or a counted jump.
        let ran = s.update(start + Duration::from_secs(10)).count();
        assert!(ran <= 9);
        assert_eq!(s.stats().clock_leaps, 1);
    }

    #[test]
    fn an_acknowledgement_gives_its_round_trip_and_its_late_count() {
        let mut s = TickSync::new(TickSyncConfig::new(TICK));
        s.on_acked(Acked {
            rtt: Some(Duration::from_millis(100)),
            late: 2,
        });
        assert_eq!(s.rtt(), Some(Duration::from_millis(100)));
        assert_eq!(s.late_margin(), 2.0 * s.config().late_step);
        // One that measured no round trip still counts its late inputs.
        s.on_acked(Acked { rtt: None, late: 1 });
        assert_eq!(s.rtt(), Some(Duration::from_millis(100)));
        assert_eq!(s.late_margin(), 3.0 * s.config().late_step);
    }

    #[test]
    fn late_inputs_widen_the_margin_which_then_narrows_slowly() {
        let start = Instant::now();
        let mut s = synced(start);
        let before = s.tick();
        s.on_late_inputs(4);
        assert_eq!(s.late_margin(), 2.0);
        s.on_late_inputs(1000);
        assert_eq!(s.late_margin(), 8.0, "bounded");
        let mut now = start;
        for i in 1..=600u32 {
            now += TICK;
            s.on_server_tick(now, 1000 + i);
            s.update(now);
        }
        // Steered (not jumped) the 8 ticks further ahead, less what decayed meanwhile.
        assert_eq!(s.stats().jumps, 0);
        let ahead = s.tick() as f64 - (before as f64 + 600.0);
        assert!((5.0..=8.0).contains(&ahead), "{ahead}");
        assert!(s.late_margin() < 8.0 && s.late_margin() > 6.0);
    }

    #[test]
    fn absurd_round_trips_are_refused() {
        let mut s = TickSync::new(TickSyncConfig::new(TICK));
        s.on_rtt(Duration::from_secs(3600));
        assert_eq!(s.stats().rejected_rtt, 1);
        assert!(s.rtt().is_none());
    }

    #[test]
    fn started_without_a_round_trip_the_first_one_moves_it_at_once() {
        let start = Instant::now();
        let mut s = TickSync::new(TickSyncConfig::new(TICK));
        assert_eq!(s.update(start).count(), 0, "nothing before a server tick");
        s.on_server_tick(start, 1000);
        assert_eq!(s.update(start).collect::<Vec<_>>(), [1001]);
        s.on_rtt(Duration::from_millis(100));
        let ticks = s.update(start + TICK);
        assert!(ticks.jumped);
        assert_eq!(s.tick(), 1012);
        assert_eq!(s.stats().jumps, 0, "the start is not a jump");
    }
}
