//! Unit tests of `send.rs`, in a file of their own so that `send.rs` holds its rule alone.

use std::cell::RefCell;

use super::*;

/// A socket that takes `room` datagrams (then says `WouldBlock`) and refuses any datagram
/// to `refused`, recording what it took and in how many calls.
struct Recorder {
    room: RefCell<usize>,
    refused: Option<SocketAddr>,
    took: RefCell<Vec<(SocketAddr, Vec<u8>)>>,
    calls: RefCell<usize>,
}

impl Recorder {
    fn new(room: usize) -> Recorder {
        Recorder {
            room: RefCell::new(room),
            refused: None,
            took: RefCell::new(Vec::new()),
            calls: RefCell::new(0),
        }
    }

    fn take(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
        if Some(to) == self.refused {
            return Err(io::Error::from(io::ErrorKind::ConnectionRefused));
        }
        let mut room = self.room.borrow_mut();
        if *room == 0 {
            return Err(io::Error::from(io::ErrorKind::WouldBlock));
        }
        *room -= 1;
        self.took.borrow_mut().push((to, datagram.to_vec()));
        Ok(())
    }
}

impl Socket for Recorder {
    fn prepare(&self) -> io::Result<quinn_udp::UdpSocketState> {
        Err(io::Error::other("not a socket"))
    }

    fn send_one(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
        *self.calls.borrow_mut() += 1;
        self.take(datagram, to)
    }

    fn send_gso(
        &self,
        _state: &quinn_udp::UdpSocketState,
        _transmit: &quinn_udp::Transmit<'_>,
    ) -> io::Result<()> {
        Err(io::Error::other("not used"))
    }

    fn send_many(
        &self,
        bytes: &[u8],
        datagrams: &[(SocketAddr, Range<usize>)],
    ) -> io::Result<usize> {
        // As sendmmsg: what went before a failure counts; a failure of the first is the
        // call's error.
        *self.calls.borrow_mut() += 1;
        for (i, (to, range)) in datagrams.iter().enumerate() {
            if let Err(e) = self.take(&bytes[range.clone()], *to) {
                return if i == 0 { Err(e) } else { Ok(i) };
            }
        }
        Ok(datagrams.len())
    }
}

fn addr(i: usize) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 1000 + i as u16))
}

fn gathered(n: usize) -> Singles {
    let mut singles = Singles::default();
    for i in 0..n {
        singles.push(addr(i), &[i as u8; 3]);
    }
    singles
}

fn expected(range: Range<usize>) -> Vec<(SocketAddr, Vec<u8>)> {
    range.map(|i| (addr(i), vec![i as u8; 3])).collect()
}

#[test]
fn many_destinations_leave_in_one_call_in_order() {
    let socket = Recorder::new(usize::MAX);
    let mut singles = gathered(MAX_SINGLES);
    assert!(singles.is_full());
    let mut stats = SocketStats::default();
    assert!(singles.send(&socket, &mut stats));
    assert_eq!(*socket.calls.borrow(), 1);
    assert_eq!(*socket.took.borrow(), expected(0..MAX_SINGLES));
    assert_eq!(stats.sent, MAX_SINGLES as u64);
    assert!(singles.is_empty());
}

#[test]
fn a_full_socket_keeps_the_rest_in_order_for_later() {
    let socket = Recorder::new(5);
    let mut singles = gathered(12);
    let mut stats = SocketStats::default();
    assert!(!singles.send(&socket, &mut stats), "no room for the sixth");
    assert!(!singles.is_empty());
    assert_eq!(stats.sent, 5);
    *socket.room.borrow_mut() = usize::MAX;
    assert!(singles.send(&socket, &mut stats));
    assert_eq!(*socket.took.borrow(), expected(0..12));
    assert_eq!(stats.sent, 12);
    // Gathering starts afresh once all have left.
    singles.push(addr(99), b"next");
    assert!(singles.send(&socket, &mut stats));
    assert_eq!(
        socket.took.borrow().last(),
        Some(&(addr(99), b"next".to_vec()))
    );
}

#[test]
fn a_refused_destination_is_dropped_and_counted_and_the_others_go() {
    let mut socket = Recorder::new(usize::MAX);
    socket.refused = Some(addr(3));
    let mut singles = gathered(8);
    let mut stats = SocketStats::default();
    assert!(singles.send(&socket, &mut stats));
    let mut want = expected(0..8);
    want.remove(3);
    assert_eq!(*socket.took.borrow(), want);
    assert_eq!((stats.sent, stats.send_errors), (7, 1));
}

#[test]
fn one_alone_leaves_by_sendto() {
    let socket = Recorder::new(usize::MAX);
    let mut singles = gathered(1);
    let mut stats = SocketStats::default();
    assert!(singles.send(&socket, &mut stats));
    assert_eq!(*socket.took.borrow(), expected(0..1));
}

#[cfg(target_os = "linux")]
#[test]
fn sendmmsg_delivers_each_datagram_to_its_own_socket() {
    let receivers: Vec<std::net::UdpSocket> = (0..MAX_SINGLES)
        .map(|_| std::net::UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut singles = Singles::default();
    for (i, r) in receivers.iter().enumerate() {
        singles.push(r.local_addr().unwrap(), &vec![i as u8; 10 + i]);
    }
    let mut stats = SocketStats::default();
    assert!(singles.send(&sender, &mut stats));
    assert_eq!(stats.sent, MAX_SINGLES as u64);
    for (i, r) in receivers.iter().enumerate() {
        r.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut buf = [0u8; 64];
        let (n, from) = r.recv_from(&mut buf).unwrap();
        assert_eq!(from, sender.local_addr().unwrap());
        assert_eq!(&buf[..n], &vec![i as u8; 10 + i][..]);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn sendmmsg_drops_a_datagram_the_kernel_refuses_and_sends_the_rest() {
    let receivers: Vec<std::net::UdpSocket> = (0..3)
        .map(|_| std::net::UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut singles = Singles::default();
    singles.push(receivers[0].local_addr().unwrap(), b"zero");
    // An IPv6 destination from an IPv4 socket: the kernel refuses it.
    singles.push("[::1]:9".parse().unwrap(), b"refused");
    singles.push(receivers[1].local_addr().unwrap(), b"one");
    singles.push(receivers[2].local_addr().unwrap(), b"two");
    let mut stats = SocketStats::default();
    assert!(singles.send(&sender, &mut stats));
    assert_eq!((stats.sent, stats.send_errors), (3, 1));
    for (r, want) in receivers.iter().zip([&b"zero"[..], b"one", b"two"]) {
        r.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut buf = [0u8; 16];
        let n = r.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], want);
    }
}
