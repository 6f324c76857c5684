//! A game instance: the UDP side of R-TYPE as a sans-I/O [`Machine`], one per port.
//!
//! Players are the addresses that sent CONNECT with the instance's id; everything else from
//! an address that is not a player is ignored (only a CONNECT gets an answer: CONNECT, or KO
//! "full" / "unknown"), so a flood of new addresses costs no state. A player silent for
//! [`PLAYER_TIMEOUT`] is removed as if it had sent QUIT: a client that crashed does not hold
//! its slot for ever.
//!
//! While bullets fly, the instance runs a game tick every [`GAME_TICK`]: each bullet moves on
//! and is announced (a SPRITE to every player), or ends (DEAD to every player).
//!
//! A move (LEFT, RIGHT, UP, DOWN, SPACE) may carry a number as its body: the instance then
//! applies it only if the number is above the last one it applied from that player, so a
//! duplicated or late datagram does not move the ship twice. A move with an empty body (a
//! client that does not number its moves) is applied as it comes.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet_formats::rtype::{Action, Frame};

use super::body;
use super::frames::{self, MAX_OUTBOX};
use super::world::World;
use crate::one_at_a_time::{Outbox, transmit_one_at_a_time};

/// How often every client is told the number of entities (RFC 4242, section 4: 1000 ms).
pub const CHECK_INTERVAL: Duration = Duration::from_millis(1000);
/// The game tick while bullets fly: a SPRITE per bullet per tick to every player, so a
/// client sees one go straight and can predict it between SPRITEs (RFC 4242, 2.3).
pub const GAME_TICK: Duration = Duration::from_millis(30);
/// How long a player may stay silent before it is removed.
pub const PLAYER_TIMEOUT: Duration = Duration::from_secs(10);

/// Counters of what an instance received and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstanceStats {
    /// Datagrams that were frames.
    pub frames: u64,
    /// Datagrams that were not (short, too long, a CRC differing...): ignored.
    pub rejected: u64,
    /// Frames from an address that is not a player, other than CONNECT: ignored.
    pub strangers: u64,
    /// CHECK requests answered with every entity.
    pub resyncs: u64,
    /// CHECK counts sent.
    pub checks: u64,
}

/// A connected client.
#[derive(Debug, Clone, Copy)]
struct Player {
    entity: u32,
    last_heard: Instant,
    /// The number of the last numbered move (or SPACE) applied.
    last_move: Option<u32>,
}

/// One R-TYPE game instance. Players are kept in address order, so that in the simulator a
/// seed gives the same datagrams in the same order every run.
#[derive(Debug)]
pub struct Instance {
    id: u32,
    world: World,
    players: BTreeMap<SocketAddr, Player>,
    outbox: Outbox,
    next_check: Option<Instant>,
    /// The next game tick, while bullets fly.
    next_tick: Option<Instant>,
    stats: InstanceStats,
}

impl Instance {
    /// An instance whose id (what a client's CONNECT names) is `id`.
    pub fn new(id: u32) -> Instance {
        Instance {
            id,
            world: World::default(),
            players: BTreeMap::new(),
            outbox: Outbox::bounded(MAX_OUTBOX),
            next_check: None,
            next_tick: None,
            stats: InstanceStats::default(),
        }
    }

    /// The instance's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Players connected now.
    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// The entities, by id.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// What it received and did.
    pub fn stats(&self) -> &InstanceStats {
        &self.stats
    }

    /// Datagrams queued and not yet taken by the driver (at most
    /// [`MAX_OUTBOX`](super::MAX_OUTBOX)), and how many were dropped for want of room.
    pub fn queued(&self) -> (usize, u64) {
        (self.outbox.len(), self.outbox.dropped())
    }

    fn sprite_message(id: u32, x: i32, y: i32) -> String {
        format!("{id} {x} {y}")
    }

    /// Queues a SPRITE of entity `id` for every player.
    fn announce(&mut self, id: u32) {
        let Some(e) = self.world.entities().get(&id).copied() else {
            return;
        };
        let message = Self::sprite_message(id, e.x, e.y);
        for &to in self.players.keys() {
            self.outbox
                .push(to, frames::to_bytes(Action::Sprite, &message));
        }
    }

    /// Queues DEAD of entity `id` for every player (and `also`, one that just left).
    fn bury(&mut self, id: u32, also: Option<SocketAddr>) {
        let message = id.to_string();
        for to in self.players.keys().copied().chain(also) {
            self.outbox
                .push(to, frames::to_bytes(Action::Dead, &message));
        }
    }

    /// Queues every entity as a SPRITE for `to`.
    fn send_all(&mut self, to: SocketAddr) {
        for (&id, e) in self.world.entities() {
            self.outbox.push(
                to,
                frames::to_bytes(Action::Sprite, &Self::sprite_message(id, e.x, e.y)),
            );
        }
    }

