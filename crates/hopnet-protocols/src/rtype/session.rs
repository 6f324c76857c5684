//! A client's whole session over real sockets: the lobby on TCP (CONNECT, LIST, then CREATE
//! or JOIN), then the instance on UDP under hopnet's [`Driver`].

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet_formats::rtype::{Action, Frame};

use super::body::{self, Listing};
use super::client::{InstanceClient, Phase, moves};
use super::dead_reckoning::Extrapolation;
use super::frames;
use super::position_error::ErrorSummary;
use super::stream::FrameReader;

/// What the client does in the lobby.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// CREATE an instance of this name.
    Create(String),
    /// JOIN the first listed instance that is not full.
    Join,
}

/// A client session's settings.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The lobby's address; instances are on the same host.
    pub lobby: SocketAddr,
    /// Create or join.
    pub entry: Entry,
    /// Moves to play (see [`moves`]).
    pub moves: usize,
    /// When to give up.
    pub deadline: Instant,
    /// Loss and delay on the client's outgoing UDP datagrams (tests).
    pub impairment: Option<Impairment>,
    /// How the client shows the other entities between SPRITEs.
    pub extrapolation: Extrapolation,
}

/// What a session saw: the summary's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// The instance's id.
    pub instance: u32,
    /// Its UDP port.
    pub port: u16,
    /// Entities the client knew at the end.
    pub entities: usize,
    /// CHECK counts received.
    pub checks: u64,
    /// CHECK requests sent.
    pub resyncs: u64,
    /// Instances the lobby listed.
    pub listed: Vec<Listing>,
    /// Moves played.
    pub moves: usize,
    /// How far from the SPRITEs the other entities were shown.
    pub position_error: ErrorSummary,
}

/// Why a session failed.
#[derive(Debug)]
pub enum SessionError {
    /// A socket failed.
    Io(io::Error),
    /// The lobby said KO (with this body), or nothing to join was listed.
    Refused(String),
    /// The lobby or the instance broke the protocol.
    Protocol(String),
    /// The deadline passed; what was done so far.
    Deadline(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Io(e) => write!(f, "socket: {e}"),
            SessionError::Refused(why) => write!(f, "refused: {why}"),
            SessionError::Protocol(why) => write!(f, "protocol: {why}"),
            SessionError::Deadline(what) => write!(f, "deadline passed: {what}"),
        }
    }
}

impl std::error::Error for SessionError {}

impl From<io::Error> for SessionError {
    fn from(e: io::Error) -> Self {
        SessionError::Io(e)
    }
}

impl From<hopnet::Error> for SessionError {
    fn from(e: hopnet::Error) -> Self {
        SessionError::Io(io::Error::other(e))
    }
}

/// The lobby connection: frames out, frames in.
struct Lobby {
    stream: TcpStream,
    reader: FrameReader,
    deadline: Instant,
}

impl Lobby {
    fn send(&mut self, action: Action, message: &str) -> io::Result<()> {
        self.stream.write_all(&frames::to_bytes(action, message))
    }

    fn recv(&mut self) -> Result<Frame, SessionError> {
        let mut buf = [0u8; 4096];
        loop {
            if let Some(frame) = self.reader.next_frame() {
                return Ok(frame);
            }
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(SessionError::Deadline("waiting for the lobby".into()));
            }
            self.stream.set_read_timeout(Some(left))?;
            let n = match self.stream.read(&mut buf[..self.reader.room().min(4096)]) {
                Ok(0) => return Err(SessionError::Protocol("the lobby closed".into())),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(SessionError::Deadline("waiting for the lobby".into()));
                }
                Err(e) => return Err(e.into()),
            };
            self.reader.push(&buf[..n]);
        }
    }

    fn expect(&mut self, action: Action) -> Result<String, SessionError> {
        let frame = self.recv()?;
        match frame.action {
            a if a == action => Ok(frame.message),
            Action::Ko => Err(SessionError::Refused(frame.message)),
            other => Err(SessionError::Protocol(format!(
                "{other:?} {:?} where {action:?} was expected",
                frame.message
            ))),
        }
    }
}

