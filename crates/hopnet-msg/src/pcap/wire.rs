//! hopnet's wire as an observer reads it: which datagrams are handshake, negotiation, netcode
//! or packets, and the chunks of messages they carry. The same rules as the Lua dissector's
//! (`dissector/protocol.lua`), kept per conversation in capture order.

use std::collections::HashMap;
use std::net::SocketAddr;

/// A chunk of a message, as a datagram carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk<'a> {
    pub sequence: u16,
    pub index: u8,
    pub last: bool,
    /// As the wire says it: `reliable` or `unreliable` on the spec's wire, the mode on the
    /// extended one.
    pub delivery: &'static str,
    pub compressed: bool,
    pub data: &'a [u8],
}

/// What one datagram is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Datagram<'a> {
    /// Chunks of messages (a spec packet carries one at most, an extended datagram several).
    Chunks(Vec<Chunk<'a>>),
    /// Nothing a message is made of: a handshake datagram, an acknowledgement, a ping, an
    /// offer or accept.
    Control,
    /// A netcode 1.02 packet: sealed, unreadable here.
    Netcode,
    /// Not hopnet's, or broken.
    Malformed(String),
}

const DELIVERY: [&str; 6] = [
    "unreliable",
    "sequenced",
    "reliable",
    "reliable ordered",
    "semi-ordered",
    "tracked",
];

/// What an observer knows of one client's connection.
#[derive(Debug, Default)]
struct Conversation {
    connected: bool,
    /// The accept said the extended datagrams end with a CRC-32.
    crc: Option<bool>,
}

/// The conversations seen so far, by client and server address.
#[derive(Debug, Default)]
pub(crate) struct Observer {
    conversations: HashMap<(SocketAddr, SocketAddr), Conversation>,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// netcode 1.02: the prefix byte's low nibble is the type, its high one the sequence's length;
/// the only packet in the clear, the request, is 1,078 bytes and starts with the version.
fn is_netcode(d: &[u8]) -> bool {
    if d.len() < 18 {
        return false;
    }
    if d[0] == 0 {
        return d.len() == 1078 && &d[1..14] == b"NETCODE 1.02\0";
    }
    let (ty, n) = (d[0] & 0x0f, usize::from(d[0] >> 4));
    (1..=6).contains(&ty) && (1..=8).contains(&n) && d.len() >= 1 + n + 16
}

impl Observer {
    /// Reads one datagram between `client` and `server`.
    pub(crate) fn datagram<'a>(
        &mut self,
        client: SocketAddr,
        server: SocketAddr,
        to_server: bool,
        d: &'a [u8],
    ) -> Datagram<'a> {
        let c = self.conversations.entry((client, server)).or_default();
        if is_netcode(d) {
            return Datagram::Netcode;
        }
        if d.len() == 4 {
            return four_bytes(c, to_server, d);
        }
        if d.len() >= 16 && d[0] == 0x06 && d[1] == 0xff && &d[4..6] == b"NX" {
            if d[7] == 2 {
                c.crc = Some(be16(d, 8) & 0x0004 != 0);
            }
            return Datagram::Control;
        }
        if d.len() >= 5 && d[0] == 0xe2 {
            c.connected = true;
            return extended(c, d);
        }
        if d.len() > 4 {
            c.connected = true;
            return packet(d);
        }
        Datagram::Malformed(format!(
            "a datagram of {} bytes, shorter than a header",
            d.len()
        ))
    }
}

/// A 4-byte datagram: a handshake datagram or a header, by the connection's state (PROTOCOL.md,
/// "The 4-byte rule").
fn four_bytes<'a>(c: &mut Conversation, to_server: bool, d: &'a [u8]) -> Datagram<'a> {
    let (flags, chunk) = (d[0], d[1]);
    if to_server {
        let probe = flags == 0x05 && chunk == 0xff;
        if probe || flags & 0xf0 != 0 || !c.connected {
            return Datagram::Control;
        }
    } else {
        if flags & 0x02 != 0 && flags & 0xf8 == 0 && chunk == 0xff {
            c.connected = true;
            return Datagram::Control;
        }
        if flags & 0xf0 != 0 || !c.connected {
            return Datagram::Control;
        }
    }
    packet(d)
}

