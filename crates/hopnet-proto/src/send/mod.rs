//! The send half of a connection: sequence ids, reliable chunks until acknowledged, and the
//! rules that decide when a chunk may leave or must leave again.
//!
//! Each counter has one owner, the one file that writes it, as quinn-proto splits its send
//! buffer from its sent packets: the queue of messages (what is still to send, new or again,
//! with its cursors) and what is in flight (by transmission id, with its count). Loss detection
//! returns what it declared lost; the send half, not the detector, tells the congestion
//! controller.
//!
//! A reliable message's way out passes two files: [`sender`], which the connection calls
//! (the message numbered, then, at each `transmit`, the next chunk chosen, written and
//! recorded in flight) and, below it, [`queue`], where the message is kept (framed, stored,
//! and what of it is still to send). Each holds the `impl` blocks of its concern, of
//! [`Outbound`] and of the sender alike; nothing in [`queue`] calls up into [`sender`].
//!
//! - [`sender`]: a new message's sequence id and its room; which chunk goes next, in
//!   GSO-shaped batches, under the window and the pacer; the chunk written; the transmissions
//!   in flight, by id, and the largest acknowledged;
//! - [`queue`]: a message's framing (the spec's way or the extended one), its storage by
//!   sequence with recycled or shared buffers, and the queue of what is to send (chunks never
//!   sent, the ones to send again, the cursors past the messages sent whole, each message's
//!   acknowledged chunks);
//! - [`feedback`]: what acknowledgements and losses do: the queue and what is in flight hear
//!   of them, then the RTT estimator and the congestion controller;
//! - [`loss`]: when a transmission in flight is lost (timer or packet threshold);
//! - [`hold`]: ordered messages that wait for acknowledgements (toward a peer that cannot
//!   order them);
//! - [`tracked`]: tracked messages, acknowledged or lost;
//! - [`rtt`]: the round-trip estimate and retransmission timeout (RFC 6298);
//! - [`congestion`]: the congestion window, which tells random loss from congestion;
//! - [`pacing`]: the window spread over a round trip.

mod congestion;
mod feedback;
mod hold;
mod loss;
mod pacing;
pub(crate) mod queue;
pub(crate) mod rtt;
mod sender;
mod tracked;

use std::time::{Duration, Instant};

use crate::config::Config;
use crate::event::MessageId;
use crate::ext::Extensions;
use crate::stats::Stats;
use congestion::Congestion;
use loss::Lost;
use pacing::Pacer;
use queue::ExtSender;
use rtt::RttEstimator;
use sender::Sender;
use tracked::Tracker;

/// The send half of a connection: the sender and the estimators and controllers it answers to.
#[derive(Debug)]
pub(crate) struct Outbound {
    sender: Sender,
    rtt: RttEstimator,
    cc: Congestion,
    pacer: Option<Pacer>,
    /// When the pacer next lets a chunk go, if it held one back.
    paced_until: Option<Instant>,
    /// Set once this end sends on the extended wire: how new messages are framed.
    ext: Option<ExtSender>,
    tracker: Tracker,
    compression_threshold: usize,
    /// The peer's acknowledgement delay, as far as we know it (ours).
    ack_delay: Duration,
    /// Probes sent before the last one left (see `probes_unanswered`), and when it left.
    probes: u32,
    probed_at: Option<Instant>,
    /// When this end last asked for an immediate acknowledgement (`ACK_NOW`): an answer to it
    /// comes without the peer's delay.
    asked_at: Option<Instant>,
    /// What loss detection declared lost, on its way to the congestion controller: kept
    /// between calls, so that a loss allocates nothing.
    lost: Vec<Lost>,
}

impl Outbound {
    pub fn new(config: &Config) -> Outbound {
        Outbound {
            sender: Sender::new(config.max_pending_reliable, config.max_pending_bytes),
            rtt: RttEstimator::new(config.initial_rtt, config.min_rto, config.max_rto),
            cc: Congestion::new(config.initial_window, config.min_window, config.max_window),
            pacer: config.pacing.then(Pacer::new),
            paced_until: None,
            ext: None,
            tracker: Tracker::new(config.tracked_timeout, config.max_tracked),
            compression_threshold: config.compression_threshold,
            ack_delay: config.ack_delay,
            probes: 0,
            probed_at: None,
            asked_at: None,
            lost: Vec::new(),
        }
    }

