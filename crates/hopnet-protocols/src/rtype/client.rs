//! A player: the client side of an instance as a sans-I/O [`Machine`], playing a fixed list
//! of moves and checking that each came back.
//!
//! # Surviving loss
//!
//! Nothing on R-TYPE's UDP is acknowledged, and a move is not idempotent: the client cannot
//! tell a lost move from a lost SPRITE, and resending a move whose SPRITE was lost would move
//! the ship twice. So the client never resends on a guess:
//!
//! - It knows where each move must take its ship (the spawn point plus the moves so far) and
//!   sends the next move only once a SPRITE has shown the ship there.
//! - When no such SPRITE comes within the retransmission timeout, it asks for the world again
//!   with CHECK (the RFC's own resync: the instance answers with every entity), and keeps
//!   asking each timeout until a SPRITE of its ship has come since it asked.
//! - That fresh position then says what happened: at the target, the move landed and only its
//!   SPRITE was lost; elsewhere, the client sends the one step that leads towards the target
//!   (the lost move again, or a step back should a move ever have landed twice).
//! - A SPACE is confirmed by a new entity (an id above every one seen when it was fired) on
//!   the ship's square; if a resync has come without one, the SPACE is fired again. (Its
//!   bullet's SPRITE may be lost in the same resync, so a SPACE can, rarely, fire twice: a
//!   bullet more is harmless, and the instance bounds them.)
//! - CONNECT is sent each timeout until the instance answers.
//! - Once every move is confirmed, the client waits for a CHECK count equal to the number of
//!   entities it knows (resyncing while they differ), then sends QUIT three times.
//! - A CHECK count that differs from the entities the client knows makes it forget every
//!   other entity and send CHECK, as the RFC says: the SPRITEs that answer rebuild the set,
//!   and entities whose DEAD was lost disappear with it.
//!
//! The moves are chosen so that the ship never comes back to a square it left (two steps
//! right for one step down and up), so a SPRITE delayed on the way can never pass for a new
//! one.
//!
//! # The timeout
//!
//! The RFC measures no round trip, but a move and the SPRITE that confirms it are one: the
//! client gives hopnet's [`RttEstimator`] the time from a move (or the first CONNECT) to its
//! confirmation, and waits the estimator's retransmission timeout ([`DEFAULT_RTO`]'s bounds,
//! or [`InstanceClient::with_rto`]'s). Karn's rule: a move whose wait saw a resync, or a
//! CONNECT sent more than once, gives no sample, as its answer may be an earlier send's. Each
//! expiry that sends CHECK or CONNECT again doubles the timeout until a sample comes (or a
//! resent move is confirmed within the un-doubled timeout). A timeout shorter than the path's
//! round trip only asks early: a resync, and a step sent under a new number after the
//! resync's own SPRITE, so a move is never applied twice.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::engine::RttEstimator;
use hopnet::{Machine, Transmit};
use hopnet_formats::rtype::{Action, Frame};

use super::body;
use super::frames;
use super::outbox::Outbox;
use crate::rto::RtoConfig;

/// The client's retransmission timeout by default: 150 ms before the first sample (three
/// times the assumed 50 ms round trip), then the estimator's, never below 10 ms (a loopback
/// round trip is far shorter, but a thread on a loaded machine can sleep that long, and an
/// early resync costs a CHECK and its SPRITEs) nor above 1 s.
pub const DEFAULT_RTO: RtoConfig = RtoConfig {
    initial_rtt: Duration::from_millis(50),
    min: Duration::from_millis(10),
    max: Duration::from_millis(1000),
};
/// Entities the client keeps track of at most; a SPRITE of a new one beyond is ignored.
pub const MAX_KNOWN_ENTITIES: usize = 4096;

