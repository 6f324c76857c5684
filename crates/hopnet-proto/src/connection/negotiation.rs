//! The negotiation of one connection: the client offers what its configuration enables, a
//! number of times at the handshake's resend intervals, and settles for the spec's wire if no
//! accept comes; the server accepts the first offer with what both support and repeats that
//! accept for every copy of the offer. Each end then sends extended datagrams: the client at
//! once (its first one tells the server the accept arrived), the server from the first
//! extended datagram it receives (PROTOCOL.md, "Negotiation"). Until the client hears an
//! extended datagram back, it repeats a ping at the offers' intervals, so that a lost ping
//! does not leave the server on the spec's wire until the client next has something to say;
//! the server answers its switch with a ping of its own.

use std::time::{Duration, Instant};

use std::sync::Arc;

use crate::ext::Extensions;
use crate::ext::negotiate::{self, Kind, Negotiation};
use crate::ext::schema::{SchemaFingerprint, SchemaMismatch};

/// Where a connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Extensions are off in the configuration, or the client has not connected yet, or the
    /// server has had no offer.
    Idle,
    /// The client sends offers until one is accepted.
    Offering(Retry),
    /// The client gave up: the spec's wire for good.
    Refused,
    /// Both ends agreed; `sending` once this end sends extended datagrams; `confirm`: the
    /// client's pings until it hears an extended datagram.
    Agreed {
        ext: Extensions,
        sending: bool,
        confirm: Option<Retry>,
    },
}

/// A datagram repeated at growing intervals, a bounded number of times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Retry {
    next: Instant,
    interval: Duration,
    left: u32,
}

/// What came of a datagram shaped like a negotiation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing to do (a repeated accept, an offer to a server without extensions is a plain
    /// `ACK` and never gets here).
    Nothing,
    /// The server agreed (or agrees again): send this accept.
    Answer(Vec<u8>),
    /// Both ends have a schema and they differ: the connection ends; a server first sends
    /// this accept, which carries its schema, so that the client can name the type too.
    Mismatch(SchemaMismatch, Option<Vec<u8>>),
    /// The client's offer was accepted: it now sends extended datagrams.
    Accepted(Extensions),
    /// Corrupt, contradictory or untruthful: dropped and counted.
    Refused,
}

/// One connection's negotiation.
#[derive(Debug)]
pub(crate) struct Negotiator {
    local: Option<Extensions>,
    /// A client offers and takes accepts; a server takes offers and answers.
    client: bool,
    state: State,
    initial: Duration,
    max_interval: Duration,
    max_offers: u32,
    /// When the one offer (a client) or accept (a server) so far left: the round trip to its
    /// answer is the connection's first RTT sample. `None` once a second one left (Karn's
    /// rule: which one was answered is unknown).
    timed: Option<Instant>,
    /// Offers or accepts sent.
    sent: u32,
    /// The game's schema, sent in offers (and in accepts to offers that carry one) and
    /// checked against the peer's.
    schema: Option<Arc<SchemaFingerprint>>,
}

impl Negotiator {
    pub fn new(
        local: Option<Extensions>,
        client: bool,
        initial: Duration,
        max_interval: Duration,
        max_offers: u32,
    ) -> Negotiator {
        Negotiator {
            local,
            client,
            state: State::Idle,
            initial,
            max_interval,
            max_offers,
            timed: None,
            sent: 0,
            schema: None,
        }
    }

    /// Sends and checks this schema (`ConfigBuilder::schema`).
    pub fn with_schema(mut self, schema: Option<Arc<SchemaFingerprint>>) -> Negotiator {
        self.schema = schema;
        self
    }

    /// An offer or accept; with the schema field when this end has a schema and, for an
    /// accept, the offer carried one (so that a peer without a schema sees the bytes it
    /// always saw).
    fn encode(&self, kind: Kind, ext: &Extensions, sequence: u16, with_schema: bool) -> Vec<u8> {
        match &self.schema {
            Some(schema) if with_schema => {
                negotiate::encode_with(kind, ext, sequence, &schema.field())
            }
            _ => negotiate::encode(kind, ext, sequence).to_vec(),
        }
    }

