//! The fanout case's server loop on `hopnet::WorkerServer` (`fanout-4000-w1`, `-w2`,
//! `-w2-shard`): the game's loop on the server thread as in [`fanout`](super::fanout), at each
//! tick `poll(0)` (the events the workers handed on), one shared `Payload` queued to every
//! connection with `queue_payload` (it goes to the connection's worker), then `flush` (which
//! wakes the workers); the workers send on their own threads.
//!
//! The row's CPU time is the server's whole: the game thread's, plus every worker thread's
//! (each asks the kernel for its own thread's CPU time, read through
//! `WorkerServer::worker_stats` before and after the ticks), plus the reader thread's with
//! `Spread::ByAddress`. The clients' harness thread is not in it. There is no check of what is
//! left queued after a tick (the workers send after the game's flush, on their own time):
//! every snapshot must arrive instead.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hopnet::{Delivery, Event, Payload, WorkerServer};

use super::fanout::{FanoutPlan, FanoutShared, ServerOutcome, accept, thread_cpu};
use super::tick::sleep_until;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Each worker's CPU time so far, then the reader's (if there is one).
fn threads_cpu(server: &mut WorkerServer) -> Result<Vec<Duration>, String> {
    let mut cpu: Vec<Duration> = server
        .worker_stats_within(Duration::from_secs(60))
        .map_err(err)?
        .iter()
        .map(|s| s.cpu_time)
        .collect();
    if let Some(r) = server.reader_stats() {
        cpu.push(r.cpu_time);
    }
    Ok(cpu)
}

/// The server thread: accept, then the ticks.
pub(crate) fn serve(
    mut server: WorkerServer,
    plan: &FanoutPlan,
    shared: &FanoutShared,
) -> Result<ServerOutcome, String> {
    let mut ids = accept(plan, shared, || {
        server.poll(Duration::from_millis(5)).map_err(err)?;
        Ok(std::iter::from_fn(|| server.poll_event()).collect())
    })?;
    let mut out = ServerOutcome::default();
    let start = Instant::now() + Duration::from_millis(20);
    sleep_until(start);
    let failures_before: u64 = failures(&mut server)?;
    let threads_start = threads_cpu(&mut server)?;
    let cpu_start = thread_cpu();
    for k in 0..plan.ticks {
        if shared.abort.load(Ordering::Relaxed) {
            return Err("the clients failed".into());
        }
        sleep_until(start + plan.period * k);
        let began = Instant::now();
        server.poll(Duration::ZERO).map_err(err)?;
        while let Some(ev) = server.poll_event() {
            if let Event::Disconnected { .. } = ev.event {
                out.disconnected += 1;
                ids.retain(|&id| id != ev.connection);
            }
        }
        let snapshot = Payload::from(super::noise(plan.size, u64::from(k)));
        for &id in &ids {
            match server.queue_payload(id, &snapshot, Delivery::Unreliable) {
                Ok(()) => out.queued += 1,
                Err(_) => out.send_failures += 1,
            }
        }
        server.flush().map_err(err)?;
        if began.elapsed() > plan.period {
            out.late += 1;
        }
    }
    let end = start + plan.period * plan.ticks;
    sleep_until(end);
    let game = thread_cpu().saturating_sub(cpu_start);
    // A worker answers in its queue's order: once every worker has answered, every snapshot
    // has been handed to its machine (a loaded machine's workers may lag the ticks), and the
    // second answer comes after the round that sent the last of them.
    threads_cpu(&mut server)?;
    let threads_end = threads_cpu(&mut server)?;
    out.threads = threads_end
        .iter()
        .zip(&threads_start)
        .map(|(a, b)| a.saturating_sub(*b))
        .collect();
    out.cpu = game + out.threads.iter().sum::<Duration>();
    out.wall = Instant::now().saturating_duration_since(start);
    let stats = server.worker_stats().map_err(err)?;
    out.send_errors = stats.iter().map(|s| s.socket.send_errors).sum();
    out.send_failures += failures(&mut server)?.saturating_sub(failures_before);
    // Keep the workers running while the clients drain.
    let drain = Instant::now() + plan.drain;
    while !shared.abort.load(Ordering::Relaxed) && Instant::now() < drain {
        server.poll(Duration::from_millis(10)).map_err(err)?;
        while server.poll_event().is_some() {}
    }
    Ok(out)
}

/// Sends the workers refused, all together.
fn failures(server: &mut WorkerServer) -> Result<u64, String> {
    Ok(server
        .worker_stats()
        .map_err(err)?
        .iter()
        .map(|s| s.send_failures)
        .sum())
}
