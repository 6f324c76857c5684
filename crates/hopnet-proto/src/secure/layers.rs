//! The two layers of a secure machine, netcode 1.02 under a plain hopnet machine, and the one
//! [`Machine`] loop that drives them at both ends: netcode's own packets go out first, then
//! the plain machine's datagrams, sealed in batches. What the client and the server do their
//! own way (which payloads reach the plain machine, how a closed connection ends its netcode
//! side, how a batch is sealed toward its peer) is each end's [`End`].

use std::fmt;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet_netcode::{NetcodeClient, NetcodeServer};

use crate::machine::Machine;
use crate::transmit::Transmit;

use super::batch::{PlainBatch, Seal};
use super::plain_capture::{PlainCapture, PlainDatagram};

/// A secure machine: a plain hopnet machine whose datagrams travel as netcode 1.02 payload
/// packets. Its two ends are [`SecureClient`](super::SecureClient) and
/// [`SecureServer`](super::SecureServer); this type holds what they share, so that the
/// [`Machine`] loop is written once for both.
///
/// ```
/// use std::time::{Instant, SystemTime};
///
/// use hopnet_proto::secure::{ConnectTokenBuilder, Key, SecureClient};
/// use hopnet_proto::{Config, Machine};
///
/// let key = Key::generate();
/// let server = "127.0.0.1:40000".parse().unwrap();
/// let token = ConnectTokenBuilder::new(7, 42, [server])
///     .issue(&key, SystemTime::now())
///     .unwrap();
/// let now = Instant::now();
/// let mut client = SecureClient::new(Config::default(), token, now).unwrap();
/// // Its first packet is netcode's connection request, to the token's server.
/// let mut buf = Vec::new();
/// let transmit = client.poll_transmit(now, &mut buf, 1).unwrap();
/// assert_eq!(transmit.destination, server);
/// assert!(!client.is_connected());
/// ```
#[derive(Debug)]
pub struct Secure<E: End> {
    pub(super) netcode: E::Netcode,
    /// The plain machine; driven only while [`End::runs_inner`] says so.
    pub(super) inner: E::Inner,
    /// The plain machine's datagrams not yet sealed.
    pub(super) plain: PlainBatch,
    /// The plain datagrams kept for a recording, when asked.
    pub(super) capture: PlainCapture,
    /// What only this end keeps.
    pub(super) end: E,
}

impl<E: End> Secure<E> {
    /// Keeps (or stops keeping) a copy of every plain hopnet datagram this machine decrypts
    /// and every one it is about to seal, for [`take_plain`](Self::take_plain): what a
    /// recording of the decrypted session writes. Off by default; PROTOCOL.md, "Recording a
    /// secure session".
    ///
    /// ```
    /// # use std::time::{Instant, SystemTime};
    /// # use hopnet_proto::secure::{ConnectTokenBuilder, Key, SecureClient};
    /// # let key = Key::generate();
    /// # let token = ConnectTokenBuilder::new(7, 1, ["127.0.0.1:7000".parse().unwrap()])
    /// #     .issue(&key, SystemTime::now()).unwrap();
    /// # let mut machine = SecureClient::new(hopnet_proto::Config::default(), token, Instant::now()).unwrap();
    /// machine.set_plain_capture(true);
    /// // ... rounds of I/O ...
    /// while let Some(d) = machine.take_plain() {
    ///     println!("{:?} {} {} bytes", d.direction, d.peer, d.bytes.len());
    /// }
    /// ```
    pub fn set_plain_capture(&mut self, on: bool) {
        self.capture.set(on);
    }

    /// The oldest plain datagram kept (see [`set_plain_capture`](Self::set_plain_capture)).
    pub fn take_plain(&mut self) -> Option<PlainDatagram> {
        self.capture.take()
    }

    /// Plain datagrams dropped from the capture because none were taken for
    /// [`PLAIN_CAPTURE_LIMIT`](super::PLAIN_CAPTURE_LIMIT) of them.
    pub fn plain_capture_dropped(&self) -> u64 {
        self.capture.dropped()
    }
}

/// What the shared loop asks of netcode's machine, the client's or the server's: each answers
/// with its own methods of the same names.
pub trait Netcode: fmt::Debug {
    /// Netcode's next packet of its own into `buf`, and where it goes.
    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<SocketAddr>;
    /// Netcode's next deadline.
    fn poll_timeout(&self) -> Option<Instant>;
    /// Runs netcode's timers.
    fn handle_timeout(&mut self, now: Instant);
}

