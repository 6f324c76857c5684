//! `netcode-official` (mas-bandwidth's Rust port of the netcode 1.02 reference) carrying the
//! same payloads unreliably: the cost of netcode alone, its I/O and its crypto, with no
//! reliability above it. A message larger than a payload packet is cut into packets of at
//! most 1,200 bytes, each with an 8-byte header (message, piece, pieces); the receiver counts
//! a message once all its pieces came. So that a sender with no acknowledgements does not
//! simply overflow the receiver's socket, the client keeps at most 256 KiB of messages ahead
//! of what the server has counted, read in-process: an ideal acknowledgement that costs the
//! wire nothing, which no real protocol has. At 0 % loss only (an unreliable 64 KiB message
//! through a lossy link is nearly always incomplete).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use bench::transport::{Outcome, Params, Shared, payload, spawn_server};

const PROTOCOL_ID: u64 = 7;
const PIECE: usize = 1200 - 8;
const AHEAD: usize = 256 * 1024;

fn err(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

/// The pieces of message `index`.
fn pieces(index: u32, msg: &[u8]) -> Vec<Vec<u8>> {
    let count = msg.len().div_ceil(PIECE).max(1) as u16;
    (0..count)
        .map(|k| {
            let start = usize::from(k) * PIECE;
            let body = &msg[start..(start + PIECE).min(msg.len())];
            let mut piece = Vec::with_capacity(8 + body.len());
            piece.extend_from_slice(&index.to_le_bytes());
            piece.extend_from_slice(&k.to_le_bytes());
            piece.extend_from_slice(&count.to_le_bytes());
            piece.extend_from_slice(body);
            piece
        })
        .collect()
}

/// Whether netcode-official can carry the case.
pub fn cannot(p: &Params) -> Option<&'static str> {
    (p.loss > 0.0).then_some("unreliable only: at 0 % loss")
}

/// One-way throughput of messages carried unreliably.
pub fn unreliable(p: &Params) -> Result<Outcome, String> {
    let key = netcode::generate_key();
    let start = Instant::now();
    let mut server =
        netcode::Server::new("127.0.0.1:0".parse().map_err(err)?, PROTOCOL_ID, &key, 0.0)
            .map_err(err)?;
    server.start(4).map_err(err)?;
    let addr = server.address();
    let shared = Shared::new();
    let (sh, size, count, deadline) = (shared.clone(), p.size, p.count, p.deadline);
    let srv = spawn_server(move || -> Result<(), String> {
        let give_up = Instant::now() + deadline + Duration::from_secs(5);
        let mut slot = None;
        // Pieces seen per message being assembled.
        let mut partial: HashMap<u32, u16> = HashMap::new();
        while !sh.is_done() && Instant::now() < give_up {
            server.update(start.elapsed().as_secs_f64());
            while let Some(event) = server.next_event() {
                if let netcode::ServerEvent::ClientConnected { client_index } = event {
                    slot = Some(client_index);
                }
            }
            let mut idle = true;
            if let Some(i) = slot {
                while let Some((piece, _)) = server.receive_packet(i) {
                    idle = false;
                    if piece.len() < 8 {
                        continue;
                    }
                    let index = u32::from_le_bytes(piece[..4].try_into().unwrap_or_default());
                    let pieces = u16::from_le_bytes([piece[6], piece[7]]);
                    let seen = partial.entry(index).or_default();
                    *seen += 1;
                    if *seen == pieces {
                        partial.remove(&index);
                        sh.deliver(count);
                    }
                }
            }
            if idle {
                thread::yield_now();
            }
        }
        Ok(())
    });
    let client_result = (|| -> Result<(), String> {
        let token = netcode::generate_connect_token(
            &[addr],
            &[addr],
            300,
            15,
            1,
            PROTOCOL_ID,
            &key,
            &[0; 256],
        )
        .map_err(err)?;
        let mut client =
            netcode::Client::new("127.0.0.1:0".parse().map_err(err)?, 0.0).map_err(err)?;
        client.connect(&token).map_err(err)?;
        let give_up = Instant::now() + Duration::from_secs(5);
        while client.state() != netcode::ClientState::Connected {
            if Instant::now() > give_up || client.state().is_error() {
                return Err(format!("netcode did not connect: {}", client.state()));
            }
            client.update(start.elapsed().as_secs_f64());
            thread::sleep(Duration::from_millis(1));
        }
        let msg = payload(size, 0);
        let ahead = (AHEAD / size).max(1) as u64;
        shared.start();
        let mut sent = 0u64;
        while !shared.is_done() && !shared.past(deadline) {
            client.update(start.elapsed().as_secs_f64());
            let delivered = shared.delivered.load(Ordering::Relaxed);
            let mut queued = false;
            while sent < count && sent < delivered + ahead {
                for piece in pieces(sent as u32, &msg) {
                    client.send_packet(&piece).map_err(err)?;
                }
                sent += 1;
                queued = true;
            }
            // A message lost on the way (a full socket) is never resent: let the window move.
            if !queued && sent < count && delivered + ahead <= sent {
                thread::yield_now();
            }
        }
        Ok(())
    })();
    shared.finish(srv, (), client_result, count, deadline)
}
