//! The game over the protocol, without sockets: a server's rounds ([`GameServer`]) and a
//! client's view of them ([`GameClient`], [`BotPlayer`]).
//!
//! Both sides talk to `netproto`'s sans-I/O state machines, a server to an [`Endpoint`] and a
//! client to a [`Connection`], so the same code runs over real UDP ([`crate::net`]) and over
//! `netproto::sim`'s simulated network (the integration test).
//!
//! The server follows the spec's diagram: it accepts connections; on an `Init` request it adds
//! the player to the round and answers `Connect` (reliable) with the player id and the current
//! snapshot; every tick it runs the rules and sends each player a `Snapshot` event (unreliable);
//! when the round is over it sends `GameOver` (reliable) to everyone and starts a new round.
//! `Ping` gets `Pong`. Whatever a client gets wrong (an action before `Init`, `Init` twice, a
//! message that does not decode) gets an `Error` response when it has a channel to answer on, is
//! otherwise dropped, is logged either way, and never touches anyone else.
//!
//! The server takes clients of both [`Dialect`]s, the spec's and that of the spec author's own
//! implementation (they differ in `ClientMessage`'s tag only). A connection's dialect is
//! unknown until its first message that decodes in either ([`Dialect::detect`]), and fixed from
//! then on; its replies are the same bytes in both. A client picks its dialect with
//! [`GameClient::with_dialect`].

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use game_messages as wire;
use game_messages::Dialect;
use netproto::{Connection, ConnectionId, Delivery, Endpoint, EndpointEvent, Event};
use tracing::{debug, info, warn};

use crate::bot::Bot;
use crate::rules::{GameEvent, Input};
use crate::snapshot::{from_action, from_snapshot, to_action, to_snapshot};
use crate::world::{Config, Entity, Outcome, PlayerId, World};

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
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            seed: 1,
            max_players: 8,
            game: Config::default(),
            sample_every: 60,
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
}

/// A client connection as the server sees it.
#[derive(Clone, Debug, Default)]
struct Client {
    /// Set once it sent `Init`.
    player: Option<PlayerId>,
    /// Set by its first message that decodes, in either dialect; fixed from then on.
    dialect: Option<Dialect>,
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
    samples: Vec<wire::ServerMessage>,
}

impl GameServer {
    /// A server about to start its first round.
    pub fn new(config: ServerConfig) -> GameServer {
        let world = World::new(config.seed, config.game.clone());
        GameServer {
            config,
            round: 0,
            world,
            clients: BTreeMap::new(),
            next_player: 1,
            time: 0,
            buf: Vec::with_capacity(2048),
            stats: ServerStats::default(),
            outcomes: Vec::new(),
            samples: Vec::new(),
        }
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

    /// Every `sample_every`-th snapshot event sent, for size statistics.
    pub fn samples(&self) -> &[wire::ServerMessage] {
        &self.samples
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
    pub fn poll(&mut self, endpoint: &mut Endpoint) {
        while let Some(event) = endpoint.poll_event() {
            self.handle(endpoint, event);
        }
    }

    /// Handles one event of the endpoint: a connection, a message, a disconnection.
    pub fn handle(&mut self, endpoint: &mut Endpoint, event: EndpointEvent) {
        let EndpointEvent {
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
                }
            }
        }
    }

    fn request(
        &mut self,
        endpoint: &mut Endpoint,
        connection: ConnectionId,
        peer: std::net::SocketAddr,
        player: Option<PlayerId>,
        req: wire::Request,
    ) {
        let reply = match req.kind {
            wire::RequestKind::Ping => wire::ResponseKind::Pong,
            wire::RequestKind::Init => match player {
                Some(p) => {
                    self.stats.refused += 1;
                    warn!(%peer, player = p, "Init twice");
                    wire::ResponseKind::Error(wire::ErrorMessage::new(format!(
                        "already joined as player {p}"
                    )))
                }
                None if self.players() >= self.config.max_players => {
                    self.stats.refused += 1;
                    warn!(%peer, "Init refused: the game is full");
                    wire::ResponseKind::Error(wire::ErrorMessage::new(format!(
                        "the game is full ({} players)",
                        self.config.max_players
                    )))
                }
                None => {
                    let p = self.next_player;
                    self.next_player += 1;
                    self.clients.entry(connection).or_default().player = Some(p);
                    let (entity, events) = self.world.add_player(p);
                    self.log_events(&events);
                    info!(%peer, player = p, entity, round = self.round, "player joined");
                    wire::ResponseKind::Connect(wire::Connect {
                        player: wire::PlayerId(p),
                        snapshot: to_snapshot(&self.world),
                    })
                }
            },
        };
        // Pong is for measuring round trips: a late retransmission would only mislead.
        let delivery = match reply {
            wire::ResponseKind::Pong => Delivery::Unreliable,
            _ => Delivery::Reliable,
        };
        let msg = wire::ServerMessage::response(req.channel, reply);
        self.send(endpoint, connection, &msg, delivery);
    }

