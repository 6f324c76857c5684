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

mod placing;
mod room;
mod routing;
mod totals;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, ServerDriver};
use tracing::info;

use super::matchmaker::Matchmaker;
use super::queries::Queries;
use crate::session::{RosterEntry, ServerConfig};
use crate::world::PlayerId;
use room::{Plan, Room, ToMatch};

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

    /// Every player of every match, as each match last said (on a change of its players, and
    /// every second): ids unique in the process, so that a fleet's player tracking can tell
    /// arrivals and departures from one call to the next.
    pub fn roster(&self) -> Vec<RosterEntry> {
        roster_of(&self.slots)
    }

    /// Rounds ended in the matches running now, and in those before them.
    pub fn rounds(&self) -> u64 {
        rounds_of(self.rounds_before, &self.slots)
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
            self.route(event);
        }
        self.answer_pending_queries()?;
        for slot in 0..self.slots.len() {
            self.serve(slot);
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
}

/// The players of the matches in `slots`, by id.
fn roster_of(slots: &[Option<Slot>]) -> Vec<RosterEntry> {
    let mut roster: Vec<RosterEntry> = slots
        .iter()
        .flatten()
        .flat_map(|s| s.roster.iter().copied())
        .collect();
    roster.sort_by_key(|e| e.player);
    roster
}

/// Rounds ended: `before` in the matches that are over, and those of the matches in `slots`.
fn rounds_of(before: u64, slots: &[Option<Slot>]) -> u64 {
    before
        + slots
            .iter()
            .flatten()
            .map(|s| u64::from(s.rounds))
            .sum::<u64>()
}
