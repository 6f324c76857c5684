//! quinn 0.11 on tokio (a current-thread runtime per side), TLS with a self-signed certificate
//! made by rcgen. Reliable messages go on one unidirectional stream, each framed with a 4-byte
//! length (ordered delivery: stricter than the others' unordered); unreliable ones are QUIC
//! datagrams. In the tick case, each side's reliable messages go on one unidirectional stream
//! of its own, framed with a 2-byte length (all a 100-byte message needs), and its unreliable
//! ones are QUIC datagrams.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use quinn::{ClientConfig, Endpoint, ServerConfig};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};

use super::relay::Relay;
use super::tick::{
    Role, Tally, TickOutcome, TickPlan, TickShared, finish, join_run, spawn_sampler,
};
use super::{Outcome, Params, RttParams, Shared, payload, route, tag_of};

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn configs() -> Result<(ServerConfig, ClientConfig), String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).map_err(err)?;
    let cert: CertificateDer<'static> = ck.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der());
    let server = ServerConfig::with_single_cert(vec![cert.clone()], key.into()).map_err(err)?;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).map_err(err)?;
    let client = ClientConfig::with_root_certificates(Arc::new(roots)).map_err(err)?;
    Ok((server, client))
}

/// A client endpoint on an ephemeral port, and its connection to `server`.
async fn connect(
    config: ClientConfig,
    server: SocketAddr,
) -> Result<(Endpoint, quinn::Connection), String> {
    let mut endpoint = Endpoint::client("127.0.0.1:0".parse().unwrap()).map_err(err)?;
    endpoint.set_default_client_config(config);
    let conn = endpoint
        .connect(server, "localhost")
        .map_err(err)?
        .await
        .map_err(err)?;
    Ok((endpoint, conn))
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(err)
}

/// Binds the server endpoint on a runtime of its own thread; returns its address.
fn spawn_server<F, Fut>(
    config: ServerConfig,
    shared: Arc<Shared>,
    serve: F,
) -> Result<(SocketAddr, thread::JoinHandle<Result<(), String>>), String>
where
    F: FnOnce(quinn::Connection, Arc<Shared>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = super::spawn_server(move || -> Result<(), String> {
        let rt = runtime()?;
        rt.block_on(async move {
            let endpoint = Endpoint::server(config, "127.0.0.1:0".parse().unwrap()).map_err(err)?;
            let _ = tx.send(endpoint.local_addr().map_err(err));
            let incoming = tokio::select! {
                i = endpoint.accept() => i.ok_or("endpoint closed")?,
                _ = wait_done(shared.clone(), Duration::from_secs(30)) => return Ok(()),
            };
            let conn = incoming.await.map_err(err)?;
            let result = tokio::select! {
                r = serve(conn.clone(), shared.clone()) => r,
                _ = wait_done(shared.clone(), Duration::from_secs(60)) => Ok(()),
            };
            conn.close(0u32.into(), b"done");
            endpoint.wait_idle().await;
            result
        })
    });
    let addr = rx
        .recv()
        .map_err(|_| "quinn server did not start".to_string())??;
    Ok((addr, handle))
}

async fn wait_done(shared: Arc<Shared>, limit: Duration) {
    let t = Instant::now();
    while !shared.is_done() && t.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Reliable one-way throughput over one stream.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let (server_config, client_config) = configs()?;
    let shared = Shared::new();
    let (size, count, deadline) = (p.size, p.count, p.deadline);
    let (addr, srv) = spawn_server(server_config, shared.clone(), move |conn, sh| async move {
        let mut recv = conn.accept_uni().await.map_err(err)?;
        let mut buf = vec![0u8; size];
        let mut len = [0u8; 4];
        loop {
            if recv.read_exact(&mut len).await.is_err() {
                return Ok(());
            }
            let n = u32::from_le_bytes(len) as usize;
            buf.resize(n, 0);
            recv.read_exact(&mut buf).await.map_err(err)?;
            if n == size && sh.deliver(count) {
                return Ok(());
            }
        }
    })?;
    let (target, relay) = route(addr, p.loss, p.seed)?;
    let sh = shared.clone();
    let client_result = runtime()?.block_on(async move {
        let (endpoint, conn) = connect(client_config, target).await?;
        let mut send = conn.open_uni().await.map_err(err)?;
        let mut frame = (size as u32).to_le_bytes().to_vec();
        frame.extend_from_slice(&payload(size, 0));
        sh.start();
        let work = async {
            for _ in 0..count {
                send.write_all(&frame).await.map_err(err)?;
            }
            let _ = send.finish();
            Ok::<(), String>(())
        };
        let r = tokio::select! {
            r = work => r,
            _ = tokio::time::sleep(deadline) => Ok(()),
        };
        wait_done(sh.clone(), deadline).await;
        conn.close(0u32.into(), b"done");
        endpoint.wait_idle().await;
        r
    });
    shared.finish(srv, relay, client_result, count, deadline)
}

/// Datagram echo.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let (server_config, client_config) = configs()?;
    let shared = Shared::new();
    let (addr, srv) = spawn_server(server_config, shared.clone(), |conn, _sh| async move {
        loop {
            let d = match conn.read_datagram().await {
                Ok(d) => d,
                Err(_) => return Ok(()),
            };
            let _ = conn.send_datagram(d);
        }
    })?;
    let p = p.clone();
    let result = runtime()?.block_on(async move {
        let (endpoint, conn) = connect(client_config, addr).await?;
        let start = Instant::now();
        let mut rtts = Vec::with_capacity(p.count as usize);
        for i in 0..p.count {
            if start.elapsed() > p.deadline {
                break;
            }
            let t0 = Instant::now();
            conn.send_datagram(payload(p.size, i).into()).map_err(err)?;
            let wait = async {
                loop {
                    match conn.read_datagram().await {
                        Ok(d) if tag_of(&d) == i => return true,
                        Ok(_) => continue,
                        Err(_) => return false,
                    }
                }
            };
            if let Ok(true) = tokio::time::timeout(p.timeout, wait).await {
                rtts.push(t0.elapsed().as_nanos() as f64);
            }
        }
        conn.close(0u32.into(), b"done");
        endpoint.wait_idle().await;
        Ok::<_, String>(rtts)
    });
    shared.end(srv, result)
}