    fn send(
        &mut self,
        endpoint: &mut Endpoint,
        connection: ConnectionId,
        msg: &wire::ServerMessage,
        delivery: Delivery,
    ) {
        self.buf.clear();
        if let Err(e) = rabbit::encode_into(msg, &mut self.buf) {
            warn!(error = %e, "cannot encode a message");
            return;
        }
        self.send_buf(endpoint, connection, delivery);
    }

    fn send_buf(&mut self, endpoint: &mut Endpoint, connection: ConnectionId, delivery: Delivery) {
        match endpoint.send(connection, &self.buf, delivery) {
            Ok(()) => self.stats.messages_out += 1,
            Err(e) => debug!(?connection, error = %e, "send failed"),
        }
    }

    /// Runs one tick: the rules, a snapshot to every player, and at the end of a round
    /// `GameOver` to every player and a new round.
    pub fn tick(&mut self, endpoint: &mut Endpoint) {
        self.time = self.time.wrapping_add(1);
        self.stats.ticks += 1;
        let events = self.world.step();
        self.log_events(&events);
        let players: Vec<(ConnectionId, PlayerId)> = self
            .clients
            .iter()
            .filter_map(|(c, cl)| cl.player.map(|p| (*c, p)))
            .collect();
        if !players.is_empty() {
            let snapshot = to_snapshot(&self.world);
            let entities = snapshot.len() as u64;
            let msg = wire::ServerMessage::snapshot(self.time, snapshot);
            self.buf.clear();
            if rabbit::encode_into(&msg, &mut self.buf).is_ok() {
                self.stats.snapshots_encoded += 1;
                self.stats.snapshot_bytes += self.buf.len() as u64;
                self.stats.snapshot_entities += entities;
                for (c, _) in &players {
                    self.send_buf(endpoint, *c, Delivery::Unreliable);
                    self.stats.snapshots_sent += 1;
                }
            }
            let every = self.config.sample_every;
            if every > 0 && (self.stats.snapshots_encoded - 1).is_multiple_of(every as u64) {
                self.samples.push(msg);
            }
        }
        if let Some(outcome) = self.world.outcome() {
            self.stats.rounds += 1;
            self.outcomes.push(outcome);
            info!(round = self.round, winner = ?outcome.winner, reason = ?outcome.reason, ticks = outcome.tick, "round over");
            for (c, p) in players {
                let result = if outcome.winner == Some(p) {
                    wire::GameOver::Won
                } else {
                    wire::GameOver::Lost
                };
                let msg = wire::ServerMessage::game_over(self.time, result);
                self.send(endpoint, c, &msg, Delivery::Reliable);
            }
            self.new_round();
        }
    }

    /// Starts the next round with everyone who is connected and joined.
    fn new_round(&mut self) {
        self.round += 1;
        self.world = World::new(
            self.config.seed.wrapping_add(self.round as u64),
            self.config.game.clone(),
        );
        let players: Vec<PlayerId> = self.clients.values().filter_map(|c| c.player).collect();
        for p in players {
            let (_, events) = self.world.add_player(p);
            self.log_events(&events);
        }
        info!(round = self.round, players = self.players(), "new round");
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

/// What a client learned from one message.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientEvent {
    /// The server accepted `Init`: this is our player id, and the world is now known.
    Joined(PlayerId),
    /// A newer snapshot replaced the local state.
    Snapshot,
    /// The round ended; `true` if we won.
    GameOver(bool),
    /// A ping came back after this long.
    Pong(Duration),
    /// The server refused a request.
    Error(String),
}

/// Counters of a client, for its status line and the demo's report.
#[derive(Clone, Debug, Default)]
pub struct ClientStats {
    /// `Connect` responses received.
    pub connects: u32,
    /// Snapshots applied.
    pub snapshots: u64,
    /// Snapshot events that never arrived (gaps in their times).
    pub snapshots_lost: u64,
    /// Snapshot events that arrived after a newer one (ignored).
    pub snapshots_stale: u64,
    /// Rounds won.
    pub won: u32,
    /// Rounds lost.
    pub lost: u32,
    /// `Error` responses.
    pub errors: u32,
    /// Messages that did not decode.
    pub undecodable: u32,
    /// Pings sent.
    pub pings: u32,
    /// Round-trip times of the pings answered.
    pub rtts: Vec<Duration>,
}

impl ClientStats {
    /// Snapshots lost as a fraction of those sent (received, lost or late).
    pub fn loss(&self) -> f64 {
        let total = self.snapshots + self.snapshots_lost;
        if total == 0 {
            0.0
        } else {
            self.snapshots_lost as f64 / total as f64
        }
    }

