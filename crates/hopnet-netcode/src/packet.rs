//! The seven packets of netcode 1.02 on the wire, and the order of the checks on receipt.
//!
//! The connection request (type 0) is the only packet in the clear: a zero prefix, the version,
//! protocol id, expiry and nonce of the connect token, and its sealed private part. Every
//! other packet is a prefix byte, a variable-length sequence, then its content sealed with
//! ChaCha20-Poly1305 under the sender's key, the nonce built from the sequence, and the
//! version, protocol id and prefix byte as associated data.
//!
//! An encrypted packet is checked in the standard's order ("Reading Encrypted Packets"): size,
//! type, direction, sequence length, size again ([`read_header`]); then the replay window,
//! decryption, the window's update, and the content's size ([`open_packet`]).

use super::aead::MAC_BYTES;
use super::challenge_token::CHALLENGE_TOKEN_BYTES;
use super::connect_token::ConnectToken;
use super::key::Key;
use super::packet_key::PacketKey;
use super::private_token::{PRIVATE_TOKEN_BYTES, PrivateSeal, PrivateToken, TOKEN_NONCE_BYTES};
use super::replay::ReplayWindow;
use super::sequence::{prefix_byte, read_sequence, sequence_bytes, write_sequence};
use super::stats::DropReason;
use super::version::{VERSION_INFO, versioned_ad};
use super::wire::Reader;

/// The most payload one packet carries.
pub const MAX_PAYLOAD_BYTES: usize = 1200;
/// The longest netcode packet: a full payload packet with an 8-byte sequence.
pub const MAX_PACKET_BYTES: usize = 1 + 8 + MAX_PAYLOAD_BYTES + MAC_BYTES;
/// The size of a connection request.
pub const REQUEST_PACKET_BYTES: usize = 1 + 13 + 8 + 8 + TOKEN_NONCE_BYTES + PRIVATE_TOKEN_BYTES;
/// The smallest encrypted packet: a prefix, one sequence byte, an empty content's 16-byte tag.
const MIN_ENCRYPTED_BYTES: usize = 1 + 1 + MAC_BYTES;

pub(crate) const REQUEST: u8 = 0;
pub(crate) const DENIED: u8 = 1;
pub(crate) const CHALLENGE: u8 = 2;
pub(crate) const RESPONSE: u8 = 3;
pub(crate) const KEEP_ALIVE: u8 = 4;
pub(crate) const PAYLOAD: u8 = 5;
pub(crate) const DISCONNECT: u8 = 6;
const TYPES: u8 = 7;

/// An encrypted packet's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Packet<'a> {
    Denied,
    Challenge {
        token_sequence: u64,
        token: [u8; CHALLENGE_TOKEN_BYTES],
    },
    Response {
        token_sequence: u64,
        token: [u8; CHALLENGE_TOKEN_BYTES],
    },
    KeepAlive {
        client_index: u32,
        max_clients: u32,
    },
    Payload(&'a [u8]),
    Disconnect,
}

impl Packet<'_> {
    fn packet_type(&self) -> u8 {
        match self {
            Packet::Denied => DENIED,
            Packet::Challenge { .. } => CHALLENGE,
            Packet::Response { .. } => RESPONSE,
            Packet::KeepAlive { .. } => KEEP_ALIVE,
            Packet::Payload(_) => PAYLOAD,
            Packet::Disconnect => DISCONNECT,
        }
    }
}

/// Which end reads: each ignores the packets only the other end receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    Server,
    Client,
}

impl Receiver {
    fn accepts(self, packet_type: u8) -> bool {
        match self {
            Receiver::Server => matches!(packet_type, RESPONSE | KEEP_ALIVE | PAYLOAD | DISCONNECT),
            Receiver::Client => {
                matches!(
                    packet_type,
                    DENIED | CHALLENGE | KEEP_ALIVE | PAYLOAD | DISCONNECT
                )
            }
        }
    }
}

/// The associated data of a packet: version, protocol id, prefix byte. The prefix is in it so
/// that an attacker cannot change a packet's type (or its sequence's length).
fn packet_ad(protocol_id: u64, prefix: u8) -> [u8; 13 + 8 + 1] {
    versioned_ad(protocol_id, &[prefix])
}

