//! What the kernel costs the sender of `fanout-1000`, with no protocol at all: 30 rounds of one
//! 340-byte datagram (a 300-byte snapshot, sealed) to each of 1,000 loopback sockets, sent
//! one `sendto` per datagram (what hopnet's drivers do for lone datagrams) or `sendmmsg` in
//! batches (one system call for many destinations). Prints the sending thread's CPU time per
//! datagram; the receivers are drained between rounds, outside the measure.
//!
//! `send-floor [BATCH]` (default 1: `sendto`). Linux only. Run it as the transport suite is
//! run on a shared machine: `chrt -f 1`.

#[cfg(target_os = "linux")]
fn main() {
    use std::io::IoSlice;
    use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
    use std::time::Duration;

    use rustix::net::{MMsgHdr, SendAncillaryBuffer, SendFlags, SocketAddrAny, sendmmsg};

    fn thread_cpu() -> Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(
            t.tv_sec.max(0) as u64,
            t.tv_nsec.clamp(0, 999_999_999) as u32,
        )
    }

    let batch: usize = std::env::args()
        .nth(1)
        .map_or(1, |a| a.parse().expect("BATCH"))
        .max(1);
    let receivers: Vec<UdpSocket> = (0..1000usize)
        .map(|i| {
            let ip = Ipv4Addr::new(127, 0, 1 + (i / 250) as u8, 1 + (i % 250) as u8);
            let socket = UdpSocket::bind(SocketAddrV4::new(ip, 0)).expect("bind a receiver");
            socket.set_nonblocking(true).expect("non-blocking");
            socket
        })
        .collect();
    let addrs: Vec<SocketAddr> = receivers
        .iter()
        .map(|s| s.local_addr().expect("receiver address"))
        .collect();
    let any: Vec<SocketAddrAny> = addrs.iter().map(|&a| a.into()).collect();
    let sender = UdpSocket::bind("127.0.0.1:0").expect("bind the sender");
    let payload = vec![7u8; 340];
    let iov = [IoSlice::new(&payload)];
    let mut drain = [0u8; 2048];
    for round in 0..6 {
        let (mut cpu, mut sent) = (Duration::ZERO, 0usize);
        for _ in 0..30 {
            let start = thread_cpu();
            if batch == 1 {
                for a in &addrs {
                    sender.send_to(&payload, a).expect("sendto");
                    sent += 1;
                }
            } else {
                for chunk in any.chunks(batch) {
                    let mut control: Vec<SendAncillaryBuffer<'_, '_, '_>> = chunk
                        .iter()
                        .map(|_| SendAncillaryBuffer::default())
                        .collect();
                    let mut msgs: Vec<MMsgHdr<'_>> = chunk
                        .iter()
                        .zip(control.iter_mut())
                        .map(|(a, c)| MMsgHdr::new_with_addr(a, &iov, c))
                        .collect();
                    let mut from = 0;
                    while from < msgs.len() {
                        from += sendmmsg(&sender, &mut msgs[from..], SendFlags::empty())
                            .expect("sendmmsg");
                    }
                    sent += msgs.len();
                }
            }
            cpu += thread_cpu().saturating_sub(start);
            for r in &receivers {
                while r.recv(&mut drain).is_ok() {}
            }
        }
        // The first round warms the caches and the kernel's routes.
        if round > 0 {
            println!(
                "batch {batch}: {:.2} us of CPU per datagram sent ({sent} datagrams)",
                cpu.as_secs_f64() * 1e6 / sent as f64
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("send-floor measures sendmmsg, which is Linux's");
}
