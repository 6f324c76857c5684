//! A small static site over HTTP: the page that plays, its scripts, and what it must know to
//! open its WebTransport session.
//!
//! A browser loads a page over HTTP(S), and only then may the page open a WebTransport
//! session; with a self-signed certificate it must also be given the certificate's hash. So a
//! game server that takes browsers serves its page itself, from the host it accepts sessions
//! on, with `/webtransport.json` beside it:
//!
//! ```json
//! {"port": 8080, "certificateHash": "4f1c…"}
//! ```
//!
//! (`certificateHash` is `null` for a certificate trusted by the browser's roots.) The page
//! opens `https://<its own host>:<port>/` with that hash in `serverCertificateHashes`.
//!
//! On [`WEBSOCKET_PATH`](crate::WEBSOCKET_PATH) it also takes the WebSocket carrier's
//! upgrades: a valid one leaves the site for the carrier (see [`Server`](crate::Server)).
//!
//! The server is HTTP/1.1 at its smallest: `GET` and `HEAD` of the files given, one request per
//! connection, a request of at most 8 KiB read within 10 s, at most 64 connections at once;
//! anything else gets an error status or is dropped. It is for serving a game's page, not a web
//! server.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::upgrade;
use crate::websocket::{self, Handoff, WEBSOCKET_PATH};

/// The path of the session's parameters.
pub const INFO_PATH: &str = "/webtransport.json";
/// The longest request (line and headers) read.
const MAX_REQUEST: usize = 8192;
/// Connections served at once; more are closed at once.
const MAX_CONNECTIONS: usize = 64;
/// How long one connection may take, from accept to the last byte of the answer.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long, and how much, a closing connection reads and drops of what the client still sends.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_BYTES: usize = 65_536;

#[derive(Debug, Clone)]
struct File {
    content_type: String,
    body: Arc<[u8]>,
}

/// The files a page needs, by path. [`Server::serve_site`](crate::Server::serve_site) serves
/// them, and `/webtransport.json` besides (a file of that path is never served), and takes
/// WebSocket upgrades on [`WEBSOCKET_PATH`](crate::WEBSOCKET_PATH) (a file of that path is
/// never served either).
///
/// ```
/// use hopnet_webtransport::Site;
///
/// let site = Site::new()
///     .file("/", "text/html; charset=utf-8", "<script type=module src=/game.js></script>")
///     .file("/game.js", "text/javascript", "/* ... */");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Site {
    files: HashMap<String, File>,
}

impl Site {
    /// A site without files.
    pub fn new() -> Site {
        Site::default()
    }

    /// The same site with `body` at `path` (starting with `/`; `/` is the page a browser
    /// opens first), served as `content_type`.
    pub fn file(mut self, path: &str, content_type: &str, body: impl AsRef<[u8]>) -> Site {
        self.files.insert(
            path.to_owned(),
            File {
                content_type: content_type.to_owned(),
                body: Arc::from(body.as_ref()),
            },
        );
        self
    }

    /// The paths it serves.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

/// `/webtransport.json` as served now: it changes when the certificate is renewed.
pub(crate) type Info = Arc<RwLock<Arc<[u8]>>>;

/// `/webtransport.json`: the port, and the hash to pin if any.
pub(crate) fn info_json(port: u16, hash: Option<[u8; 32]>) -> String {
    let hash = match hash {
        Some(h) => format!(
            "\"{}\"",
            h.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
        None => "null".to_owned(),
    };
    format!("{{\"port\":{port},\"certificateHash\":{hash}}}")
}

/// Where a request on [`WEBSOCKET_PATH`] goes once it is a valid upgrade, and how long a
/// request's head may take.
#[derive(Debug, Clone)]
pub(crate) struct Upgrades {
    pub handoff: Arc<Handoff>,
    pub head_timeout: Duration,
}

/// A valid upgrade request, read: the stream, its key, and what followed its head.
struct Upgrade {
    stream: TcpStream,
    key: String,
    leftover: Vec<u8>,
}

/// Accepts connections until the runtime stops, each answered by a task of its own. An
/// upgrade leaves the site's count and timeout once its head is read: the socket lives on
/// under the WebSocket carrier's bounds.
pub(crate) async fn serve(listener: TcpListener, site: Arc<Site>, info: Info, upgrades: Upgrades) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors, say: try again in a moment rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            continue;
        };
        let (site, info, upgrades) = (site.clone(), info.clone(), upgrades.clone());
        tokio::spawn(async move {
            let answered =
                tokio::time::timeout(CONNECTION_TIMEOUT, answer(stream, &site, &info, &upgrades))
                    .await;
            drop(permit);
            if let Ok(Ok(Some(upgrade))) = answered {
                let handoff = upgrades.handoff;
                websocket::take(handoff, upgrade.stream, upgrade.key, upgrade.leftover).await;
            }
        });
    }
}

