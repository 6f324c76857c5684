//! The TCP lobby as a sans-I/O state machine: bytes in, frames out. The instances behind it
//! are the host's (it binds their sockets and runs them), reached through [`Instances`].

use hopnet_formats::rtype::{Action, Frame};

use super::body::{self, Listing};
use super::frames;
use super::stream::FrameReader;

/// The game name a LIST line gives.
pub const GAME: &str = "RTYPE";

/// Why an instance could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateError {
    /// The host runs as many instances as it will.
    Full,
    /// The host could not bind a socket for it.
    Unavailable,
}

/// The instances a lobby offers: the host's side of the lobby.
pub trait Instances {
    /// Every instance, in a stable order.
    fn list(&self) -> Vec<Listing>;
    /// Makes an instance named `name` (a name [`valid_name`](super::valid_name) accepts).
    fn create(&mut self, name: &str) -> Result<Listing, CreateError>;
}

/// One lobby connection.
#[derive(Debug, Default)]
pub struct LobbySession {
    reader: FrameReader,
    /// Frames answered.
    pub requests: u64,
}

impl LobbySession {
    /// A connection that has just been accepted.
    pub fn new() -> LobbySession {
        LobbySession::default()
    }

    /// The frame reader's counters: frames dropped whole, bytes skipped.
    pub fn reader(&self) -> &FrameReader {
        &self.reader
    }

    /// Takes what came on the stream and appends the answers to `out`; returns how many bytes
    /// of `input` it took (all of them, unless one call brings more than a frame's worth of
    /// bytes that do not yet make a frame; call again with the rest).
    pub fn handle(
        &mut self,
        mut input: &[u8],
        instances: &mut impl Instances,
        out: &mut Vec<u8>,
    ) -> usize {
        let total = input.len();
        loop {
            let took = self.reader.push(input);
            input = &input[took..];
            while let Some(frame) = self.reader.next_frame() {
                self.answer(frame, instances, out);
            }
            if input.is_empty() || took == 0 {
                return total - input.len();
            }
        }
    }

    fn answer(&mut self, frame: Frame, instances: &mut impl Instances, out: &mut Vec<u8>) {
        self.requests += 1;
        match frame.action {
            Action::Connect => frames::encode(Action::Connect, "", out),
            Action::List => {
                for listing in instances.list() {
                    frames::encode(Action::List, &listing.to_string(), out);
                }
                frames::encode(Action::List, "", out);
            }
            Action::Create => {
                if !body::valid_name(&frame.message) {
                    return frames::encode(Action::Ko, "name", out);
                }
                match instances.create(&frame.message) {
                    Ok(l) => frames::encode(Action::Joined, &format!("{} {}", l.port, l.id), out),
                    Err(CreateError::Full) => frames::encode(Action::Ko, "full", out),
                    Err(CreateError::Unavailable) => frames::encode(Action::Ko, "unavailable", out),
                }
            }
            Action::Join => {
                let port = body::number::<u16>(&frame.message);
                let found = port.and_then(|p| instances.list().into_iter().find(|l| l.port == p));
                match found {
                    None => frames::encode(Action::Ko, "unknown", out),
                    Some(l) if l.players >= l.max_players => {
                        frames::encode(Action::Ko, "full", out)
                    }
                    Some(l) => frames::encode(Action::Joined, &format!("{} {}", l.port, l.id), out),
                }
            }
            Action::Ping => frames::encode(Action::Pong, &frame.message, out),
            // The game's actions belong on an instance's UDP port.
            _ => frames::encode(Action::Unknown, "", out),
        }
    }
}
