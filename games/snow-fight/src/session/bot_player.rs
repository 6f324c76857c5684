//! A client that plays by itself.

use std::time::{Duration, Instant};

use hopnet::proto::Client;
use hopnet_snow_fight::Dialect;

use super::{ClientEvent, ClientView, GameClient, RoundResult};
use crate::bot::Bot;
use crate::world::Config;

/// A client that plays by itself: a [`GameClient`] driven by a [`Bot`].
#[derive(Debug)]
pub struct BotPlayer {
    /// The protocol side.
    pub client: GameClient,
    /// What a player would see: its own walking predicted, the others interpolated. The bot
    /// decides from the snapshots, as before; the view measures the prediction's corrections.
    pub view: ClientView,
    bot: Option<Bot>,
    seed: u64,
    config: Config,
    last_ping: Option<Instant>,
    /// How often [`BotPlayer::maybe_ping`] pings (1 s by default).
    pub ping_every: Duration,
    /// Every round result, in the order the rounds ended.
    pub results: Vec<RoundResult>,
}

impl BotPlayer {
    /// A bot player; `config` tells it the game's numbers (speeds, reach), `seed` its detours.
    pub fn new(config: Config, seed: u64) -> BotPlayer {
        BotPlayer {
            client: GameClient::new(),
            view: ClientView::new(config.clone()),
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
        self.client = std::mem::take(&mut self.client).with_dialect(dialect);
        self
    }

    /// The same bot, asking for snapshots as deltas (see [`GameClient::with_deltas`]).
    pub fn with_deltas(mut self) -> BotPlayer {
        self.client = std::mem::take(&mut self.client).with_deltas();
        self
    }

    /// The same bot, asking for scoped updates (see [`GameClient::with_scoped`]).
    pub fn with_scoped(mut self) -> BotPlayer {
        self.client = std::mem::take(&mut self.client).with_scoped();
        self
    }

    /// What the bot does between messages; call it often: its view's clock, pings ([`BotPlayer::maybe_ping`])
    /// and the client's pending requests ([`GameClient::send_requests`]).
    pub fn maintain(&mut self, conn: &mut Client, now: Instant) {
        self.view.update(now);
        self.client.send_requests(conn, now);
        self.maybe_ping(conn, now);
    }

    /// Call once the connection is up: sends `Init`.
    pub fn start(&mut self, conn: &mut Client) {
        self.client.send_init(conn);
    }

    /// Handles one message from the server and answers with actions when a new snapshot came.
    pub fn handle(&mut self, conn: &mut Client, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        let event = self.client.handle(bytes, now);
        if let Some(event) = &event {
            self.view.observe(&self.client, event, now);
        }
        match &event {
            Some(ClientEvent::Joined(p)) => self.bot = Some(Bot::new(*p, self.seed)),
            Some(ClientEvent::Snapshot) => {
                if let Some(bot) = &mut self.bot {
                    for input in bot.think(self.client.entities(), &self.config) {
                        self.client.send_input(conn, input);
                        self.view.sent(&input, now);
                    }
                }
            }
            Some(ClientEvent::GameOver(result)) => {
                self.results.push(*result);
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
    pub fn maybe_ping(&mut self, conn: &mut Client, now: Instant) {
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
