//! The R-TYPE server over real sockets, on std threads as the RFC describes it ("each UDP and
//! TCP server/client runs on a different thread"): the TCP lobby on one thread, a thread per
//! lobby connection, and each instance on a UDP port of its own, in a thread of its own that
//! runs the instance machine under hopnet's [`Driver`].
//!
//! One driver per instance, not one machine over every port: a hopnet driver owns one socket
//! and waits on it, which is the RFC's model, and an instance then needs no locking at all
//! (the lobby reads only its player count, published through an atomic).

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;

use super::body::Listing;
use super::instance::Instance;
use super::lobby::{CreateError, GAME, Instances, LobbySession};
use super::world::MAX_PLAYERS;

/// Instances a host runs at most: a CREATE beyond gets KO "full".
pub const MAX_INSTANCES: usize = 16;
/// Lobby connections open at once at most: one beyond is closed as soon as it is accepted.
pub const MAX_LOBBY_CONNECTIONS: usize = 64;
/// A lobby connection silent this long is closed.
pub const LOBBY_IDLE: Duration = Duration::from_secs(30);
/// An instance without players this long (since it was made or its last player left) is
/// closed and leaves the list, so that CREATEs cannot use the host up for ever.
pub const EMPTY_INSTANCE_LIFETIME: Duration = Duration::from_secs(60);

/// How a host runs.
#[derive(Debug, Clone, Default)]
pub struct HostConfig {
    /// Loss and delay applied to every instance's outgoing datagrams (for tests over a bad
    /// link; `None` in play).
    pub impairment: Option<Impairment>,
}

/// An instance as the lobby sees it.
#[derive(Debug)]
struct Slot {
    name: String,
    id: u32,
    port: u16,
    players: Arc<AtomicU32>,
    thread: Option<JoinHandle<()>>,
}

/// What the lobby's threads share.
#[derive(Debug)]
struct Shared {
    ip: IpAddr,
    config: HostConfig,
    slots: Mutex<Vec<Slot>>,
    next_id: AtomicU32,
    stop: AtomicBool,
    connections: AtomicUsize,
    /// Totals for the summary.
    created: AtomicU32,
    accepted: AtomicU32,
}

impl Shared {
    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        // A thread that panicked while holding the lock leaves the list as it was: go on.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a host did, for its summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostSummary {
    /// Instances made.
    pub instances: u32,
    /// Lobby connections accepted.
    pub lobby_connections: u32,
}

/// A running R-TYPE server: the lobby and its instances, each on its own thread.
#[derive(Debug)]
pub struct Host {
    shared: Arc<Shared>,
    local: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

/// The lobby's view of the host's instances.
struct HostInstances<'a>(&'a Arc<Shared>);

impl Instances for HostInstances<'_> {
    fn list(&self) -> Vec<Listing> {
        self.0
            .slots()
            .iter()
            .map(|s| Listing {
                name: s.name.clone(),
                game: GAME.to_owned(),
                players: s.players.load(Ordering::Relaxed),
                max_players: MAX_PLAYERS as u32,
                port: s.port,
                id: s.id,
            })
            .collect()
    }

    fn create(&mut self, name: &str) -> Result<Listing, CreateError> {
        let shared = self.0;
        let mut slots = shared.slots();
        if slots.len() >= MAX_INSTANCES {
            return Err(CreateError::Full);
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let mut driver = Driver::bind((shared.ip, 0), Instance::new(id))
            .map_err(|_| CreateError::Unavailable)?;
        driver.set_impairment(shared.config.impairment.clone());
        let port = driver
            .local_addr()
            .map_err(|_| CreateError::Unavailable)?
            .port();
        let players = Arc::new(AtomicU32::new(0));
        let thread = {
            let (shared, players) = (Arc::clone(shared), Arc::clone(&players));
            std::thread::Builder::new()
                .name(format!("rtype-instance-{id}"))
                .spawn(move || run_instance(driver, &shared, &players))
                .map_err(|_| CreateError::Unavailable)?
        };
        shared.created.fetch_add(1, Ordering::Relaxed);
        slots.push(Slot {
            name: name.to_owned(),
            id,
            port,
            players,
            thread: Some(thread),
        });
        Ok(Listing {
            name: name.to_owned(),
            game: GAME.to_owned(),
            players: 0,
            max_players: MAX_PLAYERS as u32,
            port,
            id,
        })
    }
}

