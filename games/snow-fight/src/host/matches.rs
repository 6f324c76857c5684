//! Many matches on one server: one carrier's driver (one port, plain or secure, UDP and web),
//! and each match on a thread of its own (`room`). The socket's thread (the caller's, in
//! [`MatchHost::turn`]) reads the datagrams, hands each connection's events to its match,
//! sends what the matches send, and answers server queries with the process's totals.
//!
//! A connection belongs to one match, chosen on arrival by the [`Matchmaker`] (the fullest
//! match with room). A match plays its rounds ([`MatchesConfig::rounds`]) and ends; its slot
//! takes a new match at once, and its players are placed again as newcomers are, keeping
//! their player ids (unique in the process) without a second `Init`.
//!
//! Matches share nothing but the socket:
//! - a match that panics unwinds its own thread; the host sees its channel close without its
//!   end, closes its connections (their clients may connect again) and starts a new match in
//!   its slot;
//! - a slow match delays only its own ticks: the host never waits for a match. It queues a
//!   match's events in a bounded channel (1,024 messages) and, behind that, keeps only what
//!   must arrive (arrivals and departures); the messages and acknowledgements of a match that
//!   far behind are dropped and counted ([`MatchesStats::dropped`]).

mod room;

use std::collections::{HashMap, VecDeque};
use std::net::{SocketAddr, UdpSocket};
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, Event, MessageId, ServerDriver, ServerEvent};
use tracing::{info, warn};

use super::matchmaker::Matchmaker;
use super::queries::{self, Listing, Queries};
use crate::session::{RosterEntry, Seat, ServerConfig};
use crate::world::PlayerId;
use room::{FromMatch, Plan, Room, ToMatch};

pub use room::{MatchInfo, TickHook};

/// The longest the socket's thread sleeps in the driver: what the matches send waits at
/// most this long to leave, as a match cannot wake the driver.
const POLL: Duration = Duration::from_millis(1);
/// Messages taken from one match per turn at most, so that a match sending without end
/// cannot keep the socket's thread from the others.
const MESSAGES_PER_TURN: usize = 8192;

/// How a [`MatchHost`] runs its matches.
///
/// ```
/// use std::sync::Arc;
/// use snow_fight::host::{MatchInfo, MatchesConfig};
/// use snow_fight::session::ServerConfig;
///
/// let mut config = MatchesConfig::new(4, ServerConfig { max_players: 2, ..ServerConfig::default() });
/// // Logs the round's tick of every match, before each of its ticks.
/// config.hook = Some(Arc::new(|info: MatchInfo, game| {
///     tracing::trace!(slot = info.slot, tick = game.world().tick());
/// }));
/// assert_eq!(config.rounds, 1);
/// ```
#[derive(Clone)]
pub struct MatchesConfig {
    /// Matches at once.
    pub matches: usize,
    /// Each match's settings: its most players, its game; match `n` plays from seed
    /// `seed + n * 1000`.
    pub game: ServerConfig,
    /// Rounds a match plays before it ends and its players are placed again.
    pub rounds: u32,
    /// Called by every match before each of its ticks (see [`TickHook`]).
    pub hook: Option<TickHook>,
}

impl MatchesConfig {
    /// `matches` matches of `game`, of one round each.
    pub fn new(matches: usize, game: ServerConfig) -> MatchesConfig {
        MatchesConfig {
            matches,
            game,
            rounds: 1,
            hook: None,
        }
    }
}

/// Counters of a [`MatchHost`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchesStats {
    /// Matches started.
    pub started: u64,
    /// Matches that played their rounds, or were drained.
    pub ended: u64,
    /// Matches that failed (panicked).
    pub failed: u64,
    /// Connections closed because no match had room, the process drained, or their match
    /// failed.
    pub turned_away: u64,
    /// Events not handed to a match that was too far behind.
    pub dropped: u64,
}

/// A running match as the host keeps it.
struct Slot {
    room: Room,
    /// Connections placed in it (joined or not).
    connections: usize,
    /// What it last said of itself.
    roster: Vec<RosterEntry>,
    rounds: u32,
    /// What did not fit its queue yet.
    backlog: VecDeque<ToMatch>,
}

