//! Bare UDP over loopback: messages laid end to end in datagrams of one size, sent with GSO and
//! received with GRO and `recvmmsg` (quinn-udp's), with nothing of a protocol: no
//! acknowledgement, no retransmission, no congestion control, no copy kept for a resend. What
//! every UDP transport does at the least, so the floor the suite measures the others against
//! (`udp-floor`, [`super::udp_floor_peer`]) and the loop of the `udp-ceiling` binary.
//!
//! A datagram is `[sequence: 8 bytes][payload][CRC-32: 4 bytes]`. The sequence stands where a
//! transport's frame header would (hopnet's 1 KiB chunk has 8 bytes of them, so a 1 KiB message
//! is a 1,036-byte datagram in both); it also lets the receiver see a datagram lost or
//! reordered, which bare UDP cannot recover from: that fails the case rather than counting a
//! message that did not arrive whole. The CRC's four bytes are always there, written and
//! checked only with [`Work::crc`].
//!
//! The sender stays at most [`AHEAD`] datagrams ahead of what the receiver delivered, through
//! the suite's shared counter, so the kernel's buffers never overflow; both ends busy-poll
//! their non-blocking sockets, each on its own core when the suite pins.

use std::io::{ErrorKind, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use quinn_udp::{RecvMeta, Transmit, UdpSocketState};

use super::{Outcome, Params, Shared, payload, start_reliable};

/// Bytes of a datagram that are not payload: the sequence and the CRC-32.
pub const OVERHEAD: usize = SEQUENCE + CRC;
const SEQUENCE: usize = 8;
const CRC: usize = 4;
/// The largest UDP payload over IPv4, and so the most one GSO send can carry.
const MAX_UDP: usize = 65_507;
/// Receive slots per `recvmmsg`, each large enough for a GRO batch.
const SLOTS: usize = 32;
/// How far the sender may run ahead of the receiver, in datagrams.
pub const AHEAD: u64 = 4096;
/// What each end asks of its socket's buffer.
const SOCKET_BUFFER: usize = 8 << 20;

/// What each end does per datagram besides the system calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// The sender copies each message into its datagrams and the receiver copies it out into
    /// a message buffer, as a transport that owns its buffers must. Without it only the
    /// sequence is written and read, and the payload bytes are left as they are.
    pub copy: bool,
    /// The sender writes a CRC-32 of each datagram into its last four bytes and the receiver
    /// checks it, as hopnet's `crc` extension does (with crc32fast, as hopnet).
    pub crc: bool,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Runs the reliable case `p` over bare UDP, in datagrams of `datagram` bytes (the last one
/// may be shorter), doing `work` for each. Measured as every peer's reliable case is: from the
/// first send to the receiver holding the last message.
pub fn transfer(p: &Params, datagram: usize, work: Work) -> Result<Outcome, String> {
    if !(OVERHEAD < datagram && datagram <= MAX_UDP) {
        return Err(format!(
            "a datagram must be {} to {MAX_UDP} bytes, not {datagram}",
            OVERHEAD + 1
        ));
    }
    if p.size == 0 {
        return Err("bare UDP sends no empty message: it has no frame to carry one".into());
    }
    if p.loss > 0.0 {
        return Err("bare UDP recovers no loss".into());
    }
    let rx = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
    let tx = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
    let rx_state = UdpSocketState::new((&rx).into()).map_err(err)?;
    let tx_state = UdpSocketState::new((&tx).into()).map_err(err)?;
    rx_state
        .set_recv_buffer_size((&rx).into(), SOCKET_BUFFER)
        .map_err(err)?;
    tx_state
        .set_send_buffer_size((&tx).into(), SOCKET_BUFFER)
        .map_err(err)?;
    let (size, count) = (p.size, p.count);
    // Every other peer's clock starts after a handshake, with its server thread running; here
    // the sender waits for the receiver's word instead. A sender spinning at once could also
    // keep the receiver's new thread from ever running on its core, under a real-time policy.
    let (ready_tx, ready) = std::sync::mpsc::sync_channel(1);
    let case = start_reliable(rx.local_addr().map_err(err)?, p, move |sh, give_up| {
        let _ = ready_tx.send(());
        let mut receiver = Receiver {
            socket: &rx,
            state: &rx_state,
            work,
            message: vec![0; size],
            filled: 0,
            expected: 0,
            count,
        };
        let result = receiver.run(sh, give_up);
        if result.is_err() {
            // The sender waits on what this end delivers: let it stop.
            sh.stop();
        }
        result
    })?;
    let sender = Sender {
        socket: &tx,
        state: &tx_state,
        to: case.target,
        work,
        datagram,
    };
    let sent = ready
        .recv_timeout(Duration::from_secs(5))
        .map_err(|_| "the receiver never started".to_string())
        .and_then(|()| sender.run(p, &case.shared));
    case.finish(sent, p)
}

/// The sending end: builds each GSO batch of datagrams from the one message it sends again and
/// again (as every peer's client does), and sends it.
struct Sender<'a> {
    socket: &'a UdpSocket,
    state: &'a UdpSocketState,
    to: SocketAddr,
    work: Work,
    datagram: usize,
}

impl Sender<'_> {
    fn run(&self, p: &Params, sh: &Shared) -> Result<(), String> {
        let message = payload(p.size, 0);
        let body = self.datagram - OVERHEAD;
        let total = p.size as u64 * p.count;
        let mut batch = vec![0x5a_u8; MAX_UDP];
        let mut offset = 0u64;
        let mut sequence = 0u64;
        sh.start();
        while offset < total {
            if sh.is_done() || sh.past(p.deadline) {
                return Ok(());
            }
            let delivered = sh.delivered.load(Ordering::Relaxed) * p.size as u64;
            if offset - delivered.min(offset) > AHEAD * body as u64 {
                std::hint::spin_loop();
                continue;
            }
            let per_send = self
                .state
                .max_gso_segments()
                .clamp(1, MAX_UDP / self.datagram);
            let mut len = 0;
            let mut segments = 0;
            while segments < per_send && offset < total {
                let n = (total - offset).min(body as u64) as usize;
                let one = &mut batch[len..len + OVERHEAD + n];
                seal(one, sequence, &message, offset, self.work);
                len += one.len();
                offset += n as u64;
                sequence += 1;
                segments += 1;
            }
            self.send(&batch[..len], segments > 1, sh, p.deadline)?;
        }
        // Every datagram left: the receiver stamps the end when the last message is whole.
        while !sh.is_done() && !sh.past(p.deadline) {
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    }

    /// Sends one batch, again while the socket's buffer is full.
    fn send(
        &self,
        contents: &[u8],
        segmented: bool,
        sh: &Shared,
        deadline: Duration,
    ) -> Result<(), String> {
        let transmit = Transmit {
            destination: self.to,
            ecn: None,
            contents,
            segment_size: segmented.then_some(self.datagram),
            src_ip: None,
        };
        loop {
            match self.state.try_send(self.socket.into(), &transmit) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if sh.is_done() || sh.past(deadline) {
                        return Ok(());
                    }
                }
                Err(e) => return Err(format!("send: {e}")),
            }
        }
    }
}