/// [`Netcode`] for each of netcode's machines, by their own methods (one body for both).
macro_rules! netcode_by_own_methods {
    ($($machine:ty),+) => {$(
        impl Netcode for $machine {
            fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<SocketAddr> {
                <$machine>::poll_transmit(self, now, buf)
            }
            fn poll_timeout(&self) -> Option<Instant> {
                <$machine>::poll_timeout(self)
            }
            fn handle_timeout(&mut self, now: Instant) {
                <$machine>::handle_timeout(self, now);
            }
        }
    )+};
}
netcode_by_own_methods!(NetcodeClient, NetcodeServer);

/// One end of secure mode: its netcode machine, its plain machine, and the steps of the
/// shared loop it takes its own way. Implemented by the client's and the server's ends only.
pub trait End: Sized + fmt::Debug {
    type Netcode: Netcode;
    type Inner: Machine + fmt::Debug;

    /// Hands netcode the datagram, and the plain machine the payload it carried when this
    /// end admits it.
    fn receive(s: &mut Secure<Self>, now: Instant, from: SocketAddr, datagram: &[u8]);

    /// Whether the plain machine is driven yet.
    fn runs_inner(s: &Secure<Self>) -> bool;

    /// Makes the plain machine follow what netcode did (a connection opened or ended).
    fn follow_netcode(s: &mut Secure<Self>, now: Instant);

    /// Makes netcode follow what the plain machine did (a connection it closed); whether
    /// netcode has packets to send for it.
    fn follow_inner(s: &mut Secure<Self>, now: Instant) -> bool;

    /// Whether [`follow_inner`](Self::follow_inner) runs before anything is sent (the
    /// client: its `END` is sealed before netcode disconnects) rather than once the plain
    /// machine has nothing left to send (the server, whose connections close one by one).
    const FOLLOW_INNER_FIRST: bool;

    /// Who the waiting plain datagrams are sealed toward (the client: its server; the
    /// server: a client's slot).
    type Peer: Copy;

    /// How this end seals toward a peer.
    type Sealer<'a>: Seal
    where
        Self: 'a;

    /// The peer the waiting plain datagrams go to, or `None` when this end has dealt with
    /// them itself (dropped, or queued to go out otherwise).
    fn sealing_peer(s: &mut Secure<Self>, now: Instant) -> Option<Self::Peer>;

    /// The sealing toward `peer` at `now`.
    fn sealer(netcode: &mut Self::Netcode, peer: Self::Peer, now: Instant) -> Self::Sealer<'_>;

    /// Counts `dropped` datagrams that could not be sealed: their peer was gone.
    fn lost(s: &mut Secure<Self>, dropped: u64);
}

/// The [`Machine`] surface, what a driver, the simulator or a generic loop calls.
impl<E: End> Machine for Secure<E> {
    /// Takes a datagram received from `from`: netcode's packets are handled below, and a
    /// payload from a connected peer goes to the plain machine as its datagram.
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        E::receive(self, now, from, datagram);
        E::follow_netcode(self, now);
    }

    /// Writes the next datagram or batch into `buf`: netcode's own packets first (one at a
    /// time), then the plain machine's datagrams, sealed as payload packets in batches of up
    /// to `max_datagrams` of one size (see [`Transmit`]), as the plain machine writes them.
    /// A connection closed above has its last datagrams sealed, then netcode's disconnect.
    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        if E::FOLLOW_INNER_FIRST {
            E::follow_inner(self, now);
        }
        loop {
            if let Some(to) = self.netcode.poll_transmit(now, buf) {
                return Some(Transmit::single(to, buf.len()));
            }
            if !E::runs_inner(self) {
                return None;
            }
            let (inner, capture) = (&mut self.inner, &mut self.capture);
            if !self.plain.fill(max_datagrams, |plain, max| {
                let transmit = inner.poll_transmit(now, plain, max);
                capture.sent(now, transmit, plain);
                transmit
            }) {
                if !E::FOLLOW_INNER_FIRST && E::follow_inner(self, now) {
                    continue;
                }
                return None;
            }
            let Some(peer) = E::sealing_peer(self, now) else {
                continue;
            };
            let sealed = {
                let mut sealer = E::sealer(&mut self.netcode, peer, now);
                self.plain.seal_into(buf, max_datagrams, &mut sealer)
            };
            match sealed {
                Ok(Some(transmit)) => return Some(transmit),
                Ok(None) => {}
                Err(dropped) => E::lost(self, dropped),
            }
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    fn poll_timeout(&self) -> Option<Instant> {
        let inner = if E::runs_inner(self) {
            self.inner.poll_timeout()
        } else {
            None
        };
        [inner, self.netcode.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs both layers' timers.
    fn handle_timeout(&mut self, now: Instant) {
        self.netcode.handle_timeout(now);
        E::follow_netcode(self, now);
        if E::runs_inner(self) {
            self.inner.handle_timeout(now);
        }
        E::follow_inner(self, now);
    }
}
