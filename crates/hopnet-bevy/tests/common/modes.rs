//! The every-mode harness of the two-app tests (simulator, UDP, secure mode): one message
//! type per delivery mode, the systems that send and record them on the [`Stepper`]'s apps,
//! and the checks of what each mode promises.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::prelude::*;
use hopnet::Delivery;
use hopnet_bevy::prelude::*;
use hopnet_codec::Rabbit;

use super::stepper::{Stepper, app};

/// What every test message carries: the sender's running number over all its messages (the
/// order they were written in), the number within its mode, and some bytes (several chunks'
/// worth now and then, so that reassembly is on the way).
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Probe {
    pub seq: u32,
    pub n: u32,
    pub pad: Vec<u8>,
}

macro_rules! modes {
    ($($name:ident => $delivery:expr),* $(,)?) => {
        $(
            #[derive(Rabbit, Debug, Clone, PartialEq)]
            pub struct $name {
                pub probe: Probe,
            }
        )*

        /// The modes, in registration order.
        pub const MODES: &[Delivery] = &[$($delivery),*];

        /// Registers one type per mode, both ways, in the same order on every app.
        pub fn protocol(app: &mut App) {
            $(app.add_network_message::<$name>($delivery);)*
        }

        /// Writes one message of every mode, in registration order, as a client.
        #[allow(non_snake_case)] // the type names, as bindings
        fn client_writes(
            mut script: ResMut<Script>,
            mut writers: ($(MessageWriter<ToServer<$name>>,)*),
        ) {
            if !script.due() {
                return;
            }
            let ($($name,)*) = &mut writers;
            $(
                let probe = script.next($delivery);
                $name.write(ToServer::new($name { probe }));
            )*
        }

        /// Writes one message of every mode, in registration order, to all clients.
        #[allow(non_snake_case)] // the type names, as bindings
        fn server_writes(
            mut script: ResMut<Script>,
            mut writers: ($(MessageWriter<ToClients<$name>>,)*),
        ) {
            if !script.due() {
                return;
            }
            let ($($name,)*) = &mut writers;
            $(
                let probe = script.next($delivery);
                $name.write(ToClients::all($name { probe }));
            )*
        }

        /// Records what arrived at the server, by client.
        #[allow(non_snake_case)] // the type names, as bindings
        fn server_records(
            mut log: ResMut<Arrivals>,
            mut readers: ($(MessageReader<FromClient<$name>>,)*),
        ) {
            log.frame += 1;
            let frame = log.frame;
            let ($($name,)*) = &mut readers;
            $(
                for m in $name.read() {
                    log.arrived.push(Arrival { from: m.client.0, mode: $delivery, probe: m.message.probe.clone(), frame });
                }
            )*
        }

        /// Records what arrived at a client.
        #[allow(non_snake_case)] // the type names, as bindings
        fn client_records(
            mut log: ResMut<Arrivals>,
            mut readers: ($(MessageReader<FromServer<$name>>,)*),
        ) {
            log.frame += 1;
            let frame = log.frame;
            let ($($name,)*) = &mut readers;
            $(
                for m in $name.read() {
                    log.arrived.push(Arrival { from: 0, mode: $delivery, probe: m.message.probe.clone(), frame });
                }
            )*
        }
    };
}

modes! {
    Unreliable => Delivery::Unreliable,
    Sequenced => Delivery::Sequenced,
    Reliable => Delivery::Reliable,
    ReliableOrdered => Delivery::ReliableOrdered,
    SemiOrdered => Delivery::SemiOrdered,
    Tracked => Delivery::Tracked,
}

/// What a side writes: a message of every mode per frame, for `frames` frames once the
/// stepper starts it.
#[derive(Resource, Debug, Default)]
pub struct Script {
    pub frames: u32,
    seq: u32,
    per_mode: BTreeMap<String, u32>,
    /// (mode, seq, n) of everything written, in order.
    pub sent: Vec<(Delivery, u32, u32)>,
    ready: bool,
}

