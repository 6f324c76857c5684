//! The game server: it accepts connections, runs the rules every tick, and tells every player
//! what happened. What it answers to requests, how it sends snapshots and how a round ends and
//! the next begins live in files of their own (`requests`, `snapshots`, `rounds`); who plays, as a
//! listing shows them, in `roster`.

mod baselines;
#[cfg(test)]
mod delta_link;
mod outgoing;
mod requests;
mod roster;
mod rounds;
mod scoped;
mod seats;
mod snapshots;

pub use outgoing::Outgoing;
pub use roster::RosterEntry;
pub use scoped::ScopeConfig;
pub(crate) use seats::Seat;

use std::collections::BTreeMap;
use std::sync::Arc;

use hopnet::{ConnectionId, Delivery, Event, ServerEvent, proto::Server};
use hopnet_snow_fight as wire;
use hopnet_snow_fight::Dialect;
use tracing::{debug, info, warn};

use crate::rules::GameEvent;
use crate::session::tick_newer;
use crate::snapshot::from_action;
use crate::world::{Config, Outcome, PlayerId, World};

/// How a server runs its rounds.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Seed of the first round's world; round `n` uses `seed + n`.
    pub seed: u64,
    /// Most players in the game at once; more get an `Error`.
    pub max_players: usize,
    /// The game's rules and numbers.
    pub game: Config,
    /// Keep every this many snapshots as a sample for size statistics (0: none).
    pub sample_every: u32,
    /// Snapshots a second; `None`, or as many as the game's tick rate or more: every tick.
    /// Fewer save bandwidth, and a client that interpolates still moves smoothly.
    pub snapshot_rate: Option<u32>,
    /// How many ticks back a delta's baseline may be: the server keeps the snapshots of that
    /// many ticks, and a client whose newest acknowledged one is older gets a full snapshot.
    /// [`GameClient`](crate::session::GameClient) keeps the last
    /// [`GameClient::BASELINES`](crate::session::GameClient::BASELINES) snapshots it received,
    /// which covers a window of up to that many ticks.
    pub delta_window: u32,
    /// Seconds between a round's `GameOver` and the next round: the players who leave after a
    /// round are gone before the next one starts, so that it neither starts with them nor
    /// ends (last player standing) because they left.
    pub intermission_secs: u32,
    /// How the clients that ask for scoped updates are scoped (the others get the whole
    /// world, as the spec says).
    pub scope: ScopeConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            seed: 1,
            max_players: 8,
            game: Config::default(),
            sample_every: 60,
            snapshot_rate: None,
            delta_window: 64,
            intermission_secs: 3,
            scope: ScopeConfig::default(),
        }
    }
}

/// Counters of a server, for logs and the demo's report.
#[derive(Clone, Debug, Default)]
pub struct ServerStats {
    /// Server ticks run.
    pub ticks: u32,
    /// Snapshot events sent (one per player per tick).
    pub snapshots_sent: u64,
    /// Total encoded size of the snapshot events, in bytes (each counted once per tick).
    pub snapshot_bytes: u64,
    /// Snapshot events encoded (once per tick while anyone plays).
    pub snapshots_encoded: u64,
    /// Total entities in the encoded snapshots.
    pub snapshot_entities: u64,
    /// Messages received from clients.
    pub messages_in: u64,
    /// Messages sent to clients.
    pub messages_out: u64,
    /// Requests or actions refused or dropped.
    pub refused: u64,
    /// Rounds that ended.
    pub rounds: u32,
    /// Snapshot events sent to clients that asked for deltas: deltas and full snapshots.
    pub delta_client_events: u64,
    /// Their bytes.
    pub delta_client_bytes: u64,
    /// Of those events, the deltas (the others were full snapshots: no baseline yet, or one
    /// out of the window).
    pub deltas_sent: u64,
    /// Requests for deltas, the first of each client's and the restarts after it.
    pub delta_requests: u64,
    /// Scoped updates sent to the clients that asked for them.
    pub scoped_updates: u64,
    /// Their bytes.
    pub scoped_bytes: u64,
    /// Requests for scoped updates, the first of each client's and the restarts after it.
    pub scoped_requests: u64,
}

