//! The send half of a connection: sequence ids, reliable chunks until acknowledged, and the
//! rules that decide when a chunk may leave or must leave again.
//!
//! - [`sender`]: sequence numbering and the state of every reliable chunk;
//! - [`wire`]: how a message is framed, the spec's way or the extended one;
//! - [`outgoing`]: the reliable messages held, by sequence, and their recycled buffers;
//! - [`hold`]: ordered messages that wait for acknowledgements (toward a peer that cannot
//!   order them);
//! - [`tracked`]: tracked messages, acknowledged or lost;
//! - [`batch`]: which chunk goes next, in GSO-shaped batches, under the window and the pacer;
//! - [`loss`]: when a chunk in flight is lost (timer or packet threshold);
//! - [`rtt`]: the round-trip estimate and retransmission timeout (RFC 6298);
//! - [`congestion`]: the congestion window, which tells random loss from congestion;
//! - [`pacing`]: the window spread over a round trip.

mod batch;
mod congestion;
mod hold;
mod loss;
mod outgoing;
mod pacing;
mod rtt;
mod sender;
mod tracked;
pub(crate) mod wire;

use std::time::{Duration, Instant};

use crate::Error;
use crate::config::Config;
use crate::event::{Delivery, MessageId};
use crate::ext::Extensions;
use crate::ext::frame::AckRange;
use crate::payload::Data;
use crate::stats::Stats;
use congestion::Congestion;
use pacing::Pacer;
use rtt::RttEstimator;
use sender::Sender;
use tracked::Tracker;
use wire::{ExtSender, Wire};

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
    /// Probes sent since the last acknowledgement, and when the last one left.
    probes: u32,
    probed_at: Option<Instant>,
    /// When this end last asked for an immediate acknowledgement (`ACK_NOW`): an answer to it
    /// comes without the peer's delay.
    asked_at: Option<Instant>,
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
        let quiet = self.sender.quiet_since()?;
        let since = self.probed_at.map_or(quiet, |p| p.max(quiet));
        // Asked since the last acknowledgement: the answer is not delayed.
        let last_ack = self.sender.last_ack_at;
        let asked = self
            .asked_at
            .is_some_and(|a| last_ack.is_none_or(|t| a >= t));
        let delay = if asked {
            Duration::ZERO
        } else {
            self.ack_delay
        };
        Some(since + self.rtt.probe_timeout(delay, self.probes))
    }

    /// Acknowledgements were read: one newer than the last probe ends the probing, and the
    /// next probe waits a whole probe timeout again.
    fn end_probing(&mut self) {
        if self
            .sender
            .last_ack_at
            .is_some_and(|t| self.probed_at.is_none_or(|p| t > p))
        {
            self.probes = 0;
        }
    }

    /// Whether a probe is due at `now` (and, if so, it counts as sent).
    pub fn probe_due(&mut self, now: Instant) -> bool {
        if self.probe_deadline().is_some_and(|t| t <= now) {
            self.probes += 1;
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
            self.sender.held.start_extended(&self.sender.messages);
        }
    }

    /// Whether a message may be given a sequence id now.
    pub fn check_room(&self, reliable: bool, len: usize) -> Result<(), Error> {
        self.sender.check_room(reliable, len)
    }

    /// Frames a new message: compresses it where that is agreed and shortens it, and picks
    /// the extended framing where it is agreed and the message fits 256 extended chunks.
    pub fn frame<'a>(&mut self, data: Data<'a>, delivery: Delivery) -> (Data<'a>, Wire, bool) {
        let rel = delivery.is_acknowledged();
        let Some(ext) = &mut self.ext else {
            return (data, Wire::Spec { rel }, false);
        };
        let len = data.as_slice().len();
        let packed = if ext.compresses(len) {
            match &data {
                Data::Shared(p) => p.compressed().map(Data::Payload),
                other => crate::ext::compress::compress(other.as_slice()).map(Data::Owned),
            }
        } else {
            None
        };
        let (data, compressed) = match packed {
            Some(c) => (c, true),
            None => (data, false),
        };
        if !ext.fits(data.as_slice().len()) {
            // Too large for 256 extended chunks (only at the smallest datagram sizes): the
            // spec's framing, uncompressed, as a spec receiver would need it.
            return (data, Wire::Spec { rel }, false);
        }
        let wire = Wire::Ext(ext.frame(delivery, compressed));
        (data, wire, compressed)
    }

    /// Gives the next sequence id to a message, keeping a reliable one until acknowledged.
    pub fn allocate(&mut self, reliable: Option<(Data<'_>, Wire, Delivery)>) -> u16 {
        self.sender.allocate(reliable)
    }

    /// The id of the message allocated last.
    pub fn last_id(&self) -> MessageId {
        MessageId(self.sender.last_abs())
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

    /// An ACK for `(sequence, chunk)` arrived. Returns whether it completed a reliable
    /// message; pushes a tracked message it completed to `tracked`.
    pub fn on_ack(
        &mut self,
        now: Instant,
        sequence: u16,
        chunk: u8,
        stats: &mut Stats,
        tracked: &mut Vec<MessageId>,
    ) -> bool {
        let Outbound {
            sender, rtt, cc, ..
        } = self;
        let complete = sender.on_ack(now, sequence, chunk, rtt, cc, stats);
        self.end_probing();
        if complete {
            return true;
        }
        if !self.tracker.is_empty()
            && let Some(abs) = self.sender.abs_of(sequence)
        {
            self.tracker.on_ack(abs, abs, chunk, chunk, tracked);
        }
        false
    }

    /// The ranges of an ACK frame arrived, sent `delay` after the newest chunk they name.
    /// Returns how many reliable messages they completed; pushes the tracked ones to
    /// `tracked`.
    pub fn on_ack_ranges(
        &mut self,
        now: Instant,
        ranges: impl Iterator<Item = AckRange>,
        delay: Duration,
        stats: &mut Stats,
        tracked: &mut Vec<MessageId>,
    ) -> usize {
        let mut complete = 0;
        for range in ranges {
            let Outbound {
                sender, rtt, cc, ..
            } = self;
            complete += sender.on_ack_range(now, &range, rtt, cc);
            if self.tracker.is_empty() {
                continue;
            }
            if let Some((from, to)) = self.sender.abs_range(&range) {
                let (first, last) = (range.first_chunk, range.last_chunk);
                self.tracker.on_ack(from, to, first, last, tracked);
            }
        }
        self.sender
            .finish_frame(now, delay, &mut self.rtt, &mut self.cc);
        self.sender.after_acks(&mut self.cc, stats);
        self.end_probing();
        complete
    }

    /// Declares lost what the retransmission timer says is lost; pushes the tracked messages
    /// whose timeout passed to `lost`.
    pub fn on_timeout(&mut self, now: Instant, stats: &mut Stats, lost: &mut Vec<MessageId>) {
        let Outbound {
            sender, rtt, cc, ..
        } = self;
        sender.on_timeout(now, rtt, cc, stats);
        self.tracker.expire(now, lost);
    }

    /// When [`on_timeout`](Self::on_timeout) or the pacer next has something to do.
    pub fn deadline(&self) -> Option<Instant> {
        let mut deadline = self.sender.next_timeout(self.rtt.rto());
        let paced = self
            .paced_until
            .filter(|_| self.sender.has_sendable(self.cc.window() as usize));
        for t in [paced, self.tracker.deadline()].into_iter().flatten() {
            deadline = Some(deadline.map_or(t, |d| d.min(t)));
        }
        deadline
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