/// The receiving end: checks each datagram, copies its payload into the message it belongs
/// to, and delivers each message once it is whole.
struct Receiver<'a> {
    socket: &'a UdpSocket,
    state: &'a UdpSocketState,
    work: Work,
    /// The message being filled.
    message: Vec<u8>,
    filled: usize,
    /// The sequence of the next datagram.
    expected: u64,
    /// Messages in the case.
    count: u64,
}

impl Receiver<'_> {
    fn run(&mut self, sh: &Shared, give_up: Instant) -> Result<(), String> {
        let mut slots: Vec<Vec<u8>> = (0..SLOTS).map(|_| vec![0; 1 << 16]).collect();
        let mut metas = [RecvMeta::default(); SLOTS];
        while !sh.is_done() {
            let mut bufs: Vec<IoSliceMut> = slots.iter_mut().map(|s| IoSliceMut::new(s)).collect();
            let filled = match self.state.recv(self.socket.into(), &mut bufs, &mut metas) {
                Ok(n) => n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                    if Instant::now() > give_up {
                        return Ok(());
                    }
                    continue;
                }
                Err(e) => return Err(format!("recv: {e}")),
            };
            for (slot, meta) in slots.iter().zip(&metas).take(filled) {
                let stride = if meta.stride == 0 {
                    meta.len
                } else {
                    meta.stride
                };
                for one in slot[..meta.len].chunks(stride.max(1)) {
                    let body = open(one, self.expected, self.work)?;
                    self.expected += 1;
                    self.take(body, sh);
                }
            }
        }
        Ok(())
    }

    /// Takes a datagram's payload into the messages it continues and begins.
    fn take(&mut self, mut bytes: &[u8], sh: &Shared) {
        while !bytes.is_empty() {
            let n = bytes.len().min(self.message.len() - self.filled);
            if self.work.copy {
                self.message[self.filled..self.filled + n].copy_from_slice(&bytes[..n]);
            }
            self.filled += n;
            bytes = &bytes[n..];
            if self.filled == self.message.len() {
                std::hint::black_box(&self.message);
                self.filled = 0;
                sh.deliver(self.count);
            }
        }
    }
}

