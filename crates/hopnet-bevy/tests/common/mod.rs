//! What the two-app tests share: one message type per delivery mode, the systems that send
//! and record them, the stepper that runs a server app and client apps together with manual
//! time, and the checks of what each mode promises.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use hopnet::Delivery;
use hopnet_bevy::prelude::*;
use hopnet_codec::Rabbit;

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

/// Errors seen, as text.
#[derive(Resource, Debug, Default)]
pub struct Errors(pub Vec<String>);

fn record_errors(mut errors: MessageReader<NetworkError>, mut seen: ResMut<Errors>) {
    seen.0.extend(errors.read().map(ToString::to_string));
}

/// An app as a test builds one: `MinimalPlugins`, the time stepped by `tick` a frame.
pub fn app(tick: Duration) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(tick))
        .init_resource::<Errors>()
        .add_systems(Last, record_errors);
    app
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

/// A server app and client apps, updated together, a frame at a time.
pub struct Stepper {
    pub server: App,
    pub clients: Vec<App>,
}

impl Stepper {
    /// One frame: the server's update, then each client's.
    pub fn frame(&mut self) {
        self.server.update();
        for client in &mut self.clients {
            client.update();
        }
    }

    /// Frames until `done` (or `limit` frames); whether `done` came true.
    pub fn run_until(&mut self, limit: u32, mut done: impl FnMut(&mut Stepper) -> bool) -> bool {
        for _ in 0..limit {
            self.frame();
            if done(self) {
                return true;
            }
        }
        false
    }

    /// Every side starts writing from the next frame on.
    pub fn start(&mut self) {
        for app in std::iter::once(&mut self.server).chain(&mut self.clients) {
            app.world_mut().resource_mut::<Script>().ready = true;
        }
    }

    /// Whether the server has `n` clients and each client is connected.
    pub fn all_connected(&self) -> bool {
        self.server
            .world()
            .resource::<NetServer>()
            .clients()
            .count()
            == self.clients.len()
            && self
                .clients
                .iter()
                .all(|c| c.world().resource::<NetClient>().is_connected())
    }

    /// The server's id of client `i` (matched by port: a client binds the unspecified address).
    pub fn client_id(&self, i: usize) -> u64 {
        let port = self.clients[i]
            .world()
            .resource::<NetClient>()
            .local_addr()
            .unwrap()
            .port();
        let server = self.server.world().resource::<NetServer>();
        let id = server
            .clients()
            .find(|&id| server.client_address(id).unwrap().port() == port);
        id.expect("connected").0
    }

    pub fn script(app: &App) -> &Script {
        app.world().resource::<Script>()
    }

    pub fn arrivals(app: &App) -> &Arrivals {
        app.world().resource::<Arrivals>()
    }

    /// Whether every reliable message each side wrote has arrived where it was going.
    pub fn reliable_all_arrived(&self) -> bool {
        let reliable =
            |sent: &[(Delivery, u32, u32)]| sent.iter().filter(|(m, ..)| m.is_reliable()).count();
        let server_sent = reliable(&Stepper::script(&self.server).sent);
        let server_got = Stepper::arrivals(&self.server);
        let mut all = Stepper::script(&self.server).done();
        for client in &self.clients {
            all &= Stepper::script(client).done();
            let got = Stepper::arrivals(client);
            all &= got.arrived.iter().filter(|a| a.mode.is_reliable()).count() == server_sent;
        }
        let from_clients: usize = self
            .clients
            .iter()
            .map(|c| reliable(&Stepper::script(c).sent))
            .sum();
        all && server_got
            .arrived
            .iter()
            .filter(|a| a.mode.is_reliable())
            .count()
            == from_clients
    }
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