/// A game server hosting many matches on a carrier's driver `D`.
///
/// ```no_run
/// use snow_fight::host::{MatchHost, MatchesConfig};
/// use snow_fight::session::ServerConfig;
///
/// let driver = hopnet::Server::bind("127.0.0.1:7000", hopnet::Config::default())?;
/// let config = MatchesConfig::new(4, ServerConfig { max_players: 2, ..ServerConfig::default() });
/// let mut host = MatchHost::new(driver, config)?;
/// host.run(|host| host.drained())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MatchHost<D> {
    /// The transport: the carrier's I/O and a [`hopnet::proto::Server`].
    pub server: D,
    config: MatchesConfig,
    matchmaker: Matchmaker,
    slots: Vec<Option<Slot>>,
    /// Each connection's slot.
    placed: HashMap<ConnectionId, usize>,
    /// The transport's tracked ids, to the ids their match knows them by.
    tracked: HashMap<(ConnectionId, u64), u64>,
    next_player: PlayerId,
    next_match: u64,
    /// Rounds ended in the matches that are over.
    rounds_before: u64,
    epoch: Instant,
    tick: Duration,
    draining: bool,
    stats: MatchesStats,
    queries: Option<Queries>,
}

impl<D: ServerDriver> MatchHost<D> {
    /// Starts `config.matches` matches on `server`. Fails only when a thread cannot be started.
    pub fn new(server: D, config: MatchesConfig) -> std::io::Result<MatchHost<D>> {
        let tick = Duration::from_secs(1) / config.game.game.tick_rate.max(1);
        let mut host = MatchHost {
            server,
            matchmaker: Matchmaker::new(config.game.max_players),
            slots: (0..config.matches).map(|_| None).collect(),
            config,
            placed: HashMap::new(),
            tracked: HashMap::new(),
            next_player: 1,
            next_match: 0,
            rounds_before: 0,
            epoch: Instant::now(),
            tick,
            draining: false,
            stats: MatchesStats::default(),
            queries: None,
        };
        for slot in 0..host.slots.len() {
            host.start(slot)?;
        }
        Ok(host)
    }

    /// The address UDP clients connect to.
    pub fn local_addr(&self) -> Result<SocketAddr, D::Error> {
        self.server.local_addr()
    }

    /// Counters.
    pub fn stats(&self) -> &MatchesStats {
        &self.stats
    }

    /// Players (joined) in each slot's match, as it last said; `None` for a slot without one
    /// (drained).
    pub fn players(&self) -> Vec<Option<usize>> {
        self.slots
            .iter()
            .map(|s| s.as_ref().map(|s| s.roster.len()))
            .collect()
    }

    /// Players in all matches.
    pub fn total_players(&self) -> usize {
        self.players().into_iter().flatten().sum()
    }

    /// Rounds ended in the matches running now, and in those before them.
    pub fn rounds(&self) -> u64 {
        self.rounds_before
            + self
                .slots
                .iter()
                .flatten()
                .map(|s| u64::from(s.rounds))
                .sum::<u64>()
    }

    /// Stops placing players: new connections are closed, a match ends when its round does
    /// (or now, if its round has not started) and no new one takes its slot, and its players'
    /// connections are closed. [`drained`](Self::drained) says when all are over.
    pub fn drain(&mut self) {
        if self.draining {
            return;
        }
        info!("draining: no new players, no new matches");
        self.draining = true;
        for slot in self.slots.iter_mut().flatten() {
            slot.backlog.push_back(ToMatch::Drain);
        }
    }

    /// Whether it drains and every match is over.
    pub fn drained(&self) -> bool {
        self.draining && self.slots.iter().all(Option::is_none)
    }

    /// One turn: the driver's I/O (at most a millisecond), its events to their matches, the
    /// matches' messages out, the queries answered, ended matches replaced.
    pub fn turn(&mut self) -> Result<(), D::Error> {
        self.server.poll(POLL)?;
        while let Some(event) = self.server.poll_event() {
            self.route(event)?;
        }
        self.answer_pending_queries()?;
        for slot in 0..self.slots.len() {
            self.serve(slot)?;
        }
        self.server.flush()
    }

    /// Runs until `stop` returns true; it is asked after every turn.
    pub fn run(&mut self, mut stop: impl FnMut(&mut MatchHost<D>) -> bool) -> Result<(), D::Error> {
        loop {
            self.turn()?;
            if stop(self) {
                return Ok(());
            }
        }
    }