/// The `n` moves a client plays: right, down, right, up, with a SPACE every fifth.
pub fn moves(n: usize) -> Vec<Action> {
    const WALK: [Action; 4] = [Action::Right, Action::Down, Action::Right, Action::Up];
    let mut walked = 0;
    (0..n)
        .map(|i| {
            if i % 5 == 4 {
                Action::Space
            } else {
                walked += 1;
                WALK[(walked - 1) % 4]
            }
        })
        .collect()
}

fn delta(action: Action) -> (i32, i32) {
    match action {
        Action::Left => (-1, 0),
        Action::Right => (1, 0),
        Action::Up => (0, -1),
        Action::Down => (0, 1),
        _ => (0, 0),
    }
}

/// Where the client is in its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Sending CONNECT until the instance answers.
    Connecting,
    /// Playing the moves.
    Playing,
    /// Every move came back; waiting for a CHECK count that agrees with the entities known
    /// (resyncing while it does not).
    Settling,
    /// The count agreed; QUIT sent.
    Done,
    /// The instance refused (KO with this body) or removed the ship.
    Failed(String),
}

/// What the client has waiting for an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// Nothing sent yet for the current move.
    Nothing,
    /// The move (or its correction) is out.
    Move,
    /// CHECK is out; whether a SPRITE of the ship has come since.
    Resync { fresh: bool },
}

/// Counters of a client's session, for its summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// CHECK counts received from the instance.
    pub checks: u64,
    /// CHECK requests sent: for a count that differed, or a move whose SPRITE did not come.
    pub resyncs: u64,
    /// Moves (and SPACEs) sent, corrections and repeats included.
    pub moves_sent: u64,
    /// Moves whose result a SPRITE showed.
    pub moves_confirmed: u64,
    /// Datagrams that were not frames.
    pub rejected: u64,
}

/// A client of one instance.
#[derive(Debug)]
pub struct InstanceClient {
    server: SocketAddr,
    instance: u32,
    plan: Vec<Action>,
    /// How far the first `k` moves take the ship from its spawn point, for every `k`.
    walked: Vec<(i32, i32)>,
    phase: Phase,
    player: Option<u32>,
    spawn: Option<(i32, i32)>,
    entities: BTreeMap<u32, (i32, i32)>,
    /// The highest entity id seen when the pending SPACE was fired.
    fired_above: Option<u32>,
    done: usize,
    waiting: Waiting,
    retry_at: Instant,
    rtt: RttEstimator,
    /// When the current move (or its last correction), or the last CONNECT, was sent.
    sent_at: Option<Instant>,
    /// Whether the current wait saw a resync or a repeated CONNECT: its answer gives no
    /// sample (Karn's rule).
    resent: bool,
    outbox: Outbox,
    stats: ClientStats,
}

impl InstanceClient {
    /// A client that will connect to instance `instance` at `server` and play `plan`
    /// (see [`moves`]), starting at `now`.
    pub fn new(server: SocketAddr, instance: u32, plan: Vec<Action>, now: Instant) -> Self {
        let mut walked = Vec::with_capacity(plan.len() + 1);
        walked.push((0, 0));
        for &a in &plan {
            let ((x, y), (dx, dy)) = (walked[walked.len() - 1], delta(a));
            walked.push((x + dx, y + dy));
        }
        InstanceClient {
            server,
            instance,
            plan,
            walked,
            phase: Phase::Connecting,
            player: None,
            spawn: None,
            entities: BTreeMap::new(),
            fired_above: None,
            done: 0,
            waiting: Waiting::Nothing,
            retry_at: now,
            rtt: DEFAULT_RTO.estimator(),
            sent_at: None,
            resent: false,
            outbox: Outbox::default(),
            stats: ClientStats::default(),
        }
    }

    /// The same client with the retransmission timeout's settings `rto` instead of
    /// [`DEFAULT_RTO`].
    pub fn with_rto(mut self, rto: RtoConfig) -> Self {
        self.rtt = rto.estimator();
        self
    }

