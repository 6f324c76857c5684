//! The harness of the seed protocols' tests (WOKE, Semi-ordered UDP over loopback UDP): a
//! few message types, each with its own delivery mode and numbered by its sender, written
//! once a frame by every side, and the checks of what the protocol promises of each mode;
//! [`seed_messages!`] makes the types and their systems for a test's list of modes.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::Duration;

use bevy::prelude::*;
use hopnet::Delivery;
use hopnet::Impairment;
use hopnet_bevy::prelude::*;
#[cfg(feature = "protocols")]
use hopnet_bevy::transport::seed::{SeedClient, SeedClientMachine, SeedServer, SeedServerMachine};
use hopnet_codec::Rabbit;

use super::stepper::{Stepper, app};

/// The frame time of the seed tests.
pub const TICK: Duration = Duration::from_millis(16);

/// Frames each side writes.
pub const FRAMES: u32 = 40;

/// One arrival: (sender, mode's type name, n).
pub type Arrival = (u64, &'static str, u32);

/// A message whose mode no seed protocol keeps.
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Ordered {
    pub n: u32,
}

/// Impairment dropping `loss` of what one end sends.
pub fn lossy(loss: f64, seed: u64) -> Option<Impairment> {
    Some(Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// A seed protocol's `server` and two clients of it (`connect` makes one for the server's
/// address), as the plugins' resources, each end dropping `loss` of what it sends with an
/// impairment seed of its own.
#[cfg(feature = "protocols")]
pub fn lossy_ends<S: SeedServerMachine, C: SeedClientMachine>(
    mut server: SeedServer<S>,
    connect: impl Fn(SocketAddr) -> SeedClient<C>,
    loss: f64,
) -> (NetServer, Vec<NetClient>) {
    server.driver().set_impairment(lossy(loss, 1));
    let addr = server.driver().local_addr().unwrap();
    let clients = (0..2)
        .map(|i| {
            let mut client = connect(addr);
            client.driver().set_impairment(lossy(loss, 10 + i));
            NetClient::new(client)
        })
        .collect();
    (NetServer::new(server), clients)
}

/// Frames written so far and what arrived, by arrival.
#[derive(Resource, Debug, Default)]
pub struct Log {
    pub ready: bool,
    pub written: u32,
    pub arrived: Vec<Arrival>,
    /// Semi-ordered messages (of type `Happened`) that arrived before a message of type
    /// `Chat` or `Happened` their sender wrote in an earlier frame.
    pub overtook: Vec<Arrival>,
}

impl Log {
    /// The number of this frame's messages, if the side writes in this frame.
    pub fn due(&mut self) -> Option<u32> {
        (self.ready && self.written < FRAMES).then(|| {
            self.written += 1;
            self.written - 1
        })
    }

    pub fn record(&mut self, arrival: Arrival) {
        if arrival.1 == "Happened" {
            let (from, _, n) = arrival;
            for mode in ["Chat", "Happened"] {
                let had: BTreeSet<u32> = self
                    .arrived
                    .iter()
                    .filter(|a| a.0 == from && a.1 == mode)
                    .map(|a| a.2)
                    .collect();
                if (0..n).any(|m| !had.contains(&m)) {
                    self.overtook.push(arrival);
                }
            }
        }
        self.arrived.push(arrival);
    }

    fn count(&self, mode: &str) -> usize {
        self.arrived.iter().filter(|a| a.1 == mode).count()
    }
}

/// The message types of a seed test, each `Name => delivery, pad` (`pad(n)`: the bytes of
/// message `n`, that tell a damaged one): the types, `protocol(app, with_ordered)` that
/// registers them (and [`Ordered`] if asked), and the systems that write them once a frame
/// and record what arrives.
macro_rules! seed_messages {
    ($($name:ident => $delivery:expr, $pad:expr);* $(;)?) => {
        $(
            #[derive(hopnet_codec::Rabbit, Debug, Clone, PartialEq)]
            struct $name {
                n: u32,
                pad: Vec<u8>,
            }
        )*

        /// Registers the types in the same order on every app.
        fn protocol(app: &mut App, with_ordered: bool) {
            $(app.add_network_message::<$name>($delivery);)*
            if with_ordered {
                app.add_network_message::<common::seed::Ordered>(Delivery::ReliableOrdered);
            }
            app.init_resource::<common::seed::Log>();
        }

        #[allow(non_snake_case)] // the type names, as bindings
        fn server_writes(
            mut log: ResMut<common::seed::Log>,
            mut writers: ($(MessageWriter<ToClients<$name>>,)*),
        ) {
            let Some(n) = log.due() else { return };
            let ($($name,)*) = &mut writers;
            $($name.write(ToClients::all($name { n, pad: $pad(n) }));)*
        }

        #[allow(non_snake_case)] // the type names, as bindings
        fn client_writes(
            mut log: ResMut<common::seed::Log>,
            mut writers: ($(MessageWriter<ToServer<$name>>,)*),
        ) {
            let Some(n) = log.due() else { return };
            let ($($name,)*) = &mut writers;
            $($name.write(ToServer::new($name { n, pad: $pad(n) }));)*
        }

        #[allow(non_snake_case)] // the type names, as bindings
        fn server_records(
            mut log: ResMut<common::seed::Log>,
            mut readers: ($(MessageReader<FromClient<$name>>,)*),
        ) {
            let ($($name,)*) = &mut readers;
            $(
                for m in $name.read() {
                    assert_eq!(m.message.pad, $pad(m.message.n), "damaged");
                    log.record((m.client.0, stringify!($name), m.message.n));
                }
            )*
        }

        #[allow(non_snake_case)] // the type names, as bindings
        fn client_records(
            mut log: ResMut<common::seed::Log>,
            mut readers: ($(MessageReader<FromServer<$name>>,)*),
        ) {
            let ($($name,)*) = &mut readers;
            $(
                for m in $name.read() {
                    assert_eq!(m.message.pad, $pad(m.message.n), "damaged");
                    log.record((0, stringify!($name), m.message.n));
                }
            )*
        }

        /// A server app on `server` and a client app on each of `clients`, writing and
        /// recording the test's types.
        fn apps(server: NetServer, clients: Vec<NetClient>, with_ordered: bool) -> common::Stepper {
            let mut server_app = common::app(common::seed::TICK);
            server_app
                .add_plugins(HopnetServerPlugin)
                .insert_resource(server)
                .add_systems(Update, (server_writes, server_records));
            protocol(&mut server_app, with_ordered);
            let clients = clients
                .into_iter()
                .map(|client| {
                    let mut app = common::app(common::seed::TICK);
                    app.add_plugins(HopnetClientPlugin)
                        .insert_resource(client)
                        .add_systems(Update, (client_writes, client_records));
                    protocol(&mut app, with_ordered);
                    app
                })
                .collect();
            common::Stepper::new(server_app, clients)
        }
    };
}

pub(crate) use seed_messages;

/// `app`'s log.
pub fn log(app: &App) -> &Log {
    app.world().resource::<Log>()
}

/// What one sender's messages did at one receiver: per mode, the numbers that arrived, each
/// at most once.
pub fn arrivals(got: &[Arrival], from: u64) -> BTreeMap<&'static str, Vec<u32>> {
    let mut by_mode: BTreeMap<&'static str, Vec<u32>> = BTreeMap::new();
    for &(sender, mode, n) in got {
        if sender == from {
            by_mode.entry(mode).or_default().push(n);
        }
    }
    for (mode, ns) in &mut by_mode {
        let len = ns.len();
        ns.sort_unstable();
        ns.dedup();
        assert_eq!(ns.len(), len, "{mode}: a message arrived twice");
        assert!(ns.iter().all(|&n| n < FRAMES), "{mode}: one never sent");
    }
    by_mode
}

/// Runs connected apps until every message of the `reliable` modes arrived both ways, then
/// `linger` for late ones, and checks what the protocol promises: every reliable one once and
/// intact, no semi-ordered one ahead of what it follows, every other one at most once and
/// intact (checked as it arrives and by [`arrivals`]), and no error.
pub fn run_and_check(stepper: &mut Stepper, reliable: &[&str], linger: Duration) {
    assert!(
        stepper.run_for(Duration::from_secs(10), |s| s.all_connected()),
        "not connected"
    );
    for app in stepper.apps_mut() {
        app.world_mut().resource_mut::<Log>().ready = true;
    }
    let clients = stepper.clients.len();
    let all_in = |s: &mut Stepper| {
        reliable.iter().all(|mode| {
            s.clients
                .iter()
                .all(|c| log(c).count(mode) == FRAMES as usize)
                && log(&s.server).count(mode) == clients * FRAMES as usize
        })
    };
    assert!(
        stepper.run_for(Duration::from_secs(60), all_in),
        "reliable messages missing after a minute"
    );
    stepper.run_for(linger, |_| false);

    let all: Vec<u32> = (0..FRAMES).collect();
    for client in &stepper.clients {
        let got = arrivals(&log(client).arrived, 0);
        for mode in reliable {
            assert_eq!(got[mode], all, "{mode}");
        }
        assert!(
            log(client).overtook.is_empty(),
            "{:?}",
            log(client).overtook
        );
    }
    let ids: Vec<u64> = stepper
        .server
        .world()
        .resource::<NetServer>()
        .clients()
        .map(|c| c.0)
        .collect();
    assert_eq!(ids.len(), clients);
    let server_log = log(&stepper.server);
    for id in ids {
        let got = arrivals(&server_log.arrived, id);
        for mode in reliable {
            assert_eq!(got[mode], all, "{mode} from client {id}");
        }
    }
    assert!(server_log.overtook.is_empty(), "{:?}", server_log.overtook);
    stepper.assert_no_errors();
}

/// Without loss, every message of `mode` arrived both ways.
pub fn assert_all_arrived(stepper: &Stepper, mode: &str) {
    let all: Vec<u32> = (0..FRAMES).collect();
    for client in &stepper.clients {
        assert_eq!(arrivals(&log(client).arrived, 0)[mode], all);
    }
    let server = stepper.server.world().resource::<NetServer>();
    for id in server.clients().map(|c| c.0) {
        assert_eq!(arrivals(&log(&stepper.server).arrived, id)[mode], all);
    }
}

/// Each side counted what it sent and handed up, and what the protocol does not keep is
/// unknown: no round-trip time, no byte counts, no hopnet counters.
pub fn assert_stats_are_the_glues(stepper: &mut Stepper, modes: usize) {
    let sent = Some((modes as u32 * FRAMES) as u64);
    let mut ids = Vec::new();
    for i in 0..stepper.clients.len() {
        ids.push(stepper.client_id(i));
        let arrived = log(&stepper.clients[i]).arrived.len() as u64;
        let stats = stepper.clients[i]
            .world_mut()
            .resource_mut::<NetClient>()
            .stats();
        assert_eq!(stats.messages_sent, sent, "{stats:?}");
        assert_eq!(stats.messages_delivered, Some(arrived), "{stats:?}");
        assert!(stats.packets_sent.unwrap() > 0 && stats.packets_received.unwrap() > 0);
        assert!(stats.pending_reliable.is_some(), "{stats:?}");
        assert_eq!(
            (
                stats.smoothed_rtt,
                stats.bytes_sent,
                stats.retransmissions,
                &stats.hopnet
            ),
            (None, None, None, &None)
        );
    }
    let arrived = log(&stepper.server).arrived.clone();
    let mut server = stepper.server.world_mut().resource_mut::<NetServer>();
    for id in ids {
        let stats = server.stats(id).expect("connected");
        let from = arrived.iter().filter(|a| a.0 == id.0).count() as u64;
        assert_eq!(stats.messages_sent, sent, "{stats:?}");
        assert_eq!(stats.messages_delivered, Some(from), "{stats:?}");
        assert_eq!(
            (stats.packets_sent, stats.smoothed_rtt, &stats.hopnet),
            (None, None, &None)
        );
    }
}

/// A message of a mode the protocol cannot keep, written on the server to one client and on
/// that client to the server, is refused on both sides by an error naming the mode and the
/// protocol (`name`); nothing else goes wrong and the connections stay open.
pub fn a_refused_mode_is_named(stepper: &mut Stepper, name: &str) {
    assert!(
        stepper.run_for(Duration::from_secs(10), |s| s.all_connected()),
        "not connected"
    );
    let client = stepper
        .server
        .world()
        .resource::<NetServer>()
        .clients()
        .next();
    stepper
        .server
        .world_mut()
        .write_message(ToClients::one(client.unwrap(), Ordered { n: 1 }));
    stepper.clients[0]
        .world_mut()
        .write_message(ToServer::new(Ordered { n: 2 }));
    stepper.run_for(Duration::from_millis(500), |_| false);

    for app in [&stepper.server, &stepper.clients[0]] {
        let errors = Stepper::errors(app);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("ReliableOrdered") && errors[0].contains(name),
            "{errors:?}"
        );
    }
    assert!(Stepper::errors(&stepper.clients[1]).is_empty());
    assert!(stepper.all_connected());
}
