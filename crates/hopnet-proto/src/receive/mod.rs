//! The receive half of a connection: chunks in, whole payloads out, each handed up exactly
//! once, within a memory budget.
//!
//! - [`delivered`]: which sequences were completed (exactly once across the 16-bit wrap);
//! - [`partial`]: a payload being reassembled, and what a chunk must agree with;
//! - [`budget`]: what a chunk may add to the connection's memory;
//! - [`expiry`]: when an incomplete payload is given up;
//! - [`oldest`]: which reliable partial is the oldest, the one the budget lets grow;
//! - [`order`]: ordered messages held back until those they follow are handed up (extended
//!   wire).

pub(crate) mod budget;
pub(crate) mod delivered;
mod expiry;
mod oldest;
pub(crate) mod order;
mod partial;

use std::time::{Duration, Instant};

use crate::chunk::{CHUNK_SIZE, MAX_PAYLOAD, valid_len};
use crate::event::Delivery;
use crate::ext::compress;
use crate::ext::frame::DataHeader;
use crate::packet::{Flags, Header, seq_newer};
use crate::spares::Spares;
use budget::{Budget, Room};
use delivered::Delivered;
use expiry::Timeouts;
use oldest::Ages;
use order::Orderer;
use partial::{Partial, Partials};

/// Why an incoming chunk was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// The chunk contradicts the rules or earlier chunks (size, FIN position, framing or
    /// delivery mismatch, a bad reliable index), or its message does not decompress.
    Malformed,
    /// Accepting it would exceed the reassembly budget; a reliable chunk is not acknowledged.
    OverBudget,
    /// The chunk (or its whole message) was already received.
    Duplicate,
    /// Sequenced receive: older than the newest sequenced message delivered.
    Stale,
}

/// How a chunk's message is framed and delivered, as far as its receiver can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The spec's framing: `REL` or not.
    Spec { rel: bool },
    /// A data frame: the sender's delivery mode, and whether the message is compressed.
    Ext {
        delivery: Delivery,
        compressed: bool,
    },
}

impl Kind {
    /// Whether the chunk is acknowledged (`REL`, or a reliable or tracked mode).
    #[inline]
    pub fn acked(self) -> bool {
        match self {
            Kind::Spec { rel } => rel,
            Kind::Ext { delivery, .. } => delivery.is_acknowledged(),
        }
    }

    /// Whether the sender repeats the chunk until acknowledged. A tracked message is not
    /// repeated, but on the spec's wire it looks like a reliable one.
    #[inline]
    pub fn retransmitted(self) -> bool {
        match self {
            Kind::Spec { rel } => rel,
            Kind::Ext { delivery, .. } => delivery.is_reliable(),
        }
    }
}

/// One chunk as it arrived: from a spec packet or from a data frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Incoming<'a> {
    pub sequence: u16,
    pub chunk: u8,
    pub fin: bool,
    pub kind: Kind,
    /// On chunk 0 of an extended reliable message: its reliable index and predecessor.
    pub order: Option<(u16, Option<u16>)>,
    pub data: &'a [u8],
}

impl<'a> Incoming<'a> {
    #[inline]
    pub fn spec(header: Header, data: &'a [u8]) -> Incoming<'a> {
        Incoming {
            sequence: header.sequence,
            chunk: header.chunk,
            fin: header.flags.contains(Flags::FIN),
            kind: Kind::Spec {
                rel: header.flags.contains(Flags::REL),
            },
            order: None,
            data,
        }
    }

    pub fn ext(h: &DataHeader, data: &'a [u8]) -> Incoming<'a> {
        Incoming {
            sequence: h.sequence,
            chunk: h.chunk,
            fin: h.fin,
            kind: Kind::Ext {
                delivery: h.delivery,
                compressed: h.compressed,
            },
            order: h.index.map(|i| (i, h.after)),
            data,
        }
    }
}

/// What the receiver made of one chunk.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Received {
    /// Send an ACK for this chunk.
    pub ack: bool,
    /// Why the chunk (or the message it completed) was dropped, if it was.
    pub dropped: Option<Dropped>,
}

impl Received {
    /// A dropped chunk; an acknowledged duplicate is acknowledged again (its ACK may have been
    /// lost).
    fn dropped(why: Dropped, acked: bool) -> Received {
        Received {
            ack: acked && why == Dropped::Duplicate,
            dropped: Some(why),
        }
    }
}

/// The receive half of a connection.
#[derive(Debug)]
pub(crate) struct Reassembler {
    delivered: Delivered,
    partials: Partials,
    /// The reliable partials in order of age.
    ages: Ages,
    partial_bytes: usize,
    newest_sequenced: Option<u16>,
    /// Unreliable messages on the spec's wire (and unreliable ones on the extended wire) are
    /// sequenced (`ConfigBuilder::sequenced_unreliable`).
    sequenced: bool,
    timeouts: Timeouts,
    /// The chunk size of extended messages, once the connection agreed on it.
    ext_chunk: Option<usize>,
    order: Orderer,
    /// No partial expires before this (a lower bound, `None` with no partials). A chunk only
    /// moves a deadline later, so the bound stays valid without a walk over the partials per
    /// chunk; [`expire`](Self::expire) makes it exact again. Costs at most one early wake-up
    /// per timeout period.
    expiry_bound: Option<Instant>,
}

impl Reassembler {
    pub fn new(
        sequenced: bool,
        unreliable_timeout: Duration,
        reliable_timeout: Duration,
    ) -> Reassembler {
        Reassembler {
            delivered: Delivered::new(),
            partials: Partials::default(),
            ages: Ages::default(),
            partial_bytes: 0,
            newest_sequenced: None,
            sequenced,
            timeouts: Timeouts {
                unreliable: unreliable_timeout,
                reliable: reliable_timeout,
            },
            ext_chunk: None,
            order: Orderer::new(),
            expiry_bound: None,
        }
    }