/// A spec packet: the header, then a chunk unless it is an `ACK` or `END`.
fn packet(d: &[u8]) -> Datagram<'_> {
    let flags = d[0];
    if flags & 0x0a != 0 {
        return Datagram::Control;
    }
    Datagram::Chunks(vec![Chunk {
        sequence: be16(d, 2),
        index: d[1],
        last: flags & 0x04 != 0,
        delivery: if flags & 0x01 != 0 {
            "reliable"
        } else {
            "unreliable"
        },
        compressed: false,
        data: &d[4..],
    }])
}

/// Whether `d` is an extended datagram whose frames all parse, with a CRC-32 that matches or
/// without one.
pub(crate) fn extended_parses(d: &[u8]) -> bool {
    if d.len() < 5 || d[0] != 0xe2 {
        return false;
    }
    let crc_ok = d.split_last_chunk::<4>().is_some_and(|(body, sum)| {
        crc32fast::hash(body) == u32::from_be_bytes(*sum) && frames(&body[1..]).is_ok()
    });
    crc_ok || frames(&d[1..]).is_ok()
}

/// Whether a datagram is netcode's or an offer or accept: never part of a GSO batch of hopnet
/// packets here (netcode's are sealed, and the negotiation is sent alone).
pub(crate) fn is_whole(d: &[u8]) -> bool {
    is_netcode(d) || (d.len() >= 16 && d[0] == 0x06 && d[1] == 0xff && &d[4..6] == b"NX")
}

/// An extended datagram, with or without its CRC-32 (the accept says which; a capture that
/// missed it tries both, and takes the CRC only if it matches).
fn extended<'a>(c: &mut Conversation, d: &'a [u8]) -> Datagram<'a> {
    let with_crc = |d: &'a [u8]| -> Option<&'a [u8]> {
        let (body, sum) = d.split_last_chunk::<4>()?;
        (crc32fast::hash(body) == u32::from_be_bytes(*sum)).then_some(body)
    };
    let frames_of = |body: &'a [u8]| frames(&body[1..]);
    let result = match c.crc {
        Some(true) => match with_crc(d) {
            Some(body) => frames_of(body),
            None => Err("CRC mismatch".to_string()),
        },
        Some(false) => frames_of(d),
        None => match with_crc(d).map(frames_of) {
            Some(Ok(chunks)) => Ok(chunks),
            _ => frames_of(d),
        },
    };
    match result {
        Ok(chunks) if chunks.is_empty() => Datagram::Control,
        Ok(chunks) => Datagram::Chunks(chunks),
        Err(why) => Datagram::Malformed(format!("an extended datagram: {why}")),
    }
}

fn frames(mut b: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    let mut chunks = Vec::new();
    let truncated = || "a frame runs past the end".to_string();
    while let Some(&ty) = b.first() {
        match ty {
            0x00..=0x02 | 0x04 => b = &b[1..],
            0x03 => {
                let count = usize::from(*b.get(3).ok_or_else(truncated)?);
                let len = 4 + 6 * count;
                if count == 0 || b.len() < len {
                    return Err("an ACK frame without its entries".into());
                }
                b = &b[len..];
            }
            t if t & 0xc0 == 0x40 => {
                let mode = usize::from((t & 0x0e) >> 1);
                let delivery = *DELIVERY
                    .get(mode)
                    .ok_or_else(|| format!("unknown delivery mode {mode}"))?;
                let mut at = 3;
                let sequence = u16::from_be_bytes([
                    *b.get(1).ok_or_else(truncated)?,
                    *b.get(2).ok_or_else(truncated)?,
                ]);
                let index = if t & 0x01 != 0 {
                    at += 1;
                    *b.get(3).ok_or_else(truncated)?
                } else {
                    0
                };
                let first = *b.get(at).ok_or_else(truncated)?;
                let len = if first & 0x80 != 0 {
                    let second = *b.get(at + 1).ok_or_else(truncated)?;
                    at += 2;
                    usize::from(u16::from_be_bytes([first & 0x7f, second]))
                } else {
                    at += 1;
                    usize::from(first)
                };
                if index == 0 && (2..=4).contains(&mode) {
                    at += if mode == 3 { 4 } else { 2 };
                }
                let data = b.get(at..at + len).ok_or_else(truncated)?;
                chunks.push(Chunk {
                    sequence,
                    index,
                    last: t & 0x20 != 0,
                    delivery,
                    compressed: t & 0x10 != 0,
                    data,
                });
                b = &b[at + len..];
            }
            t => return Err(format!("unknown frame type {t:#04x}")),
        }
    }
    Ok(chunks)
}
