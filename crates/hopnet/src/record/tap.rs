//! A machine with a recorder at its boundary: every datagram handed in and every one written
//! out goes to the recording on its way. Borrowed for a driver's round of I/O ([`Tap`]), owned
//! for a loop of your own or the simulator ([`Recorded`]).

use std::net::SocketAddr;
use std::time::Instant;

use hopnet_proto::{Machine, Transmit};

use super::{Direction, Recorder};

/// A machine and its recorder, for one round of a driver.
pub(crate) struct Tap<'a, M> {
    pub(crate) machine: &'a mut M,
    pub(crate) recorder: &'a mut Recorder,
}

impl<M: Machine> Machine for Tap<'_, M> {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.recorder
            .record(Direction::Inbound, now, from, datagram);
        self.machine.handle(now, from, datagram);
    }

    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        let transmit = self.machine.poll_transmit(now, buf, max_datagrams)?;
        let written = buf.get(..transmit.size).unwrap_or(buf);
        for datagram in transmit.split(written) {
            self.recorder
                .record(Direction::Outbound, now, transmit.destination, datagram);
        }
        Some(transmit)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.machine.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.machine.handle_timeout(now);
    }
}

/// A machine whose datagrams are recorded: a [`Machine`] itself, to run in a loop of your own
/// or in the [simulator](crate::sim), where the drivers' `record` is not.
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
pub struct Recorded<M> {
    machine: M,
    recorder: Recorder,
}

impl<M> Recorded<M> {
    /// `machine`, its datagrams recorded by `recorder`.
    pub fn new(machine: M, recorder: Recorder) -> Recorded<M> {
        Recorded { machine, recorder }
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

    fn tap(&mut self) -> Tap<'_, M> {
        Tap {
            machine: &mut self.machine,
            recorder: &mut self.recorder,
        }
    }
}

impl<M: Machine> Machine for Recorded<M> {
    fn handle(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.tap().handle(now, from, datagram);
    }

    fn poll_transmit(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        max_datagrams: usize,
    ) -> Option<Transmit> {
        self.tap().poll_transmit(now, buf, max_datagrams)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.machine.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.machine.handle_timeout(now);
    }
}