    /// A round-trip sample from outside the reliable chunks (the negotiation's).
    pub fn rtt_sample(&mut self, rtt: Duration) {
        self.rtt.sample(rtt);
    }

    /// This end asked for an immediate acknowledgement at `now`.
    pub fn asked(&mut self, now: Instant) {
        self.asked_at = Some(now);
    }

    /// On the extended wire, when to probe for an acknowledgement: a probe timeout after the
    /// later of the oldest chunk in flight, the last acknowledgement and the last probe.
    pub fn probe_deadline(&self) -> Option<Instant> {
        self.ext.as_ref()?;
        let quiet = self.sender.flight.quiet_since()?;
        let since = self.probed_at.map_or(quiet, |p| p.max(quiet));
        // Asked since the last acknowledgement: the answer is not delayed.
        let last_ack = self.sender.flight.last_ack_at();
        let asked = self
            .asked_at
            .is_some_and(|a| last_ack.is_none_or(|t| a >= t));
        let delay = if asked {
            Duration::ZERO
        } else {
            self.ack_delay
        };
        Some(since + self.rtt.probe_timeout(delay, self.probes_unanswered()))
    }

    /// Probes sent since the last acknowledgement: none once one arrived after the last probe.
    fn probes_unanswered(&self) -> u32 {
        let answered = self
            .sender
            .flight
            .last_ack_at()
            .is_some_and(|t| self.probed_at.is_none_or(|p| t > p));
        if answered { 0 } else { self.probes }
    }

    /// Whether a probe is due at `now` (and, if so, it counts as sent).
    pub fn probe_due(&mut self, now: Instant) -> bool {
        if self.probe_deadline().is_some_and(|t| t <= now) {
            self.probes = self.probes_unanswered() + 1;
            self.probed_at = Some(now);
            self.asked_at = Some(now);
            return true;
        }
        false
    }

    /// From now on, new messages are framed for the extended wire of `ext`.
    pub fn use_extensions(&mut self, ext: Extensions) {
        if self.ext.is_none() {
            self.ext = Some(ExtSender::new(ext, self.compression_threshold));
            self.sender.start_extended();
        }
    }

    /// Tracks the message allocated last (`chunks` chunks). Returns a message reported lost to
    /// make room, if any.
    pub fn track(&mut self, now: Instant, chunks: usize) -> Option<MessageId> {
        self.tracker.track(now, self.sender.last_abs(), chunks)
    }

    /// The sequence id the next message will get.
    pub fn next_sequence(&self) -> u16 {
        self.sender.next_sequence()
    }

    /// When [`on_timeout`](Self::on_timeout) or the pacer next has something to do.
    #[inline]
    pub fn deadline(&self) -> Option<Instant> {
        let paced = self
            .paced_until
            .filter(|_| self.sender.has_sendable(self.cc.window() as usize));
        let deadline = earliest(self.sender.flight.next_timeout(&self.rtt), paced);
        earliest(deadline, self.tracker.deadline())
    }

    /// Whether the congestion window is full: the sender waits for acknowledgements.
    pub fn window_full(&self) -> bool {
        self.sender.in_flight() >= self.cc.window() as usize
    }

    /// Whether one more chunk in flight would fill the window.
    pub fn one_fills_window(&self) -> bool {
        self.sender.in_flight() + 1 >= self.cc.window() as usize
    }

    /// Whether any reliable chunk waits to be sent, new or again (whatever the window and the
    /// pacer say): a quick test before asking for one.
    #[inline]
    pub fn has_reliable_waiting(&self) -> bool {
        self.sender.has_waiting()
    }

    /// Whether a reliable chunk could leave now, as far as the window and the pacer say
    /// (without taking the pacer's token).
    pub fn may_send(&self, now: Instant) -> bool {
        self.sender.has_sendable(self.cc.window() as usize)
            && self.paced_until.is_none_or(|t| t <= now)
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.sender.clear();
        self.tracker.clear();
    }

    /// Fills the send half's fields of `stats`.
    pub fn fill_stats(&self, stats: &mut Stats) {
        stats.smoothed_rtt = self.rtt.smoothed();
        stats.min_rtt = self.rtt.min();
        stats.rto = self.rtt.rto();
        stats.chunks_in_flight = self.sender.in_flight() as u64;
        stats.congestion_window = u64::from(self.cc.window());
        stats.pending_reliable = self.sender.pending() as u64;
        stats.ordered_waiting = self.sender.held.len() as u64;
    }
}

/// The earlier of two deadlines, either of which may be unset.
#[inline]
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
