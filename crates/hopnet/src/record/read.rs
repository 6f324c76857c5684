//! A recording read back: its origin, its machine's address, and its datagrams in order, for
//! [`replay`](crate::replay) and for tests.

use std::fs::File;
use std::io::{self, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use pcap_file::DataLink;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::section_header::SectionHeaderOption;
use pcap_file::pcapng::{Block, PcapNgReader};

use super::{Direction, ip_packet};

/// The section header comment's first words: what marks a file as a hopnet recording.
const MARK: &str = "hopnet recording:";

/// The comment a recording's section header carries: the wall time its times count from (in
/// nanoseconds since the Unix epoch), the machine's address, and whether it holds the
/// socket's datagrams or secure mode's decrypted ones.
pub(crate) fn header_comment(origin: Duration, local: SocketAddr, decrypted: bool) -> String {
    let contents = if decrypted { "decrypted" } else { "socket" };
    format!(
        "{MARK} origin_unix_ns={} local={local} contents={contents}",
        origin.as_nanos()
    )
}

/// Why a file could not be read as a recording.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The file could not be read.
    #[error("reading the recording: {0}")]
    Io(#[source] io::Error),
    /// The file is not a pcapng recording written by hopnet, or is damaged.
    #[error("not a hopnet recording: {0}")]
    Format(String),
}

/// One datagram of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedDatagram {
    /// When it crossed, since the recording's origin.
    pub at: Duration,
    /// Which way.
    pub direction: Direction,
    /// The peer it came from or went to.
    pub peer: SocketAddr,
    /// The datagram.
    pub bytes: Vec<u8>,
}

/// A recording file read whole (one file of a rotated recording: each is complete).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// The wall time the recording's times count from, since the Unix epoch: the instant the
    /// recorder was made with.
    pub origin: Duration,
    /// The recorded machine's address.
    pub local: SocketAddr,
    /// Whether it holds secure mode's decrypted datagrams rather than the socket's.
    pub decrypted: bool,
    /// The datagrams, in the order they crossed.
    pub datagrams: Vec<RecordedDatagram>,
}

impl Recording {
    /// Reads a recording file that a [`Recorder`](super::Recorder) wrote.
    ///
    /// ```no_run
    /// let recording = hopnet::record::Recording::read("session.pcapng")?;
    /// for d in &recording.datagrams {
    ///     println!("{:?} {:?} {} {} bytes", d.at, d.direction, d.peer, d.bytes.len());
    /// }
    /// # Ok::<(), hopnet::record::RecordingError>(())
    /// ```
    pub fn read(path: impl AsRef<Path>) -> Result<Recording, RecordingError> {
        let file = File::open(path).map_err(RecordingError::Io)?;
        let mut reader = PcapNgReader::new(BufReader::new(file)).map_err(format)?;
        let comment = reader.section().options.iter().find_map(|o| match o {
            SectionHeaderOption::Comment(c) if c.starts_with(MARK) => Some(c.to_string()),
            _ => None,
        });
        let comment = comment.ok_or_else(|| bad("no hopnet section comment"))?;
        let (origin, local, decrypted) = parse_comment(&comment)?;
        let mut datagrams = Vec::new();
        let mut links = Vec::new();
        while let Some(block) = reader.next_block() {
            let packet = match block.map_err(format)? {
                Block::EnhancedPacket(packet) => packet,
                Block::InterfaceDescription(interface) => {
                    links.push(interface.linktype);
                    continue;
                }
                _ => continue,
            };
            let link = links.get(packet.interface_id as usize);
            if link != Some(&DataLink::RAW) {
                return Err(bad("a packet not on the recording's raw-IP interface"));
            }
            let (src, dst, payload) =
                ip_packet::read(&packet.data).ok_or_else(|| bad("a packet that is not UDP"))?;
            let flags = packet.options.iter().find_map(|o| match o {
                EnhancedPacketOption::Flags(f) => Some(f & 3),
                _ => None,
            });
            let direction = match flags {
                Some(1) => Direction::Inbound,
                Some(2) => Direction::Outbound,
                _ if src.port() == local.port()
                    && (src.ip() == local.ip() || local.ip().is_unspecified()) =>
                {
                    Direction::Outbound
                }
                _ => Direction::Inbound,
            };
            let peer = match direction {
                Direction::Inbound => src,
                Direction::Outbound => dst,
            };
            let at = packet
                .timestamp
                .checked_sub(origin)
                .ok_or_else(|| bad("a packet before the recording's origin"))?;
            datagrams.push(RecordedDatagram {
                at,
                direction,
                peer,
                bytes: payload.to_vec(),
            });
        }
        Ok(Recording {
            origin,
            local,
            decrypted,
            datagrams,
        })
    }
}

fn parse_comment(comment: &str) -> Result<(Duration, SocketAddr, bool), RecordingError> {
    let field = |name: &str| {
        comment
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .ok_or_else(|| bad(&format!("no {name} in the section comment")))
    };
    let nanos: u128 = field("origin_unix_ns")?
        .parse()
        .map_err(|_| bad("origin_unix_ns is not a number"))?;
    let nanos = u64::try_from(nanos).map_err(|_| bad("origin_unix_ns out of range"))?;
    let local = field("local")?
        .parse()
        .map_err(|_| bad("local is not an address"))?;
    let decrypted = match field("contents")? {
        "socket" => false,
        "decrypted" => true,
        _ => return Err(bad("contents is neither socket nor decrypted")),
    };
    Ok((Duration::from_nanos(nanos), local, decrypted))
}

fn bad(why: &str) -> RecordingError {
    RecordingError::Format(why.to_string())
}

fn format(e: pcap_file::PcapError) -> RecordingError {
    match e {
        pcap_file::PcapError::IoError(e) => RecordingError::Io(e),
        other => RecordingError::Format(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_comment_reads_back() {
        let local = "[2001:db8::1]:7777".parse().unwrap();
        let origin = Duration::new(1_700_000_000, 123_456_789);
        let comment = header_comment(origin, local, true);
        assert_eq!(parse_comment(&comment).unwrap(), (origin, local, true));
        assert!(parse_comment("hopnet recording: local=1.2.3.4:5").is_err());
    }
}
