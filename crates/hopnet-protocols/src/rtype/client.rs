//! A player: the client side of an instance as a sans-I/O [`Machine`], playing a fixed list
//! of moves the RFC's way.
//!
//! # Playing the RFC's way
//!
//! Nothing on R-TYPE's UDP is acknowledged or numbered, and a move is not idempotent: an
//! instance applies every move it receives, so a move the network duplicates, or one a client
//! sends again, moves the ship twice. The RFC's client (section 2.3, "Dropped packets") does
//! not count on a move being applied once: it predicts where its ship is and takes the
//! server's SPRITEs as the truth. So does this one:
//!
//! - Moves go out as the RFC has them, an action with an empty body. The client knows where
//!   each move must take its ship (the spawn point plus the moves so far): that is its goal.
//! - Its ship's position is predicted locally (the last position a SPRITE showed, plus the
//!   step in flight) and corrected by every SPRITE of its ship.
//! - It steers: it sends the one step that leads from where the server last showed the ship
//!   towards the goal, and the next one once a SPRITE has shown the ship at the goal. A move
//!   lost, applied twice, or applied late only changes which step is sent next.
//! - When no SPRITE shows the ship at the goal within the retransmission timeout, it asks for
//!   the world again with CHECK (the RFC's own resync: the instance answers with every
//!   entity), and keeps asking each timeout until a SPRITE of its ship has come since; the
//!   step towards the goal goes from that position.
//! - A SPACE is sent once, as a player fires: what becomes of the bullet (where it appears,
//!   whether it flies) is the instance's, and nothing waits for it.
//! - CONNECT is sent each timeout until the instance answers.
//! - Once every move is played, the client waits one timeout (so that a late copy of a move
//!   has landed), asks with CHECK where its ship is, steers back should it have moved, and
//!   then waits for a CHECK count equal to the number of entities it knows (resyncing while
//!   they differ); then it sends QUIT three times.
//! - A CHECK count that differs from the entities the client knows makes it forget every
//!   other entity and send CHECK, as the RFC says: the SPRITEs that answer rebuild the set,
//!   and entities whose DEAD was lost disappear with it.
//!
//! The moves are chosen so that the ship never comes back to a square it left (two steps
//! right for one step down and up), so a SPRITE delayed on the way rarely passes for a new
//! one; if one does, the next SPRITE corrects it.
//!
//! # The other entities
//!
//! The other ships and the bullets are shown between SPRITEs as the RFC's section 2.3 asks:
//! an entity going straight is carried on at the velocity of its straight run for a bounded
//! time, and converges back to the SPRITEs' line when the next comes ([`DeadReckoning`], over
//! hopnet-sync's interpolation part; [`InstanceClient::with_extrapolation`] sets the bound or
//! turns it off). [`InstanceClient::shown`] gives where each is shown now, and
//! [`InstanceClient::position_error`] how far off the client was: for each SPRITE of an
//! entity other than its own ship, the distance from where it was shown when the SPRITE came.
//!
//! # The timeout
//!
//! The RFC measures no round trip, but a move and the SPRITE that shows it are one: the
//! client gives hopnet's [`RttEstimator`] the time from a step (or the first CONNECT) to the
//! SPRITE that shows the ship at its goal, and waits the estimator's retransmission timeout
//! ([`DEFAULT_RTO`]'s bounds, or [`InstanceClient::with_rto`]'s). Karn's rule: a step whose
//! wait saw a resync, or a CONNECT sent more than once, gives no sample, as its answer may
//! be an earlier send's. Each expiry that sends CHECK or CONNECT again doubles the timeout
//! until a sample comes (or a step sent after a resync is shown within the un-doubled
//! timeout). A timeout shorter than the path's round trip only asks early: a resync, and a
//! step that the next SPRITE may show to have been one too many, which the client then
//! steers back.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet::engine::RttEstimator;
use hopnet_formats::rtype::{Action, Frame};

use super::body;
use super::dead_reckoning::{DeadReckoning, Extrapolation, MAX_KNOWN_ENTITIES, Position};
use super::frames::{self, MAX_OUTBOX};
use super::position_error::PositionError;
use crate::one_at_a_time::{Outbox, transmit_one_at_a_time};
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
    /// Every move played; checking that the ship is where they lead, then waiting for a CHECK
    /// count that agrees with the entities known (resyncing while it does not).
    Settling,
    /// The count agreed; QUIT sent.
    Done,
    /// The instance refused (KO with this body) or removed the ship.
    Failed(String),
}