    /// Whether this end takes part at all.
    pub fn enabled(&self) -> bool {
        self.local.is_some()
    }

    /// A client's handshake was confirmed: it starts offering.
    pub fn start(&mut self, now: Instant) {
        if self.client && self.local.is_some() && self.state == State::Idle {
            self.state = State::Offering(self.retry(now));
        }
    }

    fn retry(&self, now: Instant) -> Retry {
        Retry {
            next: now,
            interval: self.initial,
            left: self.max_offers,
        }
    }

    /// Whether `retry` is due at `now`; if so, schedules the next time.
    fn due(retry: &mut Retry, now: Instant, max_interval: Duration) -> bool {
        if now < retry.next || retry.left == 0 {
            return false;
        }
        retry.left -= 1;
        retry.next = now + retry.interval;
        retry.interval = (retry.interval * 2).min(max_interval);
        true
    }

    /// What was agreed, if anything.
    pub fn agreed(&self) -> Option<Extensions> {
        match self.state {
            State::Agreed { ext, .. } => Some(ext),
            _ => None,
        }
    }

    /// Whether this end sends extended datagrams. The connection does not ask: its wire
    /// is swapped when this turns true (see `wire`).
    #[cfg(test)]
    pub fn sending(&self) -> bool {
        matches!(self.state, State::Agreed { sending: true, .. })
    }

    /// An extended datagram from the peer passed its checks: the peer has the agreement. A
    /// server may now send extended datagrams too (returns `true` when that is new: it
    /// answers with a ping); a client stops its pings.
    pub fn peer_sends_extended(&mut self) -> bool {
        match &mut self.state {
            State::Agreed { sending, .. } if !*sending => {
                *sending = true;
                true
            }
            State::Agreed { confirm, .. } => {
                *confirm = None;
                false
            }
            _ => false,
        }
    }

    /// Whether the client's ping is due at `now` (see the module doc).
    pub fn poll_ping(&mut self, now: Instant) -> bool {
        match &mut self.state {
            State::Agreed {
                confirm: Some(retry),
                ..
            } => Self::due(retry, now, self.max_interval),
            _ => false,
        }
    }

    /// The offer to send at `now`, if one is due (`sequence` for its header, see
    /// [`negotiate`]). Past the last offer and its interval, the client settles for the
    /// spec's wire.
    pub fn poll_offer(&mut self, now: Instant, sequence: u16) -> Option<Vec<u8>> {
        let State::Offering(retry) = &mut self.state else {
            return None;
        };
        if retry.left == 0 {
            if now >= retry.next {
                self.state = State::Refused;
            }
            return None;
        }
        if !Self::due(retry, now, self.max_interval) {
            return None;
        }
        let local = self.local?;
        self.note_sent(now);
        Some(self.encode(Kind::Offer, &local, sequence, true))
    }

    fn note_sent(&mut self, now: Instant) {
        self.sent += 1;
        self.timed = (self.sent == 1).then_some(now);
    }

    /// An offer or accept left at `now`: the one timed counts from here, not from when it was
    /// queued (an application may poll for datagrams to send a tick later).
    pub fn left(&mut self, now: Instant) {
        if let Some(t) = &mut self.timed {
            *t = (*t).max(now);
        }
    }

    /// The round trip from the one offer (or accept) to its answer (the accept, or the
    /// client's first extended datagram), if it was the only one: taken once. A server's is
    /// only trusted below the handshake's resend interval, past which the client's first
    /// ping may have been lost and the answer is a later one.
    pub fn take_sample(&mut self, now: Instant) -> Option<Duration> {
        let sample = now.saturating_duration_since(self.timed.take()?);
        (self.client || sample < self.initial).then_some(sample)
    }

    /// When [`poll_offer`](Self::poll_offer) or [`poll_ping`](Self::poll_ping) has something
    /// to do.
    pub fn deadline(&self) -> Option<Instant> {
        match self.state {
            State::Offering(retry) => Some(retry.next),
            State::Agreed {
                confirm: Some(retry),
                ..
            } if retry.left > 0 => Some(retry.next),
            _ => None,
        }
    }

