//! Secure mode's decrypted datagrams into a recording, when its operator asks
//! ([`RecordConfig::decrypted`](super::RecordConfig::decrypted)): the secure machine keeps a
//! copy of each plain datagram it opens or seals, and the driver moves them to the recorder
//! after each round, in place of the socket's encrypted ones.

use hopnet_proto::secure::{PlainDatagram, PlainDirection, SecureClient, SecureServer};

use super::{Direction, Recorder};

/// Moves what a driver's machine kept to its recorder.
pub(crate) type Drain<M> = fn(&mut M, &mut Recorder);

/// Moves what a secure server kept to the recorder.
pub(crate) fn from_server(secure: &mut SecureServer, recorder: &mut Recorder) {
    write(recorder, std::iter::from_fn(|| secure.take_plain()));
}

/// Moves what a secure client kept to the recorder.
pub(crate) fn from_client(secure: &mut SecureClient, recorder: &mut Recorder) {
    write(recorder, std::iter::from_fn(|| secure.take_plain()));
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
