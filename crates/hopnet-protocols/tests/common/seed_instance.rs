//! An R-TYPE instance written from the RFC's text alone (`context-rtype-rfc.txt`, section 4),
//! as a seed implementation reads it where it differs from ours (`rtype::Instance`):
//!
//! - "When the client wants to move, he will send a LEFT, RIGHT, UP or DOWN action to the
//!   server. The server will then update the position of the player": every move it receives
//!   is applied, whatever its body. It numbers nothing, so a datagram the network duplicates,
//!   or a move a client sends again, moves the ship again.
//! - "each UDP and TCP server/client runs on a different thread ... a ThreadSafeQueue": what
//!   arrives waits in a queue that the game loop takes on its next tick ([`TICK`]), so an
//!   answer comes up to a tick later than the datagram.
//! - "when a player shoot, he knows that the bullet will go straight": a SPACE makes a bullet
//!   one unit ahead of the ship, which flies one unit right every tick (a SPRITE to every
//!   player each time) and is gone (DEAD) after [`BULLET_TICKS`].
//! - CHECK with the number of entities to every player every 1,000 ms; a player's CHECK gets
//!   every entity as a SPRITE; QUIT removes the player (DEAD to everyone); PING gets PONG.
//! - How a client reaches it is ours (CONNECT "ID", answered by CONNECT "PLAYER" and every
//!   entity; a repeated CONNECT answered again), as the RFC does not say.

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet::{Machine, Transmit};
use hopnet_formats::rtype::{Action, Frame};
use hopnet_protocols::rtype::{
    CreateError, GAME, Instances, Listing, LobbySession, decode, to_bytes,
};

/// The game loop's period.
pub const TICK: Duration = Duration::from_millis(30);
/// How many ticks a bullet flies.
pub const BULLET_TICKS: u32 = 20;
const CHECK_EVERY: Duration = Duration::from_millis(1000);
const MAX_PLAYERS: usize = hopnet_protocols::rtype::MAX_PLAYERS;

/// What the instance did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedStats {
    /// Moves applied (LEFT, RIGHT, UP, DOWN).
    pub moves: u64,
    /// Of those, moves that carried a body (a number, say): applied all the same.
    pub moves_with_a_body: u64,
    /// Bullets fired.
    pub bullets: u64,
    /// CHECK requests answered with every entity.
    pub resyncs: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entity {
    x: i32,
    y: i32,
    /// Ticks left to fly, for a bullet.
    flying: Option<u32>,
}

/// The seed-style instance. Drive it like any [`Machine`].
#[derive(Debug)]
pub struct SeedInstance {
    id: u32,
    players: BTreeMap<SocketAddr, u32>,
    entities: BTreeMap<u32, Entity>,
    next_entity: u32,
    queue: Vec<(SocketAddr, Frame)>,
    out: VecDeque<(SocketAddr, Vec<u8>)>,
    next_tick: Option<Instant>,
    next_check: Option<Instant>,
    /// What it did.
    pub stats: SeedStats,
}

impl SeedInstance {
    pub fn new(id: u32) -> SeedInstance {
        SeedInstance {
            id,
            players: BTreeMap::new(),
            entities: BTreeMap::new(),
            next_entity: 0,
            queue: Vec::new(),
            out: VecDeque::new(),
            next_tick: None,
            next_check: None,
            stats: SeedStats::default(),
        }
    }

    /// The ship of the player at `addr`, and where it is.
    pub fn ship(&self, addr: SocketAddr) -> Option<(u32, (i32, i32))> {
        let id = *self.players.get(&addr)?;
        let e = self.entities.get(&id)?;
        Some((id, (e.x, e.y)))
    }

