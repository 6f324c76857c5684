//! What arrives on the extended wire: offers and accepts, and extended datagrams, checked
//! (marker, CRC, then every frame parsed and held to the agreement, in one pass) before any
//! frame is used, so that a datagram counts whole or not at all.

use std::time::{Duration, Instant};

use super::Connection;
use super::liveness::keepalive_sequence;
use super::negotiation::Outcome;
use crate::event::DisconnectReason;
use crate::ext::Extensions;
use crate::ext::datagram::{self, DatagramError, Frames};
use crate::ext::frame::{Frame, PING};
use crate::receive::Incoming;
use crate::spares::Spares;

/// What a datagram's frames break, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breach {
    /// A frame does not parse.
    Malformed,
    /// Every frame parses, but the datagram uses what was not agreed.
    Refused,
}

/// Checks an unsealed datagram's frames in one pass: that every frame parses (a datagram is
/// used whole or not at all), and that the datagram uses only what was agreed: no larger than
/// the datagram size, one frame without batching, one chunk per ACK frame without ranges,
/// nothing compressed without compression. A frame that does not parse makes the datagram
/// malformed even after one that breaks the agreement.
///
/// A datagram of one frame, as a latency-bound message usually is, gives its frame back, so
/// that it is not parsed twice.
fn check_frames<'a>(
    ext: &Extensions,
    len: usize,
    frames: &'a [u8],
) -> Result<Option<Frame<'a>>, Breach> {
    let mut refused = len > ext.datagram_size();
    let mut count = 0;
    let mut only = None;
    for (i, frame) in Frames(frames).enumerate() {
        let Ok(frame) = frame else {
            return Err(Breach::Malformed);
        };
        only = (i == 0).then_some(frame);
        let ok = match frame {
            Frame::Padding | Frame::AckNow => continue,
            Frame::Ping | Frame::Close => true,
            Frame::Ack(ack) => {
                ext.ack_ranges
                    || ack.ranges().count() == 1
                        && ack
                            .ranges()
                            .all(|r| r.extra == 0 && r.first_chunk == r.last_chunk)
            }
            Frame::Data(header, _) => ext.compression || !header.compressed,
        };
        count += 1;
        refused |= !ok || (!ext.batching && count > 1);
    }
    if refused {
        return Err(Breach::Refused);
    }
    Ok(only)
}

impl Connection {
    /// This end sends on the extended wire from now on.
    fn enter_extended(&mut self, ext: Extensions) {
        self.outbound.use_extensions(ext);
        self.wire.extend(ext, self.ack_policy);
    }

    /// An offer or accept from the peer.
    pub(super) fn handle_negotiation(&mut self, now: Instant, datagram: &[u8]) {
        // A spec peer would take it as an `ACK` of nothing: a sign of life all the same.
        self.count_received(now, datagram.len());
        let sequence = keepalive_sequence(self.rx.newest());
        match self.negotiator.on_datagram(now, datagram, sequence) {
            Outcome::Nothing => {}
            Outcome::Answer(accept) => {
                if let Some(ext) = self.negotiator.agreed() {
                    self.rx.accept_extended(ext.chunk_size());
                }
                if !self.queue.push_negotiation(accept) {
                    self.stats.datagrams_dropped += 1;
                }
            }
            Outcome::Accepted(ext) => {
                self.rx.accept_extended(ext.chunk_size());
                self.enter_extended(ext);
                if let Some(rtt) = self.negotiator.take_sample(now) {
                    self.outbound.rtt_sample(rtt);
                }
                // The server sends extended datagrams once it has one from us: at once, and
                // again until it answers.
                self.poll_ping(now);
            }
            Outcome::Mismatch(mismatch, answer) => {
                self.close_with(DisconnectReason::SchemaMismatch(mismatch), false);
                // A server, after the close (which empties the queue): the accept that names
                // its schema, then the `END`, each twice, the accepts first. The server
                // forgets the connection, so a lost accept is never sent again: the second
                // copy is what makes the client's named error survive one loss. A client
                // sends nothing: the server that sent this accept found the same difference
                // and has closed.
                if let Some(accept) = answer {
                    for copy in [accept.clone(), accept] {
                        if !self.queue.push_negotiation(copy) {
                            self.stats.datagrams_dropped += 1;
                        }
                    }
                    if self.data_phase {
                        for _ in 0..2 {
                            self.queue_signal(self.wire.close(self.outbound.next_sequence()));
                        }
                    }
                }
            }
            Outcome::Refused => self.stats.extensions_refused += 1,
        }
    }

