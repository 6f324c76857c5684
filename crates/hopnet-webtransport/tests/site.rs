//! The page's site over real TCP: the files, `/webtransport.json`, and what it refuses.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use hopnet_webtransport::{Certificate, Server, Site, WebTransportConfig};

fn server_with_site() -> (Server, SocketAddr) {
    let certificate = Certificate::self_signed(["localhost"]).unwrap();
    let web = WebTransportConfig::new(common::any(), certificate);
    let mut server = Server::bind(common::any(), web, hopnet::Config::default()).unwrap();
    let site = Site::new()
        .file("/", "text/html; charset=utf-8", "<h1>the game</h1>")
        .file("/game.js", "text/javascript", "export {};");
    let http = server.serve_site(common::any(), site).unwrap();
    (server, http)
}

/// Sends `request` as it is and reads the whole answer.
fn exchange(http: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(http).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    String::from_utf8(answer).unwrap()
}

fn get(http: SocketAddr, path: &str) -> String {
    exchange(
        http,
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes(),
    )
}

#[test]
fn the_page_its_scripts_and_the_session_parameters() {
    let (server, http) = server_with_site();
    let page = get(http, "/");
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(page.contains("Content-Type: text/html; charset=utf-8\r\n"));
    assert!(page.contains("Content-Length: 17\r\n"));
    assert!(page.ends_with("\r\n\r\n<h1>the game</h1>"));

    let script = get(http, "/game.js?v=2");
    assert!(
        script.contains("Content-Type: text/javascript\r\n"),
        "{script}"
    );
    assert!(script.ends_with("export {};"));

    let info = get(http, "/webtransport.json");
    let body = info.split("\r\n\r\n").nth(1).unwrap();
    let hash: String = server
        .certificate_hash()
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        body,
        format!(
            r#"{{"port":{},"certificateHash":"{hash}"}}"#,
            server.web_addr().port()
        )
    );
}

#[test]
fn anything_else_gets_an_error_status() {
    let (_server, http) = server_with_site();
    let status = |answer: String| answer.lines().next().unwrap_or_default().to_owned();
    assert_eq!(status(get(http, "/missing")), "HTTP/1.1 404 Not Found");
    assert_eq!(
        status(get(http, "/../etc/passwd")),
        "HTTP/1.1 404 Not Found"
    );
    let head = exchange(http, b"HEAD / HTTP/1.1\r\n\r\n");
    assert!(
        head.starts_with("HTTP/1.1 200 OK") && head.ends_with("\r\n\r\n"),
        "{head}"
    );
    let post = exchange(http, b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    assert!(
        post.starts_with("HTTP/1.1 405") && post.contains("Allow: GET, HEAD"),
        "{post}"
    );
    assert_eq!(
        status(exchange(http, b"GET /\r\n\r\n")),
        "HTTP/1.1 400 Bad Request"
    );
    assert_eq!(
        status(exchange(http, b"GET / SPDY/3\r\n\r\n")),
        "HTTP/1.1 400 Bad Request"
    );
    assert_eq!(
        status(exchange(http, b"\xff\xfe garbage\r\n\r\n")),
        "HTTP/1.1 400 Bad Request"
    );
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(10_000));
    assert_eq!(
        status(exchange(http, huge.as_bytes())),
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    // A client that says nothing and leaves costs nothing, and the site still answers.
    drop(TcpStream::connect(http).unwrap());
    assert_eq!(status(get(http, "/")), "HTTP/1.1 200 OK");
}

#[test]
fn a_new_certificate_is_named_by_the_next_page() {
    let (mut server, http) = server_with_site();
    let old = server.certificate_hash().unwrap();
    let renewed = Certificate::self_signed(["localhost"]).unwrap();
    let new = renewed.hash();
    server.set_certificate(renewed).unwrap();
    assert_eq!(server.certificate_hash(), Some(new));
    let info = get(http, "/webtransport.json");
    let hex = |h: [u8; 32]| h.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert!(info.contains(&hex(new)), "{info}");
    assert!(!info.contains(&hex(old)), "{info}");
}
