//! One match on a thread of its own: its [`GameServer`], fed the events of its connections by
//! the socket's thread through a bounded channel, ticking on its own clock, and handing what
//! it sends back through another bounded channel. Nothing else is shared: a match that panics
//! unwinds its own thread only (its state is dropped with it), and one that is slow delays only
//! its own ticks, as the socket's thread never waits for it.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, Delivery, Payload, ServerEvent};
use tracing::{info, warn};

use crate::session::{GameServer, Outgoing, RosterEntry, Seat, ServerConfig};
use crate::world::Phase;

/// Messages a match takes from the socket's thread at most, queued: beyond it, the match is
/// behind and the socket's thread keeps what must arrive (see [`super::MatchHost`]).
pub(super) const INBOX: usize = 1024;
/// Messages a match queues to the socket's thread at most; a match that fills it waits.
const OUTBOX: usize = 4096;

/// Which match a hook is called for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchInfo {
    /// Its slot, `0..matches`: the slot of a match that ended takes the next one.
    pub slot: usize,
    /// Its number in the process, from 0: unique, the order they started in.
    pub number: u64,
}

/// A function every match calls before each of its ticks, on its own thread: instrumentation,
/// and the tests' way to make one match panic or run slow (it may do either).
pub type TickHook = Arc<dyn Fn(MatchInfo, &GameServer) + Send + Sync>;

/// From the socket's thread to a match.
pub(super) enum ToMatch {
    /// A seat: a connection that arrived, or a player of a match that ended.
    Admit(Seat),
    /// An event of one of its connections (tracked ids already the match's own).
    Event(ServerEvent),
    /// The process drains: a match whose round has not started ends now.
    Drain,
}

/// From a match to the socket's thread.
pub(super) enum FromMatch {
    Send {
        connection: ConnectionId,
        payload: Payload,
        delivery: Delivery,
    },
    /// A tracked send; `local` is the id the match will know its acknowledgement by.
    SendTracked {
        connection: ConnectionId,
        payload: Payload,
        local: u64,
    },
    /// Who plays, and the rounds ended: when it changes, and every second.
    Standing {
        roster: Vec<RosterEntry>,
        rounds: u32,
    },
    /// The match is over: its connections' seats, to be placed again.
    Ended(Vec<Seat>),
}

/// How a match runs.
#[derive(Clone)]
pub(super) struct Plan {
    pub game: ServerConfig,
    pub info: MatchInfo,
    /// Rounds a match plays before it ends.
    pub rounds: u32,
    /// The process's tick 0: every match ticks on the same grid and counts the same ticks.
    pub epoch: Instant,
    pub tick: Duration,
    pub hook: Option<TickHook>,
}

/// The socket thread's end of a running match.
pub(super) struct Room {
    pub info: MatchInfo,
    pub inbox: SyncSender<ToMatch>,
    pub outbox: Receiver<FromMatch>,
    pub thread: Option<JoinHandle<()>>,
}

impl Room {
    /// Starts a match on a thread of its own.
    pub fn start(plan: Plan) -> std::io::Result<Room> {
        let (inbox, from_host) = mpsc::sync_channel(INBOX);
        let (to_host, outbox) = mpsc::sync_channel(OUTBOX);
        let info = plan.info;
        let thread = thread::Builder::new()
            .name(format!("match {}", info.number))
            .spawn(move || run(plan, &from_host, to_host))?;
        Ok(Room {
            info,
            inbox,
            outbox,
            thread: Some(thread),
        })
    }

    /// Hands the match a message if its queue has room; gives it back if not.
    pub fn offer(&self, message: ToMatch) -> Result<(), ToMatch> {
        match self.inbox.try_send(message) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(m) | TrySendError::Disconnected(m)) => Err(m),
        }
    }
}

/// What a match sends, on its way to the socket's thread.
struct Outbox {
    to_host: SyncSender<FromMatch>,
    next_tracked: u64,
}

