//! A recording fed back into a machine offline: the same datagrams at the same times, the
//! machine's timers run at its own deadlines in between, and what the machine writes kept to
//! be compared with what it wrote then.
//!
//! A machine is sans-I/O and its randomness comes from its seed, so a fresh machine of the
//! same seed and configuration, made at the replay's start, fed what the recorded one was fed,
//! does what it did: the same events in the same order, the same datagrams out. What the
//! recording does not hold is the application: its sends (and closes) are calls on the
//! machine, not datagrams. A replay therefore reproduces events when the application does the
//! same again: sends queued before the replay starts, and what it does in answer to events,
//! which it sees between [`Replay::step`]s as it saw them between rounds of I/O. An
//! application that sends on its own clock (a tick) is replayed by doing so at the same
//! instants, which `step` returns.
//!
//! One step is what a driver's round or the [simulator](crate::sim) does at one instant: every
//! datagram that arrived then is handed in, the timers run if due, and the machine's datagrams
//! are taken. A simulated session replays exactly. A recording of a real socket replays as
//! closely as its timers ran on time: a driver runs a timer when it wakes, a little after its
//! deadline, where a replay runs it at the deadline.
//!
//! ```no_run
//! use std::time::Instant;
//! use hopnet::record::Recording;
//! use hopnet::replay::Replay;
//! use hopnet::proto::Client;
//! use hopnet::Config;
//!
//! let recording = Recording::read("bot.pcapng")?;
//! let start = Instant::now();
//! let server = "10.0.0.1:7000".parse().unwrap();
//! // The recorded client's configuration and seed, made at the replay's start.
//! let mut client = Client::with_seed(Config::default(), server, start, 2);
//! let mut replay = Replay::new(&recording, start);
//! while replay.step(&mut client).is_some() {
//!     while let Some(event) = client.poll_event() {
//!         println!("{event:?}");
//!     }
//! }
//! assert_eq!(replay.outbound(), recording.outbound().collect::<Vec<_>>());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::{Duration, Instant};

use hopnet_proto::Machine;

use crate::record::{Direction, RecordedDatagram, Recording};

/// Steps at one instant after which time moves on by a millisecond, as in the simulator: a
/// timer that keeps itself due never hangs a replay.
const MAX_SPINS: u32 = 10_000;

/// A recording being fed to a machine, one instant at a time.
#[derive(Debug)]
pub struct Replay<'r> {
    datagrams: &'r [RecordedDatagram],
    next: usize,
    start: Instant,
    now: Instant,
    spins: u32,
    buf: Vec<u8>,
    outbound: Vec<RecordedDatagram>,
}