/// The size of the payload packet that carries `len` bytes under `sequence`.
pub(crate) fn payload_packet_len(len: usize, sequence: u64) -> usize {
    1 + usize::from(sequence_bytes(sequence)) + len + MAC_BYTES
}

/// Appends `packet` sealed under `*sequence`, which then moves on: how a connection's end
/// sends every packet, so that no sequence is sealed twice. `None` as [`append_packet`], and
/// the sequence is then unchanged.
pub(crate) fn append_next(
    packet: &Packet<'_>,
    sequence: &mut u64,
    key: &PacketKey,
    protocol_id: u64,
    out: &mut Vec<u8>,
) -> Option<()> {
    append_packet(packet, *sequence, key, protocol_id, out)?;
    *sequence += 1;
    Some(())
}

/// Appends an encrypted packet to `out`, after what it holds (a batch being built, or nothing
/// for a packet of its own). `None` for a payload outside 1 to 1,200 bytes, and `out` is then
/// as it was.
pub(crate) fn append_packet(
    packet: &Packet<'_>,
    sequence: u64,
    key: &PacketKey,
    protocol_id: u64,
    out: &mut Vec<u8>,
) -> Option<()> {
    let start = out.len();
    let prefix = prefix_byte(packet.packet_type(), sequence);
    out.push(prefix);
    write_sequence(out, sequence);
    let content = out.len();
    match packet {
        Packet::Denied | Packet::Disconnect => {}
        Packet::Challenge {
            token_sequence,
            token,
        }
        | Packet::Response {
            token_sequence,
            token,
        } => {
            out.extend_from_slice(&token_sequence.to_le_bytes());
            out.extend_from_slice(token);
        }
        Packet::KeepAlive {
            client_index,
            max_clients,
        } => {
            out.extend_from_slice(&client_index.to_le_bytes());
            out.extend_from_slice(&max_clients.to_le_bytes());
        }
        Packet::Payload(payload) => {
            if payload.is_empty() || payload.len() > MAX_PAYLOAD_BYTES {
                out.truncate(start);
                return None;
            }
            out.extend_from_slice(payload);
        }
    }
    out.resize(out.len() + MAC_BYTES, 0);
    let sealed = key.seal(
        sequence,
        &packet_ad(protocol_id, prefix),
        &mut out[content..],
    );
    if sealed.is_none() {
        out.truncate(start);
    }
    sealed
}

/// Writes the connection request for `token` into `out` (cleared first).
pub(crate) fn write_request(token: &ConnectToken, out: &mut Vec<u8>) {
    out.clear();
    out.push(REQUEST);
    out.extend_from_slice(VERSION_INFO);
    out.extend_from_slice(&token.protocol_id.to_le_bytes());
    out.extend_from_slice(&token.expire_timestamp.to_le_bytes());
    out.extend_from_slice(&token.nonce);
    out.extend_from_slice(&token.private_data[..]);
}

/// What an encrypted packet says about itself before it is decrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub prefix: u8,
    pub packet_type: u8,
    pub sequence: u64,
    /// Where the sealed content starts.
    content: usize,
}

/// The checks before decryption, in the standard's order. The prefix must not be zero (the
/// caller sends those to [`read_request`]).
pub(crate) fn read_header(datagram: &[u8], receiver: Receiver) -> Result<Header, DropReason> {
    if datagram.len() < MIN_ENCRYPTED_BYTES {
        return Err(DropReason::TooSmall);
    }
    let prefix = datagram[0];
    let packet_type = prefix & 0x0f;
    if packet_type >= TYPES {
        return Err(DropReason::UnknownType);
    }
    if !receiver.accepts(packet_type) {
        return Err(DropReason::WrongDirection);
    }
    let sequence_bytes = usize::from(prefix >> 4);
    if !(1..=8).contains(&sequence_bytes) {
        return Err(DropReason::SequenceLength);
    }
    if datagram.len() < 1 + sequence_bytes + MAC_BYTES {
        return Err(DropReason::TooSmall);
    }
    let sequence = read_sequence(&datagram[1..], sequence_bytes).ok_or(DropReason::TooSmall)?;
    Ok(Header {
        prefix,
        packet_type,
        sequence,
        content: 1 + sequence_bytes,
    })
}