/// An instance's thread: its driver's rounds until the host stops or it has stood empty for
/// [`EMPTY_INSTANCE_LIFETIME`].
fn run_instance(mut driver: Driver<Instance>, shared: &Shared, players: &AtomicU32) {
    let mut empty_since = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        if driver.poll(Duration::from_millis(50)).is_err() {
            // A socket error that is not transient: the instance cannot go on.
            break;
        }
        let count = driver.machine().player_count();
        players.store(count as u32, Ordering::Relaxed);
        if count > 0 {
            empty_since = Instant::now();
        } else if empty_since.elapsed() >= EMPTY_INSTANCE_LIFETIME {
            break;
        }
    }
    let id = driver.machine().id();
    shared.slots().retain(|s| s.id != id);
}

impl Host {
    /// Binds the lobby on `addr` (instances bind UDP ports on the same address) and starts it.
    pub fn bind(addr: SocketAddr, config: HostConfig) -> io::Result<Host> {
        let listener = TcpListener::bind(addr)?;
        let local = listener.local_addr()?;
        let shared = Arc::new(Shared {
            ip: local.ip(),
            config,
            slots: Mutex::new(Vec::new()),
            next_id: AtomicU32::new(0),
            stop: AtomicBool::new(false),
            connections: AtomicUsize::new(0),
            created: AtomicU32::new(0),
            accepted: AtomicU32::new(0),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("rtype-lobby".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        Ok(Host {
            shared,
            local,
            accept: Some(accept),
        })
    }

    /// The lobby's address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Instances running now.
    pub fn instance_count(&self) -> usize {
        self.shared.slots().len()
    }

    /// Lobby connections open now.
    pub fn lobby_connections(&self) -> usize {
        self.shared.connections.load(Ordering::Relaxed)
    }

    /// What the host did so far.
    pub fn summary(&self) -> HostSummary {
        HostSummary {
            instances: self.shared.created.load(Ordering::Relaxed),
            lobby_connections: self.shared.accepted.load(Ordering::Relaxed),
        }
    }

    /// Stops the lobby and every instance, and waits for their threads.
    pub fn shutdown(mut self) -> HostSummary {
        self.stop();
        self.summary()
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        // Wake the accepting thread.
        let _ = TcpStream::connect_timeout(&self.local, Duration::from_millis(200));
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
        let threads: Vec<JoinHandle<()>> = self
            .shared
            .slots()
            .iter_mut()
            .filter_map(|s| s.thread.take())
            .collect();
        for t in threads {
            let _ = t.join();
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut connections: Vec<JoinHandle<()>> = Vec::new();
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        connections.retain(|t| !t.is_finished());
        let Ok(stream) = stream else { continue };
        if shared.connections.load(Ordering::Relaxed) >= MAX_LOBBY_CONNECTIONS {
            // Dropped: closed at once.
            continue;
        }
        shared.connections.fetch_add(1, Ordering::Relaxed);
        shared.accepted.fetch_add(1, Ordering::Relaxed);
        let mine = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name("rtype-lobby-connection".into())
            .spawn(move || {
                let _ = serve(stream, &mine);
                mine.connections.fetch_sub(1, Ordering::Relaxed);
            });
        match spawned {
            Ok(t) => connections.push(t),
            // No thread: the stream is closed with the closure; give the slot back.
            Err(_) => {
                shared.connections.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
    for t in connections {
        let _ = t.join();
    }
}

/// One lobby connection: bytes to the session, its answers back, until the peer closes, is
/// silent for [`LOBBY_IDLE`], or the host stops.
fn serve(mut stream: TcpStream, shared: &Arc<Shared>) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    stream.set_nodelay(true)?;
    let mut session = LobbySession::new();
    let mut buf = [0u8; 4096];
    let mut out = Vec::new();
    let mut last_heard = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) && last_heard.elapsed() < LOBBY_IDLE {
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        last_heard = Instant::now();
        let mut input = &buf[..n];
        while !input.is_empty() {
            let took = session.handle(input, &mut HostInstances(shared), &mut out);
            input = &input[took..];
            stream.write_all(&out)?;
            out.clear();
        }
    }
    Ok(())
}