    /// The connection agreed on extended messages of `chunk_size`-byte chunks.
    pub fn accept_extended(&mut self, chunk_size: usize) {
        self.ext_chunk = Some(chunk_size);
    }

    /// Bytes held by partial payloads (buffers plus bookkeeping) and by complete messages
    /// held back for ordering.
    pub fn partial_bytes(&self) -> usize {
        self.partial_bytes + self.order.bytes()
    }

    /// Messages held back for ordering.
    pub fn held_back(&self) -> usize {
        self.order.held()
    }

    /// The newest sequence seen from the peer.
    pub fn newest(&self) -> Option<u16> {
        self.delivered.newest()
    }

    /// Whether every chunk of `seq` arrived (its message was completed, handed up or held).
    pub fn is_complete(&self, seq: u16) -> bool {
        self.delivered.contains(seq)
    }

    /// Appends the runs of chunks of incomplete `seq` received so far to `out`.
    pub fn received_runs(&self, seq: u16, out: &mut Vec<(u8, u8)>) {
        if let Some(p) = self.partials.get(&seq) {
            p.received_runs(out);
        }
    }

    /// Whether `seq` is the oldest reliable message here: older than every other
    /// retransmitted partial. It is the one the sender most needs completed (it retransmits the
    /// oldest first), whether a chunk of it arrived before (`exists`) or not; one that has none
    /// here yet must also be behind the newest sequence seen, so that a flood of new sequences
    /// never counts. Answered from the ordered [`Ages`], not by a walk over the partials.
    fn is_oldest_reliable(&self, seq: u16, exists: bool) -> bool {
        let Some(newest) = self.delivered.newest() else {
            return false;
        };
        if !exists && crate::packet::seq_diff(seq, newest) >= 0 {
            return false;
        }
        let line = match self.partials.get(&seq) {
            Some(p) => p.line,
            None => self.delivered.line_of(seq),
        };
        self.ages.is_oldest(line)
    }

    #[inline]
    fn is_sequenced(&self, kind: Kind) -> bool {
        match kind {
            Kind::Spec { rel } => !rel && self.sequenced,
            Kind::Ext { delivery, .. } => {
                delivery == Delivery::Sequenced
                    || (delivery == Delivery::Unreliable && self.sequenced)
            }
        }
    }

    /// Whether a complete message may be handed up as far as sequencing goes (it is not older
    /// than the newest sequenced one handed up); if so and it is sequenced, it is the newest.
    fn take_sequenced(&mut self, seq: u16, kind: Kind) -> bool {
        if !self.is_sequenced(kind) {
            return true;
        }
        if self.newest_sequenced.is_some_and(|n| !seq_newer(seq, n)) {
            return false;
        }
        self.newest_sequenced = Some(seq);
        true
    }