impl Script {
    fn due(&mut self) -> bool {
        if !self.ready || self.frames == 0 {
            return false;
        }
        self.frames -= 1;
        true
    }

    fn next(&mut self, mode: Delivery) -> Probe {
        let n = self.per_mode.entry(format!("{mode:?}")).or_default();
        let probe = Probe {
            seq: self.seq,
            n: *n,
            pad: vec![self.seq as u8; pad_len(self.seq)],
        };
        self.sent.push((mode, self.seq, *n));
        *n += 1;
        self.seq += 1;
        probe
    }

    pub fn done(&self) -> bool {
        self.frames == 0
    }
}

/// The padding of message `seq`: now and then three chunks and a bit.
fn pad_len(seq: u32) -> usize {
    if seq.is_multiple_of(7) {
        1600
    } else {
        seq as usize % 40
    }
}

/// One arrival.
#[derive(Debug, Clone)]
pub struct Arrival {
    pub from: u64,
    pub mode: Delivery,
    pub probe: Probe,
    /// The receiver's frame it arrived in.
    pub frame: u32,
}

/// What arrived, in order, frame by frame.
#[derive(Resource, Debug, Default)]
pub struct Arrivals {
    pub frame: u32,
    pub arrived: Vec<Arrival>,
}

/// A server app that writes `frames` frames of every mode to all once started, and records
/// what its clients send.
pub fn server_app(tick: Duration, server: NetServer, frames: u32) -> App {
    let mut app = app(tick);
    app.add_plugins(HopnetServerPlugin)
        .insert_resource(server)
        .insert_resource(Script {
            frames,
            ..default()
        })
        .init_resource::<Arrivals>()
        .add_systems(Update, server_writes)
        .add_systems(Update, server_records);
    protocol(&mut app);
    app
}

/// A client app that writes `frames` frames of every mode once started, and records what the
/// server sends.
pub fn client_app(tick: Duration, client: NetClient, frames: u32) -> App {
    let mut app = app(tick);
    app.add_plugins(HopnetClientPlugin)
        .insert_resource(client)
        .insert_resource(Script {
            frames,
            ..default()
        })
        .init_resource::<Arrivals>()
        .add_systems(Update, client_writes)
        .add_systems(Update, client_records);
    protocol(&mut app);
    app
}

/// What `app`'s side wrote.
pub fn script(app: &App) -> &Script {
    app.world().resource::<Script>()
}

/// What arrived at `app`.
pub fn arrivals(app: &App) -> &Arrivals {
    app.world().resource::<Arrivals>()
}

/// Every side starts writing from the next frame on.
pub fn start(stepper: &mut Stepper) {
    for app in stepper.apps_mut() {
        app.world_mut().resource_mut::<Script>().ready = true;
    }
}

/// Whether every reliable message each side wrote has arrived where it was going.
pub fn reliable_all_arrived(stepper: &Stepper) -> bool {
    let reliable =
        |sent: &[(Delivery, u32, u32)]| sent.iter().filter(|(m, ..)| m.is_reliable()).count();
    let server_sent = reliable(&script(&stepper.server).sent);
    let mut all = script(&stepper.server).done();
    for client in &stepper.clients {
        all &= script(client).done();
        let got = arrivals(client);
        all &= got.arrived.iter().filter(|a| a.mode.is_reliable()).count() == server_sent;
    }
    let from_clients: usize = stepper
        .clients
        .iter()
        .map(|c| reliable(&script(c).sent))
        .sum();
    all && arrivals(&stepper.server)
        .arrived
        .iter()
        .filter(|a| a.mode.is_reliable())
        .count()
        == from_clients
}

