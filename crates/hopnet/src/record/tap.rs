//! A machine with a recorder at its boundary: every datagram handed in and every one written
//! out goes to the recording on its way. Owned for a loop of your own or the simulator, borrowed
//! for a driver's round of I/O ([`Tap`]): one type and one [`Machine`] impl serve both, so the
//! two cannot record differently.

use std::borrow::BorrowMut;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet_proto::{Machine, Transmit};

use super::{Direction, Recorder};

/// A machine and its recorder borrowed from a driver, for one round of its I/O.
pub(crate) type Tap<'a, M> = Recorded<M, &'a mut M, &'a mut Recorder>;

impl<'a, M> Tap<'a, M> {
    /// `machine`, recorded by `recorder` while the tap lives.
    pub(crate) fn borrowed(machine: &'a mut M, recorder: &'a mut Recorder) -> Self {
        Recorded {
            machine,
            recorder,
            machine_type: PhantomData,
        }
    }
}

/// A machine whose datagrams are recorded: a [`Machine`] itself, to run in a loop of your own
/// or in the [simulator](crate::sim), where the drivers' `record` is not.
///
/// Write it `Recorded<M>`: the machine and the recorder are then its own (`H = M`,
/// `R = Recorder`); the drivers use it with both borrowed.
///
/// ```no_run
/// use hopnet::record::{RecordConfig, Recorded, Recorder};
/// use hopnet::sim::{LinkConfig, SimNetwork};
/// use hopnet::proto::{Client, Server};
/// use hopnet::Config;
///
/// let server = Server::with_seed(Config::default(), 1);
/// let mut net: SimNetwork<Server, Recorded<Client>> =
///     SimNetwork::with_machines(7, server, LinkConfig::default());
/// let addr = "10.0.0.2:40000".parse().unwrap();
/// let client = Client::with_seed(Config::default(), net.server_addr(), net.now(), 2);
/// let recorder = Recorder::create(RecordConfig::new("bot.pcapng"), addr, net.now())?;
/// let bot = net.add_client_machine_at(addr, Recorded::new(client, recorder));
/// net.run_until(std::time::Duration::from_secs(5), |n| n.client(bot).machine().is_connected());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Recorded<M, H = M, R = Recorder> {
    machine: H,
    recorder: R,
    machine_type: PhantomData<M>,
}

impl<M> Recorded<M> {
    /// `machine`, its datagrams recorded by `recorder`.
    pub fn new(machine: M, recorder: Recorder) -> Recorded<M> {
        Recorded {
            machine,
            recorder,
            machine_type: PhantomData,
        }
    }

    /// The machine.
    pub fn machine(&mut self) -> &mut M {
        &mut self.machine
    }

    /// The recorder.
    pub fn recorder(&mut self) -> &mut Recorder {
        &mut self.recorder
    }

    /// The machine and the recorder, apart (the recorder flushed).
    pub fn into_parts(mut self) -> (M, Recorder) {
        self.recorder.flush();
        (self.machine, self.recorder)
    }
}

impl<M: Machine, H: BorrowMut<M>, R: BorrowMut<Recorder>> Machine for Recorded<M, H, R> {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.recorder
            .borrow_mut()
            .record(Direction::Inbound, now, from, datagram);
        self.machine.borrow_mut().handle(now, from, datagram);
    }

    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        let transmit = self
            .machine
            .borrow_mut()
            .poll_transmit(now, buf, max_datagrams)?;
        let written = buf.get(..transmit.size).unwrap_or(buf);
        for datagram in transmit.split(written) {
            self.recorder.borrow_mut().record(
                Direction::Outbound,
                now,
                transmit.destination,
                datagram,
            );
        }
        Some(transmit)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.machine.borrow().poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.machine.borrow_mut().handle_timeout(now);
    }
}