/// Reads one request and answers it, or hands back a valid WebSocket upgrade.
async fn answer(
    mut stream: TcpStream,
    site: &Site,
    info: &Info,
    upgrades: &Upgrades,
) -> std::io::Result<Option<Upgrade>> {
    let mut buf = vec![0; MAX_REQUEST];
    let mut len = 0;
    let head_end = loop {
        let read = tokio::time::timeout(upgrades.head_timeout, stream.read(&mut buf[len..])).await;
        let Ok(n) = read else {
            // A head that never ends: the connection is dropped.
            return Ok(None);
        };
        let n = n?;
        if n == 0 {
            return Ok(None);
        }
        len += n;
        if let Some(end) = find(&buf[..len], b"\r\n\r\n") {
            break end;
        }
        if len == MAX_REQUEST {
            respond(
                &mut stream,
                431,
                "Request Header Fields Too Large",
                None,
                false,
            )
            .await?;
            return Ok(None);
        }
    };
    let head = &buf[..head_end];
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = std::str::from_utf8(line).unwrap_or_default().trim_end();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        respond(&mut stream, 400, "Bad Request", None, false).await?;
        return Ok(None);
    };
    if !version.starts_with("HTTP/1.") {
        respond(&mut stream, 400, "Bad Request", None, false).await?;
        return Ok(None);
    }
    let path = target.split(['?', '#']).next().unwrap_or_default();
    if path == WEBSOCKET_PATH {
        if method != "GET" {
            respond(&mut stream, 405, "Method Not Allowed", None, false).await?;
            return Ok(None);
        }
        return match upgrade::websocket_key(head) {
            Ok(key) => Ok(Some(Upgrade {
                stream,
                key,
                leftover: buf[head_end + 4..len].to_vec(),
            })),
            Err(refusal) => {
                upgrades.handoff.refused_bad();
                let file = File {
                    content_type: "text/plain; charset=utf-8".to_owned(),
                    body: Arc::from(refusal.reason.as_bytes()),
                };
                let status = if refusal.status == 426 {
                    "Upgrade Required"
                } else {
                    "Bad Request"
                };
                respond(&mut stream, refusal.status, status, Some(&file), false).await?;
                Ok(None)
            }
        };
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => {
            respond(&mut stream, 405, "Method Not Allowed", None, false).await?;
            return Ok(None);
        }
    };
    if path == INFO_PATH {
        let body = info
            .read()
            .map(|b| b.clone())
            .unwrap_or_else(|e| e.into_inner().clone());
        let file = File {
            content_type: "application/json".to_owned(),
            body,
        };
        respond(&mut stream, 200, "OK", Some(&file), head_only).await?;
        return Ok(None);
    }
    match site.files.get(path) {
        Some(file) => respond(&mut stream, 200, "OK", Some(file), head_only).await?,
        None => respond(&mut stream, 404, "Not Found", None, head_only).await?,
    }
    Ok(None)
}

async fn respond(
    stream: &mut TcpStream,
    status: u16,
    reason: &str,
    file: Option<&File>,
    head_only: bool,
) -> std::io::Result<()> {
    let (content_type, body): (&str, &[u8]) = match file {
        Some(f) => (&f.content_type, &f.body),
        None => ("text/plain; charset=utf-8", reason.as_bytes()),
    };
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    if status == 426 {
        response.push_str("Upgrade: websocket\r\n");
    }
    if status == 405 {
        response.push_str("Allow: GET, HEAD\r\n");
    }
    response.push_str("\r\n");
    stream.write_all(response.as_bytes()).await?;
    if !head_only {
        stream.write_all(body).await?;
    }
    stream.shutdown().await?;
    // A lingering close: what the client sent beyond what was read (a request too long) is
    // read and dropped, so that closing does not reset the connection before the client has
    // read the answer.
    let mut sink = [0; 4096];
    let mut left = LINGER_BYTES;
    while left > 0 {
        match tokio::time::timeout(LINGER, stream.read(&mut sink)).await {
            Ok(Ok(n)) if n > 0 => left = left.saturating_sub(n),
            _ => break,
        }
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_info_names_the_port_and_the_hash_to_pin() {
        assert_eq!(
            info_json(4433, None),
            r#"{"port":4433,"certificateHash":null}"#
        );
        let mut hash = [0u8; 32];
        hash[0] = 0xab;
        hash[31] = 0x01;
        let json = info_json(1, Some(hash));
        assert_eq!(
            json,
            format!(
                r#"{{"port":1,"certificateHash":"ab{}01"}}"#,
                "00".repeat(30)
            )
        );
    }
}