/// What arrived at each end from each other end, checked against what was written and what
/// each mode promises (see [`check`]); `inspect` sees each sender-receiver pair's counts.
pub fn check_both_ways(
    stepper: &Stepper,
    sequenced_in_order: bool,
    mut inspect: impl FnMut(&BTreeMap<String, (usize, usize)>),
) {
    let server_sent = &script(&stepper.server).sent;
    for client in &stepper.clients {
        assert!(script(client).done());
        let got: Vec<_> = arrivals(client).arrived.iter().collect();
        inspect(&check(server_sent, &got, sequenced_in_order));
    }
    let server_got = &arrivals(&stepper.server).arrived;
    for (i, client) in stepper.clients.iter().enumerate() {
        let id = stepper.client_id(i).0;
        let got: Vec<_> = server_got.iter().filter(|a| a.from == id).collect();
        inspect(&check(&script(client).sent, &got, sequenced_in_order));
    }
    stepper.assert_no_errors();
}

/// What one receiver got from one sender, checked against what the sender wrote and what
/// each mode promises; returns, per mode, how many arrived of how many sent.
/// `sequenced_in_order`: whether the ends agreed to hopnet's extensions, without which a
/// sequenced message is an unreliable one (its receiver does not drop older ones).
pub fn check(
    sent: &[(Delivery, u32, u32)],
    arrived: &[&Arrival],
    sequenced_in_order: bool,
) -> BTreeMap<String, (usize, usize)> {
    let mut counts = BTreeMap::new();
    // Nothing arrives twice, nothing arrives that was not sent, and what arrives is intact.
    let sent_seqs: BTreeMap<u32, (Delivery, u32)> =
        sent.iter().map(|&(m, seq, n)| (seq, (m, n))).collect();
    let mut seen = BTreeSet::new();
    for a in arrived {
        assert!(
            seen.insert(a.probe.seq),
            "message {} arrived twice",
            a.probe.seq
        );
        assert_eq!(
            sent_seqs.get(&a.probe.seq),
            Some(&(a.mode, a.probe.n)),
            "an arrival that was not sent as such: {a:?}"
        );
        assert_eq!(
            a.probe.pad,
            vec![a.probe.seq as u8; pad_len(a.probe.seq)],
            "damaged: {}",
            a.probe.seq
        );
    }
    // The frame each message arrived in.
    let frame_of: BTreeMap<u32, u32> = arrived.iter().map(|a| (a.probe.seq, a.frame)).collect();
    for &mode in MODES {
        let of_mode: Vec<&&Arrival> = arrived.iter().filter(|a| a.mode == mode).collect();
        let sent_of_mode = sent.iter().filter(|(m, ..)| *m == mode).count();
        counts.insert(format!("{mode:?}"), (of_mode.len(), sent_of_mode));
        let ns: Vec<u32> = of_mode.iter().map(|a| a.probe.n).collect();
        match mode {
            Delivery::Reliable | Delivery::ReliableOrdered | Delivery::SemiOrdered => {
                assert_eq!(ns.len(), sent_of_mode, "{mode:?}: every one arrives");
            }
            _ => {}
        }
        if mode == Delivery::ReliableOrdered || (mode == Delivery::Sequenced && sequenced_in_order)
        {
            assert!(
                ns.windows(2).all(|w| w[0] < w[1]),
                "{mode:?} arrived out of order: {ns:?}"
            );
        }
        // Ordered modes come after what they must follow: by the end of the frame one
        // arrived in, everything it follows has arrived too.
        let follows = |other: Delivery| match mode {
            Delivery::ReliableOrdered => other.is_ordered(),
            Delivery::SemiOrdered => other.is_reliable(),
            _ => false,
        };
        for a in &of_mode {
            for &(other, seq, _) in sent
                .iter()
                .filter(|(o, s, _)| follows(*o) && *s < a.probe.seq)
            {
                let at = frame_of.get(&seq);
                assert!(
                    at.is_some_and(|&f| f <= a.frame),
                    "{mode:?} {} (frame {}) arrived before {other:?} message {seq} sent before it ({at:?})",
                    a.probe.seq,
                    a.frame,
                );
            }
        }
    }
    counts
}