/// A client connection as the server sees it.
#[derive(Debug, Default)]
struct Client {
    /// Set once it sent `Init`.
    player: Option<PlayerId>,
    /// The id it gets on `Init`, when the host chose it ([`GameServer::admit`]).
    reserved: Option<PlayerId>,
    /// Set by its first message that decodes, in either dialect; fixed from then on.
    dialect: Option<Dialect>,
    /// Set once it asked for deltas.
    deltas: Option<DeltaClient>,
    /// The server's tick when it sent `Init` (0 before).
    joined_at: u32,
    /// Rounds it won.
    wins: u32,
}

/// A client that asked for deltas: the channel they answer on, and what it holds.
#[derive(Debug, Default)]
struct DeltaClient {
    channel: wire::ChannelId,
    baselines: baselines::Baselines,
}

/// A game server's state: the round's world and who plays in it.
pub struct GameServer {
    config: ServerConfig,
    round: u32,
    world: World,
    clients: BTreeMap<ConnectionId, Client>,
    next_player: PlayerId,
    time: u32,
    buf: Vec<u8>,
    stats: ServerStats,
    outcomes: Vec<Outcome>,
    /// The `time` of each round's `GameOver`, in the order of `outcomes`.
    ended_at: Vec<u32>,
    /// When the next round starts, during an intermission.
    next_round_at: Option<u32>,
    samples: Vec<wire::ServerMessage>,
    /// The snapshots delta clients may hold, for their deltas' baselines.
    history: baselines::History,
    /// The last snapshot sent, and its tick.
    last_snapshot: Option<(u32, Arc<wire::Snapshot>)>,
    /// Cleared by [`GameServer::stop_placing`]: a draining server takes no new players.
    placing: bool,
    /// The clients that asked for scoped updates.
    scoped: scoped::Scoped,
}

impl GameServer {
    /// A server about to start its first round.
    pub fn new(config: ServerConfig) -> GameServer {
        let world = World::new(config.seed, config.game.clone());
        GameServer {
            scoped: scoped::Scoped::new(&config),
            history: baselines::History::new(config.delta_window),
            last_snapshot: None,
            config,
            round: 0,
            world,
            clients: BTreeMap::new(),
            next_player: 1,
            time: 0,
            buf: Vec::with_capacity(2048),
            stats: ServerStats::default(),
            outcomes: Vec::new(),
            ended_at: Vec::new(),
            next_round_at: None,
            samples: Vec::new(),
            placing: true,
        }
    }

    /// Takes no new players from now on: their `Init` is answered with an `Error`, while the
    /// players already in go on playing. A server asked to drain (a fleet scaling down) stops
    /// placing, lets the round in play end, then exits.
    ///
    /// ```
    /// use snow_fight::session::{GameServer, ServerConfig};
    ///
    /// let mut game = GameServer::new(ServerConfig::default());
    /// assert!(game.placing());
    /// game.stop_placing();
    /// assert!(!game.placing());
    /// ```
    pub fn stop_placing(&mut self) {
        self.placing = false;
    }

    /// Whether it takes new players (until [`GameServer::stop_placing`]).
    pub fn placing(&self) -> bool {
        self.placing
    }

    /// The current round's world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The server's tick count (the `time` of its events), across rounds.
    pub fn time(&self) -> u32 {
        self.time
    }

    /// Counters.
    pub fn stats(&self) -> &ServerStats {
        &self.stats
    }

    /// How every finished round ended, oldest first.
    pub fn outcomes(&self) -> &[Outcome] {
        &self.outcomes
    }

