//! One `fanout` run: the plan's server (`hopnet::Server`, or a `WorkerServer`) on its own
//! thread, serving as [`fanout`](super::fanout) or [`fanout_workers`](super::fanout_workers)
//! says, and the clients on this one until every snapshot sent has come or nothing more comes.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hopnet::Server;

use super::fanout::{FanoutOutcome, FanoutPlan, FanoutServer, FanoutShared, ServerOutcome, serve};
use super::fanout_clients::Pool;
use super::hopnet_peer::{Flavor, config};

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Linux's count of UDP datagrams dropped for a full receive buffer, machine-wide.
fn rcvbuf_errors() -> Option<u64> {
    let snmp = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let (names, values) = (udp.next()?, udp.next()?);
    let k = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(k)?.parse().ok()
}

/// The longest the clients keep reading after the server's last tick.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// One run: the server on its thread, the clients on this one.
pub fn run_once(plan: &FanoutPlan) -> Result<FanoutOutcome, String> {
    let cfg = config(Flavor::Extended)?;
    // The clients' configuration, and room for every client on every worker (the kernel's
    // hash does not split them evenly).
    let server_cfg = if plan.clients > cfg.max_connections() {
        hopnet::Config::builder()
            .extensions(true)
            .compression(false)
            .max_datagram_size(super::hopnet_peer::MAX_DATAGRAM)
            .max_connections(plan.clients)
            .build()
            .map_err(err)?
    } else {
        cfg.clone()
    };
    match plan.server {
        FanoutServer::Single => {
            let server = Server::bind("127.0.0.1:0", server_cfg).map_err(err)?;
            let addr = server.local_addr().map_err(err)?;
            run_with(plan, &cfg, addr, move |plan, shared| {
                serve(server, plan, shared)
            })
        }
        FanoutServer::Workers(n, spread) => {
            let server = hopnet::ServerBuilder::new(server_cfg)
                .workers(n)
                .spread(spread)
                .bind("127.0.0.1:0")
                .map_err(err)?;
            let addr = server.local_addr();
            run_with(plan, &cfg, addr, move |plan, shared| {
                super::fanout_workers::serve(server, plan, shared)
            })
        }
    }
}

/// The server's loop (`serve`) on the server thread, the clients on this one.
fn run_with(
    plan: &FanoutPlan,
    cfg: &hopnet::Config,
    addr: std::net::SocketAddr,
    serve: impl FnOnce(&FanoutPlan, &FanoutShared) -> Result<ServerOutcome, String> + Send + 'static,
) -> Result<FanoutOutcome, String> {
    let shared = Arc::new(FanoutShared::default());
    let drops_before = rcvbuf_errors();
    let srv = {
        let (shared, plan) = (shared.clone(), plan.clone());
        super::spawn_server(move || {
            let r = serve(&plan, &shared);
            shared.done.store(true, Ordering::Release);
            r
        })
    };
    let clients = (|| -> Result<Pool, String> {
        let mut pool = Pool::connect(plan.clients, addr, cfg, plan.size)?;
        let give_up = Instant::now() + plan.setup;
        while pool.connected < pool.len() && Instant::now() < give_up && !srv.is_finished() {
            pool.pump(Duration::from_millis(5))?;
        }
        let _ = shared.connected.set(pool.connected);
        while !shared.done.load(Ordering::Acquire) {
            pool.pump(Duration::from_millis(10))?;
        }
        // Until nothing has come for `drain`: on a loaded machine the clients' one thread may
        // be seconds behind what the server sent, with the rest waiting in its sockets.
        let give_up = Instant::now() + DRAIN_LIMIT;
        let mut quiet_since = Instant::now();
        while quiet_since.elapsed() < plan.drain && Instant::now() < give_up {
            let before = pool.snapshots;
            pool.pump(Duration::from_millis(10))?;
            if pool.snapshots != before {
                quiet_since = Instant::now();
            }
        }
        Ok(pool)
    })();
    if clients.is_err() {
        shared.abort.store(true, Ordering::Relaxed);
    }
    let server = srv
        .join()
        .unwrap_or_else(|_| Err("server thread panicked".into()));
    let pool = clients.map_err(|e| format!("clients: {e}"))?;
    let server = server.map_err(|e| format!("server: {e}"))?;
    let accepted = shared.accepted.load(Ordering::Relaxed);
    Ok(FanoutOutcome {
        expected: accepted as u64 * u64::from(plan.ticks),
        server,
        clients: pool.connected,
        arrived: pool.snapshots,
        rcvbuf_errors: rcvbuf_errors()
            .zip(drops_before)
            .map(|(a, b)| a.saturating_sub(b)),
    })
}
