//! Whether a request the site read is a WebSocket opening handshake it may accept (RFC 6455,
//! section 4.2.1), and its key.
//!
//! The site has already read the request's head when it sees the WebSocket path, so the
//! handshake is checked here on those bytes rather than by reading the request again.

/// Why an upgrade request is refused: the status and the reason the answer's body gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub status: u16,
    pub reason: &'static str,
}

const fn refuse(status: u16, reason: &'static str) -> Refusal {
    Refusal { status, reason }
}

/// The `Sec-WebSocket-Key` of a valid upgrade request whose head (request line and headers,
/// without the blank line) is `head`, or why it is not one.
pub(crate) fn websocket_key(head: &[u8]) -> Result<String, Refusal> {
    let head = std::str::from_utf8(head).map_err(|_| refuse(400, "headers are not UTF-8"))?;
    let (mut upgrade, mut connection, mut version, mut key) = (false, false, None, None);
    for line in head.split("\r\n").skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(refuse(400, "a header line without a colon"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "upgrade" => upgrade |= has_token(value, "websocket"),
            "connection" => connection |= has_token(value, "upgrade"),
            "sec-websocket-version" => version = Some(value.to_owned()),
            "sec-websocket-key" => key = Some(value.to_owned()),
            _ => {}
        }
    }
    if !upgrade || !connection {
        return Err(refuse(
            426,
            "this path is hopnet over WebSocket: send an upgrade request",
        ));
    }
    if version.as_deref() != Some("13") {
        return Err(refuse(400, "Sec-WebSocket-Version must be 13"));
    }
    match key {
        // Base64 of 16 bytes: 22 characters and two `=`.
        Some(key) if key.len() == 24 && key.ends_with("==") => Ok(key),
        _ => Err(refuse(400, "Sec-WebSocket-Key must be 16 bytes in base64")),
    }
}

/// Whether the comma-separated `value` holds `token`, in any case.
fn has_token(value: &str, token: &str) -> bool {
    value
        .split(',')
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";

    fn head(headers: &[&str]) -> Vec<u8> {
        let mut head = String::from("GET /hopnet HTTP/1.1");
        for h in headers {
            head.push_str("\r\n");
            head.push_str(h);
        }
        head.into_bytes()
    }

    #[test]
    fn a_browsers_upgrade_is_accepted_whatever_the_case_and_extra_tokens() {
        let h = head(&[
            "Host: localhost:8080",
            "connection: keep-alive, Upgrade",
            "UPGRADE: WebSocket",
            "Sec-WebSocket-Version: 13",
            &format!("Sec-WebSocket-Key: {KEY}"),
        ]);
        assert_eq!(websocket_key(&h).as_deref(), Ok(KEY));
    }

    #[test]
    fn a_plain_get_is_told_to_upgrade() {
        let refusal = websocket_key(&head(&["Host: localhost"])).unwrap_err();
        assert_eq!(refusal.status, 426);
    }

    #[test]
    fn a_wrong_version_or_key_is_a_bad_request() {
        let upgrade = ["Upgrade: websocket", "Connection: Upgrade"];
        for extra in [
            vec![
                "Sec-WebSocket-Version: 8".to_owned(),
                format!("Sec-WebSocket-Key: {KEY}"),
            ],
            vec!["Sec-WebSocket-Version: 13".to_owned()],
            vec![
                "Sec-WebSocket-Version: 13".to_owned(),
                "Sec-WebSocket-Key: short".to_owned(),
            ],
            vec!["no colon here".to_owned()],
        ] {
            let mut headers: Vec<&str> = upgrade.to_vec();
            headers.extend(extra.iter().map(String::as_str));
            assert_eq!(
                websocket_key(&head(&headers)).unwrap_err().status,
                400,
                "{extra:?}"
            );
        }
    }
}
