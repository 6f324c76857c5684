//! One direction of a simulated link: a bottleneck queue drained at a fixed rate, then a wire
//! that loses, duplicates, delays, reorders and corrupts datagrams as its [`LinkConfig`] says.

use std::time::{Duration, Instant};

use crate::impairment::LinkRng;

/// The behaviour of one direction of a link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkConfig {
    /// Probability that a datagram is lost.
    pub loss: f64,
    /// Probability that a datagram is delivered twice.
    pub duplicate: f64,
    /// Probability that a datagram is held back by up to `reorder_delay` more.
    pub reorder: f64,
    /// The largest extra delay of a reordered datagram.
    pub reorder_delay: Duration,
    /// One-way base delay.
    pub delay: Duration,
    /// Uniform extra delay in `0..=jitter`.
    pub jitter: Duration,
    /// Probability that one random bit of a datagram is flipped.
    pub corrupt: f64,
    /// Datagrams larger than this are dropped.
    pub mtu: usize,
    /// Bottleneck rate in bytes per second (0: unlimited). Datagrams leave one after another
    /// at this rate, so a sender faster than it builds a queue in front of the link.
    pub bandwidth: u64,
    /// Bytes the queue in front of a bottleneck holds (drop-tail: a datagram that does not fit
    /// is lost, counted in [`SimStats::queue_dropped`]). Only with a `bandwidth`.
    pub queue_bytes: usize,
}

impl Default for LinkConfig {
    /// A perfect link with 10 ms one-way delay.
    fn default() -> Self {
        LinkConfig {
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::from_millis(20),
            delay: Duration::from_millis(10),
            jitter: Duration::ZERO,
            corrupt: 0.0,
            mtu: 1500,
            bandwidth: 0,
            queue_bytes: 64 * 1024,
        }
    }
}

/// What the links did, in total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Datagrams handed to a link.
    pub sent: u64,
    /// Datagrams delivered to a node.
    pub delivered: u64,
    /// Datagrams lost.
    pub lost: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Datagrams with a flipped bit.
    pub corrupted: u64,
    /// Datagrams over the MTU.
    pub too_big: u64,
    /// Datagrams to an address with no node (answers to spoofed sources).
    pub undeliverable: u64,
    /// Datagrams dropped because a bottleneck's queue was full (congestion, not random loss).
    pub queue_dropped: u64,
    /// Datagrams that went through a bottleneck.
    pub queued: u64,
    /// Total time datagrams waited in bottleneck queues (divide by `queued` for the mean).
    pub queue_delay_total: Duration,
    /// The longest any datagram waited in a bottleneck queue.
    pub queue_delay_max: Duration,
}

/// A direction of a link: its behaviour, and when its bottleneck has sent what it holds.
#[derive(Debug)]
pub(super) struct Link {
    pub config: LinkConfig,
    busy_until: Instant,
}

impl Link {
    pub fn new(config: LinkConfig, now: Instant) -> Link {
        Link {
            config,
            busy_until: now,
        }
    }

    /// Carries a datagram sent at `now`: hands each copy that comes out, and when, to
    /// `deliver`.
    pub fn carry(
        &mut self,
        now: Instant,
        bytes: Vec<u8>,
        rng: &mut LinkRng,
        stats: &mut SimStats,
        mut deliver: impl FnMut(Instant, Vec<u8>),
    ) {
        stats.sent += 1;
        let link = &self.config;
        if bytes.len() > link.mtu {
            stats.too_big += 1;
            return;
        }
        // The bottleneck: a drop-tail queue drained at `bandwidth`, before the lossy wire.
        let mut queued = Duration::ZERO;
        if link.bandwidth > 0 {
            let busy = self.busy_until.max(now);
            let backlog = busy - now;
            let backlog_bytes = backlog.as_secs_f64() * link.bandwidth as f64;
            if backlog_bytes + bytes.len() as f64 > link.queue_bytes as f64 {
                stats.queue_dropped += 1;
                return;
            }
            let serialise = Duration::from_secs_f64(bytes.len() as f64 / link.bandwidth as f64);
            self.busy_until = busy + serialise;
            queued = self.busy_until - now;
            stats.queued += 1;
            stats.queue_delay_total += backlog;
            stats.queue_delay_max = stats.queue_delay_max.max(backlog);
        }
        if rng.lost(link.loss) {
            stats.lost += 1;
            return;
        }
        let copies = if rng.chance(link.duplicate) {
            stats.duplicated += 1;
            2
        } else {
            1
        };
        let mut bytes = Some(bytes);
        for copy in 0..copies {
            let mut bytes = if copy + 1 == copies {
                bytes.take().unwrap_or_default()
            } else {
                bytes.clone().unwrap_or_default()
            };
            let mut delay = rng.delay(link.delay + queued, link.jitter);
            if rng.chance(link.reorder) {
                delay += link.reorder_delay.mul_f64(rng.unit());
            }
            if !bytes.is_empty() && rng.chance(link.corrupt) {
                let bit = rng.below(bytes.len() * 8);
                bytes[bit / 8] ^= 1 << (bit % 8);
                stats.corrupted += 1;
            }
            deliver(now + delay, bytes);
        }
    }
}
