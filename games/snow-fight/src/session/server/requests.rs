//! The server's answers to requests: `Pong` to `Ping`; to `Init`, `Connect` with the player id
//! and the current snapshot, or an `Error` when the client already joined, the game is full or the server is draining.

use hopnet::{ConnectionId, Delivery};
use hopnet_snow_fight as wire;
use tracing::{info, warn};

use super::{GameServer, Outgoing};
use crate::snapshot::to_snapshot;
use crate::world::PlayerId;

impl GameServer {
    pub(super) fn request(
        &mut self,
        endpoint: &mut impl Outgoing,
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
                None if !self.placing => {
                    self.stats.refused += 1;
                    warn!(%peer, "Init refused: the server is draining");
                    wire::ResponseKind::Error(wire::ErrorMessage::new(
                        "the server is draining: it takes no new players",
                    ))
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
                    let client = self.clients.entry(connection).or_default();
                    let p = match client.reserved {
                        Some(p) => p,
                        None => {
                            let p = self.next_player;
                            self.next_player += 1;
                            p
                        }
                    };
                    client.player = Some(p);
                    client.joined_at = self.time;
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
}
