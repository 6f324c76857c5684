//! Another protocol on a driver server's own socket (see [`SideChannel`]).

use std::collections::VecDeque;
use std::net::SocketAddr;

/// The most datagrams that wait in each direction; further ones are dropped and counted.
pub const SIDE_QUEUE: usize = 256;

/// The longest claimed datagram kept: queries are small, and this bounds the inbox's memory
/// (with [`SIDE_QUEUE`]) to half a MiB.
pub const MAX_SIDE_DATAGRAM: usize = 2048;

/// Counters of a [`SideChannel`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideChannelStats {
    /// Datagrams claimed (kept or dropped).
    pub claimed: u64,
    /// Claimed datagrams dropped: the inbox was full, or the datagram too long.
    pub dropped_in: u64,
    /// Answers queued.
    pub queued_out: u64,
    /// Answers dropped: the outbox was full, or the answer too long.
    pub dropped_out: u64,
}

/// Another protocol on a driver server's own socket: datagrams that start with a prefix no
/// hopnet datagram starts with go to the application instead of the machine, and the
/// application's answers leave through the same socket.
///
/// What it is for: a game server answers server browsers' queries (the Source engine's A2S,
/// whose datagrams start `FF FF FF FF`) on the port its players already know, as Source
/// servers do. Why a hook in the driver rather than a second loop on a cloned socket: the
/// driver owns the socket's reads (batched, drained up to a limit per `poll`), so a second
/// reader would race it for every datagram; here each datagram is read once and told apart by
/// one compare of its first four bytes, made only when a side channel is set. The application
/// stays sans-I/O: it reads claimed datagrams with [`recv`](Self::recv) and queues answers
/// with [`send`](Self::send); the next `poll` or `flush` sends them.
///
/// A datagram that is exactly the prefix, four bytes, is never claimed: hopnet's handshake
/// datagrams are bare 4-byte integers (PROTOCOL.md, "Handshake datagrams"), and a peer's random
/// salt may be any four bytes. Every longer datagram that hopnet or a conforming peer sends
/// starts with a byte other than `FF`, on the spec's wire, the extended one and in secure mode
/// (PROTOCOL.md, "Server queries on the game's port").
///
/// Bounded both ways: at most [`SIDE_QUEUE`] datagrams wait in each direction, and a claimed
/// datagram longer than [`MAX_SIDE_DATAGRAM`] is dropped; both are counted
/// ([`SideChannelStats`]), never an error.
///
/// ```no_run
/// use hopnet::Server;
/// use hopnet::SideChannel;
/// use hopnet::Config;
/// use std::time::Duration;
///
/// let mut server = Server::bind("0.0.0.0:27015", Config::default())?;
/// server.set_side_channel(Some(SideChannel::new([0xff; 4])));
/// loop {
///     server.poll(Duration::from_millis(16))?;
///     let side = server.side_channel().expect("set above");
///     while let Some((from, query)) = side.recv() {
///         side.send(from, query[4..].to_vec()); // the answer, here an echo
///     }
///     server.flush()?;
///     # break;
/// }
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Debug)]
pub struct SideChannel {
    prefix: [u8; 4],
    inbox: VecDeque<(SocketAddr, Vec<u8>)>,
    outbox: VecDeque<(SocketAddr, Vec<u8>)>,
    stats: SideChannelStats,
}

impl SideChannel {
    /// Claims the datagrams longer than four bytes that start with `prefix`.
    pub fn new(prefix: [u8; 4]) -> SideChannel {
        SideChannel {
            prefix,
            inbox: VecDeque::new(),
            outbox: VecDeque::new(),
            stats: SideChannelStats::default(),
        }
    }

    /// The prefix it claims.
    pub fn prefix(&self) -> [u8; 4] {
        self.prefix
    }

    /// Whether `datagram` is this channel's: longer than the prefix, and starting with it.
    pub fn claims(&self, datagram: &[u8]) -> bool {
        datagram.len() > self.prefix.len() && datagram[..4] == self.prefix
    }

    /// The next claimed datagram, oldest first, with its sender.
    pub fn recv(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.inbox.pop_front()
    }