/// The lobby part: CONNECT, LIST, then CREATE or JOIN; the listing and the instance's port
/// and id.
fn enter(config: &SessionConfig) -> Result<(Vec<Listing>, u16, u32), SessionError> {
    let left = config.deadline.saturating_duration_since(Instant::now());
    let stream = TcpStream::connect_timeout(&config.lobby, left.max(Duration::from_millis(1)))?;
    stream.set_nodelay(true)?;
    let mut lobby = Lobby {
        stream,
        reader: FrameReader::new(),
        deadline: config.deadline,
    };
    lobby.send(Action::Connect, "")?;
    lobby.expect(Action::Connect)?;
    lobby.send(Action::List, "")?;
    let mut listed = Vec::new();
    loop {
        let line = lobby.expect(Action::List)?;
        if line.is_empty() {
            break;
        }
        let listing = Listing::parse(&line)
            .ok_or_else(|| SessionError::Protocol(format!("a LIST line {line:?}")))?;
        listed.push(listing);
    }
    match &config.entry {
        Entry::Create(name) => lobby.send(Action::Create, name)?,
        Entry::Join => {
            let open = listed
                .iter()
                .find(|l| l.players < l.max_players)
                .ok_or_else(|| SessionError::Refused("no instance with room is listed".into()))?;
            lobby.send(Action::Join, &open.port.to_string())?;
        }
    }
    let joined = lobby.expect(Action::Joined)?;
    let (port, id) = body::joined(&joined)
        .ok_or_else(|| SessionError::Protocol(format!("a JOINED body {joined:?}")))?;
    Ok((listed, port, id))
}

/// What a session has seen so far: the summary's fields, kept up to date while it runs, so
/// that a session that fails can still say how far it got.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionProgress {
    /// The instance's id, once the lobby said JOINED.
    pub instance: Option<u32>,
    /// Its UDP port, once the lobby said JOINED.
    pub port: Option<u16>,
    /// Entities the client knows.
    pub entities: usize,
    /// CHECK counts received.
    pub checks: u64,
    /// CHECK requests sent.
    pub resyncs: u64,
    /// Moves played.
    pub moves: usize,
    /// How far from the SPRITEs the other entities were shown so far.
    pub position_error: ErrorSummary,
}

impl SessionProgress {
    fn observe(&mut self, client: &InstanceClient) {
        self.position_error = client.position_error().summary();
        self.entities = client.entities().len();
        self.checks = client.stats().checks;
        self.resyncs = client.stats().resyncs;
        self.moves = client.moves_done();
    }
}

/// Runs a whole session: the lobby, then the moves on the instance.
pub fn play(config: &SessionConfig) -> Result<SessionSummary, SessionError> {
    play_tracked(config, &mut SessionProgress::default())
}

/// [`play`], keeping `progress` up to date as the session goes, so that on an error it holds
/// what was seen before it.
pub fn play_tracked(
    config: &SessionConfig,
    progress: &mut SessionProgress,
) -> Result<SessionSummary, SessionError> {
    let (listed, port, instance) = enter(config)?;
    progress.instance = Some(instance);
    progress.port = Some(port);
    let server = SocketAddr::new(config.lobby.ip(), port);
    let local: SocketAddr = if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    };
    let client = InstanceClient::new(server, instance, moves(config.moves), Instant::now())
        .with_extrapolation(config.extrapolation);
    let mut driver = Driver::bind(local, client)?;
    driver.set_impairment(config.impairment.clone());
    loop {
        let left = config.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let c = driver.machine();
            return Err(SessionError::Deadline(format!(
                "{:?}, {} of {} moves played",
                c.phase(),
                c.moves_done(),
                config.moves
            )));
        }
        let polled = driver.poll(left.min(Duration::from_millis(50)));
        progress.observe(driver.machine());
        polled?;
        match driver.machine().phase().clone() {
            Phase::Done => break,
            Phase::Failed(why) => return Err(SessionError::Refused(why)),
            Phase::Connecting | Phase::Playing | Phase::Settling => {}
        }
    }
    // The QUITs.
    driver.flush()?;
    let c = driver.machine();
    progress.observe(c);
    Ok(SessionSummary {
        instance,
        port,
        entities: c.entities().len(),
        checks: c.stats().checks,
        resyncs: c.stats().resyncs,
        listed,
        moves: c.moves_done(),
        position_error: c.position_error().summary(),
    })
}
