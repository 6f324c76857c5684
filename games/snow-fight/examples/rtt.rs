//! Round trips from a client to the game's server: joins, pings every `--every-ms` for
//! `--seconds`, and prints the count, p50, p99 and max. Over UDP by default; with
//! `--web-page URL`, over WebTransport like a page but from Rust (`wtransport`'s client, the
//! certificate's hash read from the page's `/webtransport.json`), which tells the carrier's cost
//! from the browser's. A benchmark, run by hand beside the browser's (`web/bench/rtt.mjs`,
//! BENCHMARKS.md):
//!
//! ```text
//! cargo run --release --example server -- --bind 127.0.0.1:7777 --web 127.0.0.1:8080
//! cargo run --release --example rtt -- --connect 127.0.0.1:7777 --seconds 30 --every-ms 20
//! cargo run --release --example rtt -- --web-page http://127.0.0.1:8080/ --seconds 30 --every-ms 20
//! ```

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use clap::Parser;
use hopnet::Client;
use hopnet::Event;
use hopnet::Machine;
use snow_fight::session::GameClient;
use tokio::runtime::Runtime;
use wtransport::tls::Sha256Digest;
use wtransport::{ClientConfig, Endpoint};

#[derive(Parser, Debug)]
#[command(about = "Round trips to the game server")]
struct Args {
    /// The server's UDP address.
    #[arg(long, default_value = "127.0.0.1:7000")]
    connect: SocketAddr,
    /// Over WebTransport instead: the page's address (`http://host:port/`).
    #[arg(long)]
    web_page: Option<String>,
    /// How long to measure.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// Milliseconds between pings.
    #[arg(long, default_value_t = 20)]
    every_ms: u64,
}

/// A hopnet connection and how its datagrams travel.
trait Carrier {
    fn connection(&mut self) -> &mut hopnet::proto::Client;
    /// One round of I/O, waiting at most `wait`.
    fn poll(&mut self, wait: Duration);
    fn poll_event(&mut self) -> Option<Event> {
        self.connection().poll_event()
    }
}

impl Carrier for Client {
    fn connection(&mut self) -> &mut hopnet::proto::Client {
        Client::machine(self)
    }
    fn poll(&mut self, wait: Duration) {
        Client::poll(self, wait).expect("UDP");
    }
    fn poll_event(&mut self) -> Option<Event> {
        Client::poll_event(self)
    }
}

/// hopnet over a WebTransport session, QUIC on a runtime of one worker thread; a task reads the
/// session's datagrams into a channel, as the server's carrier does.
struct Session {
    runtime: Runtime,
    session: wtransport::Connection,
    datagrams: tokio::sync::mpsc::UnboundedReceiver<wtransport::datagram::Datagram>,
    hopnet: hopnet::proto::Client,
    server: SocketAddr,
    buf: Vec<u8>,
}

impl Session {
    fn open(page: &str) -> Session {
        let (host, port, hash) = session_parameters(page);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let session = runtime
            .block_on(async {
                let config = ClientConfig::builder()
                    .with_bind_default()
                    .with_server_certificate_hashes([Sha256Digest::new(hash)])
                    .build();
                Endpoint::client(config)?
                    .connect(format!("https://{host}:{port}/"))
                    .await
                    .map_err(std::io::Error::other)
            })
            .expect("the session opens");
        let server = session.remote_address();
        let (tx, datagrams) = tokio::sync::mpsc::unbounded_channel();
        let reader = session.clone();
        runtime.spawn(async move {
            while let Ok(d) = reader.receive_datagram().await {
                if tx.send(d).is_err() {
                    break;
                }
            }
        });
        Session {
            runtime,
            session,
            datagrams,
            hopnet: hopnet::proto::Client::new(hopnet::Config::default(), server, Instant::now()),
            server,
            buf: Vec::new(),
        }
    }

    fn flush(&mut self) {
        while let Some(t) = self.hopnet.poll_transmit(Instant::now(), &mut self.buf, 64) {
            for d in t.split(&self.buf) {
                let _ = self.session.send_datagram(d);
            }
        }
    }
}