    fn connect(&mut self, now: Instant, from: SocketAddr, message: &str) {
        if body::number::<u32>(message) != Some(self.id) {
            self.outbox
                .push(from, frames::to_bytes(Action::Ko, "unknown"));
            return;
        }
        if let Some(player) = self.players.get_mut(&from) {
            // Our CONNECT was lost: say it again, with the whole world.
            player.last_heard = now;
            let entity = player.entity;
            self.outbox
                .push(from, frames::to_bytes(Action::Connect, &entity.to_string()));
            self.send_all(from);
            return;
        }
        let Some(entity) = self.world.add_player() else {
            self.outbox.push(from, frames::to_bytes(Action::Ko, "full"));
            return;
        };
        self.players.insert(
            from,
            Player {
                entity,
                last_heard: now,
                last_move: None,
            },
        );
        self.outbox
            .push(from, frames::to_bytes(Action::Connect, &entity.to_string()));
        // The newcomer gets every entity (its own among them); the others get the newcomer.
        self.send_all(from);
        let e = self.world.entities()[&entity];
        let message = Self::sprite_message(entity, e.x, e.y);
        for &to in self.players.keys().filter(|&&to| to != from) {
            self.outbox
                .push(to, frames::to_bytes(Action::Sprite, &message));
        }
        self.next_check.get_or_insert(now + CHECK_INTERVAL);
    }

    fn remove(&mut self, from: SocketAddr) {
        if let Some(player) = self.players.remove(&from) {
            for id in self.world.remove_player(player.entity) {
                self.bury(id, Some(from));
            }
        }
    }

    fn play(&mut self, now: Instant, from: SocketAddr, frame: Frame) {
        let Some(player) = self.players.get_mut(&from) else {
            self.stats.strangers += 1;
            return;
        };
        player.last_heard = now;
        let entity = player.entity;
        let is_move = matches!(
            frame.action,
            Action::Left | Action::Right | Action::Up | Action::Down | Action::Space
        );
        if is_move && !frame.message.is_empty() {
            // A numbered move: applied once, and never after a later one (UDP duplicates
            // and reorders datagrams, and a move is not idempotent).
            match body::number::<u32>(&frame.message) {
                Some(n) if player.last_move.is_none_or(|last| n > last) => {
                    player.last_move = Some(n);
                }
                _ => return,
            }
        }
        match frame.action {
            Action::Left | Action::Right | Action::Up | Action::Down => {
                self.world.step(entity, frame.action);
                self.announce(entity);
            }
            Action::Space => {
                self.fire(entity);
                self.next_tick.get_or_insert(now + GAME_TICK);
            }
            Action::Check => {
                self.stats.resyncs += 1;
                self.send_all(from);
            }
            Action::Ping => self
                .outbox
                .push(from, frames::to_bytes(Action::Pong, &frame.message)),
            Action::Quit => self.remove(from),
            // The other actions (KEY, TEXT, ...) carry nothing this game acts on.
            _ => {}
        }
    }

    /// A bullet for `player`, announced; the one it replaced, if any, buried.
    fn fire(&mut self, player: u32) {
        let Some((bullet, replaced)) = self.world.fire(player) else {
            return;
        };
        if let Some(old) = replaced {
            self.bury(old, None);
        }
        self.announce(bullet);
    }

    /// The game tick, if due: bullets fly on or end; the next tick while any flies.
    fn tick(&mut self, now: Instant) {
        let Some(due) = self.next_tick.filter(|&t| t <= now) else {
            return;
        };
        let flown = self.world.fly();
        for id in flown.ended {
            self.bury(id, None);
        }
        for id in flown.moved {
            self.announce(id);
        }
        // On the beat, not drifting by how late the driver called.
        let mut next = due + GAME_TICK;
        if next <= now {
            next = now + GAME_TICK;
        }
        self.next_tick = self.world.flying().then_some(next);
    }

    fn expire(&mut self, now: Instant) {
        let silent: Vec<SocketAddr> = self
            .players
            .iter()
            .filter(|(_, p)| now.saturating_duration_since(p.last_heard) >= PLAYER_TIMEOUT)
            .map(|(&a, _)| a)
            .collect();
        for from in silent {
            self.remove(from);
        }
    }
}

impl Machine for Instance {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let Ok(frame) = frames::decode(datagram) else {
            self.stats.rejected += 1;
            return;
        };
        self.stats.frames += 1;
        if frame.action == Action::Connect {
            self.connect(now, from, &frame.message);
        } else {
            self.play(now, from, frame);
        }
    }

    transmit_one_at_a_time!(outbox);

    fn poll_timeout(&self) -> Option<Instant> {
        let expiry = self
            .players
            .values()
            .map(|p| p.last_heard + PLAYER_TIMEOUT)
            .min();
        [self.next_check, expiry, self.next_tick]
            .into_iter()
            .flatten()
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.expire(now);
        self.tick(now);
        let Some(due) = self.next_check else { return };
        if now < due {
            return;
        }
        if self.players.is_empty() {
            // Nobody to tell: the timer starts again with the next player.
            self.next_check = None;
            return;
        }
        let count = self.world.entities().len().to_string();
        for &to in self.players.keys() {
            self.outbox
                .push(to, frames::to_bytes(Action::Check, &count));
            self.stats.checks += 1;
        }
        // On the beat, not drifting by how late the driver called.
        let mut next = due + CHECK_INTERVAL;
        if next <= now {
            next = now + CHECK_INTERVAL;
        }
        self.next_check = Some(next);
    }
}
