//! Reliable chunks in batches: as many as the congestion window and the pacer allow, in the
//! shape a GSO send takes (every datagram the size of the first but the last, see
//! [`transmit`](crate::transmit)).

use std::time::Instant;

use super::Outbound;
use super::sender::Sender;
use crate::stats::Stats;
use crate::transmit::{FULL_DATAGRAM, Size};

/// How many messages [`Sender::poll`] looks through for a chunk of the size a batch needs.
/// Bounded, so that a long queue of messages whose next chunk has another size costs a fixed
/// amount per datagram.
const SIZE_SCAN: usize = 64;

/// How many sequence numbers after the first unsent message [`Sender::poll`] looks through
/// (`SendQueue::packable`) for a last chunk that fits what is left of an extended datagram: a
/// tick's worth of small messages (reliable and unreliable ones take numbers alike), not a
/// scan per datagram over a queue of large ones.
const PACK_SCAN: u64 = 16;

/// Below this many bytes left, an extended datagram takes no more chunks: a frame's header
/// alone is up to 9 bytes.
const MIN_PACK_ROOM: usize = 32;

/// What [`Sender::choose`] chose: a retransmission, or the next new chunk of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    Retransmit(u64, u8),
    New(u64),
}

/// Where the next chunk goes: a spec datagram of a size a batch allows, or a data frame in
/// what is left of an extended datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Spec(Size),
    Ext { room: usize },
}

impl Fit {
    #[inline]
    fn spec(self) -> bool {
        matches!(self, Fit::Spec(_))
    }

    #[inline]
    fn fits(self, len: usize) -> bool {
        match self {
            Fit::Spec(size) => size.fits(len),
            Fit::Ext { room } => len <= room,
        }
    }
}

impl Sender {
    /// Appends the next reliable datagram to `buf` if the congestion window has room and it
    /// fits `size`, and returns its length. Writing into the caller's buffer means no
    /// allocation per datagram.
    ///
    /// `size` serves GSO batches, whose datagrams must all have the first one's size but the
    /// last, which may be shorter. With [`Size::Exactly`] the sender takes a retransmission at
    /// the front of its queue if it has that size, else the next new chunk of that size among
    /// the messages of the next [`SIZE_SCAN`] sequence numbers: the full chunks of several
    /// queued messages then share one batch while their shorter last chunks wait for a batch
    /// of their own (the receiver reassembles in any order, so this only reorders datagrams
    /// within one flush).
    pub fn poll(
        &mut self,
        now: Instant,
        window: usize,
        stats: &mut Stats,
        buf: &mut Vec<u8>,
        fit: Fit,
    ) -> Option<usize> {
        let choice = self.choose(window, fit)?;
        Some(self.send_choice(now, choice, stats, buf))
    }

    /// The chunk [`poll`](Self::poll) sends next, without sending it: a caller may still
    /// decide not to (the pacer), and nothing is lost by asking.
    pub fn choose(&mut self, window: usize, fit: Fit) -> Option<Choice> {
        if self.flight.len() >= window {
            return None;
        }
        if let Some((abs, chunk)) = self.queue.retransmit_front() {
            let msg = self.queue.messages().get(abs)?;
            let len = msg.encoded_len(usize::from(chunk));
            if msg.wire.is_spec() != fit.spec() || !fit.fits(len) {
                return None;
            }
            return Some(Choice::Retransmit(abs, chunk));
        }
        if !self.queue.has_unsent() {
            return None;
        }
        let first = self.queue.first_unsent()?;
        let abs = match fit {
            Fit::Spec(Size::Exactly(FULL_DATAGRAM)) => self
                .queue
                .next_full()
                .filter(|&abs| abs - first < SIZE_SCAN as u64)?,
            Fit::Spec(Size::Exactly(len)) => self
                .queue
                .messages()
                .iter_from(first)
                .take(SIZE_SCAN)
                .find(|(_, m)| {
                    m.wire.is_spec()
                        && m.next_new < m.chunks.len()
                        && m.encoded_len(m.next_new) == len
                })
                .map(|(abs, _)| abs)?,
            Fit::Spec(size) => {
                let msg = self.queue.messages().get(first)?;
                if !msg.wire.is_spec() || !size.fits(msg.encoded_len(msg.next_new)) {
                    return None;
                }
                first
            }
            Fit::Ext { room } => {
                let msg = self.queue.messages().get(first)?;
                if msg.wire.is_spec() {
                    return None;
                }
                if msg.encoded_len(msg.next_new) <= room {
                    first
                } else if room < MIN_PACK_ROOM {
                    return None;
                } else {
                    let end = (first + 1 + PACK_SCAN).min(self.next_abs());
                    self.queue.packable(first, room, end)?
                }
            }
        };
        Some(Choice::New(abs))
    }

