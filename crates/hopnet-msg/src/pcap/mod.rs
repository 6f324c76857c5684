//! The messages of a capture of hopnet traffic (`rabbit-msg pcap`): pcap or pcapng files, from
//! tcpdump on a loopback or an Ethernet interface, or a recording of raw IP or Ethernet frames.
//!
//! Datagrams to or from the game server's ports are read as hopnet's wire (the same rules as
//! the Wireshark dissector, [`crate::dissector`]): handshake and control datagrams are passed
//! over, chunks are reassembled into messages in capture order, LZ4-compressed messages of the
//! extended wire are decompressed, and each message comes out once, with its time (the datagram
//! that completed it), its addresses, its direction and its delivery where the wire says it.
//! netcode's sealed packets cannot be read without their keys: they are counted.
//!
//! ```no_run
//! use hopnet_msg::pcap::Capture;
//!
//! let mut capture = Capture::open("game.pcapng", &[7777])?;
//! while let Some(message) = capture.next_message() {
//!     let message = message?;
//!     println!("{} {} -> {}: {} bytes", message.time, message.src, message.dst, message.bytes.len());
//! }
//! # Ok::<(), String>(())
//! ```

mod file;
mod gso;
mod json_lines;
mod link;
mod reassembly;
mod snapshot_deltas;
mod wire;

pub use json_lines::{Decoder, JsonLinesError, json_lines};
pub use link::{Udp, udp};
/// A capture's link type (the `pcap-file` crate's), which [`udp`] reads frames by.
pub use pcap_file::DataLink;
pub use snapshot_deltas::{DecodedDelta, SCOPED_UPDATE, SNAPSHOT_DELTA, SnapshotDeltas};

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::net::SocketAddr;
use std::path::Path;

/// A message reassembled from a capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// When its last chunk was captured, in seconds since the Unix epoch.
    pub time: f64,
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// Sent to the server (a client's message), else from it.
    pub to_server: bool,
    /// Its sequence id.
    pub sequence: u16,
    /// How it was sent, as the wire says: `reliable` or `unreliable` on the spec's wire; the
    /// mode (`sequenced`, `reliable ordered`, `semi-ordered`, `tracked`, ...) on the extended one.
    pub delivery: &'static str,
    /// The message's bytes (decompressed, if it was sent compressed).
    pub bytes: Vec<u8>,
}

/// What a capture held besides messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames read.
    pub frames: u64,
    /// UDP datagrams to or from the ports.
    pub datagrams: u64,
    /// netcode packets: sealed, so their messages cannot be read.
    pub netcode: u64,
    /// Datagrams to or from the ports that are not hopnet's wire, and compressed messages that
    /// do not decompress.
    pub malformed: u64,
}

/// A capture file, read message by message (`'a`: the lifetime of the check of
/// [`Capture::check_messages`]).
pub struct Capture<'a> {
    packets: file::Packets<file::Peeked<BufReader<File>>>,
    ports: Vec<u16>,
    observer: wire::Observer,
    reassembly: reassembly::Reassembly,
    ready: VecDeque<Message>,
    counts: Counts,
    failed: bool,
    decodes: Option<Box<Decodes<'a>>>,
}

/// Whether a message (its sender, its receiver, sent to the server or not, its bytes) decodes.
type Decodes<'a> = dyn Fn(SocketAddr, SocketAddr, bool, &[u8]) -> bool + 'a;

