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
/// them, and `/webtransport.json` besides (a file of that path is never served).
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

/// Accepts connections until the runtime stops, each answered by a task of its own.
pub(crate) async fn serve(listener: TcpListener, site: Arc<Site>, info: Info) {
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
        let (site, info) = (site.clone(), info.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let _ = tokio::time::timeout(CONNECTION_TIMEOUT, answer(stream, &site, &info)).await;
        });
    }
}

/// Reads one request and answers it.
async fn answer(mut stream: TcpStream, site: &Site, info: &Info) -> std::io::Result<()> {
    let mut buf = vec![0; MAX_REQUEST];
    let mut len = 0;
    let head_end = loop {
        let n = stream.read(&mut buf[len..]).await?;
        if n == 0 {
            return Ok(());
        }
        len += n;
        if let Some(end) = find(&buf[..len], b"\r\n\r\n") {
            break end;
        }
        if len == MAX_REQUEST {
            return respond(
                &mut stream,
                431,
                "Request Header Fields Too Large",
                None,
                false,
            )
            .await;
        }
    };
    let head = &buf[..head_end];
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = std::str::from_utf8(line).unwrap_or_default().trim_end();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return respond(&mut stream, 400, "Bad Request", None, false).await;
    };
    if !version.starts_with("HTTP/1.") {
        return respond(&mut stream, 400, "Bad Request", None, false).await;
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return respond(&mut stream, 405, "Method Not Allowed", None, false).await,
    };
    let path = target.split(['?', '#']).next().unwrap_or_default();
    if path == INFO_PATH {
        let body = info
            .read()
            .map(|b| b.clone())
            .unwrap_or_else(|e| e.into_inner().clone());
        let file = File {
            content_type: "application/json".to_owned(),
            body,
        };
        return respond(&mut stream, 200, "OK", Some(&file), head_only).await;
    }
    match site.files.get(path) {
        Some(file) => respond(&mut stream, 200, "OK", Some(file), head_only).await,
        None => respond(&mut stream, 404, "Not Found", None, head_only).await,
    }
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