    /// Sends what [`choose`](Self::choose) chose, if it was asked with the same state.
    pub fn send_choice(
        &mut self,
        now: Instant,
        choice: Choice,
        stats: &mut Stats,
        buf: &mut Vec<u8>,
    ) -> usize {
        let (abs, chunk) = match choice {
            Choice::Retransmit(abs, chunk) => {
                let taken = self.queue.take_retransmission();
                debug_assert_eq!(taken, Some((abs, chunk)));
                stats.retransmissions += 1;
                (abs, chunk)
            }
            Choice::New(abs) => {
                let Some(chunk) = self.queue.take_new(abs) else {
                    return 0;
                };
                (abs, chunk)
            }
        };
        self.transmit(now, abs, chunk, buf)
    }

    /// Whether the chunk [`poll`](Self::poll) would take next is framed the spec's way (a
    /// retransmission first, then the oldest chunk never sent).
    #[inline]
    pub fn next_is_spec(&mut self) -> bool {
        // Every flush asks, most of the time with nothing to send: answered here, not in a call.
        self.queue.has_waiting() && self.next_is_spec_slow()
    }

    fn next_is_spec_slow(&mut self) -> bool {
        if let Some((abs, _)) = self.queue.retransmit_front() {
            return self
                .queue
                .messages()
                .get(abs)
                .is_some_and(|m| m.wire.is_spec());
        }
        self.queue.has_unsent()
            && self
                .queue
                .first_unsent()
                .and_then(|abs| self.queue.messages().get(abs))
                .is_some_and(|m| m.wire.is_spec())
    }
}

impl Outbound {
    /// Whether the next reliable chunk is framed the spec's way.
    #[inline]
    pub fn next_is_spec(&mut self) -> bool {
        self.sender.next_is_spec()
    }

    /// Appends the next reliable chunk framed for the extended wire, if the congestion window
    /// and the pacer allow one and it fits in `room` bytes; returns its length.
    pub fn poll_ext(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        room: usize,
        stats: &mut Stats,
    ) -> Option<usize> {
        let window = self.cc.window() as usize;
        // The chunk first, then the pacer's token: a datagram with no room for any chunk
        // (every flush ends with one) takes no token and gives none back.
        let choice = self.sender.choose(window, Fit::Ext { room })?;
        if let Some(pacer) = &mut self.pacer {
            self.paced_until = pacer.check(now, self.cc.window(), self.rtt.smoothed());
            if self.paced_until.is_some() {
                return None;
            }
        }
        Some(self.sender.send_choice(now, choice, stats, buf))
    }

    /// Appends a batch of up to `max` reliable datagrams to `buf` as the congestion window and
    /// the pacer allow; returns how many and the size of each but the last.
    pub fn poll_batch(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max: usize,
        stats: &mut Stats,
    ) -> (usize, usize) {
        let mut count = 0;
        let mut segment = 0;
        while count < max {
            let window = self.cc.window() as usize;
            if !self.sender.has_sendable(window) {
                break;
            }
            if let Some(pacer) = &mut self.pacer {
                self.paced_until = pacer.check(now, self.cc.window(), self.rtt.smoothed());
                if self.paced_until.is_some() {
                    break;
                }
            }
            let len = match self.sender.poll(
                now,
                window,
                stats,
                buf,
                Fit::Spec(Size::after(count, segment)),
            ) {
                Some(len) => len,
                None if count > 0 => {
                    // The last datagram of the batch, if a shorter one is next.
                    let last = Fit::Spec(Size::AtMost(segment));
                    match self.sender.poll(now, window, stats, buf, last) {
                        Some(len) => {
                            count += 1;
                            debug_assert!(len <= segment);
                            break;
                        }
                        None => {
                            // The pacer's token was taken for nothing: give it back.
                            if let Some(pacer) = &mut self.pacer {
                                pacer.refund();
                            }
                            break;
                        }
                    }
                }
                None => {
                    if let Some(pacer) = &mut self.pacer {
                        pacer.refund();
                    }
                    break;
                }
            };
            if count == 0 {
                segment = len;
            }
            count += 1;
            if len < segment {
                break;
            }
        }
        (count, segment)
    }
}
