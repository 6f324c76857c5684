//! `rabbit-msg pcap`'s output: one JSON line per message of a capture.

use super::{Capture, Counts, SnapshotDeltas};
use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;

/// How a message's bytes decode: its type's name, and its JSON (or why not).
pub type Decoder<'a> = &'a dyn Fn(bool, &[u8]) -> (&'static str, Result<String, String>);

/// Why [`json_lines`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum JsonLinesError {
    /// The capture cannot be read (from here on, or at all).
    #[error("{0}")]
    Capture(String),
    /// The output cannot be written.
    #[error("cannot write: {0}")]
    Write(#[from] io::Error),
}

/// Writes each message of the capture at `path` as a line of JSON: `time` (seconds since the
/// Unix epoch), `src`, `dst`, `type` and `delivery` (strings), `sequence`, then `value` (the
/// message's JSON) or `error`. `decode(to_server, bytes)` names and decodes a message; it also
/// tells a GSO batch captured whole from one datagram ([`Capture::check_messages`]). Returns
/// what the capture held besides messages.
///
/// With `deltas`, the server's messages are Snow Fight's: a snapshot delta is decoded against
/// the snapshot its client was sent earlier in the capture ([`SnapshotDeltas`]) and printed as
/// type `SnapshotDelta`, its `value` its header (`channel`, `time`, `base`) and `snapshot`, or
/// its header and an `error` when its baseline is not in the capture.
///
/// ```no_run
/// let decode = |_to_server: bool, bytes: &[u8]| ("Bytes", Ok(format!("{}", bytes.len())));
/// let counts =
///     hopnet_msg::pcap::json_lines("game.pcap", &[7777], &decode, None, &mut std::io::stdout())?;
/// # Ok::<(), hopnet_msg::pcap::JsonLinesError>(())
/// ```
pub fn json_lines(
    path: impl AsRef<Path>,
    ports: &[u16],
    decode: Decoder<'_>,
    deltas: Option<&mut SnapshotDeltas>,
    out: &mut dyn Write,
) -> Result<Counts, JsonLinesError> {
    // Shared with the check of GSO batches, which runs between the messages.
    let deltas = deltas.map(RefCell::new);
    let mut capture = Capture::open(path, ports)
        .map_err(JsonLinesError::Capture)?
        .check_flow_messages(|src, dst, to_server, bytes| {
            let delta_decodes = || match &deltas {
                Some(d) if !to_server => d.borrow().decodes(src, dst, bytes),
                _ => false,
            };
            decode(to_server, bytes).1.is_ok() || delta_decodes()
        });
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut pending = Vec::new();
    while let Some(message) = capture.next_message() {
        let m = match message {
            Ok(m) => m,
            Err(e) => {
                out.write_all(&pending)?;
                out.flush()?;
                return Err(JsonLinesError::Capture(e));
            }
        };
        let delta = match &deltas {
            Some(d) if !m.to_server => d.borrow_mut().server_message(m.src, m.dst, &m.bytes),
            _ => None,
        };
        let (ty, value) = match delta {
            Some(d) => (
                d.ty,
                match d.error {
                    None => format!("\"value\":{}", d.value),
                    Some(e) => format!("\"value\":{},\"error\":{}", d.value, quote(&e)),
                },
            ),
            None => match decode(m.to_server, &m.bytes) {
                (ty, Ok(json)) => (ty, format!("\"value\":{json}")),
                (ty, Err(e)) => (ty, format!("\"error\":{}", quote(&e))),
            },
        };
        writeln!(
            pending,
            "{{\"time\":{:.6},\"src\":{},\"dst\":{},\"type\":{},\"delivery\":{},\"sequence\":{},{value}}}",
            m.time,
            quote(&m.src.to_string()),
            quote(&m.dst.to_string()),
            quote(ty),
            quote(m.delivery),
            m.sequence,
        )?;
        if pending.len() >= 1 << 16 {
            out.write_all(&pending)?;
            pending.clear();
        }
    }
    out.write_all(&pending)?;
    out.flush()?;
    Ok(capture.counts().clone())
}
