//! The ceiling of any UDP transport on this machine: payloads in 1,036-byte datagrams (hopnet's
//! 1 KiB case, frame and CRC included) sent over loopback with GSO and received with GRO and
//! `recvmmsg`, with no protocol at all: no reliability, no acknowledgement, no copy into a
//! queue. If this could not beat TCP, no UDP protocol could; it can, so the gap between hopnet
//! and TCP at 1 KiB is hopnet's own work (BENCHMARKS.md, "Stop 21").
//!
//! `cargo run --release --bin udp-ceiling -- [datagram bytes] [datagrams] [copy] [crc]`: with
//! `copy`, the sender copies each payload into its send buffer and the receiver copies each
//! out, as a transport that owns its buffers must; with `crc` as well, the sender writes a
//! CRC-32 of each datagram into its last four bytes and the receiver checks it, as hopnet's
//! `crc` extension does. That is the least any UDP transport with a checksum of its own does
//! per message ("Stop 23"), and the transport suite's `udp-floor` row: this binary runs the
//! same loop ([`bench::transport::bare_udp`]) alone, one message per datagram, pinned as the
//! suite pins.

use std::time::Duration;

use bench::transport::bare_udp::{self, OVERHEAD, Work};
use bench::transport::{Params, pin_as_the_suite};

fn arg<T: std::str::FromStr>(n: usize, default: T) -> T {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let datagram: usize = arg(1, 1036);
    let total: u64 = arg(2, 2_000_000);
    let copy = std::env::args().nth(3).as_deref() == Some("copy");
    let crc = copy && std::env::args().nth(4).as_deref() == Some("crc");
    let size = datagram.saturating_sub(OVERHEAD);
    let case = Params {
        size,
        count: total,
        loss: 0.0,
        seed: 0,
        deadline: Duration::from_secs(30),
    };
    pin_as_the_suite();
    match bare_udp::transfer(&case, datagram, Work { copy, crc }) {
        Ok(o) => {
            let secs = o.elapsed.as_secs_f64();
            println!(
                "{datagram}-byte datagrams, copy {copy}, crc {crc}: {} of {} in {secs:.3} s, \
                 {:.0} MB/s of {size}-byte payloads, {:.0} MB/s of datagrams",
                o.delivered,
                o.wanted,
                o.delivered as f64 * size as f64 / secs / 1e6,
                o.delivered as f64 * datagram as f64 / secs / 1e6
            );
        }
        Err(e) => {
            eprintln!("udp-ceiling: {e}");
            std::process::exit(1);
        }
    }
}