    /// The round-trip estimator: its smoothed round trip and current timeout.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// Where the session is.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The ship's entity id, once connected.
    pub fn player(&self) -> Option<u32> {
        self.player
    }

    /// The entities the client knows, with their positions.
    pub fn entities(&self) -> &BTreeMap<u32, (i32, i32)> {
        &self.entities
    }

    /// Moves confirmed so far.
    pub fn moves_done(&self) -> usize {
        self.done
    }

    /// The session's counters.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    /// Where the ship was first seen, and where it is now as far as the client knows.
    pub fn position(&self) -> Option<((i32, i32), (i32, i32))> {
        Some((self.spawn?, self.own()?))
    }

    fn own(&self) -> Option<(i32, i32)> {
        self.entities.get(&self.player?).copied()
    }

    /// Where the ship stands after the first `k` moves.
    fn target(&self, k: usize) -> Option<(i32, i32)> {
        let (x, y) = self.spawn?;
        let (dx, dy) = self.walked[k];
        Some((x + dx, y + dy))
    }

    fn send(&mut self, action: Action, message: &str) {
        self.outbox.push(self.server, action, message);
    }

    fn resync(&mut self, now: Instant) {
        self.send(Action::Check, "");
        self.stats.resyncs += 1;
        self.waiting = Waiting::Resync { fresh: false };
        self.resent = true;
        self.retry_at = now + self.rtt.rto();
    }

    /// The current move, or CONNECT, was answered: a sample if it was sent once, else only
    /// the end of the backoff should it have come within the un-doubled timeout.
    fn answered(&mut self, now: Instant) {
        if let Some(sent) = self.sent_at.take() {
            let elapsed = now.saturating_duration_since(sent);
            if self.resent {
                self.rtt.on_prompt_retransmission_ack(elapsed);
            } else {
                self.rtt.sample(elapsed);
            }
        }
        self.resent = false;
    }

    /// Whether the current move's result has been seen.
    fn current_confirmed(&self) -> bool {
        let Some(&action) = self.plan.get(self.done) else {
            return false;
        };
        if action == Action::Space {
            let (Some(above), Some(at)) = (self.fired_above, self.own()) else {
                return false;
            };
            return self
                .entities
                .range(above.saturating_add(1)..)
                .any(|(&id, &pos)| Some(id) != self.player && pos == at);
        }
        self.own().is_some() && self.own() == self.target(self.done + 1)
    }

    /// Confirms what has been seen and sends the next move, as far as it goes.
    fn advance(&mut self, now: Instant) {
        if self.phase != Phase::Playing || self.spawn.is_none() {
            return;
        }
        while self.current_confirmed() {
            self.answered(now);
            self.done += 1;
            self.stats.moves_confirmed += 1;
            self.waiting = Waiting::Nothing;
            self.fired_above = None;
        }
        if self.done == self.plan.len() {
            self.phase = Phase::Settling;
            return;
        }
        if self.waiting == Waiting::Nothing {
            self.send_move(now);
        }
    }

    /// Sends the current move, or the step that leads from where the ship is to its target.
    fn send_move(&mut self, now: Instant) {
        let action = self.plan[self.done];
        let step = if action == Action::Space {
            self.fired_above = self.entities.keys().next_back().copied();
            Action::Space
        } else {
            let (Some((x, y)), Some((tx, ty))) = (self.own(), self.target(self.done + 1)) else {
                return;
            };
            if tx > x {
                Action::Right
            } else if tx < x {
                Action::Left
            } else if ty > y {
                Action::Down
            } else {
                Action::Up
            }
        };
        self.stats.moves_sent += 1;
        let number = self.stats.moves_sent.to_string();
        self.send(step, &number);
        self.waiting = Waiting::Move;
        self.sent_at = Some(now);
        self.retry_at = now + self.rtt.rto();
    }