    fn start(&mut self, slot: usize) -> std::io::Result<()> {
        let number = self.next_match;
        self.next_match += 1;
        let mut game = self.config.game.clone();
        game.seed = game.seed.wrapping_add(number.wrapping_mul(1000));
        let room = Room::start(Plan {
            game,
            info: MatchInfo { slot, number },
            rounds: self.config.rounds.max(1),
            epoch: self.epoch,
            tick: self.tick,
            hook: self.config.hook.clone(),
        })?;
        self.stats.started += 1;
        self.slots[slot] = Some(Slot {
            room,
            connections: 0,
            roster: Vec::new(),
            rounds: 0,
            backlog: VecDeque::new(),
        });
        Ok(())
    }

    /// Hands a transport event to its connection's match.
    fn route(&mut self, event: ServerEvent) -> Result<(), D::Error> {
        let connection = event.connection;
        match event.event {
            Event::Connected => {
                let player = self.next_player;
                self.next_player = self.next_player.wrapping_add(1).max(1);
                return self.place(Seat::arriving(connection, player));
            }
            Event::Disconnected { .. } => {
                self.tracked.retain(|(c, _), _| *c != connection);
                let Some(slot) = self.placed.remove(&connection) else {
                    return Ok(());
                };
                if let Some(s) = &mut self.slots[slot] {
                    s.connections = s.connections.saturating_sub(1);
                    s.backlog.push_back(ToMatch::Event(event));
                }
                return Ok(());
            }
            Event::Acknowledged { id } | Event::Lost { id } => {
                let Some(local) = self.tracked.remove(&(connection, id.0)) else {
                    return Ok(());
                };
                let event = ServerEvent {
                    event: match event.event {
                        Event::Acknowledged { .. } => Event::Acknowledged {
                            id: MessageId(local),
                        },
                        _ => Event::Lost {
                            id: MessageId(local),
                        },
                    },
                    ..event
                };
                self.hand(connection, event);
            }
            Event::Message { .. } => self.hand(connection, event),
        }
        Ok(())
    }

    /// Hands a message or an acknowledgement to the connection's match, unless the match is
    /// far behind.
    fn hand(&mut self, connection: ConnectionId, event: ServerEvent) {
        let Some(slot) = self.placed.get(&connection) else {
            return;
        };
        let Some(s) = &mut self.slots[*slot] else {
            return;
        };
        if s.backlog.is_empty() {
            if let Err(event) = s.room.offer(ToMatch::Event(event)) {
                s.backlog.push_back(event);
            }
        } else if s.backlog.len() < room::INBOX {
            s.backlog.push_back(ToMatch::Event(event));
        } else {
            self.stats.dropped += 1;
        }
    }

    /// Seats a connection in the fullest match with room, or closes it when there is none.
    fn place(&mut self, seat: Seat) -> Result<(), D::Error> {
        let occupancy: Vec<Option<usize>> = self
            .slots
            .iter()
            .map(|s| s.as_ref().filter(|_| !self.draining).map(|s| s.connections))
            .collect();
        let Some(slot) = self.matchmaker.place(&occupancy) else {
            self.stats.turned_away += 1;
            warn!(connection = ?seat.connection, draining = self.draining, "no match has room: connection closed");
            return self.server.close(seat.connection);
        };
        let Some(s) = &mut self.slots[slot] else {
            return Ok(());
        };
        s.connections += 1;
        self.placed.insert(seat.connection, slot);
        s.backlog.push_back(ToMatch::Admit(seat));
        Ok(())
    }

