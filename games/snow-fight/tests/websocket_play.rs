//! Snow Fight over the WebSocket carrier: two bots play a round to its end over WebSockets on
//! the page's port, one through the library call the client example makes, one as the client
//! example itself (`--websocket URL --bot`), while hostile sockets (an oversize message, a
//! text message, upgrades never finished) each get their close and the round goes on.

mod short_rounds;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use hopnet_webtransport::{WEBSOCKET_PATH, WebSocketClient};
use snow_fight::net::play_bot_on;
use snow_fight::session::BotPlayer;

use crate::short_rounds::{Running, game};

/// The client example cargo built beside this test (`cargo test` builds the examples).
fn client_example() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe
        .parent()?
        .parent()?
        .join("examples")
        .join(format!("client{}", std::env::consts::EXE_SUFFIX));
    path.exists().then_some(path)
}

/// Sends raw `bytes` on the WebSocket path and returns what comes back before the close.
fn raw(site: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(site).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(bytes).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    answer
}

/// An upgrade request, then one masked frame of `opcode` with `len` bytes of payload.
fn upgrade_then_frame(opcode: u8, len: usize) -> Vec<u8> {
    let mut out =
        b"GET /hopnet HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
        Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            .to_vec();
    out.push(0x80 | opcode);
    match len {
        0..=125 => out.push(0x80 | len as u8),
        _ => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
    }
    // A zero mask: the payload goes as it is.
    out.extend_from_slice(&[0; 4]);
    out.extend(std::iter::repeat_n(b'a', len));
    out
}

/// The close code of the close frame that follows a 101 answer in `answer`.
fn close_code(answer: &[u8]) -> Option<u16> {
    let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    assert!(answer.starts_with(b"HTTP/1.1 101 "));
    let frame = &answer[head_end..];
    (frame.first() == Some(&0x88)).then(|| u16::from_be_bytes([frame[2], frame[3]]))
}

#[test]
fn bots_play_a_round_over_websockets_while_hostile_sockets_are_closed() {
    let running = Running::start(5, 4, |web| {
        web.handshake_timeout = Duration::from_millis(500);
    });
    let site = running.site;
    let url = format!("ws://{site}{WEBSOCKET_PATH}");

    // The example as a process, or (without it) a second bot in a thread, says why.
    let example = client_example();
    let mut process = match &example {
        Some(path) => Some(
            Command::new(path)
                .args(["--websocket", &url, "--bot", "--rounds", "1", "--seed", "2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        ),
        None if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("the client example is not built beside this test (cargo test builds it)")
        }
        None => {
            eprintln!("notice: the client example is not built; a second bot plays in its place");
            None
        }
    };
    let second = process.is_none().then(|| {
        let url = url.clone();
        std::thread::spawn(move || {
            let mut player = BotPlayer::new(game(4), 2);
            let client = WebSocketClient::connect(&url, hopnet::Config::default()).unwrap();
            play_bot_on(client, &mut player, |p, _| !p.results.is_empty()).unwrap();
            player.results.len()
        })
    });
    let first = std::thread::spawn({
        let url = url.clone();
        move || {
            let mut player = BotPlayer::new(game(4), 1);
            let client = WebSocketClient::connect(&url, hopnet::Config::default()).unwrap();
            let stats = play_bot_on(client, &mut player, |p, _| !p.results.is_empty()).unwrap();
            (player, stats)
        }
    });

    // Meanwhile, hostile sockets: each gets its clear end.
    std::thread::sleep(Duration::from_millis(500));
    // (opcode, payload length, the close code it gets)
    for (opcode, len, code) in [(0x2, 2000, 1009), (0x1, 5, 1003)] {
        let answer = raw(site, &upgrade_then_frame(opcode, len));
        assert_eq!(
            close_code(&answer),
            Some(code),
            "{}",
            String::from_utf8_lossy(&answer)
        );
    }
    let half_open: Vec<TcpStream> = (0..80)
        .map(|_| {
            let mut s = TcpStream::connect(site).unwrap();
            s.write_all(b"GET /hopnet HTTP/1.1\r\n").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(800));
    for mut s in half_open {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0; 16];
        let read = s.read(&mut buf);
        assert!(
            matches!(read, Ok(0))
                || read
                    .as_ref()
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
            "a half-open upgrade is dropped: {read:?}"
        );
    }

    let (player, stats) = first.join().unwrap();
    assert_eq!(
        player.results.len(),
        1,
        "the library's bot finished its round"
    );
    assert!(stats.bytes_received > 10_000, "{stats:?}");
    if let Some(second) = second {
        assert_eq!(second.join().unwrap(), 1);
    }
    if let Some(process) = process.take() {
        let out = process.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(", 1 rounds ("),
            "the example's bot: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let server = running.stop();
    let ws = server.server.web_stats().websocket;
    assert_eq!(
        (ws.accepted, ws.closed_too_large, ws.closed_text),
        (4, 1, 1),
        "{ws:?}"
    );
}