    /// The `q`-quantile (0 to 1) of the round-trip times.
    pub fn rtt_quantile(&self, q: f64) -> Option<Duration> {
        let mut v = self.rtts.clone();
        v.sort_unstable();
        let last = v.len().checked_sub(1)?;
        Some(v[((last as f64) * q).round() as usize])
    }
}

/// The spec's client: `Init`, a local state kept from `Connect` and every newer `Snapshot`,
/// pings, and actions.
///
/// It speaks the spec's [`Dialect`] unless told otherwise ([`GameClient::with_dialect`]).
#[derive(Debug, Default)]
pub struct GameClient {
    dialect: Dialect,
    player: Option<PlayerId>,
    entities: Vec<Entity>,
    latest: Option<u32>,
    next_channel: u32,
    pings: HashMap<u32, Instant>,
    stats: ClientStats,
    buf: Vec<u8>,
}

impl GameClient {
    /// A client that has not joined yet, speaking the spec's dialect.
    pub fn new() -> GameClient {
        GameClient::default()
    }

    /// The same client, encoding its messages in `dialect`: [`Dialect::Original`] to play as the
    /// spec author's own client does (the original server understands nothing else). What a server
    /// sends is the same in both, so only sending changes.
    pub fn with_dialect(mut self, dialect: Dialect) -> GameClient {
        self.dialect = dialect;
        self
    }

    /// The dialect its messages are encoded in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Our player id, once joined.
    pub fn player(&self) -> Option<PlayerId> {
        self.player
    }

    /// The world as of the newest snapshot.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The `time` of the newest snapshot.
    pub fn latest(&self) -> Option<u32> {
        self.latest
    }

    /// Our living player, if any.
    pub fn me(&self) -> Option<&crate::world::Player> {
        let me = self.player?;
        self.entities
            .iter()
            .filter_map(Entity::player)
            .find(|p| p.owner == me)
    }

    /// Counters.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    fn channel(&mut self) -> u32 {
        self.next_channel = self.next_channel.wrapping_add(1);
        self.next_channel
    }

    fn send(&mut self, conn: &mut Connection, msg: &wire::ClientMessage, delivery: Delivery) {
        self.buf.clear();
        if self.dialect.encode_into(msg, &mut self.buf).is_ok()
            && let Err(e) = conn.send(&self.buf, delivery)
        {
            debug!(error = %e, "send failed");
        }
    }

    /// Sends the `Init` request (reliable).
    pub fn send_init(&mut self, conn: &mut Connection) {
        let ch = self.channel();
        self.send(conn, &wire::ClientMessage::init(ch), Delivery::Reliable);
    }

    /// Sends a `Ping` (unreliable; a lost one is just a missing sample).
    pub fn send_ping(&mut self, conn: &mut Connection, now: Instant) {
        let ch = self.channel();
        self.pings
            .retain(|_, t| now.duration_since(*t) < Duration::from_secs(10));
        self.pings.insert(ch, now);
        self.stats.pings += 1;
        self.send(conn, &wire::ClientMessage::ping(ch), Delivery::Unreliable);
    }

    /// Sends an action (reliable: a lost `Move` would leave the player walking).
    pub fn send_input(&mut self, conn: &mut Connection, input: Input) {
        let msg = wire::ClientMessage::Action(to_action(input));
        self.send(conn, &msg, Delivery::Reliable);
    }

