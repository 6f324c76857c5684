//! A connection's statistics over time: every driver keeps [`Stats`] as running totals and
//! values of now; a game that wants to see how they moved (RTT through a lag spike, bytes per
//! second, when the losses came) samples them at a fixed interval into a bounded ring per
//! connection, and draws or logs the rings.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use hopnet_proto::{ConnectionId, Server, Stats};

/// One sample of a connection's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct StatsSample {
    /// When it was taken, since the series' first sample.
    pub at: Duration,
    /// The statistics then.
    pub stats: Stats,
}

impl StatsSample {
    /// How fast a running total (bytes sent, retransmissions...) grew per second between an
    /// `earlier` sample and this one; zero if no time passed or the total went down (a new
    /// connection under the same key).
    ///
    /// ```
    /// use std::time::Duration;
    /// use hopnet::{Stats, StatsSample};
    ///
    /// let earlier = StatsSample { at: Duration::ZERO, stats: Stats::default() };
    /// let later = StatsSample {
    ///     at: Duration::from_millis(500),
    ///     stats: Stats { bytes_sent: 1_000, ..Stats::default() },
    /// };
    /// assert_eq!(later.per_second(&earlier, |s| s.bytes_sent), 2_000.0);
    /// ```
    pub fn per_second(&self, earlier: &StatsSample, total: impl Fn(&Stats) -> u64) -> f64 {
        let secs = self.at.saturating_sub(earlier.at).as_secs_f64();
        let grew = total(&self.stats).saturating_sub(total(&earlier.stats));
        if secs > 0.0 { grew as f64 / secs } else { 0.0 }
    }
}

/// Samples of connections' statistics every interval, the newest `capacity` per connection,
/// for at most `max_connections` connections (the series of the lowest keys go first). `K`
/// names a connection: a server's [`ConnectionId`], or whatever a game keys its clients by.
///
/// Sampling is the caller's: call [`sample`](Self::sample) (or
/// [`sample_server`](Self::sample_server)) as often as convenient, say once a tick; it takes
/// a sample only when the interval has passed, and asks for nothing otherwise.
///
/// ```
/// use std::time::{Duration, Instant};
/// use hopnet::{Config, Server, StatsSeries};
///
/// let mut server = Server::bind("127.0.0.1:0", Config::default())?;
/// let mut series = StatsSeries::new(Duration::from_millis(100), 600); // a minute of samples
/// // In the game's loop, after each round of I/O:
/// server.poll(Duration::ZERO)?;
/// series.sample_server(Instant::now(), server.machine());
/// for (connection, samples) in series.iter() {
///     let rtt: Vec<_> = samples.iter().map(|s| s.stats.smoothed_rtt).collect();
///     println!("{connection:?}: {rtt:?}");
/// }
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct StatsSeries<K = ConnectionId> {
    every: Duration,
    capacity: usize,
    max_connections: usize,
    start: Option<Instant>,
    next: Option<Instant>,
    series: BTreeMap<K, VecDeque<StatsSample>>,
}

impl<K: Ord + Clone> StatsSeries<K> {
    /// A sample every `every` (at least a millisecond), the newest `capacity` kept per
    /// connection (at least one), for up to 1,024 connections.
    pub fn new(every: Duration, capacity: usize) -> StatsSeries<K> {
        StatsSeries {
            every: every.max(Duration::from_millis(1)),
            capacity: capacity.max(1),
            max_connections: 1024,
            start: None,
            next: None,
            series: BTreeMap::new(),
        }
    }

    /// Keeps the series of at most `n` connections (at least one).
    pub fn max_connections(mut self, n: usize) -> StatsSeries<K> {
        self.max_connections = n.max(1);
        self
    }

    /// Whether a sample is due at `now`.
    pub fn is_due(&self, now: Instant) -> bool {
        self.next.is_none_or(|next| now >= next)
    }

    /// Takes a sample of each connection's statistics if one is due at `now` (the iterator is
    /// not walked otherwise); returns whether it did.
    pub fn sample(
        &mut self,
        now: Instant,
        connections: impl IntoIterator<Item = (K, Stats)>,
    ) -> bool {
        if !self.is_due(now) {
            return false;
        }
        let start = *self.start.get_or_insert(now);
        let mut next = self.next.unwrap_or(now);
        while next <= now {
            next += self.every;
        }
        self.next = Some(next);
        let at = now.saturating_duration_since(start);
        for (key, stats) in connections {
            if !self.series.contains_key(&key) && self.series.len() >= self.max_connections {
                self.series.pop_first();
            }
            let ring = self.series.entry(key).or_default();
            if ring.len() >= self.capacity {
                ring.pop_front();
            }
            ring.push_back(StatsSample { at, stats });
        }
        true
    }

    /// One connection's samples, oldest first.
    pub fn get(&self, key: &K) -> Option<&VecDeque<StatsSample>> {
        self.series.get(key)
    }

    /// Every connection's samples, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &VecDeque<StatsSample>)> {
        self.series.iter()
    }

    /// Forgets a connection's samples (a closed one, say), handing them back.
    pub fn remove(&mut self, key: &K) -> Option<VecDeque<StatsSample>> {
        self.series.remove(key)
    }
}

impl StatsSeries<ConnectionId> {
    /// Takes a sample of each of a server's connections if one is due.
    pub fn sample_server(&mut self, now: Instant, server: &Server) -> bool {
        let stats = server
            .connections()
            .filter_map(|c| Some((c, server.stats(c)?)));
        self.sample(now, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(bytes: u64) -> Stats {
        Stats {
            bytes_sent: bytes,
            ..Stats::default()
        }
    }

    #[test]
    fn samples_only_when_due_and_keeps_the_newest() {
        let t0 = Instant::now();
        let mut series: StatsSeries<u8> = StatsSeries::new(Duration::from_millis(100), 3);
        let mut walked = 0;
        for ms in (0..1_000).step_by(10) {
            let now = t0 + Duration::from_millis(ms);
            series.sample(
                now,
                std::iter::once((7, stats(ms))).inspect(|_| walked += 1),
            );
        }
        assert_eq!(walked, 10, "one sample a 100 ms");
        let ring = series.get(&7).unwrap();
        let at: Vec<u64> = ring.iter().map(|s| s.at.as_millis() as u64).collect();
        assert_eq!(at, [700, 800, 900]);
        assert_eq!(ring[2].per_second(&ring[1], |s| s.bytes_sent), 1_000.0);
    }

    #[test]
    fn the_lowest_keys_go_beyond_the_connection_cap() {
        let t0 = Instant::now();
        let mut series: StatsSeries<u8> =
            StatsSeries::new(Duration::from_millis(1), 4).max_connections(2);
        series.sample(t0, [(1, stats(1)), (2, stats(2))]);
        series.sample(t0 + Duration::from_millis(1), [(3, stats(3))]);
        let keys: Vec<u8> = series.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [2, 3]);
    }

    #[test]
    fn a_total_that_went_down_is_no_negative_rate() {
        let a = StatsSample {
            at: Duration::ZERO,
            stats: stats(500),
        };
        let b = StatsSample {
            at: Duration::from_secs(1),
            stats: stats(100),
        };
        assert_eq!(b.per_second(&a, |s| s.bytes_sent), 0.0);
        assert_eq!(a.per_second(&a, |s| s.bytes_sent), 0.0);
    }
}