    /// Takes one chunk. `outside` is memory already charged elsewhere (delivered payloads not
    /// yet polled); `budget` the configured limit (see [`budget`]). Messages handed up (the
    /// one this chunk completed, and those it released from ordering) go to `out` with
    /// whether they were sent reliably; a message of one chunk is copied into one of
    /// `spares` if there is one.
    pub fn on_chunk(
        &mut self,
        now: Instant,
        c: Incoming<'_>,
        outside: usize,
        budget: usize,
        spares: &mut Spares,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> Received {
        let acked = c.kind.acked();
        let size = match c.kind {
            Kind::Spec { .. } => CHUNK_SIZE,
            Kind::Ext { .. } => match self.ext_chunk {
                Some(size) => size,
                None => return Received::dropped(Dropped::Malformed, acked),
            },
        };
        let seq = c.sequence;
        let offset = usize::from(c.chunk) * size;
        let end = offset + c.data.len();
        if !valid_len(c.data.len(), c.fin, size) || end > MAX_PAYLOAD {
            return Received::dropped(Dropped::Malformed, acked);
        }
        if self.delivered.contains(seq) {
            return Received::dropped(Dropped::Duplicate, acked);
        }
        if let Some((index, after)) = c.order
            && !self.order.accepts(index, after)
        {
            return Received::dropped(Dropped::Malformed, acked);
        }
        self.delivered.observe(seq);
        if self.is_sequenced(c.kind) && self.newest_sequenced.is_some_and(|n| !seq_newer(seq, n)) {
            return Received::dropped(Dropped::Stale, acked);
        }
        let budget = Budget {
            used: outside + self.partial_bytes(),
            limit: budget,
        };
        let prefix = self.order.prefix();
        let (room, known) = match self.partials.get_mut(&seq) {
            Some(p) => {
                if let Err(why) = p.check(now, c.chunk, c.fin, c.kind) {
                    return Received::dropped(why, acked);
                }
                let (capacity, filled) = p.room();
                let room = Room {
                    capacity,
                    filled,
                    exists: true,
                };
                (room, p.order)
            }
            None if c.chunk == 0 && c.fin => {
                // A single-chunk message: no reassembly state at all.
                let next = c.order.is_some_and(|(i, _)| i == prefix);
                if !(budget.fits(c.data.len()) || next && budget.rescues(c.data.len())) {
                    return Received::dropped(Dropped::OverBudget, acked);
                }
                return self.complete(seq, spares.copy_of(c.data), c.kind, c.order, out);
            }
            None => (Room::NONE, None),
        };
        // The message every held one waits for may grow beyond the budget, as the oldest
        // reliable partial may: otherwise held messages could fill the budget for good.
        let next = c.order.or(known).is_some_and(|(i, _)| i == prefix);
        let oldest = || next || self.is_oldest_reliable(seq, room.exists);
        let reliable = c.kind.retransmitted();
        let Some(reserve) = budget.admit(room, offset, end, c.fin, reliable, oldest) else {
            return Received::dropped(Dropped::OverBudget, acked);
        };
        if !room.exists {
            self.note_deadline(now, reliable);
        }
        if !room.exists {
            let line = self.delivered.line_of(seq);
            if reliable {
                self.ages.insert(line);
            }
            self.partials.insert(seq, Partial::new(c.kind, now, line));
        }
        let Some(partial) = self.partials.get_mut(&seq) else {
            return Received::default();
        };
        if c.order.is_some() {
            partial.order = c.order;
        }
        let before = if room.exists { partial.charge() } else { 0 };
        partial.insert(now, c.chunk, offset, c.data, c.fin, reserve);
        self.partial_bytes = self.partial_bytes + partial.charge() - before;
        if !partial.is_complete() {
            return Received {
                ack: acked,
                dropped: None,
            };
        }
        let Some(p) = self.partials.remove(&seq) else {
            return Received::default();
        };
        if p.reliable {
            self.ages.remove(p.line);
        }
        self.partial_bytes -= p.charge();
        let order = p.order;
        self.complete(seq, p.into_payload(), c.kind, order, out)
    }

    /// A message is complete: decompressed, then handed up, held for ordering, or dropped as
    /// stale.
    fn complete(
        &mut self,
        seq: u16,
        bytes: Vec<u8>,
        kind: Kind,
        order: Option<(u16, Option<u16>)>,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> Received {
        self.delivered.insert(seq);
        let acked = kind.acked();
        let malformed = Received {
            ack: acked,
            dropped: Some(Dropped::Malformed),
        };
        let (delivery, bytes) = match kind {
            Kind::Spec { rel } => {
                if !self.take_sequenced(seq, kind) {
                    return Received {
                        ack: acked,
                        dropped: Some(Dropped::Stale),
                    };
                }
                out.push((bytes, rel));
                return Received {
                    ack: acked,
                    dropped: None,
                };
            }
            Kind::Ext {
                delivery,
                compressed: false,
            } => (delivery, bytes),
            Kind::Ext { delivery, .. } => match compress::decompress(&bytes) {
                Ok(b) => (delivery, b),
                Err(_) => {
                    if let Some((index, _)) = order {
                        self.order.skip(index, out);
                    }
                    return malformed;
                }
            },
        };
        if let Some((index, after)) = order {
            if !self.order.arrive(index, delivery, after, bytes, out) {
                self.order.skip(index, out);
                return malformed;
            }
        } else if delivery.is_reliable() {
            // A reliable message's chunk 0 carries its index: without one, it cannot complete.
            return malformed;
        } else {
            if !self.take_sequenced(seq, kind) {
                return Received {
                    ack: acked,
                    dropped: Some(Dropped::Stale),
                };
            }
            out.push((bytes, false));
        }
        Received {
            ack: acked,
            dropped: None,
        }
    }
}

#[cfg(test)]
mod tests;
