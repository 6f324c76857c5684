//! Recording what crosses a machine's boundary to pcapng, the capture format Wireshark and
//! tshark read: every datagram a driver hands its machine and every datagram the machine
//! writes, with its time and both addresses, in both directions.
//!
//! A recording is where a misbehaving session is looked at (tshark, with the dissector
//! `rabbit-msg` generates) and replayed ([`replay`](crate::replay)): the machines are sans-I/O,
//! so their datagrams and their times are all that came in from outside.
//!
//! - What is written: each datagram as a raw-IP packet (link type `RAW`) whose IP and UDP
//!   headers are synthesized with the real addresses and ports, so that any pcap reader sees
//!   UDP between the two peers (a socket bound to `0.0.0.0` or `::` is shown with the address
//!   its kernel routes from to each peer). Direction is in each packet's flags (inbound or outbound),
//!   timestamps in nanoseconds. The section header's comment names the recording's origin, the
//!   local address and what it holds (see [`Recording`]).
//! - Where: at the machine's boundary, between the socket and the machine. Outgoing datagrams
//!   are written when the machine hands them over, so a datagram that an
//!   [`Impairment`](crate::Impairment) then drops is in the recording: it is what the machine
//!   did.
//! - Secure mode: the datagrams as the socket carries them (encrypted by netcode) unless the
//!   operator asks for the decrypted hopnet datagrams ([`RecordConfig::decrypted`]); PROTOCOL.md,
//!   "Recording a secure session".
//! - Bounded: a file holds at most [`RecordConfig::max_file_bytes`]; then the next one opens
//!   (`game.pcapng`, `game.1.pcapng`, `game.2.pcapng`...), and only the newest
//!   [`RecordConfig::max_files`] are kept.
//! - Never in the way of play: a failed write stops the recording, is reported once on stderr
//!   and kept ([`Recorder::error`]); the game goes on. Off (no recorder), a driver pays one
//!   branch per batch of datagrams.
//!
//! ```no_run
//! use hopnet::record::RecordConfig;
//! use hopnet::{Config, Server};
//!
//! let mut server = Server::bind("0.0.0.0:7777", Config::default())?;
//! server.record(RecordConfig::new("session.pcapng").max_files(4))?;
//! // ... play; then `tshark -r session.pcapng` shows UDP between the server and its clients.
//! # Ok::<(), hopnet::Error>(())
//! ```

pub(crate) mod decrypted;
mod ip_packet;
mod local_ip;
mod read;
mod rotation;
mod tap;

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use local_ip::LocalIp;
use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};

pub(crate) use decrypted::Drain;
pub use read::{RecordedDatagram, Recording, RecordingError};
pub use tap::Recorded;
pub(crate) use tap::Tap;

/// How often what is buffered goes out to the file.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// What a recorder writes and how much of it it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordConfig {
    path: PathBuf,
    max_file_bytes: u64,
    max_files: u64,
    decrypted: bool,
}

impl RecordConfig {
    /// A recording whose first file is `path` (the next ones are numbered before its
    /// extension), at most 64 MiB a file, the newest 8 files kept, the socket's datagrams as
    /// they are (encrypted in secure mode).
    ///
    /// ```
    /// let config = hopnet::record::RecordConfig::new("game.pcapng")
    ///     .max_file_bytes(16 << 20)
    ///     .max_files(2);
    /// assert_eq!(config.path(), std::path::Path::new("game.pcapng"));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> RecordConfig {
        RecordConfig {
            path: path.into(),
            max_file_bytes: 64 << 20,
            max_files: 8,
            decrypted: false,
        }
    }

    /// The size at which a file is closed and the next opened (at least one datagram is
    /// written to each file, whatever the cap).
    pub fn max_file_bytes(mut self, bytes: u64) -> RecordConfig {
        self.max_file_bytes = bytes;
        self
    }

    /// How many files are kept, the newest (at least one).
    pub fn max_files(mut self, files: u64) -> RecordConfig {
        self.max_files = files.max(1);
        self
    }

    /// In secure mode, records the hopnet datagrams as they are before encryption and after
    /// decryption, instead of what the socket carries. Off by default: a recording of the
    /// decrypted datagrams holds everything the players sent, readable by whoever gets the
    /// file. Without secure mode there is nothing to decrypt and this changes nothing.
    pub fn decrypted(mut self, on: bool) -> RecordConfig {
        self.decrypted = on;
        self
    }

    /// The first file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the decrypted datagrams are asked for.
    pub fn is_decrypted(&self) -> bool {
        self.decrypted
    }
}

