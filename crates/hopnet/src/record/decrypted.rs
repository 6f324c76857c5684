//! Secure mode's decrypted datagrams into a recording, when its operator asks
//! ([`RecordConfig::decrypted`](super::RecordConfig::decrypted)): the secure machine keeps a
//! copy of each plain datagram it opens or seals, and the driver moves them to the recorder
//! after each round, in place of the socket's encrypted ones.

use hopnet_proto::secure::{PlainDatagram, PlainDirection, SecureClient, SecureServer};

use super::{Direction, Recorder};
use crate::endpoint::{ClientMachine, ServerMachine};

/// Moves what a driver's machine kept to its recorder.
pub(crate) type Drain<M> = fn(&mut M, &mut Recorder);

/// Turns a server's capture on or off; the drain to run after each round, if on and secure.
pub(crate) fn server(machine: &mut ServerMachine, on: bool) -> Option<Drain<ServerMachine>> {
    let secure = machine.secure()?;
    secure.set_plain_capture(on);
    on.then_some(drain_server as Drain<ServerMachine>)
}

/// Turns a client's capture on or off; the drain to run after each round, if on and secure.
pub(crate) fn client(machine: &mut ClientMachine, on: bool) -> Option<Drain<ClientMachine>> {
    let secure = machine.secure()?;
    secure.set_plain_capture(on);
    on.then_some(drain_client as Drain<ClientMachine>)
}

fn drain_server(machine: &mut ServerMachine, recorder: &mut Recorder) {
    if let Some(secure) = machine.secure() {
        write(
            recorder,
            std::iter::from_fn(|| SecureServer::take_plain(secure)),
        );
    }
}

fn drain_client(machine: &mut ClientMachine, recorder: &mut Recorder) {
    if let Some(secure) = machine.secure() {
        write(
            recorder,
            std::iter::from_fn(|| SecureClient::take_plain(secure)),
        );
    }
}

fn write(recorder: &mut Recorder, datagrams: impl Iterator<Item = PlainDatagram>) {
    for d in datagrams {
        let direction = match d.direction {
            PlainDirection::Received => Direction::Inbound,
            PlainDirection::Sent => Direction::Outbound,
        };
        recorder.record(direction, d.at, d.peer, &d.bytes);
    }
}