    /// A datagram shaped like a negotiation arrived at `now` (`sequence` for an answer's
    /// header).
    pub fn on_datagram(&mut self, now: Instant, datagram: &[u8], sequence: u16) -> Outcome {
        let Some(local) = self.local else {
            return Outcome::Nothing;
        };
        let Ok(Negotiation {
            kind, extensions, ..
        }) = negotiate::decode(datagram)
        else {
            return Outcome::Refused;
        };
        if self.client != (kind == Kind::Accept) {
            return Outcome::Refused;
        }
        let fields = negotiate::later_fields(datagram);
        let peer_schema = fields.first() == Some(&crate::ext::schema::SCHEMA_MARK);
        let mismatch = match self.schema.as_deref().map(|s| s.check(fields)) {
            None | Some(Ok(None)) => None,
            Some(Ok(Some(mismatch))) => Some(mismatch),
            Some(Err(())) => return Outcome::Refused,
        };
        if let Some(mismatch) = mismatch {
            // No agreement: the connection ends. The server's accept tells the client why.
            let answer = (kind == Kind::Offer).then(|| {
                let ext = extensions.intersect(&local);
                self.encode(Kind::Accept, &ext, sequence, true)
            });
            return Outcome::Mismatch(mismatch, answer);
        }
        match (kind, self.state) {
            // A server: the first offer fixes the agreement; copies of it get the same
            // accept (the first may have been lost).
            (Kind::Offer, State::Idle) => {
                let ext = extensions.intersect(&local);
                self.state = State::Agreed {
                    ext,
                    sending: false,
                    confirm: None,
                };
                self.note_sent(now);
                Outcome::Answer(self.encode(Kind::Accept, &ext, sequence, peer_schema))
            }
            (Kind::Offer, State::Agreed { ext, .. }) if extensions.intersect(&local) == ext => {
                self.note_sent(now);
                Outcome::Answer(self.encode(Kind::Accept, &ext, sequence, peer_schema))
            }
            // A client: an accept within what it offered.
            (Kind::Accept, State::Offering(_)) if extensions.within(&local) => {
                self.state = State::Agreed {
                    ext: extensions,
                    sending: true,
                    confirm: Some(self.retry(now)),
                };
                Outcome::Accepted(extensions)
            }
            (Kind::Accept, State::Agreed { ext, .. }) if ext == extensions => Outcome::Nothing,
            _ => Outcome::Refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn offers_back_off_then_give_up() {
        let t0 = Instant::now();
        let mut c = Negotiator::new(Some(Extensions::ALL), true, ms(250), ms(1000), 3);
        assert_eq!(
            c.poll_offer(t0, 1),
            None,
            "not before the handshake is confirmed"
        );
        c.start(t0);
        assert!(c.poll_offer(t0, 1).is_some());
        assert_eq!(c.poll_offer(t0 + ms(249), 1), None);
        assert!(c.poll_offer(t0 + ms(250), 1).is_some());
        assert_eq!(c.deadline(), Some(t0 + ms(750)));
        assert!(c.poll_offer(t0 + ms(750), 1).is_some());
        assert_eq!(c.poll_offer(t0 + ms(1750), 1), None);
        assert_eq!((c.deadline(), c.agreed()), (None, None));
    }

    #[test]
    fn the_sample_counts_from_when_the_one_offer_left() {
        let t0 = Instant::now();
        let mut c = Negotiator::new(Some(Extensions::ALL), true, ms(250), ms(1000), 3);
        c.start(t0);
        assert!(c.poll_offer(t0, 1).is_some(), "queued at t0");
        c.left(t0 + ms(16));
        assert_eq!(c.take_sample(t0 + ms(20)), Some(ms(4)));
        assert_eq!(c.take_sample(t0 + ms(30)), None, "taken once");

        // A second offer: which one the answer is for is unknown, and leaving changes nothing.
        let mut c = Negotiator::new(Some(Extensions::ALL), true, ms(250), ms(1000), 3);
        c.start(t0);
        assert!(c.poll_offer(t0, 1).is_some());
        assert!(c.poll_offer(t0 + ms(250), 1).is_some());
        c.left(t0 + ms(251));
        assert_eq!(c.take_sample(t0 + ms(260)), None);
    }

    #[test]
    fn server_accepts_what_both_support_and_the_client_checks_it() {
        let t0 = Instant::now();
        let (client_ext, server_ext) = crate::ext::features::differing();
        let mut c = Negotiator::new(Some(client_ext), true, ms(250), ms(1000), 8);
        let mut s = Negotiator::new(Some(server_ext), false, ms(250), ms(1000), 8);
        c.start(t0);
        let offer = c.poll_offer(t0, 0x8000).unwrap();
        let Outcome::Answer(accept) = s.on_datagram(t0, &offer, 0x8000) else {
            panic!()
        };
        let agreed = client_ext.intersect(&server_ext);
        assert_eq!((s.agreed(), s.sending()), (Some(agreed), false));
        // A copy of the offer gets the same accept; another offer is refused.
        assert_eq!(
            s.on_datagram(t0, &offer, 0x8000),
            Outcome::Answer(accept.clone())
        );
        let other = negotiate::encode(Kind::Offer, &Extensions::NONE, 0);
        assert_eq!(s.on_datagram(t0, &other, 0), Outcome::Refused);
        let later = t0 + ms(40);
        assert_eq!(c.on_datagram(later, &accept, 1), Outcome::Accepted(agreed));
        assert!(c.sending());
        assert_eq!(
            c.take_sample(later),
            Some(ms(40)),
            "one offer, its accept: a sample"
        );
        assert_eq!(c.take_sample(later), None, "taken once");
        assert_eq!(s.take_sample(t0), None, "two accepts left: no sample");
        assert_eq!(c.on_datagram(t0, &accept, 1), Outcome::Nothing);
        assert!(s.peer_sends_extended() && s.sending() && !s.peer_sends_extended());
    }

    #[test]
    fn untruthful_accepts_are_refused() {
        let t0 = Instant::now();
        let offered = Extensions {
            crc: false,
            ..Extensions::ALL
        };
        let mut c = Negotiator::new(Some(offered), true, ms(250), ms(1000), 8);
        let lie = negotiate::encode(Kind::Accept, &Extensions::ALL, 0);
        assert_eq!(
            c.on_datagram(t0, &lie, 0),
            Outcome::Refused,
            "before any offer"
        );
        c.start(t0);
        assert_eq!(
            c.on_datagram(t0, &lie, 0),
            Outcome::Refused,
            "CRC never offered"
        );
        let big = Extensions {
            crc: false,
            max_datagram_size: 1200,
            ..Extensions::ALL
        };
        let lie = negotiate::encode(Kind::Accept, &big, 0);
        assert_eq!(
            c.on_datagram(t0, &lie, 0),
            Outcome::Refused,
            "a larger datagram"
        );
        let mut corrupt = negotiate::encode(Kind::Accept, &offered, 0);
        corrupt[9] ^= 1;
        assert_eq!(c.on_datagram(t0, &corrupt, 0), Outcome::Refused);
        assert_eq!(c.agreed(), None);
        // A client takes no offer; a server takes no accept.
        let offer = negotiate::encode(Kind::Offer, &offered, 0);
        assert_eq!(c.on_datagram(t0, &offer, 0), Outcome::Refused);
        let mut s = Negotiator::new(Some(Extensions::ALL), false, ms(250), ms(1000), 8);
        let accept = negotiate::encode(Kind::Accept, &offered, 0);
        assert_eq!(s.on_datagram(t0, &accept, 0), Outcome::Refused);
        let mut off = Negotiator::new(None, false, ms(250), ms(1000), 8);
        assert_eq!(off.on_datagram(t0, &accept, 0), Outcome::Nothing);
    }
}