    /// Players connected now.
    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// Entities in the game now.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    fn send(&mut self, to: SocketAddr, action: Action, message: &str) {
        self.out.push_back((to, to_bytes(action, message)));
    }

    fn sprite(&mut self, to: SocketAddr, id: u32) {
        if let Some(e) = self.entities.get(&id).copied() {
            self.send(to, Action::Sprite, &format!("{id} {} {}", e.x, e.y));
        }
    }

    fn tell_everyone(&mut self, action: Action, message: &str) {
        let players: Vec<SocketAddr> = self.players.keys().copied().collect();
        for to in players {
            self.send(to, action, message);
        }
    }

    fn announce(&mut self, id: u32) {
        if let Some(e) = self.entities.get(&id).copied() {
            self.tell_everyone(Action::Sprite, &format!("{id} {} {}", e.x, e.y));
        }
    }

    fn send_all(&mut self, to: SocketAddr) {
        let ids: Vec<u32> = self.entities.keys().copied().collect();
        for id in ids {
            self.sprite(to, id);
        }
    }

    fn add(&mut self, x: i32, y: i32, flying: Option<u32>) -> u32 {
        let id = self.next_entity;
        self.next_entity += 1;
        self.entities.insert(id, Entity { x, y, flying });
        id
    }

    fn connect(&mut self, now: Instant, from: SocketAddr, message: &str) {
        if message.parse::<u32>().ok() != Some(self.id) {
            return self.send(from, Action::Ko, "unknown");
        }
        if let Some(&ship) = self.players.get(&from) {
            self.send(from, Action::Connect, &ship.to_string());
            return self.send_all(from);
        }
        if self.players.len() >= MAX_PLAYERS {
            return self.send(from, Action::Ko, "full");
        }
        let row = (0..MAX_PLAYERS as i32)
            .find(|r| {
                !self
                    .players
                    .values()
                    .any(|p| self.entities.get(p).is_some_and(|e| e.y == r * 10))
            })
            .unwrap_or(0);
        let ship = self.add(0, row * 10, None);
        self.players.insert(from, ship);
        self.send(from, Action::Connect, &ship.to_string());
        self.send_all(from);
        let others: Vec<SocketAddr> = self
            .players
            .keys()
            .copied()
            .filter(|&a| a != from)
            .collect();
        for to in others {
            self.sprite(to, ship);
        }
        self.next_check.get_or_insert(now + CHECK_EVERY);
    }

    fn play(&mut self, from: SocketAddr, frame: Frame) {
        let Some(&ship) = self.players.get(&from) else {
            return;
        };
        let step = match frame.action {
            Action::Left => Some((-1, 0)),
            Action::Right => Some((1, 0)),
            Action::Up => Some((0, -1)),
            Action::Down => Some((0, 1)),
            _ => None,
        };
        if let Some((dx, dy)) = step {
            self.stats.moves += 1;
            self.stats.moves_with_a_body += u64::from(!frame.message.is_empty());
            if let Some(e) = self.entities.get_mut(&ship) {
                e.x += dx;
                e.y += dy;
            }
            return self.announce(ship);
        }
        match frame.action {
            Action::Space => {
                let Some(at) = self.entities.get(&ship).copied() else {
                    return;
                };
                self.stats.bullets += 1;
                let bullet = self.add(at.x + 1, at.y, Some(BULLET_TICKS));
                self.announce(bullet);
            }
            Action::Check => {
                self.stats.resyncs += 1;
                self.send_all(from);
            }
            Action::Ping => self.send(from, Action::Pong, &frame.message),
            Action::Quit => {
                self.players.remove(&from);
                self.entities.remove(&ship);
                self.tell_everyone(Action::Dead, &ship.to_string());
                self.send(from, Action::Dead, &ship.to_string());
            }
            _ => {}
        }
    }

    /// The game loop's turn: the queue in the order it filled, then the bullets fly.
    fn tick(&mut self, now: Instant) {
        for (from, frame) in std::mem::take(&mut self.queue) {
            if frame.action == Action::Connect {
                self.connect(now, from, &frame.message);
            } else {
                self.play(from, frame);
            }
        }
        let bullets: Vec<u32> = self
            .entities
            .iter()
            .filter(|(_, e)| e.flying.is_some())
            .map(|(&id, _)| id)
            .collect();
        for id in bullets {
            let Some(e) = self.entities.get_mut(&id) else {
                continue;
            };
            match e.flying {
                Some(left) if left > 1 => {
                    e.flying = Some(left - 1);
                    e.x += 1;
                    self.announce(id);
                }
                _ => {
                    self.entities.remove(&id);
                    self.tell_everyone(Action::Dead, &id.to_string());
                }
            }
        }
    }
}