impl Outbox {
    fn push(&mut self, message: FromMatch) -> bool {
        // Fails only when the host is gone: then nothing is sent anyway.
        self.to_host.send(message).is_ok()
    }
}

impl Outgoing for Outbox {
    fn send_message(&mut self, connection: ConnectionId, bytes: &[u8], delivery: Delivery) -> bool {
        self.push(FromMatch::Send {
            connection,
            payload: Payload::from(bytes),
            delivery,
        })
    }

    fn send(&mut self, connection: ConnectionId, payload: &Payload) -> bool {
        self.push(FromMatch::Send {
            connection,
            payload: payload.clone(),
            delivery: Delivery::Unreliable,
        })
    }

    fn send_tracked(&mut self, connection: ConnectionId, payload: &Payload) -> Option<u64> {
        let local = self.next_tracked;
        self.next_tracked += 1;
        self.push(FromMatch::SendTracked {
            connection,
            payload: payload.clone(),
            local,
        })
        .then_some(local)
    }
}

/// The process's tick at `now`.
pub(super) fn process_tick(epoch: Instant, tick: Duration, now: Instant) -> u32 {
    let ticks = now.saturating_duration_since(epoch).as_nanos() / tick.as_nanos().max(1);
    // The game's clock wraps, as the server's time does.
    ticks as u32
}

/// The match's thread: events until the next tick is due, then the tick; until its rounds are
/// played, it is drained before its round starts, or the host is gone.
fn run(plan: Plan, from_host: &Receiver<ToMatch>, to_host: SyncSender<FromMatch>) {
    let Plan {
        game,
        info,
        rounds,
        epoch,
        tick,
        hook,
    } = plan;
    let mut server = GameServer::new(game);
    let mut out = Outbox {
        to_host,
        next_tracked: 0,
    };
    let start = process_tick(epoch, tick, Instant::now());
    server.start_at(start);
    let mut next_tick = epoch + tick * start.wrapping_add(1);
    let mut draining = false;
    let mut last_players = usize::MAX;
    info!(slot = info.slot, number = info.number, "match started");
    loop {
        let wait = next_tick.saturating_duration_since(Instant::now());
        let first = match from_host.recv_timeout(wait) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        for message in first.into_iter().chain(from_host.try_iter()) {
            match message {
                ToMatch::Admit(seat) => server.admit(seat),
                ToMatch::Event(event) => server.handle(&mut out, event),
                ToMatch::Drain => draining = true,
            }
        }
        let now = Instant::now();
        if now < next_tick {
            continue;
        }
        if let Some(hook) = &hook {
            hook(info, &server);
        }
        let due = process_tick(epoch, tick, now);
        server.catch_up(due.wrapping_sub(1));
        server.tick(&mut out);
        next_tick += tick;
        // Far behind (a slow tick): skip to the grid rather than burst.
        if now > next_tick + tick * 10 {
            next_tick = epoch + tick * due.wrapping_add(1);
        }
        let players = server.players();
        let roster_due = server
            .time()
            .is_multiple_of(server.config().game.tick_rate.max(1));
        if players != last_players || roster_due {
            last_players = players;
            let rounds = server.stats().rounds;
            out.push(FromMatch::Standing {
                roster: server.roster(),
                rounds,
            });
        }
        let unstarted = server.world().phase() == Phase::Waiting;
        if server.played(rounds) || (draining && unstarted) {
            info!(
                slot = info.slot,
                number = info.number,
                rounds = server.stats().rounds,
                "match over"
            );
            out.push(FromMatch::Ended(server.take_seats()));
            return;
        }
    }
}

/// Waits for a match's thread that is done, and says how it ended.
pub(super) fn finish(room: &mut Room) {
    let Some(thread) = room.thread.take() else {
        return;
    };
    if let Err(panic) = thread.join() {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        warn!(slot = room.info.slot, number = room.info.number, %what, "match failed");
    }
}