/// Which way a datagram crossed the machine's boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From a peer to the machine.
    Inbound,
    /// From the machine to a peer.
    Outbound,
}

impl Direction {
    /// pcapng's `epb_flags` direction bits.
    fn flags(self) -> u32 {
        match self {
            Direction::Inbound => 1,
            Direction::Outbound => 2,
        }
    }
}

/// What a recorder has written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecorderStats {
    /// Datagrams written.
    pub datagrams: u64,
    /// Bytes written, in every file (headers included).
    pub bytes: u64,
    /// Files opened.
    pub files: u64,
    /// Datagrams not written: too large for one IP packet, or after a failed write.
    pub skipped: u64,
}

/// A file being written, and how many bytes it holds. Each block is gathered whole and handed
/// to the file in one write ([`commit`](Self::commit)), so that the file, flushed or cut off
/// by a killed process, ends on a block boundary and stays readable.
struct Counted<W> {
    inner: W,
    block: Vec<u8>,
    written: u64,
}

impl<W: Write> Counted<W> {
    fn commit(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.block)?;
        self.written += self.block.len() as u64;
        self.block.clear();
        Ok(())
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.block.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.commit()?;
        self.inner.flush()
    }
}

type FileWriter = PcapNgWriter<Counted<BufWriter<File>>>;

