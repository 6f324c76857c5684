//! `rabbit-msg pcap`'s output: one JSON line per message of a capture.

use super::{Capture, Counts};
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
/// ```no_run
/// let decode = |_to_server: bool, bytes: &[u8]| ("Bytes", Ok(format!("{}", bytes.len())));
/// let counts = hopnet_msg::pcap::json_lines("game.pcap", &[7777], &decode, &mut std::io::stdout())?;
/// # Ok::<(), hopnet_msg::pcap::JsonLinesError>(())
/// ```
pub fn json_lines(
    path: impl AsRef<Path>,
    ports: &[u16],
    decode: Decoder<'_>,
    out: &mut dyn Write,
) -> Result<Counts, JsonLinesError> {
    let mut capture = Capture::open(path, ports)
        .map_err(JsonLinesError::Capture)?
        .check_messages(|to_server, bytes| decode(to_server, bytes).1.is_ok());
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
        let (ty, value) = decode(m.to_server, &m.bytes);
        let value = match value {
            Ok(json) => format!("\"value\":{json}"),
            Err(e) => format!("\"error\":{}", quote(&e)),
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