impl Machine for SeedInstance {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let Ok(frame) = decode(datagram) else {
            return;
        };
        self.queue.push((from, frame));
        self.next_tick.get_or_insert(now + TICK);
    }

    fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>, _max: usize) -> Option<Transmit> {
        let (destination, bytes) = self.out.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&bytes);
        Some(Transmit::single(destination, bytes.len()))
    }

    fn poll_timeout(&self) -> Option<Instant> {
        match (self.next_tick, self.next_check) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.next_tick.is_some_and(|t| t <= now) {
            self.tick(now);
            let busy = !self.queue.is_empty() || self.entities.values().any(|e| e.flying.is_some());
            self.next_tick = busy.then_some(now + TICK);
        }
        if let Some(due) = self.next_check.filter(|&t| t <= now) {
            if self.players.is_empty() {
                self.next_check = None;
            } else {
                let count = self.entities.len().to_string();
                self.tell_everyone(Action::Check, &count);
                self.next_check = Some((due + CHECK_EVERY).max(now));
            }
        }
    }
}

/// A lobby (our [`LobbySession`] on a TCP listener) in front of one [`SeedInstance`] on its
/// own UDP socket, each on a thread, the instance's outgoing datagrams through `impairment`:
/// what `rtype client --connect ADDR --create NAME` meets, with the seed's instance behind.
/// CREATE and JOIN both lead to that one instance.
pub struct SeedHost {
    pub lobby: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

/// The one instance, as the lobby lists it.
struct OneInstance(Listing);

impl Instances for OneInstance {
    fn list(&self) -> Vec<Listing> {
        vec![self.0.clone()]
    }
    fn create(&mut self, _name: &str) -> Result<Listing, CreateError> {
        Ok(self.0.clone())
    }
}

impl SeedHost {
    pub fn start(impairment: Option<Impairment>) -> SeedHost {
        const ID: u32 = 0;
        let stop = Arc::new(AtomicBool::new(false));
        let mut driver = Driver::bind("127.0.0.1:0", SeedInstance::new(ID)).unwrap();
        driver.set_impairment(impairment);
        let port = driver.local_addr().unwrap().port();
        let flag = stop.clone();
        let instance = thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                driver.poll(Duration::from_millis(5)).unwrap();
            }
        });
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let lobby = listener.local_addr().unwrap();
        let listing = Listing {
            name: "seed".into(),
            game: GAME.into(),
            players: 0,
            max_players: MAX_PLAYERS as u32,
            port,
            id: ID,
        };
        let flag = stop.clone();
        let accept = thread::spawn(move || {
            let mut instances = OneInstance(listing);
            while !flag.load(Ordering::Relaxed) {
                let Ok((stream, _)) = listener.accept() else {
                    thread::sleep(Duration::from_millis(5));
                    continue;
                };
                serve(stream, &mut instances, &flag);
            }
        });
        SeedHost {
            lobby,
            stop,
            threads: vec![instance, accept],
        }
    }
}

/// One lobby connection, until the client closes it or the host stops.
fn serve(mut stream: TcpStream, instances: &mut OneInstance, stop: &AtomicBool) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut session = LobbySession::new();
    let (mut buf, mut out) = ([0u8; 4096], Vec::new());
    while !stop.load(Ordering::Relaxed) {
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) if stop.load(Ordering::Relaxed) => return,
            Ok(0) => return,
            Ok(n) => n,
            Err(_) => continue,
        };
        let mut input = &buf[..n];
        while !input.is_empty() {
            let took = session.handle(input, instances, &mut out);
            input = &input[took..];
            if stream.write_all(&out).is_err() {
                return;
            }
            out.clear();
        }
    }
}

impl Drop for SeedHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