/// Writes datagrams to a rotated pcapng recording (see the [module](self)). Made by a driver's
/// `record`, or by hand around a machine ([`Recorded`]).
pub struct Recorder {
    config: RecordConfig,
    local: LocalIp,
    /// The instant the recording's times count from, and the wall time it was.
    origin: (Instant, SystemTime),
    writer: Option<FileWriter>,
    /// The number of the file open now.
    file: u64,
    /// Datagrams in it.
    in_file: u64,
    packet: Vec<u8>,
    /// When the file was last flushed.
    flushed: Instant,
    stats: RecorderStats,
    error: Option<io::Error>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("config", &self.config)
            .field("local", &self.local.bound())
            .field("file", &self.file)
            .field("stats", &self.stats)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// Opens the first file of a recording of the machine at `local`, whose times count from
    /// `origin` (an instant of the machine's clock; now is the wall time it stands for).
    /// Fails if the file cannot be created.
    ///
    /// ```no_run
    /// use std::time::Instant;
    /// use hopnet::record::{Direction, RecordConfig, Recorder};
    ///
    /// let local = "127.0.0.1:7777".parse().unwrap();
    /// let mut recorder = Recorder::create(RecordConfig::new("by-hand.pcapng"), local, Instant::now())?;
    /// recorder.record(Direction::Inbound, Instant::now(), "127.0.0.1:5000".parse().unwrap(), b"datagram");
    /// recorder.flush();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn create(
        config: RecordConfig,
        local: SocketAddr,
        origin: Instant,
    ) -> io::Result<Recorder> {
        let mut recorder = Recorder {
            config,
            local: LocalIp::new(local),
            origin: (origin, SystemTime::now()),
            writer: None,
            file: 0,
            in_file: 0,
            packet: Vec::new(),
            flushed: origin,
            stats: RecorderStats::default(),
            error: None,
        };
        recorder.writer = Some(recorder.open(0)?);
        Ok(recorder)
    }

    /// Writes one datagram that crossed at `at` between the machine and `peer`. Never fails:
    /// a failed write stops the recording (see [`error`](Self::error)).
    pub fn record(&mut self, direction: Direction, at: Instant, peer: SocketAddr, datagram: &[u8]) {
        if self.writer.is_none() {
            self.stats.skipped += 1;
            return;
        }
        let local = self.local.toward(peer);
        let (from, to) = match direction {
            Direction::Inbound => (peer, local),
            Direction::Outbound => (local, peer),
        };
        if ip_packet::write(from, to, datagram, &mut self.packet).is_err() {
            self.stats.skipped += 1;
            return;
        }
        if let Err(e) = self.write_packet(direction, at) {
            self.fail(e);
            return;
        }
        // Out to the file about once a second, so that a reader following the file (tshark
        // on a live session) sees it, and a killed process loses at most that much.
        if at
            .checked_duration_since(self.flushed)
            .is_some_and(|d| d >= FLUSH_EVERY)
        {
            self.flushed = at;
            self.flush();
        }
    }

    fn write_packet(&mut self, direction: Direction, at: Instant) -> io::Result<()> {
        let holds = |w: &FileWriter| w.get_ref().written;
        let full = self.writer.as_ref().map(holds).unwrap_or_default() + block_len(&self.packet)
            > self.config.max_file_bytes;
        if full && self.in_file > 0 {
            self.rotate()?;
        }
        let block = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: self.wall_time(at),
            original_len: self.packet.len() as u32,
            data: Cow::Borrowed(&self.packet),
            options: vec![EnhancedPacketOption::Flags(direction.flags())],
        };
        let Some(writer) = &mut self.writer else {
            return Ok(());
        };
        let before = writer.get_ref().written;
        writer.write_pcapng_block(block).map_err(pcap_error)?;
        writer.get_mut().commit()?;
        self.stats.bytes += writer.get_ref().written - before;
        self.stats.datagrams += 1;
        self.in_file += 1;
        Ok(())
    }

    /// Closes the file open now and opens the next, deleting the oldest kept.
    fn rotate(&mut self) -> io::Result<()> {
        if let Some(mut old) = self.writer.take() {
            old.get_mut().flush()?;
        }
        self.file += 1;
        if let Some(old) = rotation::dropped(&self.config.path, self.file, self.config.max_files) {
            match std::fs::remove_file(&old) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        self.writer = Some(self.open(self.file)?);
        Ok(())
    }

    /// Creates file `n` and writes its section and interface headers.
    fn open(&mut self, n: u64) -> io::Result<FileWriter> {
        let path = rotation::file_name(&self.config.path, n);
        let file = File::create(&path)?;
        let counted = Counted {
            inner: BufWriter::new(file),
            block: Vec::new(),
            written: 0,
        };
        let origin = self.origin.1.duration_since(UNIX_EPOCH).unwrap_or_default();
        let section = SectionHeaderBlock {
            options: vec![
                SectionHeaderOption::UserApplication(Cow::Borrowed("hopnet")),
                SectionHeaderOption::Comment(Cow::Owned(read::header_comment(
                    origin,
                    self.local.bound(),
                    self.config.decrypted,
                ))),
            ],
            ..SectionHeaderBlock::default()
        };
        let mut writer = PcapNgWriter::with_section_header(counted, section).map_err(pcap_error)?;
        let interface = InterfaceDescriptionBlock {
            linktype: DataLink::RAW,
            snaplen: 0,
            // Nanoseconds, as the timestamps are written.
            options: vec![InterfaceDescriptionOption::IfTsResol(9)],
        };
        writer.write_pcapng_block(interface).map_err(pcap_error)?;
        writer.get_mut().commit()?;
        self.stats.files += 1;
        self.in_file = 0;
        self.stats.bytes += writer.get_ref().written;
        Ok(writer)
    }

    /// The wall time `at` stands for, since the Unix epoch.
    fn wall_time(&self, at: Instant) -> Duration {
        let (origin, wall) = self.origin;
        let wall = match at.checked_duration_since(origin) {
            Some(after) => wall.checked_add(after),
            None => wall.checked_sub(origin.duration_since(at)),
        };
        wall.and_then(|w| w.duration_since(UNIX_EPOCH).ok())
            .unwrap_or_default()
    }

    fn fail(&mut self, e: io::Error) {
        eprintln!(
            "hopnet: recording to {} stopped: {e}",
            self.config.path.display()
        );
        self.writer = None;
        self.error = Some(e);
    }

    /// Writes out what is buffered. Never fails: see [`error`](Self::error).
    pub fn flush(&mut self) {
        if let Some(writer) = &mut self.writer
            && let Err(e) = writer.get_mut().flush()
        {
            self.fail(e);
        }
    }

    /// Why the recording stopped, if a write failed.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// What has been written.
    pub fn stats(&self) -> RecorderStats {
        self.stats
    }

    /// What it writes.
    pub fn config(&self) -> &RecordConfig {
        &self.config
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The size of an enhanced packet block around `packet` with one flags option.
fn block_len(packet: &[u8]) -> u64 {
    let padded = packet.len().div_ceil(4) * 4;
    // Block header and trailer, the packet fields, the flags option and the end of options.
    (12 + 20 + padded + 8 + 4) as u64
}

fn pcap_error(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}