    /// Queues the client's ping, if one is due (see `negotiation`).
    pub(super) fn poll_ping(&mut self, now: Instant) {
        if self.negotiator.poll_ping(now) {
            self.queue_frame(PING);
        }
    }

    /// An extended datagram from the peer.
    pub(super) fn handle_extended(&mut self, now: Instant, datagram: &[u8], spares: &mut Spares) {
        self.count_handshake(datagram.len());
        let Some(ext) = self.negotiator.agreed() else {
            self.stats.extensions_refused += 1;
            return;
        };
        let frames = match datagram::unseal(datagram, ext.crc) {
            Ok(frames) => frames,
            Err(DatagramError::Crc) => {
                self.stats.crc_failed += 1;
                return;
            }
            Err(_) => {
                self.stats.malformed += 1;
                return;
            }
        };
        let only = match check_frames(&ext, datagram.len(), frames) {
            Ok(only) => only,
            Err(Breach::Malformed) => {
                self.stats.malformed += 1;
                return;
            }
            Err(Breach::Refused) => {
                self.stats.extensions_refused += 1;
                return;
            }
        };
        self.liveness.heard(now);
        if self.negotiator.peer_sends_extended() {
            // A server's switch: its client stops its pings when it hears this one.
            self.enter_extended(ext);
            self.queue_frame(PING);
            if let Some(rtt) = self.negotiator.take_sample(now) {
                self.outbound.rtt_sample(rtt);
            }
        }
        if let Some(frame) = only {
            self.handle_frame(now, frame, spares);
            return;
        }
        for frame in Frames(frames).flatten() {
            if !self.handle_frame(now, frame, spares) {
                return;
            }
        }
    }

    /// One frame of a datagram that passed its checks; `false` once the connection closed.
    fn handle_frame(&mut self, now: Instant, frame: Frame<'_>, spares: &mut Spares) -> bool {
        match frame {
            Frame::Padding | Frame::Ping => {}
            Frame::AckNow => self.wire.hurry(now),
            Frame::Close => {
                self.close_with(DisconnectReason::PeerClosed, false);
                return false;
            }
            Frame::Ack(ack) => {
                let delay = Duration::from_micros(u64::from(ack.delay_micros));
                let done = self.outbound.on_ack_ranges(
                    now,
                    ack.ranges(),
                    delay,
                    &mut self.stats,
                    &mut self.tracked,
                );
                self.stats.messages_acked += done as u64;
                self.drain_tracked(true);
            }
            Frame::Data(header, data) => self.on_chunk(now, Incoming::ext(&header, data), spares),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::frame::{ACK_NOW, PADDING};

    /// A type byte no frame has.
    const UNKNOWN: u8 = 0x3f;

    #[test]
    fn one_pass_tells_a_malformed_datagram_from_one_beyond_the_agreement() {
        let one = Extensions::NONE;
        let all = Extensions::ALL;
        assert_eq!(check_frames(&one, 10, &[PING]), Ok(Some(Frame::Ping)));
        assert_eq!(check_frames(&one, 10, &[PADDING, ACK_NOW, PING]), Ok(None));
        // Two frames without batching, or a datagram over the agreed size: refused.
        assert_eq!(check_frames(&one, 10, &[PING, PING]), Err(Breach::Refused));
        assert_eq!(check_frames(&all, 10, &[PING, PING]), Ok(None));
        let too_long = one.datagram_size() + 1;
        assert_eq!(check_frames(&one, too_long, &[PING]), Err(Breach::Refused));
        // A frame that does not parse wins, wherever it is.
        assert_eq!(check_frames(&one, 10, &[UNKNOWN]), Err(Breach::Malformed));
        assert_eq!(
            check_frames(&one, 10, &[PING, PING, UNKNOWN]),
            Err(Breach::Malformed)
        );
        assert_eq!(
            check_frames(&one, too_long, &[UNKNOWN]),
            Err(Breach::Malformed)
        );
    }
}
