//! The plugin's own cost: the same game traffic through the server plugin and through hopnet
//! directly, in one run.
//!
//! 64 clients, 60 ticks a second, 10 messages a tick each way: every tick each client sends
//! the server 10 `Input`s (reliable ordered) and the server sends each client 10 `State`s
//! (unreliable), over hopnet's simulator (a perfect link; the extensions agreed). One
//! iteration is one second of the game: 38,400 messages each way. The clients are raw hopnet
//! connections in both runs (the same code); the server is a Bevy app with
//! `HopnetServerPlugin` (`MinimalPlugins`, manual time, a system that answers) in one, and a
//! loop over hopnet's `Server` in the other, encoding and decoding with hopnet-codec. The
//! difference is the plugin's: the Bevy schedule, messages, tags, the inbox, the shared
//! simulator's lock.
//!
//! Timed in the thread's CPU time where the platform has it (other processes on a shared
//! machine then do not count), else in wall time.
//!
//! `cargo bench -p hopnet-bevy --bench plugin_cost`

use std::hint::black_box;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use criterion::{Criterion, criterion_group, criterion_main};
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Delivery, Event, ServerEvent};
use hopnet_bevy::prelude::*;
use hopnet_bevy::sim::SimNet;
use hopnet_codec::Rabbit;

const CLIENTS: usize = 64;
const TICK_RATE: u32 = 60;
const PER_TICK: usize = 10;

#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Input {
    tick: u32,
    #[bits(4)]
    buttons: u8,
    aim: (f32, f32),
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
struct State {
    tick: u32,
    entity: u32,
    position: (f32, f32),
    health: u8,
}

fn config() -> hopnet::Config {
    hopnet::Config::builder()
        .extensions(true)
        .build()
        .expect("valid")
}

fn link() -> LinkConfig {
    LinkConfig {
        delay: Duration::from_millis(5),
        ..LinkConfig::default()
    }
}

fn tick() -> Duration {
    Duration::from_secs(1) / TICK_RATE
}

/// The clients' side, the same in both runs: read what came, send this tick's inputs.
fn clients_turn(net: &mut SimNetwork, tick: u32, buf: &mut Vec<u8>) -> usize {
    let mut states = 0;
    for i in 0..CLIENTS {
        while let Some(event) = net.client(i).poll_event() {
            if let Event::Message { bytes, .. } = event {
                if let Ok(state) = decode_state(&bytes) {
                    black_box(state);
                    states += 1;
                }
                net.client(i).recycle(bytes);
            }
        }
        for k in 0..PER_TICK {
            let input = Input {
                tick,
                buttons: (k % 16) as u8,
                aim: (k as f32, tick as f32),
            };
            encode_input(&input, buf);
            let _ = net.client(i).send(buf, Delivery::ReliableOrdered);
        }
    }
    states
}

/// The plugin frames with a tag; a raw client reads and writes the same bytes.
fn encode_input(input: &Input, buf: &mut Vec<u8>) {
    buf.clear();
    hopnet_codec::encode_into(&(0u32, input), buf).expect("encodes");
}

fn decode_state(bytes: &[u8]) -> hopnet_codec::Result<State> {
    let (_, state) = hopnet_codec::from_bytes::<(u32, State)>(bytes)?;
    Ok(state)
}

fn protocol(app: &mut App) {
    app.add_client_message::<Input>(Delivery::ReliableOrdered)
        .add_server_message::<State>(Delivery::Unreliable);
}

/// The plugin's server: answers every tick with 10 states to each client.
fn answer(
    mut inputs: MessageReader<FromClient<Input>>,
    server: Res<NetServer>,
    mut out: MessageWriter<ToClients<State>>,
    mut tick: Local<u32>,
) {
    *tick += 1;
    black_box(inputs.read().count());
    for client in server.clients() {
        for k in 0..PER_TICK {
            out.write(ToClients::one(
                client,
                State {
                    tick: *tick,
                    entity: k as u32,
                    position: (k as f32, *tick as f32),
                    health: 100,
                },
            ));
        }
    }
}