    /// Handles one message from the server.
    pub fn handle(&mut self, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        let msg = match rabbit::from_bytes::<wire::ServerMessage>(bytes) {
            Ok(m) => m,
            Err(e) => {
                self.stats.undecodable += 1;
                warn!(error = %e, "undecodable message from the server");
                return None;
            }
        };
        match msg {
            wire::ServerMessage::Event(wire::Event { time, kind }) => match kind {
                wire::EventKind::Snapshot(s) => {
                    // The state starts from `Connect`; a snapshot that overtook it is dropped.
                    if self.player.is_none() {
                        self.stats.snapshots_stale += 1;
                        return None;
                    }
                    if let Some(latest) = self.latest {
                        let ahead = time.wrapping_sub(latest);
                        if ahead == 0 || ahead > u32::MAX / 2 {
                            self.stats.snapshots_stale += 1;
                            return None;
                        }
                        self.stats.snapshots_lost += (ahead - 1) as u64;
                    }
                    self.latest = Some(time);
                    self.stats.snapshots += 1;
                    self.entities = from_snapshot(&s);
                    Some(ClientEvent::Snapshot)
                }
                wire::EventKind::GameOver(result) => {
                    let won = result == wire::GameOver::Won;
                    if won {
                        self.stats.won += 1;
                    } else {
                        self.stats.lost += 1;
                    }
                    Some(ClientEvent::GameOver(won))
                }
            },
            wire::ServerMessage::Response(wire::Response { channel, kind }) => match kind {
                wire::ResponseKind::Connect(c) => {
                    self.stats.connects += 1;
                    self.player = Some(c.player.0);
                    self.entities = from_snapshot(&c.snapshot);
                    Some(ClientEvent::Joined(c.player.0))
                }
                wire::ResponseKind::Pong => {
                    let sent = self.pings.remove(&channel.0)?;
                    let rtt = now.duration_since(sent);
                    self.stats.rtts.push(rtt);
                    Some(ClientEvent::Pong(rtt))
                }
                wire::ResponseKind::Error(e) => {
                    self.stats.errors += 1;
                    warn!(error = %e, "the server refused a request");
                    Some(ClientEvent::Error(e.as_str().to_owned()))
                }
            },
        }
    }
}

/// A client that plays by itself: a [`GameClient`] driven by a [`Bot`].
#[derive(Debug)]
pub struct BotPlayer {
    /// The protocol side.
    pub client: GameClient,
    bot: Option<Bot>,
    seed: u64,
    config: Config,
    last_ping: Option<Instant>,
    /// How often [`BotPlayer::maybe_ping`] pings (1 s by default).
    pub ping_every: Duration,
    /// Every round result, in order (`true`: won).
    pub results: Vec<bool>,
}

impl BotPlayer {
    /// A bot player; `config` tells it the game's numbers (speeds, reach), `seed` its detours.
    pub fn new(config: Config, seed: u64) -> BotPlayer {
        BotPlayer {
            client: GameClient::new(),
            bot: None,
            seed,
            config,
            last_ping: None,
            ping_every: Duration::from_secs(1),
            results: Vec::new(),
        }
    }

    /// The same bot, speaking `dialect` (see [`GameClient::with_dialect`]).
    pub fn with_dialect(mut self, dialect: Dialect) -> BotPlayer {
        self.client.dialect = dialect;
        self
    }

    /// Call once the connection is up: sends `Init`.
    pub fn start(&mut self, conn: &mut Connection) {
        self.client.send_init(conn);
    }

    /// Handles one message from the server and answers with actions when a new snapshot came.
    pub fn handle(
        &mut self,
        conn: &mut Connection,
        bytes: &[u8],
        now: Instant,
    ) -> Option<ClientEvent> {
        let event = self.client.handle(bytes, now);
        match &event {
            Some(ClientEvent::Joined(p)) => self.bot = Some(Bot::new(*p, self.seed)),
            Some(ClientEvent::Snapshot) => {
                if let Some(bot) = &mut self.bot {
                    for input in bot.think(self.client.entities(), &self.config) {
                        self.client.send_input(conn, input);
                    }
                }
            }
            Some(ClientEvent::GameOver(won)) => {
                self.results.push(*won);
                if let Some(bot) = &mut self.bot {
                    bot.reset();
                }
            }
            _ => {}
        }
        event
    }

    /// Pings every `ping_every` (once a second by default) once joined; call it often.
    ///
    /// Not before `Connect`: the spec's client sends `Init` first and pings from its event loop
    /// afterwards, and the original implementation's server closes a connection whose first
    /// message is anything but `Init` (an unreliable ping can overtake the reliable `Init`).
    pub fn maybe_ping(&mut self, conn: &mut Connection, now: Instant) {
        if !conn.is_connected() || self.client.player().is_none() {
            return;
        }
        if self
            .last_ping
            .is_none_or(|t| now.duration_since(t) >= self.ping_every)
        {
            self.last_ping = Some(now);
            self.client.send_ping(conn, now);
        }
    }
}