    fn sprite(&mut self, now: Instant, message: &str) {
        let Some((id, x, y)) = body::sprite(message) else {
            return;
        };
        if self.entities.len() >= MAX_KNOWN_ENTITIES && !self.entities.contains_key(&id) {
            return;
        }
        self.entities.insert(id, (x, y));
        if Some(id) == self.player {
            self.spawn.get_or_insert((x, y));
            if let Waiting::Resync { fresh } = &mut self.waiting {
                *fresh = true;
            }
        }
        self.advance(now);
    }

    fn check(&mut self, now: Instant, message: &str) {
        self.stats.checks += 1;
        let Some(count) = body::number::<usize>(message) else {
            return;
        };
        let playing = matches!(self.phase, Phase::Playing | Phase::Settling);
        if count != self.entities.len() && playing {
            let own = self
                .player
                .and_then(|p| Some((p, self.entities.get(&p).copied()?)));
            self.entities.clear();
            self.entities.extend(own);
            self.resync(now);
        } else if self.phase == Phase::Settling {
            for _ in 0..3 {
                self.send(Action::Quit, "");
            }
            self.phase = Phase::Done;
        }
    }

    fn receive(&mut self, now: Instant, frame: Frame) {
        match frame.action {
            Action::Connect if self.phase == Phase::Connecting => {
                if let Some(player) = body::number::<u32>(&frame.message) {
                    self.player = Some(player);
                    // Its SPRITE may have come first (reordered): no move is out yet, so
                    // where it stands is where it spawned.
                    if let Some(&at) = self.entities.get(&player) {
                        self.spawn = Some(at);
                    }
                    self.phase = Phase::Playing;
                    self.answered(now);
                    self.retry_at = now + self.rtt.rto();
                    self.advance(now);
                }
            }
            Action::Ko if self.phase == Phase::Connecting => {
                self.phase = Phase::Failed(frame.message);
            }
            Action::Sprite => self.sprite(now, &frame.message),
            Action::Check => self.check(now, &frame.message),
            Action::Dead => {
                if let Some(id) = body::number::<u32>(&frame.message) {
                    self.entities.remove(&id);
                    let playing = matches!(self.phase, Phase::Playing | Phase::Settling);
                    if Some(id) == self.player && playing {
                        self.phase = Phase::Failed("the instance removed the ship".into());
                    }
                }
            }
            _ => {}
        }
    }
}

impl Machine for InstanceClient {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if from != self.server {
            return;
        }
        match frames::decode(datagram) {
            Ok(frame) => self.receive(now, frame),
            Err(_) => self.stats.rejected += 1,
        }
    }

    fn poll_transmit(
        &mut self,
        _now: Instant,
        buf: &mut Vec<u8>,
        _max_datagrams: usize,
    ) -> Option<Transmit> {
        self.outbox.poll_transmit(buf)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        matches!(self.phase, Phase::Connecting | Phase::Playing).then_some(self.retry_at)
    }

    fn handle_timeout(&mut self, now: Instant) {
        if now < self.retry_at {
            return;
        }
        match self.phase {
            Phase::Connecting => {
                if self.sent_at.is_some() {
                    self.resent = true;
                    self.rtt.back_off();
                }
                let id = self.instance.to_string();
                self.send(Action::Connect, &id);
                self.sent_at = Some(now);
                self.retry_at = now + self.rtt.rto();
            }
            Phase::Playing => match self.waiting {
                // The resync's SPRITE came: send the step towards the target.
                Waiting::Resync { fresh: true } if !self.current_confirmed() => self.send_move(now),
                // The ship's position is not known yet (its SPRITE was lost), or a move's (or
                // the last resync's) SPRITE did not come in time: ask for the world.
                Waiting::Nothing | Waiting::Move | Waiting::Resync { .. } => {
                    self.rtt.back_off();
                    self.resync(now);
                }
            },
            // The next CHECK count decides.
            Phase::Settling | Phase::Done | Phase::Failed(_) => {}
        }
    }
}