/// What the client has waiting for an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// Nothing sent yet for the current goal.
    Nothing,
    /// A step towards the goal is out.
    Move,
    /// CHECK is out; whether a SPRITE of the ship has come since.
    Resync { fresh: bool },
}

/// Counters of a client's session, for its summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// CHECK counts received from the instance.
    pub checks: u64,
    /// CHECK requests sent: for a count that differed, a step whose SPRITE did not come, or
    /// the ship's final position.
    pub resyncs: u64,
    /// Moves (and SPACEs) sent, corrections included.
    pub moves_sent: u64,
    /// Moves whose goal a SPRITE showed the ship at.
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
    /// Where the ship is predicted to be: the last SPRITE's position, plus the step in flight.
    predicted: Option<(i32, i32)>,
    /// Once every move is played: whether a SPRITE that answered a resync showed the ship
    /// where the moves lead.
    verified: bool,
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
    /// The entities as shown between SPRITEs.
    view: DeadReckoning,
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
            predicted: None,
            verified: false,
            done: 0,
            waiting: Waiting::Nothing,
            retry_at: now,
            rtt: DEFAULT_RTO.estimator(),
            sent_at: None,
            resent: false,
            outbox: Outbox::bounded(MAX_OUTBOX),
            view: DeadReckoning::new(now, Extrapolation::default()),
            stats: ClientStats::default(),
        }
    }

    /// The same client with the retransmission timeout's settings `rto` instead of
    /// [`DEFAULT_RTO`].
    pub fn with_rto(mut self, rto: RtoConfig) -> Self {
        self.rtt = rto.estimator();
        self
    }

    /// The same client showing the entities between SPRITEs as `mode` says instead of
    /// [`Extrapolation::default`]'s bound (set before the first datagram: what was shown
    /// before is forgotten).
    pub fn with_extrapolation(mut self, mode: Extrapolation) -> Self {
        self.view = DeadReckoning::new(self.view.start(), mode);
        self
    }

    /// Where each entity the client knows is shown at `now`, carried on between SPRITEs
    /// (the ship's own position is [`predicted`](Self::predicted)).
    pub fn shown(&mut self, now: Instant) -> Vec<(u32, Position)> {
        self.view.positions(now)
    }

    /// How far from the SPRITEs the other entities were shown (see the module's docs).
    pub fn position_error(&self) -> &PositionError {
        self.view.error()
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

    /// Moves played so far: SPACEs sent, and moves whose goal a SPRITE showed the ship at.
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

    /// Where the client predicts its ship to be: where a SPRITE last showed it, moved by the
    /// step in flight if there is one (RFC 4242, 2.3).
    pub fn predicted(&self) -> Option<(i32, i32)> {
        self.predicted
    }

    fn own(&self) -> Option<(i32, i32)> {
        self.entities.get(&self.player?).copied()
    }

    /// Where the ship must be now: after the current move, or after every move once all are
    /// played.
    fn goal(&self) -> Option<(i32, i32)> {
        self.target((self.done + 1).min(self.plan.len()))
    }

    fn at_goal(&self) -> bool {
        self.own().is_some() && self.own() == self.goal()
    }

    /// Where the ship stands after the first `k` moves.
    fn target(&self, k: usize) -> Option<(i32, i32)> {
        let (x, y) = self.spawn?;
        let (dx, dy) = self.walked[k];
        Some((x + dx, y + dy))
    }

    fn send(&mut self, action: Action, message: &str) {
        self.outbox
            .push(self.server, frames::to_bytes(action, message));
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

    /// Plays what the SPRITEs seen allow, as far as it goes: SPACEs are sent, moves whose
    /// goal the ship is shown at are done, and a step towards the current goal goes out if
    /// none is.
    fn advance(&mut self, now: Instant) {
        if self.spawn.is_none() {
            return;
        }
        match self.phase {
            Phase::Playing => {}
            Phase::Settling => return self.settle(now),
            _ => return,
        }
        loop {
            let Some(&action) = self.plan.get(self.done) else {
                // Every move played. A quiet wait first, so that a late copy of a move has
                // landed (and been shown) before the resync that checks the ship's position.
                self.phase = Phase::Settling;
                self.verified = false;
                self.waiting = Waiting::Nothing;
                self.retry_at = now + self.rtt.rto();
                return;
            };
            if action == Action::Space {
                self.send(Action::Space, "");
                self.stats.moves_sent += 1;
                self.done += 1;
                continue;
            }
            if self.at_goal() {
                self.answered(now);
                self.done += 1;
                self.stats.moves_confirmed += 1;
                self.waiting = Waiting::Nothing;
                continue;
            }
            if self.waiting == Waiting::Nothing {
                self.send_move(now);
            }
            return;
        }
    }

    /// Once every move is played: a resync's SPRITE at the final goal verifies it; a step
    /// that brought the ship back there starts the quiet wait again; a SPRITE elsewhere
    /// (a late move landed) undoes the verification.
    fn settle(&mut self, now: Instant) {
        let at_goal = self.at_goal();
        if !at_goal {
            self.verified = false;
            if self.waiting == Waiting::Nothing {
                self.retry_at = now + self.rtt.rto();
            }
            return;
        }
        match self.waiting {
            Waiting::Resync { fresh: true } => {
                self.verified = true;
                self.waiting = Waiting::Nothing;
            }
            Waiting::Move => {
                self.answered(now);
                self.waiting = Waiting::Nothing;
                self.retry_at = now + self.rtt.rto();
            }
            Waiting::Nothing | Waiting::Resync { fresh: false } => {}
        }
    }

    /// Sends the step that leads from where the ship was last shown towards the goal, as the
    /// RFC's client sends a move: the action, with an empty body.
    fn send_move(&mut self, now: Instant) {
        let (Some((x, y)), Some((tx, ty))) = (self.own(), self.goal()) else {
            return;
        };
        let step = if tx > x {
            Action::Right
        } else if tx < x {
            Action::Left
        } else if ty > y {
            Action::Down
        } else {
            Action::Up
        };
        let (dx, dy) = delta(step);
        self.predicted = Some((x + dx, y + dy));
        self.stats.moves_sent += 1;
        self.send(step, "");
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
        self.view.sprite(now, id, (x, y), Some(id) != self.player);
        if Some(id) == self.player {
            self.spawn.get_or_insert((x, y));
            self.predicted = Some((x, y));
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
            let player = self.player;
            self.view.retain(|id| Some(id) == player);
            self.verified = false;
            self.resync(now);
        } else if self.phase == Phase::Settling && self.verified && self.waiting == Waiting::Nothing
        {
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
                        self.predicted = Some(at);
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
                    self.view.remove(id);
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

    transmit_one_at_a_time!(outbox);

    fn poll_timeout(&self) -> Option<Instant> {
        let timed = match self.phase {
            Phase::Connecting | Phase::Playing => true,
            // Verified and nothing out: the next CHECK count decides.
            Phase::Settling => !(self.verified && self.waiting == Waiting::Nothing),
            Phase::Done | Phase::Failed(_) => false,
        };
        timed.then_some(self.retry_at)
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
                // The resync's SPRITE came: send the step towards the goal.
                Waiting::Resync { fresh: true } if !self.at_goal() => self.send_move(now),
                // The ship's position is not known yet (its SPRITE was lost), or a step's (or
                // the last resync's) SPRITE did not come in time: ask for the world.
                Waiting::Nothing | Waiting::Move | Waiting::Resync { .. } => {
                    self.rtt.back_off();
                    self.resync(now);
                }
            },
            Phase::Settling => match self.waiting {
                // The quiet wait is over: where is the ship?
                Waiting::Nothing if !self.verified => self.resync(now),
                Waiting::Nothing => {}
                // It is not where the moves lead (a late move landed): steer back.
                Waiting::Resync { fresh: true } if !self.at_goal() => self.send_move(now),
                Waiting::Resync { fresh: true } => self.settle(now),
                Waiting::Move | Waiting::Resync { fresh: false } => {
                    self.rtt.back_off();
                    self.resync(now);
                }
            },
            // Nothing more to send.
            Phase::Done | Phase::Failed(_) => {}
        }
    }
}