impl<'a> Capture<'a> {
    /// Opens a pcap or pcapng file; `ports` are the game server's UDP ports.
    pub fn open(path: impl AsRef<Path>, ports: &[u16]) -> Result<Capture<'a>, String> {
        let path = path.as_ref();
        let f = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let packets =
            file::open(BufReader::new(f)).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Capture {
            packets,
            ports: ports.to_vec(),
            observer: wire::Observer::default(),
            reassembly: reassembly::Reassembly::default(),
            ready: VecDeque::new(),
            counts: Counts::default(),
            failed: false,
            decodes: None,
        })
    }

    /// Tells whether a message decodes (`to_server`, its bytes): with it, a datagram that a
    /// capture on the sender's loopback shows whole but that is a GSO batch of several (the
    /// kernel splits them only on the receiving side) is split back into its datagrams when
    /// read whole its message would not decode. Without it such a datagram is read whole unless
    /// its shape says otherwise.
    ///
    /// ```no_run
    /// use hopnet_msg::pcap::Capture;
    /// use hopnet_snow_fight::{ClientMessage, ServerMessage};
    ///
    /// let capture = Capture::open("game.pcap", &[7777])?.check_messages(|to_server, bytes| {
    ///     if to_server {
    ///         hopnet_codec::from_bytes::<ClientMessage>(bytes).is_ok()
    ///     } else {
    ///         hopnet_codec::from_bytes::<ServerMessage>(bytes).is_ok()
    ///     }
    /// });
    /// # Ok::<(), String>(())
    /// ```
    pub fn check_messages(self, decodes: impl Fn(bool, &[u8]) -> bool + 'a) -> Self {
        self.check_flow_messages(move |_, _, to_server, bytes| decodes(to_server, bytes))
    }

    /// [`Capture::check_messages`] for messages whose decoding depends on their flow (a
    /// snapshot delta's on the snapshots its client was sent): `decodes(src, dst, to_server,
    /// bytes)`.
    ///
    /// ```no_run
    /// use hopnet_msg::pcap::Capture;
    ///
    /// let capture = Capture::open("game.pcap", &[7777])?
    ///     .check_flow_messages(|_src, _dst, _to_server, bytes| !bytes.is_empty());
    /// # Ok::<(), String>(())
    /// ```
    pub fn check_flow_messages(
        mut self,
        decodes: impl Fn(SocketAddr, SocketAddr, bool, &[u8]) -> bool + 'a,
    ) -> Self {
        self.decodes = Some(Box::new(decodes));
        self
    }

    /// What was read so far besides messages.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The next message; `None` at the end of the file; an error (once) where the file stops
    /// making sense, saying after which frame.
    pub fn next_message(&mut self) -> Option<Result<Message, String>> {
        loop {
            if let Some(m) = self.ready.pop_front() {
                return Some(Ok(m));
            }
            if self.failed {
                return None;
            }
            let packet = match self.packets.next_packet()? {
                Ok(p) => p,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(format!(
                        "the capture stops after frame {}: {e}",
                        self.counts.frames
                    )));
                }
            };
            self.counts.frames += 1;
            self.frame(&packet);
        }
    }

    fn frame(&mut self, packet: &file::Packet) {
        let Some(d) = udp(packet.link, &packet.data) else {
            return;
        };
        let to_server = self.ports.contains(&d.dst.port());
        if !to_server && !self.ports.contains(&d.src.port()) {
            return;
        }
        self.counts.datagrams += 1;
        let (client, server) = if to_server {
            (d.src, d.dst)
        } else {
            (d.dst, d.src)
        };
        let segments = if wire::is_whole(d.payload) {
            vec![d.payload]
        } else {
            let decodes = |m: &[u8]| {
                self.decodes
                    .as_ref()
                    .is_none_or(|f| f(d.src, d.dst, to_server, m))
            };
            let shapes = gso::Shapes {
                extended_parses: &wire::extended_parses,
                decodes: &decodes,
            };
            gso::segments(d.payload, &shapes)
        };
        for segment in segments {
            self.datagram(packet.time, &d, (client, server), to_server, segment);
        }
    }

    /// One datagram (a GSO batch's segment, or a whole captured datagram).
    fn datagram(
        &mut self,
        time: f64,
        d: &Udp<'_>,
        (client, server): (SocketAddr, SocketAddr),
        to_server: bool,
        segment: &[u8],
    ) {
        let chunks = match self.observer.datagram(client, server, to_server, segment) {
            wire::Datagram::Chunks(chunks) => chunks,
            wire::Datagram::Control => return,
            wire::Datagram::Netcode => {
                self.counts.netcode += 1;
                return;
            }
            wire::Datagram::Malformed(_) => {
                self.counts.malformed += 1;
                return;
            }
        };
        for chunk in &chunks {
            let Some(m) = self.reassembly.chunk(d.src, d.dst, chunk) else {
                continue;
            };
            let bytes = if m.compressed {
                match decompress(&m.bytes) {
                    Some(bytes) => bytes,
                    None => {
                        self.counts.malformed += 1;
                        continue;
                    }
                }
            } else {
                m.bytes
            };
            self.ready.push_back(Message {
                time,
                src: d.src,
                dst: d.dst,
                to_server,
                sequence: m.sequence,
                delivery: m.delivery,
                bytes,
            });
        }
    }
}

/// The largest message hopnet sends (256 chunks of 504 bytes).
const MAX_PAYLOAD: usize = 129_024;

/// A compressed message: its length (32 bits, big-endian), then one LZ4 block.
fn decompress(bytes: &[u8]) -> Option<Vec<u8>> {
    let (len, block) = bytes.split_first_chunk::<4>()?;
    let n = usize::try_from(u32::from_be_bytes(*len)).ok()?;
    if n > MAX_PAYLOAD {
        return None;
    }
    let mut out = vec![0; n];
    match lz4_flex::block::decompress_into(block, &mut out) {
        Ok(got) if got == n => Some(out),
        _ => None,
    }
}