struct PluginRun {
    net: SimNet,
    server: App,
    tick: u32,
    buf: Vec<u8>,
}

impl PluginRun {
    fn new() -> PluginRun {
        let net = SimNet::new(1, config(), link());
        let mut server = App::new();
        server
            .add_plugins((MinimalPlugins, HopnetServerPlugin))
            .insert_resource(TimeUpdateStrategy::ManualDuration(tick()))
            .insert_resource(NetServer::new(net.server()))
            .add_systems(Update, answer);
        protocol(&mut server);
        net.with(|n| {
            for _ in 0..CLIENTS {
                n.add_client(config());
            }
        });
        let mut run = PluginRun {
            net,
            server,
            tick: 0,
            buf: Vec::new(),
        };
        // Connected, and the extensions agreed.
        for _ in 0..120 {
            run.tick();
        }
        assert_eq!(
            run.server.world().resource::<NetServer>().clients().count(),
            CLIENTS
        );
        run
    }

    fn tick(&mut self) -> usize {
        self.tick += 1;
        self.server.update();
        let (tick, buf) = (self.tick, &mut self.buf);
        self.net.with(|n| clients_turn(n, tick, buf))
    }
}

struct DirectRun {
    net: SimNetwork,
    tick: u32,
    buf: Vec<u8>,
    clients: Vec<hopnet::ConnectionId>,
}

impl DirectRun {
    fn new() -> DirectRun {
        let mut net = SimNetwork::new(1, config(), link());
        for _ in 0..CLIENTS {
            net.add_client(config());
        }
        let mut run = DirectRun {
            net,
            tick: 0,
            buf: Vec::new(),
            clients: Vec::new(),
        };
        for _ in 0..120 {
            run.tick();
        }
        assert_eq!(run.clients.len(), CLIENTS);
        run
    }

    fn tick(&mut self) -> usize {
        self.tick += 1;
        self.net.step(tick());
        let server = self.net.server();
        while let Some(ServerEvent {
            connection, event, ..
        }) = server.poll_event()
        {
            match event {
                Event::Connected => self.clients.push(connection),
                Event::Message { bytes, .. } => {
                    if let Ok((_, input)) = hopnet_codec::from_bytes::<(u32, Input)>(&bytes) {
                        black_box(input);
                    }
                    server.recycle(bytes);
                }
                _ => {}
            }
        }
        for &client in &self.clients {
            for k in 0..PER_TICK {
                let state = State {
                    tick: self.tick,
                    entity: k as u32,
                    position: (k as f32, self.tick as f32),
                    health: 100,
                };
                self.buf.clear();
                hopnet_codec::encode_into(&(0u32, &state), &mut self.buf).expect("encodes");
                let _ = server.send(client, &self.buf, Delivery::Unreliable);
            }
        }
        clients_turn(&mut self.net, self.tick, &mut self.buf)
    }
}

/// The thread's CPU time, where there is such a clock.
fn cpu_now() -> Duration {
    #[cfg(unix)]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }
    #[cfg(not(unix))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed()
    }
}

/// One second of the game per iteration, timed in CPU time.
fn second(c: &mut Criterion, name: &str, mut tick: impl FnMut() -> usize) {
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = cpu_now();
            let mut states = 0;
            for _ in 0..iters {
                for _ in 0..TICK_RATE {
                    states += tick();
                }
            }
            // Nearly every state arrives (a perfect link; the first tick's are in flight).
            assert!(
                states as u64 >= iters * (CLIENTS * PER_TICK * (TICK_RATE as usize - 1)) as u64
            );
            cpu_now() - start
        })
    });
}

fn plugin_cost(c: &mut Criterion) {
    let mut direct = DirectRun::new();
    let mut plugin = PluginRun::new();
    second(
        c,
        "64 clients x 60 Hz x 10 messages, one second/hopnet directly",
        || direct.tick(),
    );
    second(
        c,
        "64 clients x 60 Hz x 10 messages, one second/through the plugin",
        || plugin.tick(),
    );
}

criterion_group!(benches, plugin_cost);
criterion_main!(benches);
