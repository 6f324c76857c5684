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
/// for a last chunk that fits what is left of an extended datagram: a tick's worth of small
/// messages (reliable and unreliable ones take numbers alike), not a scan per datagram over a
/// queue of large ones.
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
        if self.in_flight_count >= window {
            return None;
        }
        if let Some((abs, chunk)) = self.retransmit_front() {
            let msg = self.messages.get(abs)?;
            let len = msg.encoded_len(usize::from(chunk));
            if msg.wire.is_spec() != fit.spec() || !fit.fits(len) {
                return None;
            }
            return Some(Choice::Retransmit(abs, chunk));
        }
        if self.unsent == 0 {
            return None;
        }
        let first = self.first_unsent()?;
        let abs = match fit {
            Fit::Spec(Size::Exactly(FULL_DATAGRAM)) => self.next_full()?,
            Fit::Spec(Size::Exactly(len)) => self
                .messages
                .iter_from(first)
                .take(SIZE_SCAN)
                .find(|(_, m)| {
                    m.wire.is_spec()
                        && m.next_new < m.chunks.len()
                        && m.encoded_len(m.next_new) == len
                })
                .map(|(abs, _)| abs)?,
            Fit::Spec(size) => {
                let msg = self.messages.get(first)?;
                if !msg.wire.is_spec() || !size.fits(msg.encoded_len(msg.next_new)) {
                    return None;
                }
                first
            }
            Fit::Ext { room } => {
                let msg = self.messages.get(first)?;
                if msg.wire.is_spec() {
                    return None;
                }
                if msg.encoded_len(msg.next_new) <= room {
                    first
                } else if room < MIN_PACK_ROOM {
                    return None;
                } else {
                    self.packable(first, room)?
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
        match choice {
            Choice::Retransmit(abs, chunk) => {
                self.retransmit.pop_first();
                stats.retransmissions += 1;
                self.transmit(now, abs, chunk, buf)
            }
            Choice::New(abs) => {
                let Some(msg) = self.messages.get_mut(abs) else {
                    return 0;
                };
                let chunk = msg.next_new as u8;
                msg.next_new += 1;
                self.unsent -= 1;
                self.transmit(now, abs, chunk, buf)
            }
        }
    }

    /// A later message's last chunk that fits the `room` left in an extended datagram whose
    /// next chunk (of message `first`) does not: small messages behind a large one share its
    /// datagrams. Only last chunks can be shorter than the one that did not fit.
    ///
    /// A flush asks once per datagram, each time from one message further on, so a scan that
    /// finds nothing is remembered (`pack_miss`): the next one with no more room starts past
    /// what it covered. Nothing covered can come to fit: a message's next chunk changes only
    /// when it is first, or when held ordered messages are released (which forgets the
    /// memory), and a scan covers only numbers already given out, so a message queued later
    /// is never taken as covered.
    fn packable(&mut self, first: u64, room: usize) -> Option<u64> {
        let end = (first + 1 + PACK_SCAN).min(self.next_abs);
        let from = match self.pack_miss {
            Some((covered, had)) if room <= had && covered > first => covered,
            _ => first + 1,
        };
        let found = self
            .messages
            .iter_from(from)
            .take_while(|&(abs, _)| abs < end)
            .find(|(_, m)| {
                m.next_new + 1 == m.chunks.len() && !m.wire.is_spec() && m.last_len <= room
            })
            .map(|(abs, _)| abs);
        if found.is_none() {
            self.pack_miss = Some((end, room));
        }
        found
    }

    /// Whether the chunk [`poll`](Self::poll) would take next is framed the spec's way (a
    /// retransmission first, then the oldest chunk never sent).
    #[inline]
    pub fn next_is_spec(&mut self) -> bool {
        // Every flush asks, most of the time with nothing to send: answered here, not in a call.
        self.has_waiting() && self.next_is_spec_slow()
    }

    fn next_is_spec_slow(&mut self) -> bool {
        if let Some((abs, _)) = self.retransmit_front() {
            return self.messages.get(abs).is_some_and(|m| m.wire.is_spec());
        }
        self.unsent > 0
            && self
                .first_unsent()
                .and_then(|abs| self.messages.get(abs))
                .is_some_and(|m| m.wire.is_spec())
    }

    /// The retransmission [`poll`](Self::poll) would send next, if one goes before the chunks
    /// never sent: the front of the queue, once the chunks acknowledged or sent again since
    /// they were declared lost are dropped from it.
    fn retransmit_front(&mut self) -> Option<(u64, u8)> {
        if self.retransmit.is_empty() {
            return None;
        }
        while let Some(&(abs, chunk)) = self.retransmit.first() {
            let waiting = self.messages.get(abs).is_some_and(|m| {
                !m.chunks[usize::from(chunk)].acked && !m.chunks[usize::from(chunk)].in_flight
            });
            if waiting {
                return (!self.older_unsent(abs)).then_some((abs, chunk));
            }
            self.retransmit.pop_first();
        }
        None
    }

    /// Whether the oldest message, older than `abs`, has a chunk never sent: that chunk goes
    /// before a retransmission of `abs`. A receiver whose reassembly budget is full takes
    /// chunks only for its oldest reliable message; with the window cut to a few chunks by a
    /// timeout, retransmissions of later messages first would be refused, timeout after
    /// timeout, while the oldest message's last chunk (shorter, so left for a batch of its
    /// own) waits. Only the oldest: holding retransmissions behind every older unsent chunk
    /// would starve them behind the short last chunks of a stream of small messages.
    fn older_unsent(&self, abs: u64) -> bool {
        self.unsent > 0
            && self.messages.oldest().is_some_and(|oldest| {
                oldest < abs
                    && self
                        .messages
                        .get(oldest)
                        .is_some_and(|m| m.next_new < m.chunks.len())
            })
    }

    /// The oldest message with a chunk never sent, moving `cursor` to it: past the messages
    /// sent whole, for good, so a batch of short last chunks (one per message) finds each next
    /// one at once instead of walking again past those already sent.
    fn first_unsent(&mut self) -> Option<u64> {
        let (abs, _) = self
            .messages
            .iter_from(self.cursor)
            .find(|(_, m)| m.next_new < m.chunks.len())?;
        self.cursor = abs;
        Some(abs)
    }

    /// The oldest message with a full-size chunk never sent, if its sequence number is within
    /// [`SIZE_SCAN`] of the oldest message with any chunk never sent. Moves `full_cursor` past
    /// the messages that have none left, for good (`next_new` only grows), so the walk costs
    /// a constant per message over its life, not a scan per datagram.
    fn next_full(&mut self) -> Option<u64> {
        let start = self.full_cursor.max(self.cursor);
        let found = self
            .messages
            .iter_from(start)
            .find(|(_, m)| m.wire.is_spec() && m.next_new < m.full_chunks())
            .map(|(abs, _)| abs);
        self.full_cursor = found.unwrap_or_else(|| self.messages.end());
        found.filter(|&abs| abs - self.cursor < SIZE_SCAN as u64)
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
