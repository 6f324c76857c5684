//! Plain TCP over loopback: the kernel's baseline. Messages are framed with a 4-byte length;
//! the writer is buffered (64 KiB) and `TCP_NODELAY` is on.

use std::io::{BufReader, BufWriter, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use super::{Outcome, Params, RttParams, Shared, payload, tag_of};

/// Messages written between two checks of the deadline.
const DEADLINE_EVERY: u64 = 64;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Reliable one-way throughput (0 % loss only).
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(err)?;
    let addr = listener.local_addr().map_err(err)?;
    let shared = Shared::new();
    let (sh, size, count) = (shared.clone(), p.size, p.count);
    let srv = super::spawn_server(move || -> Result<(), String> {
        let (stream, _) = listener.accept().map_err(err)?;
        stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .map_err(err)?;
        let mut r = BufReader::with_capacity(1 << 16, stream);
        let mut buf = vec![0u8; size];
        let mut len = [0u8; 4];
        while !sh.is_done() {
            match r.read_exact(&mut len) {
                Ok(()) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(err(e)),
            }
            let n = u32::from_le_bytes(len) as usize;
            buf.resize(n, 0);
            r.read_exact(&mut buf).map_err(err)?;
            if n == size {
                sh.deliver(count);
            }
        }
        Ok(())
    });
    let client_result = (|| -> Result<(), String> {
        let stream = TcpStream::connect(addr).map_err(err)?;
        stream.set_nodelay(true).map_err(err)?;
        let mut w = BufWriter::with_capacity(1 << 16, stream);
        let msg = payload(size, 0);
        shared.start();
        for i in 0..count {
            w.write_all(&(size as u32).to_le_bytes()).map_err(err)?;
            w.write_all(&msg).map_err(err)?;
            // The deadline is a safety net, checked about once per buffer's worth of 1 KiB
            // messages: a clock read per message cost this loop a quarter of its time
            // (BENCHMARKS.md, "Stop 23").
            if i % DEADLINE_EVERY == 0 && shared.past(p.deadline) {
                break;
            }
        }
        w.flush().map_err(err)?;
        let end = Instant::now() + p.deadline;
        while !shared.is_done() && Instant::now() < end {
            thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    })();
    shared.end(srv, client_result)?;
    shared.outcome(count, p.deadline)
}

/// Echo of 100-byte messages over one TCP connection.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(err)?;
    let addr = listener.local_addr().map_err(err)?;
    let size = p.size;
    let srv = super::spawn_server(move || -> Result<(), String> {
        let (mut stream, _) = listener.accept().map_err(err)?;
        stream.set_nodelay(true).map_err(err)?;
        let mut buf = vec![0u8; size];
        loop {
            match stream.read_exact(&mut buf) {
                Ok(()) => stream.write_all(&buf).map_err(err)?,
                Err(_) => return Ok(()),
            }
        }
    });
    let result = (|| -> Result<Vec<f64>, String> {
        let mut stream = TcpStream::connect(addr).map_err(err)?;
        stream.set_nodelay(true).map_err(err)?;
        let mut buf = vec![0u8; size];
        let mut rtts = Vec::with_capacity(p.count as usize);
        let start = Instant::now();
        for i in 0..p.count {
            if start.elapsed() > p.deadline {
                break;
            }
            let msg = payload(size, i);
            let t0 = Instant::now();
            stream.write_all(&msg).map_err(err)?;
            stream.read_exact(&mut buf).map_err(err)?;
            if tag_of(&buf) == i {
                rtts.push(t0.elapsed().as_nanos() as f64);
            }
        }
        Ok(rtts)
    })();
    srv.join()
        .map_err(|_| "server thread panicked".to_string())??;
    result
}
