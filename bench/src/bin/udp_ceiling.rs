//! The ceiling of any UDP transport on this machine: 1 KiB payloads in 1,036-byte datagrams
//! (hopnet's 1 KiB case, frame and CRC included) sent over loopback with GSO and received
//! with GRO and `recvmmsg`, with no protocol at all: no reliability, no acknowledgement, no
//! copy into a queue. If this could not beat TCP, no UDP protocol could; it can, so the gap
//! between hopnet and TCP at 1 KiB is hopnet's own work (BENCHMARKS.md, "Stop 21").
//!
//! `cargo run --release --bin udp-ceiling -- [datagram bytes] [datagrams] [copy] [crc]`: with
//! `copy`, the sender copies each payload into its send buffer and the receiver copies each
//! out, as a transport that owns its buffers must; with `crc` as well, the sender writes a
//! CRC-32 of each datagram into its last four bytes and the receiver checks it, as hopnet's
//! `crc` extension does (crc32fast, as hopnet). That is the least any UDP transport with a
//! checksum of its own does per message, with nothing else of a protocol (BENCHMARKS.md,
//! "Stop 23"). It pins its threads as the transport suite
//! does (`pin_as_the_suite`); the sender stays at most 4,096 datagrams ahead of
//! what the receiver counted, so the kernel drops nothing.

use std::io::IoSliceMut;
use std::net::UdpSocket;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bench::transport::{pin_as_the_suite, spawn_server};
use quinn_udp::{RecvMeta, Transmit, UdpSocketState};

/// Receive slots per `recvmmsg`, each large enough for a GRO batch.
const SLOTS: usize = 32;
/// How far the sender may run ahead of the receiver, in datagrams.
const AHEAD: u64 = 4096;

fn arg<T: std::str::FromStr>(n: usize, default: T) -> T {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> std::io::Result<()> {
    let datagram: usize = arg(1, 1036);
    let total: u64 = arg(2, 2_000_000);
    let copy = std::env::args().nth(3).as_deref() == Some("copy");
    let crc = copy && std::env::args().nth(4).as_deref() == Some("crc");
    if !(1..=65_507).contains(&datagram) {
        eprintln!("the datagram size must be 1 to 65,507 bytes");
        std::process::exit(2);
    }

    let rx = UdpSocket::bind("127.0.0.1:0")?;
    let tx = UdpSocket::bind("127.0.0.1:0")?;
    let to = rx.local_addr()?;
    let rx_state = UdpSocketState::new((&rx).into())?;
    let tx_state = UdpSocketState::new((&tx).into())?;
    rx_state.set_recv_buffer_size((&rx).into(), 8 << 20)?;
    tx_state.set_send_buffer_size((&tx).into(), 8 << 20)?;
    rx.set_read_timeout(Some(Duration::from_millis(50)))?;

    let counted = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    pin_as_the_suite();
    let receiver = {
        let (counted, done) = (counted.clone(), done.clone());
        spawn_server(move || {
            let mut slots: Vec<Vec<u8>> = (0..SLOTS).map(|_| vec![0; 1 << 16]).collect();
            let mut metas = [RecvMeta::default(); SLOTS];
            let mut out = vec![0u8; datagram];
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                let mut bufs: Vec<IoSliceMut> =
                    slots.iter_mut().map(|s| IoSliceMut::new(s)).collect();
                // A timeout or a transient error: look at `done` and read again.
                let Ok(filled) = rx_state.recv((&rx).into(), &mut bufs, &mut metas) else {
                    continue;
                };
                for (slot, meta) in slots.iter().zip(&metas).take(filled) {
                    let stride = if meta.stride == 0 {
                        meta.len
                    } else {
                        meta.stride
                    };
                    for one in slot[..meta.len].chunks(stride.max(1)) {
                        if crc {
                            let (body, sum) = one.split_at(one.len().saturating_sub(4));
                            if sum != crc32fast::hash(body).to_be_bytes() {
                                // Not counted: the total falls short, and the run says so.
                                continue;
                            }
                        }
                        if copy {
                            out[..one.len()].copy_from_slice(one);
                            std::hint::black_box(&out);
                        }
                        n += 1;
                    }
                }
                counted.store(n, Ordering::Relaxed);
            }
        })
    };

    let per_send = tx_state.max_gso_segments().clamp(1, 65_507 / datagram);
    let mut batch = vec![7u8; per_send * datagram];
    let payload = vec![9u8; datagram];
    let mut sent = 0u64;
    let start = Instant::now();
    while sent < total {
        if sent - counted.load(Ordering::Relaxed) > AHEAD {
            std::hint::spin_loop();
            continue;
        }
        if copy {
            for one in batch.chunks_mut(datagram) {
                one.copy_from_slice(&payload);
                if crc && one.len() > 4 {
                    let at = one.len() - 4;
                    let sum = crc32fast::hash(&one[..at]);
                    one[at..].copy_from_slice(&sum.to_be_bytes());
                }
            }
        }
        let transmit = Transmit {
            destination: to,
            ecn: None,
            contents: &batch,
            segment_size: (per_send > 1).then_some(datagram),
            src_ip: None,
        };
        // A full socket buffer: try again.
        if tx_state.send((&tx).into(), &transmit).is_ok() {
            sent += per_send as u64;
        }
    }
    let give_up = start + Duration::from_secs(10);
    while counted.load(Ordering::Relaxed) < sent && Instant::now() < give_up {
        std::hint::spin_loop();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let got = counted.load(Ordering::Relaxed);
    done.store(true, Ordering::Relaxed);
    receiver
        .join()
        .map_err(|_| std::io::Error::other("the receiver panicked"))?;
    println!(
        "{datagram}-byte datagrams, {per_send} per send, copy {copy}, crc {crc}: {got} of {sent} in \
         {elapsed:.3} s, {:.0} MB/s of 1 KiB payload, {:.0} MB/s of datagrams",
        got as f64 * 1024.0 / elapsed / 1e6,
        got as f64 * datagram as f64 / elapsed / 1e6
    );
    Ok(())
}