impl Carrier for Session {
    fn connection(&mut self) -> &mut hopnet::proto::Client {
        &mut self.hopnet
    }
    fn poll(&mut self, wait: Duration) {
        self.flush();
        let now = Instant::now();
        let deadline = self
            .hopnet
            .poll_timeout()
            .map_or(now + wait, |t| t.min(now + wait));
        let datagrams = &mut self.datagrams;
        let got = self.runtime.block_on(async move {
            tokio::select! {
                d = datagrams.recv() => Some(d),
                _ = tokio::time::sleep_until(deadline.into()) => None,
            }
        });
        match got {
            Some(Some(d)) => self.hopnet.handle(Instant::now(), self.server, &d),
            Some(None) => panic!("the session ended"),
            None => {}
        }
        while let Ok(d) = self.datagrams.try_recv() {
            self.hopnet.handle(Instant::now(), self.server, &d);
        }
        let now = Instant::now();
        if self.hopnet.poll_timeout().is_some_and(|t| t <= now) {
            self.hopnet.handle_timeout(now);
        }
        self.flush();
    }
}

/// The host, WebTransport port and certificate hash, from the page's `/webtransport.json`.
fn session_parameters(page: &str) -> (String, u16, [u8; 32]) {
    let authority = page
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("http://host:port/");
    let mut stream = TcpStream::connect(authority).expect("the page's site");
    write!(
        stream,
        "GET /webtransport.json HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let body = answer.split("\r\n\r\n").nth(1).expect("a body");
    let info: serde_json::Value = serde_json::from_str(body).expect("JSON");
    let hex = info["certificateHash"]
        .as_str()
        .expect("a certificate trusted by hash");
    let mut hash = [0u8; 32];
    for (i, b) in hash.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    let host = authority.rsplit_once(':').expect("host:port").0.to_owned();
    (host, info["port"].as_u64().expect("port") as u16, hash)
}

fn measure(carrier: &mut dyn Carrier, args: &Args) -> Vec<f64> {
    let mut game = GameClient::new();
    let every = Duration::from_millis(args.every_ms.max(1));
    let mut next_ping = None;
    let mut measuring_from = None;
    let mut skip = 0;
    let mut end = None;
    let give_up = Instant::now() + Duration::from_secs(20);
    while end.is_none_or(|e| Instant::now() < e) {
        if end.is_none() && Instant::now() > give_up {
            eprintln!("not joined within 20 s");
            std::process::exit(1);
        }
        carrier.poll(Duration::from_millis(1));
        while let Some(event) = carrier.poll_event() {
            match event {
                Event::Connected => game.send_init(carrier.connection()),
                Event::Message { bytes, .. } => {
                    game.handle(&bytes, Instant::now());
                }
                Event::Disconnected { reason } => {
                    eprintln!("disconnected: {reason:?}");
                    std::process::exit(1);
                }
                _ => {}
            }
        }
        let now = Instant::now();
        if game.player().is_some() {
            // The first second is the connection settling; keep what follows.
            let from = *measuring_from.get_or_insert(now + Duration::from_secs(1));
            if now >= from && end.is_none() {
                skip = game.stats().rtts.len();
                end = Some(now + Duration::from_secs(args.seconds));
            }
            if next_ping.is_none_or(|t| now >= t) {
                // Sent by the next poll, which then waits for the pong: a poll here could take
                // the pong in and leave its event unread until the one after.
                game.send_ping(carrier.connection(), now);
                next_ping = Some(now + every);
            }
        }
    }
    let mut rtts: Vec<f64> = game.stats().rtts[skip..]
        .iter()
        .map(|d| d.as_secs_f64() * 1000.0)
        .collect();
    rtts.sort_by(f64::total_cmp);
    rtts
}

fn main() {
    let args = Args::parse();
    let rtts = match &args.web_page {
        Some(page) => measure(&mut Session::open(page), &args),
        None => {
            let mut client =
                Client::connect(args.connect, hopnet::Config::default()).expect("a UDP socket");
            measure(&mut client, &args)
        }
    };
    if rtts.is_empty() {
        eprintln!("no pong came back");
        std::process::exit(1);
    }
    let q = |p: f64| rtts[((rtts.len() - 1) as f64 * p).round() as usize];
    println!(
        "{{\"count\":{},\"p50_ms\":{:.4},\"p99_ms\":{:.4},\"max_ms\":{:.4}}}",
        rtts.len(),
        q(0.5),
        q(0.99),
        rtts[rtts.len() - 1]
    );
}