/// The checks from the replay window on, in the standard's order: refused if the window has
/// seen the sequence, decrypted in place, the sequence recorded, the content's size checked.
/// `replay` is the window of a connected peer (none during the handshake).
pub(crate) fn open_packet<'a>(
    buf: &'a mut [u8],
    header: &Header,
    key: &PacketKey,
    protocol_id: u64,
    replay: Option<&mut ReplayWindow>,
) -> Result<Packet<'a>, DropReason> {
    let replay_protected = header.packet_type >= KEEP_ALIVE;
    if replay_protected
        && let Some(window) = replay.as_deref()
        && !window.is_fresh(header.sequence)
    {
        return Err(DropReason::Replayed);
    }
    let sealed = buf.get_mut(header.content..).ok_or(DropReason::TooSmall)?;
    key.open(
        header.sequence,
        &packet_ad(protocol_id, header.prefix),
        sealed,
    )
    .map_err(|_| DropReason::Unauthentic)?;
    if replay_protected && let Some(window) = replay {
        window.record(header.sequence);
    }
    let content = &sealed[..sealed.len() - MAC_BYTES];
    let mut r = Reader::new(content);
    let exact = |len: usize| {
        if content.len() == len {
            Ok(())
        } else {
            Err(DropReason::WrongLength)
        }
    };
    match header.packet_type {
        DENIED => exact(0).map(|()| Packet::Denied),
        DISCONNECT => exact(0).map(|()| Packet::Disconnect),
        CHALLENGE | RESPONSE => {
            exact(8 + CHALLENGE_TOKEN_BYTES)?;
            let token_sequence = r.u64().ok_or(DropReason::WrongLength)?;
            let token = r.array().ok_or(DropReason::WrongLength)?;
            Ok(if header.packet_type == CHALLENGE {
                Packet::Challenge {
                    token_sequence,
                    token,
                }
            } else {
                Packet::Response {
                    token_sequence,
                    token,
                }
            })
        }
        KEEP_ALIVE => {
            exact(8)?;
            let client_index = r.u32().ok_or(DropReason::WrongLength)?;
            let max_clients = r.u32().ok_or(DropReason::WrongLength)?;
            Ok(Packet::KeepAlive {
                client_index,
                max_clients,
            })
        }
        PAYLOAD if (1..=MAX_PAYLOAD_BYTES).contains(&content.len()) => Ok(Packet::Payload(content)),
        PAYLOAD => Err(DropReason::WrongLength),
        _ => Err(DropReason::UnknownType),
    }
}

/// A connection request that passed every check of its own.
#[derive(Debug)]
pub(crate) struct Request {
    pub token: PrivateToken,
    /// The private part's tag: the token's identity in the history of used tokens.
    pub mac: [u8; MAC_BYTES],
}

/// The server's checks of a connection request, in the standard's order, up to reading the
/// private token: size, version, protocol id, expiry (against `now_unix`), decryption, layout.
pub(crate) fn read_request(
    datagram: &[u8],
    protocol_id: u64,
    now_unix: u64,
    private_key: &Key,
) -> Result<Request, DropReason> {
    if datagram.len() != REQUEST_PACKET_BYTES {
        return Err(DropReason::RequestLength);
    }
    let mut r = Reader::new(&datagram[1..]);
    if r.array::<13>().as_ref() != Some(VERSION_INFO) {
        return Err(DropReason::RequestVersion);
    }
    if r.u64() != Some(protocol_id) {
        return Err(DropReason::RequestProtocol);
    }
    let expire_timestamp = r.u64().ok_or(DropReason::RequestLength)?;
    if expire_timestamp <= now_unix {
        return Err(DropReason::RequestExpired);
    }
    let nonce = r
        .array::<TOKEN_NONCE_BYTES>()
        .ok_or(DropReason::RequestLength)?;
    let mut private = r
        .array::<PRIVATE_TOKEN_BYTES>()
        .ok_or(DropReason::RequestLength)?;
    let mac = *private
        .last_chunk::<MAC_BYTES>()
        .ok_or(DropReason::RequestLength)?;
    PrivateSeal {
        protocol_id,
        expire_timestamp,
        nonce: &nonce,
        private_key,
    }
    .open(&mut private)
    .map_err(|_| DropReason::RequestToken)?;
    let token = PrivateToken::read(&private).ok_or(DropReason::RequestToken)?;
    Ok(Request { token, mac })
}