/// Writes datagram `sequence` into `one`, whose payload starts `offset` bytes into the stream of
/// messages, each a copy of `message`.
fn seal(one: &mut [u8], sequence: u64, message: &[u8], offset: u64, work: Work) {
    let end = one.len() - CRC;
    one[..SEQUENCE].copy_from_slice(&sequence.to_le_bytes());
    if work.copy {
        let mut out = &mut one[SEQUENCE..end];
        let mut from = (offset % message.len() as u64) as usize;
        while !out.is_empty() {
            let n = out.len().min(message.len() - from);
            out[..n].copy_from_slice(&message[from..from + n]);
            out = &mut out[n..];
            from = 0;
        }
    }
    if work.crc {
        let sum = crc32fast::hash(&one[..end]);
        one[end..].copy_from_slice(&sum.to_be_bytes());
    }
}

/// The payload of datagram `one`, if it is datagram `expected` and whole.
fn open(one: &[u8], expected: u64, work: Work) -> Result<&[u8], String> {
    if one.len() <= OVERHEAD {
        return Err(format!(
            "datagram {expected}: {} bytes, no payload",
            one.len()
        ));
    }
    let (body, sum) = one.split_at(one.len() - CRC);
    if work.crc && sum != crc32fast::hash(body).to_be_bytes() {
        return Err(format!("datagram {expected}: CRC-32 mismatch"));
    }
    let (head, payload) = body.split_at(SEQUENCE);
    let sequence = u64::from_le_bytes(head.try_into().expect("8 bytes"));
    if sequence != expected {
        return Err(format!(
            "datagram {expected} expected, {sequence} arrived: bare UDP recovers no loss"
        ));
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: Work = Work {
        copy: true,
        crc: true,
    };

    fn case(size: usize, count: u64) -> Params {
        Params {
            size,
            count,
            loss: 0.0,
            seed: 0,
            deadline: Duration::from_secs(20),
        }
    }

    #[test]
    fn every_message_arrives_whole_in_every_mode() {
        for work in [
            Work {
                copy: false,
                crc: false,
            },
            Work {
                copy: true,
                crc: false,
            },
            BOTH,
        ] {
            // One message per datagram, and one message over many 1,200-byte datagrams
            // whose last one is shorter.
            for (size, count, datagram) in [(1024, 3000, 1036), (65_536, 40, 1200)] {
                let o = transfer(&case(size, count), datagram, work).unwrap();
                assert_eq!((o.delivered, o.wanted), (count, count), "{work:?} {size}");
            }
        }
    }

    #[test]
    fn a_datagram_spans_the_end_of_one_message_and_the_start_of_the_next() {
        let message: Vec<u8> = (0..100u8).collect();
        let mut one = vec![0u8; 60 + OVERHEAD];
        seal(&mut one, 7, &message, 170, BOTH);
        let payload = open(&one, 7, BOTH).unwrap();
        let wanted: Vec<u8> = (70..100u8).chain(0..30).collect();
        assert_eq!(payload, &wanted[..]);
    }

    #[test]
    fn a_lost_or_damaged_datagram_fails_rather_than_counting() {
        let message = vec![1u8; 64];
        let mut one = vec![0u8; 64 + OVERHEAD];
        seal(&mut one, 3, &message, 0, BOTH);
        assert!(open(&one, 3, BOTH).is_ok());
        assert!(open(&one, 2, BOTH).unwrap_err().contains("no loss"));
        one[20] ^= 1;
        assert!(open(&one, 3, BOTH).unwrap_err().contains("CRC-32"));
        assert!(open(&one[..OVERHEAD], 3, BOTH).is_err());
    }

    #[test]
    fn what_bare_udp_cannot_do_is_an_error() {
        assert!(transfer(&case(1024, 1), OVERHEAD, BOTH).is_err());
        assert!(transfer(&case(1024, 1), MAX_UDP + 1, BOTH).is_err());
        assert!(transfer(&case(0, 1), 1036, BOTH).is_err());
        let lossy = Params {
            loss: 0.05,
            ..case(1024, 1)
        };
        assert!(transfer(&lossy, 1036, BOTH).is_err());
    }
}