/// Waits until a side has failed, or for `limit`.
async fn wait_failed(shared: &TickShared, limit: Duration) {
    let t = Instant::now();
    while !shared.failed() && t.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Reads 2-byte-length frames from `recv` into `tally` until the stream ends; then waits
/// forever (the ticks decide when a side is done).
async fn read_frames(mut recv: quinn::RecvStream, mut tally: Tally<'_>) {
    let mut buf = Vec::new();
    let mut len = [0u8; 2];
    while recv.read_exact(&mut len).await.is_ok() {
        buf.resize(usize::from(u16::from_le_bytes(len)), 0);
        if recv.read_exact(&mut buf).await.is_err() {
            break;
        }
        // The empty frame that announced the stream.
        if !buf.is_empty() {
            tally.receive(&buf);
        }
    }
    std::future::pending::<()>().await
}

/// Reads datagrams into `tally` until the connection ends; then waits forever.
async fn read_datagrams(conn: quinn::Connection, mut tally: Tally<'_>) {
    while let Ok(d) = conn.read_datagram().await {
        tally.receive(&d);
    }
    std::future::pending::<()>().await
}

/// One side of the tick case on a connection: its stream announced with an empty frame, the
/// peer's stream accepted, then the ticks (the messages written into the stream and sent as
/// datagrams, which quinn's connection task puts into packets as it runs) and the drain.
async fn tick_side(
    conn: &quinn::Connection,
    plan: &TickPlan,
    role: Role,
    shared: &TickShared,
) -> Result<(), String> {
    let mut send = conn.open_uni().await.map_err(err)?;
    send.write_all(&[0, 0]).await.map_err(err)?;
    let recv = tokio::select! {
        r = conn.accept_uni() => r.map_err(err)?,
        _ = wait_failed(shared, plan.setup) => return Err("no stream from the peer".into()),
    };
    let give_up = Instant::now() + plan.setup;
    let start = loop {
        if let Some(start) = shared.before_start(role, true) {
            break start;
        }
        if shared.failed() || Instant::now() > give_up {
            return Err("the two sides did not get ready".into());
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    let ticks = async {
        let mut frame = Vec::new();
        for k in 0..plan.total() {
            if shared.failed() {
                return Err("the other side failed".to_string());
            }
            tokio::time::sleep_until(plan.at(start, role, k).into()).await;
            shared.turn_began(plan, start, role, k);
            for m in plan.messages(k) {
                if m.reliable {
                    frame.clear();
                    frame.extend_from_slice(&(m.bytes.len() as u16).to_le_bytes());
                    frame.extend_from_slice(&m.bytes);
                    send.write_all(&frame).await.map_err(err)?;
                } else {
                    conn.send_datagram(m.bytes.into()).map_err(err)?;
                }
            }
        }
        let end = plan.at(start, role, plan.total()) + plan.drain;
        while !shared.all_reliable(plan) && !shared.failed() && Instant::now() < end {
            tokio::time::sleep(plan.period).await;
        }
        Ok(())
    };
    tokio::select! {
        r = ticks => r,
        _ = read_frames(recv, Tally::new(plan, shared, role)) => Ok(()),
        _ = read_datagrams(conn.clone(), Tally::new(plan, shared, role)) => Ok(()),
    }
}

/// The tick case: each side on a current-thread runtime of its own thread.
pub fn tick(plan: &TickPlan) -> Result<TickOutcome, String> {
    let (server_config, client_config) = configs()?;
    let shared = TickShared::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let srv = {
        let (shared, plan) = (shared.clone(), plan.clone());
        super::spawn_server(move || -> Result<(), String> {
            let result = runtime()?.block_on(async {
                let endpoint =
                    Endpoint::server(server_config, "127.0.0.1:0".parse().unwrap()).map_err(err)?;
                let _ = tx.send(endpoint.local_addr().map_err(err));
                let incoming = tokio::select! {
                    i = endpoint.accept() => i.ok_or("endpoint closed")?,
                    _ = wait_failed(&shared, plan.setup) => return Err("no client".into()),
                };
                let conn = incoming.await.map_err(err)?;
                let result = tick_side(&conn, &plan, Role::Server, &shared).await;
                conn.close(0u32.into(), b"done");
                endpoint.wait_idle().await;
                result
            });
            if result.is_err() {
                shared.fail();
            }
            result
        })
    };
    let addr = rx
        .recv()
        .map_err(|_| "quinn server did not start".to_string())??;
    let relay = Relay::spawn(addr, 0.0, 0).map_err(err)?;
    let sampler = spawn_sampler(relay.traffic(), shared.clone(), plan.clone());
    let target = relay.addr();
    let client = runtime()?.block_on(async {
        let (endpoint, conn) = connect(client_config, target).await?;
        let result = tick_side(&conn, plan, Role::Client, &shared).await;
        conn.close(0u32.into(), b"done");
        endpoint.wait_idle().await;
        result
    });
    let ((), (), window) = join_run(client, srv, sampler, relay, &shared)?;
    finish(window, &shared, [None, None])
}