impl<'r> Replay<'r> {
    /// A replay of `recording` whose origin is `start`: the instant the machine to be fed was
    /// made at, as the recorded one was made at the recording's origin.
    pub fn new(recording: &'r Recording, start: Instant) -> Replay<'r> {
        Replay {
            datagrams: &recording.datagrams,
            next: 0,
            start,
            now: start,
            spins: 0,
            buf: Vec::new(),
            outbound: Vec::new(),
        }
    }

    /// Runs the next instant: the machine's next deadline or the next recorded datagram,
    /// whichever comes first. Returns the instant, or `None` once the recording is over (a
    /// timer after its last datagram is not run).
    pub fn step<M: Machine>(&mut self, machine: &mut M) -> Option<Instant> {
        // A time beyond what an instant can hold (a damaged file) ends the replay.
        let recorded = self.start.checked_add(self.datagrams.get(self.next)?.at)?;
        let timer = machine.poll_timeout().map(|t| t.max(self.now));
        let at = timer.map_or(recorded, |t| t.min(recorded)).max(self.now);
        if at > self.now {
            self.now = at;
            self.spins = 0;
        } else {
            self.spins += 1;
            if self.spins > MAX_SPINS && at < recorded {
                self.now += Duration::from_millis(1);
                self.spins = 0;
            }
        }
        let now = self.now;
        let due = |d: &RecordedDatagram| self.start.checked_add(d.at).is_some_and(|t| t <= now);
        while let Some(d) = self.datagrams.get(self.next)
            && due(d)
            && d.direction == Direction::Inbound
        {
            machine.handle(now, d.peer, &d.bytes);
            self.next += 1;
        }
        if machine.poll_timeout().is_some_and(|t| t <= now) {
            machine.handle_timeout(now);
        }
        while let Some(transmit) = machine.poll_transmit(now, &mut self.buf, 1) {
            let written = self.buf.get(..transmit.size).unwrap_or(&self.buf);
            for datagram in transmit.split(written) {
                self.outbound.push(RecordedDatagram {
                    at: now - self.start,
                    direction: Direction::Outbound,
                    peer: transmit.destination,
                    bytes: datagram.to_vec(),
                });
            }
        }
        // What the recorded machine wrote at this instant, passed over: the replay's own is
        // in `outbound`, to compare.
        while let Some(d) = self.datagrams.get(self.next)
            && due(d)
            && d.direction == Direction::Outbound
        {
            self.next += 1;
        }
        Some(now)
    }

    /// What the machine wrote during the replay, as a recording would hold it.
    pub fn outbound(&self) -> Vec<&RecordedDatagram> {
        self.outbound.iter().collect()
    }

    /// What the machine wrote during the replay, taken.
    pub fn into_outbound(self) -> Vec<RecordedDatagram> {
        self.outbound
    }
}

impl Recording {
    /// The datagrams the recorded machine wrote.
    pub fn outbound(&self) -> impl Iterator<Item = &RecordedDatagram> {
        self.datagrams
            .iter()
            .filter(|d| d.direction == Direction::Outbound)
    }
}

/// Replays the whole of `recording` into `machine` (made at `start`, see [`Replay::new`]),
/// calling `after` with the machine after every instant (where the application drains its
/// events and answers them); returns what the machine wrote.
///
/// ```no_run
/// use std::time::Instant;
/// use hopnet::record::Recording;
/// use hopnet::proto::Client;
/// use hopnet::Config;
///
/// let recording = Recording::read("bot.pcapng")?;
/// let start = Instant::now();
/// let mut client = Client::with_seed(Config::default(), "10.0.0.1:7000".parse()?, start, 2);
/// let mut events = Vec::new();
/// let written = hopnet::replay::replay(&recording, &mut client, start, |_, c| {
///     events.extend(std::iter::from_fn(|| c.poll_event()));
/// });
/// assert_eq!(written.len(), recording.outbound().count());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replay<M: Machine>(
    recording: &Recording,
    machine: &mut M,
    start: Instant,
    mut after: impl FnMut(Instant, &mut M),
) -> Vec<RecordedDatagram> {
    let mut replay = Replay::new(recording, start);
    while let Some(now) = replay.step(machine) {
        after(now, machine);
    }
    replay.into_outbound()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopnet_proto::{Client, Config};

    #[test]
    fn a_time_beyond_any_instant_ends_the_replay_without_a_panic() {
        let start = Instant::now();
        let datagram = |at| RecordedDatagram {
            at,
            direction: Direction::Inbound,
            peer: "10.0.0.1:7000".parse().unwrap(),
            bytes: vec![0xff; 7],
        };
        let recording = Recording {
            origin: Duration::ZERO,
            local: "10.0.0.2:4000".parse().unwrap(),
            decrypted: false,
            datagrams: vec![datagram(Duration::from_millis(5)), datagram(Duration::MAX)],
        };
        let server = "10.0.0.1:7000".parse().unwrap();
        let mut client = Client::with_seed(Config::default(), server, start, 1);
        let written = replay(&recording, &mut client, start, |_, _| {});
        assert!(
            !written.is_empty(),
            "the client's handshake went out before"
        );
    }
}