    /// Every round that ended, with the `time` of its `GameOver` events: what a client that
    /// keeps its results by time ([`RoundResult`](crate::session::RoundResult)) matches.
    pub fn round_ends(&self) -> impl Iterator<Item = (u32, Outcome)> + '_ {
        self.ended_at
            .iter()
            .copied()
            .zip(self.outcomes.iter().copied())
    }

    /// Every `sample_every`-th snapshot event sent, for size statistics.
    pub fn samples(&self) -> &[wire::ServerMessage] {
        &self.samples
    }

    /// The last snapshot sent to the players, and its tick: what a client that applied the
    /// snapshot of that tick must hold.
    pub fn last_snapshot(&self) -> Option<(u32, &wire::Snapshot)> {
        self.last_snapshot.as_ref().map(|(t, s)| (*t, &**s))
    }

    /// Whether a connection asked for deltas.
    pub fn wants_deltas(&self, connection: ConnectionId) -> bool {
        self.clients
            .get(&connection)
            .is_some_and(|c| c.deltas.is_some())
    }

    /// Whether a connection asked for scoped updates.
    pub fn wants_scoped(&self, connection: ConnectionId) -> bool {
        self.scoped.has(connection)
    }

    /// What the scoped updates sent a connection came to, if it asked for them.
    pub fn scoped_stats(
        &self,
        connection: ConnectionId,
    ) -> Option<&hopnet_sync::replicate::PeerStats> {
        self.scoped.stats(connection)
    }

    /// Every connection with the player it plays, if it joined.
    pub fn connections(&self) -> Vec<(ConnectionId, Option<PlayerId>)> {
        self.clients.iter().map(|(c, cl)| (*c, cl.player)).collect()
    }

    /// The dialect a connection speaks: `None` until one of its messages decoded.
    pub fn dialect(&self, connection: ConnectionId) -> Option<Dialect> {
        self.clients.get(&connection)?.dialect
    }

    /// Living players in the current round.
    pub fn alive(&self) -> usize {
        self.world.living_players().count()
    }

    /// Players in the game.
    pub fn players(&self) -> usize {
        self.clients.values().filter(|c| c.player.is_some()).count()
    }

    /// Handles every pending event of `endpoint`.
    pub fn poll(&mut self, endpoint: &mut Server) {
        while let Some(event) = endpoint.poll_event() {
            self.handle(endpoint, event);
        }
    }

    /// Handles one event of the endpoint: a connection, a message, a disconnection.
    pub fn handle(&mut self, endpoint: &mut impl Outgoing, event: ServerEvent) {
        let ServerEvent {
            connection,
            peer,
            event,
        } = event;
        match event {
            Event::Connected => {
                info!(%peer, ?connection, "connection accepted");
                self.clients.insert(connection, Client::default());
            }
            Event::Disconnected { reason } => {
                let Some(client) = self.clients.remove(&connection) else {
                    return;
                };
                info!(%peer, ?reason, player = ?client.player, "connection closed");
                self.scoped.remove(connection);
                if let Some(player) = client.player {
                    self.world.remove_player(player);
                }
            }
            Event::Message { bytes, .. } => {
                self.stats.messages_in += 1;
                let client = self.clients.entry(connection).or_default();
                let player = client.player;
                let decoded = match client.dialect {
                    Some(dialect) => dialect.from_bytes(&bytes).map_err(|e| e.to_string()),
                    None => Dialect::detect(&bytes)
                        .map(|(dialect, message)| {
                            client.dialect = Some(dialect);
                            info!(%peer, %dialect, "client dialect detected");
                            message
                        })
                        .map_err(|e| e.to_string()),
                };
                match decoded {
                    Err(error) => {
                        self.stats.refused += 1;
                        warn!(%peer, %error, len = bytes.len(), "undecodable message dropped");
                    }
                    Ok(wire::ClientMessage::Request(req)) => {
                        self.request(endpoint, connection, peer, player, req);
                    }
                    Ok(wire::ClientMessage::Action(action)) => match player {
                        None => {
                            self.stats.refused += 1;
                            warn!(%peer, ?action, "action before Init dropped");
                        }
                        Some(player) => {
                            if let Err(refused) = self.world.apply(player, from_action(&action)) {
                                debug!(player, ?action, %refused, "action refused");
                            }
                        }
                    },
                    Ok(wire::ClientMessage::Deltas(request)) => {
                        self.stats.delta_requests += 1;
                        // A client takes a fresh channel for each request, so a repeat is
                        // told by the state it already has, not by its channel.
                        let first = client.deltas.is_none();
                        let deltas = client.deltas.get_or_insert_with(DeltaClient::default);
                        if first {
                            info!(%peer, channel = %request.channel, "client asked for deltas");
                        } else {
                            debug!(%peer, "client asked for deltas again: a full snapshot next");
                        }
                        deltas.channel = request.channel;
                        deltas.baselines.restart();
                    }
                    Ok(wire::ClientMessage::Scoped(request)) => {
                        self.stats.scoped_requests += 1;
                        if self.scoped.has(connection) {
                            debug!(%peer, "client asked for scoped updates again: all anew");
                        } else {
                            info!(%peer, channel = %request.channel, "client asked for scoped updates");
                        }
                        self.scoped.request(connection, request.channel);
                    }
                }
            }
            // The delta clients' snapshot events and the scoped clients' updates: which of
            // them may be baselines.
            Event::Acknowledged { id } if self.scoped.has(connection) => {
                self.scoped.acknowledged(connection, id.0)
            }
            Event::Lost { id } if self.scoped.has(connection) => self.scoped.lost(connection, id.0),
            Event::Acknowledged { id } => self.acknowledged(connection, id.0),
            Event::Lost { id } => self.lost(connection, id.0),
        }
    }

    fn send(
        &mut self,
        endpoint: &mut impl Outgoing,
        connection: ConnectionId,
        msg: &wire::ServerMessage,
        delivery: Delivery,
    ) {
        self.buf.clear();
        if let Err(e) = hopnet_codec::encode_into(msg, &mut self.buf) {
            warn!(error = %e, "cannot encode a message");
            return;
        }
        self.send_buf(endpoint, connection, delivery);
    }

    fn send_buf(
        &mut self,
        endpoint: &mut impl Outgoing,
        connection: ConnectionId,
        delivery: Delivery,
    ) {
        if endpoint.send_message(connection, &self.buf, delivery) {
            self.stats.messages_out += 1;
        }
    }

    /// Runs one tick: the rules, a snapshot to every player (on the ticks the snapshot rate
    /// picks), and at the end of a round `GameOver` to every player and, after the
    /// intermission, a new round.
    pub fn tick(&mut self, endpoint: &mut impl Outgoing) {
        self.time = self.time.wrapping_add(1);
        self.stats.ticks += 1;
        let events = self.world.step();
        self.log_events(&events);
        let players: Vec<(ConnectionId, PlayerId)> = self
            .clients
            .iter()
            .filter_map(|(c, cl)| cl.player.map(|p| (*c, p)))
            .collect();
        if !players.is_empty() && self.snapshot_due() {
            self.send_snapshots(endpoint, &players);
        }
        match self.next_round_at {
            Some(at) if tick_newer(self.time, at) || self.time == at => self.new_round(),
            Some(_) => {}
            None => {
                if let Some(outcome) = self.world.outcome() {
                    self.end_round(endpoint, outcome, &players);
                }
            }
        }
    }

    fn log_events(&self, events: &[GameEvent]) {
        for e in events {
            match e {
                GameEvent::Started => info!(round = self.round, "round started"),
                GameEvent::Died {
                    entity,
                    owner: Some(owner),
                } => {
                    info!(player = owner, entity, "player died")
                }
                GameEvent::Hit {
                    object,
                    target,
                    damage,
                } => debug!(object, target, damage, "hit"),
                GameEvent::PickedUp { player, object } => debug!(player, object, "picked up"),
                _ => {}
            }
        }
    }
}