    /// Queues an answer to `to`; it leaves on the driver's next `poll` or `flush`. Returns
    /// `false` (and counts it) if it was dropped: the outbox holds [`SIDE_QUEUE`] already, or
    /// it is longer than a UDP datagram can be.
    pub fn send(&mut self, to: SocketAddr, datagram: Vec<u8>) -> bool {
        if self.outbox.len() >= SIDE_QUEUE || datagram.len() > 65_507 {
            self.stats.dropped_out += 1;
            return false;
        }
        self.stats.queued_out += 1;
        self.outbox.push_back((to, datagram));
        true
    }

    /// Counters.
    pub fn stats(&self) -> SideChannelStats {
        self.stats.clone()
    }

    /// For a driver: takes `datagram` from `from` if this channel [`claims`](Self::claims)
    /// it (kept for [`recv`](Self::recv) unless the inbox is full or it is too long, either
    /// way counted), and says whether it did; a datagram it does not claim is the machine's.
    /// What hopnet's UDP driver does with every datagram when a side channel is set, and what
    /// another carrier's driver calls to offer one.
    pub fn offer(&mut self, from: SocketAddr, datagram: &[u8]) -> bool {
        if !self.claims(datagram) {
            return false;
        }
        self.stats.claimed += 1;
        if self.inbox.len() >= SIDE_QUEUE || datagram.len() > MAX_SIDE_DATAGRAM {
            self.stats.dropped_in += 1;
        } else {
            self.inbox.push_back((from, datagram.to_vec()));
        }
        true
    }

    /// For a driver: the next answer queued with [`send`](Self::send), oldest first, to send
    /// on the socket the queries came in on, before the machine's datagrams.
    pub fn next_answer(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.outbox.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::ServerMachine;
    use hopnet_proto::{Config, Machine, Server};
    use std::time::Instant;

    fn addr(port: u16) -> SocketAddr {
        ([127, 0, 0, 1], port).into()
    }

    fn sided() -> ServerMachine {
        let mut m = ServerMachine::plain(Server::new(Config::default()));
        m.side = Some(SideChannel::new([0xff; 4]));
        m
    }

    #[test]
    fn prefixed_datagrams_go_to_the_side_and_the_rest_to_the_machine() {
        let mut m = sided();
        let now = Instant::now();
        m.handle(now, addr(1), b"\xff\xff\xff\xffTSource Engine Query\0");
        // A 4-byte Init, even one equal to the prefix, is the machine's: it answers a Challenge.
        m.handle(now, addr(2), &[0xff; 4]);
        let side = m.side.as_mut().unwrap();
        assert_eq!(side.recv().unwrap().0, addr(1));
        assert!(side.recv().is_none());
        side.send(addr(1), b"\xff\xff\xff\xffA1234".to_vec());
        let mut buf = Vec::new();
        let first = m.poll_transmit(now, &mut buf, 64).unwrap();
        assert_eq!(
            (first.destination, &buf[..]),
            (addr(1), &b"\xff\xff\xff\xffA1234"[..])
        );
        let second = m.poll_transmit(now, &mut buf, 64).unwrap();
        assert_eq!(
            (second.destination, second.size),
            (addr(2), 4),
            "the Challenge"
        );
        assert!(m.poll_transmit(now, &mut buf, 64).is_none());
        assert_eq!(m.machine().server_stats().malformed, 0);
    }

    #[test]
    fn without_a_side_channel_everything_is_the_machine_s() {
        let mut m = ServerMachine::plain(Server::new(Config::default()));
        m.handle(
            Instant::now(),
            addr(1),
            b"\xff\xff\xff\xffTSource Engine Query\0",
        );
        assert_eq!(m.machine().server_stats().malformed, 1);
    }

    #[test]
    fn a_flood_is_bounded_and_counted() {
        let mut m = sided();
        let now = Instant::now();
        for i in 0..SIDE_QUEUE + 10 {
            m.handle(now, addr(i as u16), b"\xff\xff\xff\xffU\xff\xff\xff\xff");
        }
        m.handle(now, addr(1), &[0xff; MAX_SIDE_DATAGRAM + 1]);
        let side = m.side.as_mut().unwrap();
        let stats = side.stats();
        assert_eq!(stats.claimed, SIDE_QUEUE as u64 + 11);
        assert_eq!(stats.dropped_in, 11);
        for _ in 0..SIDE_QUEUE {
            assert!(side.send(addr(1), vec![0xff; 9]));
        }
        assert!(!side.send(addr(1), vec![0xff; 9]));
        assert_eq!(side.stats().dropped_out, 1);
    }
}