    /// A match's turn: its backlog in, its messages out, and its end.
    fn serve(&mut self, slot: usize) -> Result<(), D::Error> {
        let Some(s) = &mut self.slots[slot] else {
            return Ok(());
        };
        while let Some(message) = s.backlog.pop_front() {
            if let Err(message) = s.room.offer(message) {
                s.backlog.push_front(message);
                break;
            }
        }
        let mut ended = None;
        for _ in 0..MESSAGES_PER_TURN {
            let message = match s.room.outbox.try_recv() {
                Ok(message) => message,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    ended = Some(None);
                    break;
                }
            };
            match message {
                FromMatch::Send {
                    connection,
                    payload,
                    delivery,
                } => {
                    // A match speaks to its own connections only.
                    if self.placed.get(&connection) == Some(&slot) {
                        let _ = self
                            .server
                            .machine()
                            .send_payload(connection, &payload, delivery);
                    }
                }
                FromMatch::SendTracked {
                    connection,
                    payload,
                    local,
                } => {
                    if self.placed.get(&connection) == Some(&slot)
                        && let Ok(id) = self
                            .server
                            .machine()
                            .send_payload_tracked(connection, &payload)
                    {
                        self.tracked.insert((connection, id.0), local);
                    }
                }
                FromMatch::Standing { roster, rounds } => {
                    s.roster = roster;
                    s.rounds = rounds;
                }
                FromMatch::Ended(seats) => {
                    ended = Some(Some(seats));
                    break;
                }
            }
        }
        match ended {
            None => Ok(()),
            Some(seats) => self.end(slot, seats),
        }
    }

    /// A match is over: played (`seats` are its connections) or failed (`None`).
    fn end(&mut self, slot: usize, seats: Option<Vec<Seat>>) -> Result<(), D::Error> {
        let Some(mut s) = self.slots[slot].take() else {
            return Ok(());
        };
        room::finish(&mut s.room);
        self.rounds_before += u64::from(s.rounds);
        let seats = match seats {
            Some(seats) => {
                self.stats.ended += 1;
                seats
            }
            None => {
                self.stats.failed += 1;
                Vec::new()
            }
        };
        // Connections still placed here and not in `seats` (all of them, when it failed):
        // their state went with the match.
        let lost: Vec<ConnectionId> = self
            .placed
            .iter()
            .filter(|&(c, &at)| at == slot && !seats.iter().any(|seat| seat.connection == *c))
            .map(|(c, _)| *c)
            .collect();
        for connection in lost {
            self.placed.remove(&connection);
            self.stats.turned_away += 1;
            self.server.close(connection)?;
        }
        if !self.draining
            && let Err(error) = self.start(slot)
        {
            warn!(slot, %error, "cannot start a match: the slot stays empty");
        }
        for seat in seats {
            // A connection that left after the match's end is no longer placed.
            if self.placed.remove(&seat.connection).is_some() {
                self.tracked.retain(|(c, _), _| *c != seat.connection);
                self.place(seat)?;
            }
        }
        Ok(())
    }

    /// Answers server queries on the game's own port from now on, with the process's
    /// totals; fails on a carrier without a side channel (then
    /// [`answer_queries_on`](Self::answer_queries_on) a port of their own).
    pub fn answer_queries(&mut self, listing: Listing) -> Result<(), D::Error> {
        self.queries = Some(Queries::on_game_port(&mut self.server, listing)?);
        Ok(())
    }

    /// Answers server queries on `socket` (bound by the caller) from now on, not on the game's
    /// port.
    pub fn answer_queries_on(
        &mut self,
        socket: UdpSocket,
        listing: Listing,
    ) -> Result<(), D::Error> {
        self.queries = Some(Queries::on_socket(&mut self.server, socket, listing)?);
        Ok(())
    }

    /// Where queries are answered, if they are.
    pub fn query_addr(&self) -> Option<SocketAddr> {
        self.queries.as_ref()?.addr(&self.server)
    }

    /// Answers the queries that came in since the last turn, with the process's totals.
    fn answer_pending_queries(&mut self) -> Result<(), D::Error> {
        let Some(q) = &mut self.queries else {
            return Ok(());
        };
        let game = &self.config.game;
        let max = game.max_players.saturating_mul(self.config.matches);
        let rounds = self.rounds_before
            + self
                .slots
                .iter()
                .flatten()
                .map(|s| u64::from(s.rounds))
                .sum::<u64>();
        let roster: Vec<RosterEntry> = self
            .slots
            .iter()
            .flatten()
            .flat_map(|s| s.roster.iter().copied())
            .collect();
        let secure = self.server.is_secure();
        let matches = self.config.matches;
        q.answer_pending(
            &mut self.server,
            max,
            || queries::players(&roster, game),
            || {
                let mut rules = queries::rules(game, rounds, secure);
                rules.push(("matches".into(), matches.to_string()));
                rules
            },
        )
    }
}
