//! quinn 0.11 on tokio (a current-thread runtime per side), TLS with a self-signed certificate
//! made by rcgen. Reliable messages go on one unidirectional stream, each framed with a 4-byte
//! length (ordered delivery: stricter than the others' unordered); unreliable ones are QUIC
//! datagrams.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use quinn::{ClientConfig, Endpoint, ServerConfig};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};

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
        let mut endpoint = Endpoint::client("127.0.0.1:0".parse().unwrap()).map_err(err)?;
        endpoint.set_default_client_config(client_config);
        let conn = endpoint
            .connect(target, "localhost")
            .map_err(err)?
            .await
            .map_err(err)?;
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
    shared.stop();
    srv.join()
        .map_err(|_| "server thread panicked".to_string())??;
    drop(relay);
    client_result?;
    shared.outcome(count, deadline)
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
        let mut endpoint = Endpoint::client("127.0.0.1:0".parse().unwrap()).map_err(err)?;
        endpoint.set_default_client_config(client_config);
        let conn = endpoint
            .connect(addr, "localhost")
            .map_err(err)?
            .await
            .map_err(err)?;
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
    shared.stop();
    srv.join()
        .map_err(|_| "server thread panicked".to_string())??;
    result
}
