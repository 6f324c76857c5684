//! The game's side of the fleet: after every tick, [`Fleet::watch`] compares who is placed
//! with what the SDK was told, tells it the difference, and runs the drain: on the drain
//! request it stops placing, and once no match is in play (and the last `GameOver`s had time
//! to arrive) it sends `AllMatchesOver` and asks the loop to stop.

use std::collections::BTreeSet;
use std::time::Instant;

use tracing::info;

use super::drain::DrainSignal;
use super::events::{FleetConfig, FleetEvent};
use super::sdk_link::{FleetError, SdkLink};

/// What the fleet needs of a game server, however many matches it runs.
///
/// ```
/// use snow_fight::fleet::Matches;
///
/// /// A server of rooms, each a list of players' ids and whether it plays.
/// struct Rooms {
///     rooms: Vec<(Vec<String>, bool)>,
///     placing: bool,
/// }
///
/// impl Matches for Rooms {
///     fn placed(&self) -> Vec<String> {
///         self.rooms.iter().flat_map(|(ids, _)| ids.clone()).collect()
///     }
///     fn stop_placing(&mut self) {
///         self.placing = false;
///     }
///     fn in_play(&self) -> bool {
///         self.rooms.iter().any(|(_, playing)| *playing)
///     }
/// }
/// ```
pub trait Matches {
    /// The ids of the players placed in its matches now, unique across the server.
    fn placed(&self) -> Vec<String>;
    /// Takes no new players from now on; the placed ones play on.
    fn stop_placing(&mut self);
    /// Whether a match is being played: a drained server stops once none is.
    fn in_play(&self) -> bool;
}

/// A game server's membership of an Agones fleet: the SDK thread, the drain request, and what
/// the SDK was told.
pub struct Fleet {
    link: SdkLink,
    drain: DrainSignal,
    config: FleetConfig,
    told: BTreeSet<String>,
    draining: bool,
    /// When the last match was seen over, after the drain request.
    over_since: Option<Instant>,
    done: bool,
    /// When [`watch`](Fleet::watch) last looked at the game.
    watched_at: Option<Instant>,
}

impl Fleet {
    /// Starts the SDK thread and takes SIGTERM as the drain request.
    pub fn start(config: FleetConfig) -> Result<Fleet, FleetError> {
        let drain = DrainSignal::on_sigterm().map_err(FleetError::Start)?;
        Fleet::with_drain(config, drain)
    }

    /// [`Fleet::start`] with a drain request of the caller's.
    pub fn with_drain(config: FleetConfig, drain: DrainSignal) -> Result<Fleet, FleetError> {
        Ok(Fleet {
            link: SdkLink::start(config.clone())?,
            drain,
            config,
            told: BTreeSet::new(),
            draining: false,
            over_since: None,
            watched_at: None,
            done: false,
        })
    }

    /// The server listens: `Ready`.
    pub fn listening(&mut self) {
        self.link.send(FleetEvent::Listening);
    }

    /// After a tick: reports who came and went, and drains when asked (at most once every
    /// [`FleetConfig::watch_every`]; a call sooner only says not drained yet). Returns `true` once the
    /// server is drained (`AllMatchesOver` sent): the loop should stop, then call
    /// [`Fleet::finish`].
    pub fn watch(&mut self, game: &mut impl Matches) -> bool {
        if self.done {
            return true;
        }
        let now = Instant::now();
        if self
            .watched_at
            .is_some_and(|at| now.duration_since(at) < self.config.watch_every)
        {
            return false;
        }
        self.watched_at = Some(now);
        let placed: BTreeSet<String> = game.placed().into_iter().collect();
        for gone in self.told.difference(&placed) {
            self.link.send(FleetEvent::PlayerDisconnected(gone.clone()));
        }
        for new in placed.difference(&self.told) {
            self.link.send(FleetEvent::PlayerConnected(new.clone()));
        }
        self.told = placed;
        if !self.draining && self.drain.requested() {
            self.draining = true;
            game.stop_placing();
            info!(
                in_play = game.in_play(),
                "asked to drain: no new players; stopping after the match in play"
            );
        }
        if !self.draining {
            return false;
        }
        if game.in_play() {
            self.over_since = None;
            return false;
        }
        let since = *self.over_since.get_or_insert_with(Instant::now);
        if since.elapsed() < self.config.linger {
            return false;
        }
        info!("drained: the last match is over");
        self.link.send(FleetEvent::AllMatchesOver);
        self.done = true;
        true
    }

    /// Whether a drain was asked for.
    pub fn draining(&self) -> bool {
        self.draining
    }

    /// Waits for the SDK thread to make its last calls (`Shutdown`, after a drain).
    pub fn finish(self) -> Result<(), FleetError> {
        self.link.finish()
    }
}
